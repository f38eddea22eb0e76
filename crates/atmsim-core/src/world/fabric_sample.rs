//! The fabric trace: every `trace.interval`, with traces on, each fabric
//! device's buffers (`trace::FabricTrace`, one row per device of
//! `fabric/nodes.rs`). Off the cell path: a sample reads the VOQs, the
//! reassembly streams and the links' queues as they are.

use super::fabric::Fabric;
use super::World;
use crate::fabric::nodes;
use crate::trace::FabricTrace;

impl World {
    /// One row per fabric device at `t` (seconds), if the network is a
    /// fabric and traces are on.
    pub(super) fn sample_fabric(&mut self, t: f64) {
        if let (Some(f), Some(tr)) = (self.services.fabric(), self.traces.as_mut()) {
            f.sample(t, &mut tr.fabric);
        }
    }
}

impl Fabric {
    fn sample(&self, t: f64, out: &mut FabricTrace) {
        let g = &self.cfg.geometry;
        let n = nodes::count(g) as usize;
        let (mut voq, mut largest_voq, mut reassembly) = (vec![0; n], vec![0; n], vec![0; n]);
        for (v, (q, s)) in self.voqs.iter().zip(&self.streams).enumerate() {
            let (src, port) = g.voq_ends(v as u32);
            voq[src as usize] += q.qsize;
            largest_voq[src as usize] = largest_voq[src as usize].max(q.qsize);
            reassembly[g.fap_of_port(port) as usize] += s.bytes_waiting();
        }
        let (mut queued, mut largest_link) = (vec![0; n], vec![0; n]);
        for (l, link) in self.links.iter().enumerate() {
            let d = nodes::sender(g, l as u32) as usize;
            queued[d] += link.queued();
            largest_link[d] = largest_link[d].max(link.queued());
        }
        for d in 0..n {
            out.t.push(t);
            out.node.push(d as u32);
            out.voq_bytes.push(voq[d]);
            out.largest_voq_bytes.push(largest_voq[d]);
            out.queued_cells.push(queued[d]);
            out.largest_link_cells.push(largest_link[d]);
            out.reassembly_bytes.push(reassembly[d]);
        }
    }
}
