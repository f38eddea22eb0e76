//! Building an EQDS run's flows and hosts (`eqds.rs`, `transport/eqds/`):
//! each flow's entropy-to-path tables from its switches' salted hashes
//! (E10), its fixed timeout (E11), and every host's NIC and pull pacer.

use super::eqds::{EqdsEnds, EqdsHosts};
use crate::net::{FlowId, HostId, Limit, NodeId, VcTable};
use crate::rng::{stream, Stream};
use crate::scenario::{FlowModel, Model};
use crate::time::Time;
use crate::transport::eqds::{entropy_paths, Entropy, EqdsConfig, EqdsNic, EqdsPacer, EqdsSink, EqdsSource, QUANTUM};

/// One random hash salt per node, drawn in node order (only switches hash).
pub(super) fn switch_salts(model: &Model) -> Vec<u64> {
    crate::rng::switch_salts(model.seed, model.is_host.len())
}

/// EQDS flow `fid`'s VCs (every shortest path each way) and its ends.
pub(super) fn endpoints(
    model: &Model,
    cfg: &EqdsConfig,
    fid: FlowId,
    f: &FlowModel,
    ends: (HostId, HostId),
    salts: &[u64],
    vcs: &mut VcTable,
) -> EqdsEnds {
    vcs.open_multipath(fid, ends.0, ends.1, &f.data_paths, &f.ack_paths, cfg.header);
    let entropy = Entropy::new(cfg.paths, stream(model.seed, Stream::Flow(fid)));
    let values: Vec<u16> = (0..entropy.count()).map(|i| entropy.value(i)).collect();
    let salt_of = |p: crate::net::PortId| {
        let NodeId(n) = model.ports[p.ix()].from;
        salts[n as usize]
    };
    // The two directions are two flows to the switches' hash (htsim's sink has a flow of its own).
    let data_paths = entropy_paths(&f.data_paths, salt_of, 2 * fid.0 as u64, &values);
    let reply_paths = entropy_paths(&f.ack_paths, salt_of, 2 * fid.0 as u64 + 1, &values);
    let pull_path = entropy_paths(&f.ack_paths, salt_of, 2 * fid.0 as u64 + 1, &[0])[0];
    let first = &f.data_paths[0];
    let line = model.ports[first[0].ix()].rate;
    // E11: the drains of the first switch queue on the way (every switch port's is `switch.buffer`).
    let queue = first.get(1).map_or(0, |p| match model.ports[p.ix()].limit {
        Limit::Bytes(b) => b,
        _ => 0,
    });
    let size = f.bytes.expect("validated: EQDS flows are bounded");
    let source = EqdsSource::new(cfg, size, cfg.rto(queue, line), entropy, data_paths);
    let sink = EqdsSink::new(cfg, size, reply_paths, pull_path);
    EqdsEnds { source, sink }
}

impl EqdsHosts {
    /// Every host's NIC and pacer; each host's line is its one port's rate.
    pub(super) fn new(model: &Model, cfg: EqdsConfig, num_hosts: usize, ends: Vec<Option<EqdsEnds>>) -> EqdsHosts {
        let mut line = vec![None; num_hosts];
        let mut host = 0;
        let mut host_of = vec![None; model.is_host.len()];
        for (n, &is) in model.is_host.iter().enumerate() {
            if is {
                host_of[n] = Some(host);
                host += 1;
            }
        }
        for p in &model.ports {
            if let Some(h) = host_of[p.from.ix()] {
                line[h] = Some(p.rate);
            }
        }
        let line: Vec<_> = line.into_iter().map(|r| r.expect("every host has a port")).collect();
        EqdsHosts {
            nics: vec![EqdsNic::default(); num_hosts],
            pacers: vec![EqdsPacer::default(); num_hosts],
            spacing: line.iter().map(|&r| cfg.pull_spacing(r)).collect(),
            line,
            ends,
            max_slow: (cfg.cwnd as u64 * cfg.mtu as u64 / QUANTUM) as u32,
            header: cfg.header,
        }
    }

    /// The gaps its events recur at: pacer intervals, a full packet's and a
    /// header's time on a host's line.
    pub(super) fn gaps(&self, cfg: &EqdsConfig) -> Vec<Time> {
        let mut g: Vec<Time> = self.spacing.clone();
        for r in &self.line {
            g.push(r.tx_time(cfg.mtu as u64));
            g.push(r.tx_time(cfg.header as u64));
        }
        g.sort_unstable();
        g.dedup();
        g
    }
}
