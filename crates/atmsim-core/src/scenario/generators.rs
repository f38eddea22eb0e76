//! `[workload] pattern`: the usual traffic matrices generated, so that no
//! matrix file needs copying (docs/fabrics.md, "Generators"). Each pattern
//! is a registered mechanism selected by `workload.pattern`, with its own
//! keys, so a key the chosen pattern does not read is refused like any
//! inert key. A pattern yields a [`Matrix`], checked and turned into flows
//! exactly as a file's (`scenario/workload.rs`).

use super::matrix::{Conn, Matrix, Start, TriggerDef, TriggerKind, MAX_CONNECTIONS};
use super::{err, ScenarioError};
use crate::base::mechanism::{Golden, Key, KeyDefault, KeyKind, Mechanism, Networks, Params};
use crate::rng::{stream, Stream};
use rand::seq::SliceRandom;

/// The largest finite transfer (2^62 bytes): its end, one past the last
/// sequence number, and every window arithmetic above it stay inside 64 bits.
/// The resolver checks a flow's `bytes` against it; the workload's keys are
/// declared up to it, so a generated flow too large is refused naming the
/// workload's key, not a flow the user never wrote ("flow[Eqds_0_1].bytes").
pub const MAX_FLOW_BYTES: u64 = 1 << 62;

const BYTES: Key = Key {
    name: "workload.bytes",
    kind: KeyKind::Count { unit: "bytes", min: 1, max: MAX_FLOW_BYTES },
    default: KeyDefault::Value("2000000"),
    about: "bytes of each flow (validate.txt's flows are 2,000,000 B)",
};
const GROUP: Key = Key {
    name: "workload.group",
    kind: KeyKind::Count { unit: "hosts", min: 2, max: u64::MAX },
    default: KeyDefault::Computed("every host of the tree"),
    about: "ranks per group: hosts h0.. in consecutive groups of this many (hosts past the last whole group stay idle)",
};
const SENDERS: Key = Key {
    name: "workload.senders",
    kind: KeyKind::Count { unit: "hosts", min: 1, max: u64::MAX },
    default: KeyDefault::Computed("every host but the receiver"),
    about: "senders: the first this many hosts other than the receiver, in host order",
};
const RECEIVER: Key = Key {
    name: "workload.receiver",
    kind: KeyKind::Count { unit: "host number", min: 0, max: u64::MAX },
    default: KeyDefault::Value("0"),
    about: "the receiving host's number (h0 = 0)",
};
const BUCKET: Key = Key {
    name: "workload.bucket",
    kind: KeyKind::Count { unit: "bytes", min: 1, max: MAX_FLOW_BYTES },
    default: KeyDefault::Value("26214400"),
    about: "bytes each rank all-reduces (PyTorch DDP's 25-MB gradient bucket); each step moves bucket/group, rounded up",
};

const fn pattern(name: &'static str, about: &'static str, keys: &'static [Key], goldens: &'static [Golden]) -> Mechanism {
    Mechanism {
        name,
        selected_by: "workload.pattern",
        networks: Networks::Packet,
        about,
        docs: "fabrics.md#generators",
        keys,
        counters: &[],
        goldens,
    }
}

/// Every pattern (`registry.rs` lists them with the other mechanisms).
pub static PATTERNS: [Mechanism; 4] = [
    pattern(
        "incast",
        "N senders to one receiver, all from 0 (htsim gen_incast.py, with its senders in host order)",
        &[SENDERS, RECEIVER, BYTES],
        &[Golden { scenario: "eqds-one", variation: "incast-3", overrides: &["workload.pattern=incast", "workload.senders=3", "workload.bytes=300000"] }],
    ),
    pattern(
        "permutation",
        "every host sends to another, no host to itself, each receiving once: a derangement drawn from the run's seed (htsim gen_permutation.py)",
        &[BYTES],
        &[Golden { scenario: "eqds-one", variation: "permutation", overrides: &["workload.pattern=permutation", "workload.bytes=200000"] }],
    ),
    pattern(
        "shift_all_to_all",
        "all-to-all in rounds: rank r sends to r+1, r+2, ... of its group in turn, each flow started when its previous one is sent (htsim gen_serial_alltoall.py)",
        &[GROUP, BYTES],
        &[Golden {
            scenario: "eqds-one",
            variation: "shift-all-to-all",
            overrides: &["workload.pattern=shift_all_to_all", "workload.group=4", "workload.bytes=100000"],
        }],
    ),
    pattern(
        "ring_allreduce",
        "ring all-reduce per group of G ranks: 2(G-1) steps of bucket/G bytes, each step started by the previous step's arrival (htsim gen_allreduce.py, with receive-done triggers)",
        &[GROUP, BUCKET],
        &[Golden {
            scenario: "eqds-one",
            variation: "ring-allreduce",
            // NDP: EQDS flows smaller than their speculative window stall here (docs/fabrics.md, "Generators").
            overrides: &["workload.pattern=ring_allreduce", "workload.group=4", "workload.bucket=400000", "workload.kind=ndp"],
        }],
    ),
];

/// A collective of the generated matrix: its name, the indices of its
/// connections, the bytes each rank reduces, its ranks.
pub type Job = (String, Vec<usize>, u64, u32);

/// The matrix of `pattern` over `hosts` hosts, with its jobs.
pub fn generate(pattern: &str, p: &Params, hosts: u32, seed: u64) -> Result<(Matrix, Vec<Job>), ScenarioError> {
    let bytes = p.count(BYTES.name).unwrap_or(2_000_000);
    let group = || -> Result<u32, ScenarioError> {
        match p.count(GROUP.name) {
            None if hosts >= 2 => Ok(hosts),
            Some(g) if g >= 2 && g <= hosts as u64 => Ok(g as u32),
            _ => err(GROUP.name, format!("must be 2 to the tree's {hosts} hosts")),
        }
    };
    let mut m = Matrix { nodes: hosts, ..Matrix::default() };
    let mut jobs = Vec::new();
    let at_zero =
        |src: u32, dst: u32, size: u64| Conn { line: 0, src, dst, id: None, start: Start::At(0), size, send_done: None, recv_done: None };
    match pattern {
        "incast" => {
            let receiver = p.count(RECEIVER.name).unwrap_or(0);
            if receiver >= hosts as u64 {
                return err(RECEIVER.name, format!("host {receiver} is beyond the tree's {hosts} hosts (0 to {})", hosts - 1));
            }
            let senders = p.count(SENDERS.name).unwrap_or(hosts as u64 - 1);
            if senders >= hosts as u64 {
                return err(SENDERS.name, format!("{senders} senders: the tree has {hosts} hosts, one of them the receiver"));
            }
            let others = (0..hosts).filter(|&h| h as u64 != receiver).take(senders as usize);
            m.conns = others.map(|h| at_zero(h, receiver as u32, bytes)).collect();
        }
        "permutation" => {
            if hosts < 2 {
                return err("workload.pattern", "a permutation needs at least 2 hosts");
            }
            // A uniform derangement: shuffles drawn until one has no fixed point (about e tries).
            let mut rng = stream(seed, Stream::Workload);
            let mut to: Vec<u32> = (0..hosts).collect();
            loop {
                to.shuffle(&mut rng);
                if to.iter().enumerate().all(|(i, &d)| i as u32 != d) {
                    break;
                }
            }
            m.conns = to.iter().enumerate().map(|(s, &d)| at_zero(s as u32, d, bytes)).collect();
        }
        "shift_all_to_all" | "ring_allreduce" => {
            let g = group()?;
            let ring = pattern == "ring_allreduce";
            // Per rank, one chain of flows, each started by the previous one.
            let (steps, size) =
                if ring { (2 * (g - 1), p.count(BUCKET.name).unwrap_or(26_214_400).div_ceil(g as u64)) } else { (g - 1, bytes) };
            // Counted before any is made: a matrix file's bound. 8,192 ranks of all-to-all are 67 million
            // flows, which ended in an allocation failure (an abort) before anything was checked.
            let flows = (hosts / g * g) as u64 * steps as u64;
            if flows > MAX_CONNECTIONS as u64 {
                let (key, given) = match p.count(GROUP.name) {
                    Some(_) => (GROUP.name, String::new()),
                    None => ("workload.pattern", format!(" (workload.group is every host, {g}, unless set)")),
                };
                return err(
                    key,
                    format!("{flows} flows of {g} ranks a group{given}: more than the {MAX_CONNECTIONS} a workload may have, as a matrix file; a smaller workload.group"),
                );
            }
            for base in (0..hosts / g).map(|k| k * g) {
                let first = m.conns.len();
                for r in 0..g {
                    for k in 1..=steps {
                        // All-to-all: rank r sends to r+k. Ring: rank r's chunk moves one hop a step.
                        let (from, to) = if ring { ((r + k - 1) % g, (r + k) % g) } else { (r, (r + k) % g) };
                        let id = m.conns.len() as u32 + 1;
                        let start = if k == 1 { Start::At(0) } else { Start::Trigger(id - 1) };
                        let mut c = Conn { id: Some(id), start, ..at_zero(base + from, base + to, size) };
                        if k < steps {
                            m.triggers.push(TriggerDef { line: 0, id, kind: TriggerKind::Oneshot });
                            // The ring's next step needs this step's data; the all-to-all's next flow only its sender.
                            *(if ring { &mut c.recv_done } else { &mut c.send_done }) = Some(id);
                        }
                        m.conns.push(c);
                    }
                }
                if ring {
                    let bucket = p.count(BUCKET.name).unwrap_or(26_214_400);
                    jobs.push((format!("allreduce{}", base / g), (first..m.conns.len()).collect(), bucket, g));
                }
            }
        }
        other => unreachable!("workload.pattern \"{other}\" is checked against the registry"),
    }
    Ok((m, jobs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::mechanism::ParamValue;

    fn params(kv: &[(&'static str, u64)]) -> Params {
        Params(kv.iter().map(|&(k, v)| (k, ParamValue::Count(v))).collect())
    }

    #[test]
    fn an_incast_is_the_first_hosts_to_the_receiver() {
        let (m, jobs) = generate("incast", &params(&[("workload.senders", 15), ("workload.receiver", 15)]), 16, 1).unwrap();
        assert_eq!(m.conns.iter().map(|c| (c.src, c.dst)).collect::<Vec<_>>(), (0..15).map(|s| (s, 15)).collect::<Vec<_>>());
        assert!(jobs.is_empty());
        assert_eq!(generate("incast", &params(&[("workload.senders", 16)]), 16, 1).unwrap_err().key, "workload.senders");
        assert_eq!(generate("incast", &params(&[("workload.receiver", 16)]), 16, 1).unwrap_err().key, "workload.receiver");
    }

    #[test]
    fn a_permutation_has_no_fixed_point_and_follows_the_seed() {
        let perm = |seed| generate("permutation", &Params::default(), 128, seed).unwrap().0;
        for seed in 0..20 {
            let m = perm(seed);
            let mut dsts: Vec<u32> = m.conns.iter().map(|c| c.dst).collect();
            assert!(m.conns.iter().all(|c| c.src != c.dst));
            dsts.sort_unstable();
            assert_eq!(dsts, (0..128).collect::<Vec<_>>(), "each host receives once");
        }
        assert_eq!(perm(3), perm(3));
        assert_ne!(perm(3), perm(4));
    }

    #[test]
    fn a_ring_allreduce_chains_2g_minus_2_steps_per_rank() {
        let (m, jobs) = generate("ring_allreduce", &params(&[("workload.group", 4), ("workload.bucket", 400_001)]), 10, 1).unwrap();
        // Two groups of 4 (hosts 8 and 9 idle), 4 chains of 6 steps each.
        assert_eq!(m.conns.len(), 2 * 4 * 6);
        assert!(m.conns.iter().all(|c| c.size == 100_001 && c.dst < 8));
        let chain: Vec<(u32, u32)> = m.conns[..6].iter().map(|c| (c.src, c.dst)).collect();
        assert_eq!(chain, vec![(0, 1), (1, 2), (2, 3), (3, 0), (0, 1), (1, 2)]);
        assert_eq!((m.conns[1].start, m.conns[0].recv_done, m.conns[5].recv_done), (Start::Trigger(1), Some(1), None));
        assert_eq!(jobs.len(), 2);
        assert_eq!((jobs[1].1.len(), jobs[1].2, jobs[1].3), (24, 400_001, 4));
        assert!(super::super::matrix_check::check(&m, 10, &mut crate::scenario::stop::Stop::new(&mut || true)).unwrap().is_some());
    }

    #[test]
    fn a_shift_all_to_all_sends_to_each_peer_in_turn() {
        let (m, _) = generate("shift_all_to_all", &params(&[("workload.group", 3)]), 3, 1).unwrap();
        let pairs: Vec<(u32, u32)> = m.conns.iter().map(|c| (c.src, c.dst)).collect();
        assert_eq!(pairs, vec![(0, 1), (0, 2), (1, 2), (1, 0), (2, 0), (2, 1)]);
        assert_eq!((m.conns[0].send_done, m.conns[1].start), (Some(1), Start::Trigger(1)));
        assert_eq!(generate("shift_all_to_all", &params(&[("workload.group", 4)]), 3, 1).unwrap_err().key, "workload.group");
    }

    #[test]
    fn a_collective_of_more_flows_than_a_matrix_may_hold_is_refused_before_any_is_made() {
        // A k = 32 tree's 8,192 hosts as one group: 67,100,672 all-to-all flows, and twice as many ring
        // steps, ended in an allocation failure (an abort). 1,025 ranks of all-to-all are 1,049,600 flows;
        // a k = 16 tree's 1,024 are 1,047,552, which a matrix file may hold too.
        for (pattern, set, hosts, key) in [
            ("shift_all_to_all", params(&[]), 8192, "workload.pattern"),
            ("ring_allreduce", params(&[]), 8192, "workload.pattern"),
            ("shift_all_to_all", params(&[]), 1025, "workload.pattern"),
            ("ring_allreduce", params(&[("workload.group", 1024)]), 1024, "workload.group"),
            ("shift_all_to_all", params(&[("workload.group", 130)]), 8192, "workload.group"),
        ] {
            let e = generate(pattern, &set, hosts, 1).unwrap_err();
            assert_eq!(e.key, key, "{e}");
            assert!(e.problem.contains("more than the 1048576 a workload may have"), "{e}");
        }
        assert_eq!(generate("shift_all_to_all", &params(&[]), 1024, 1).unwrap().0.conns.len(), 1024 * 1023);
        assert_eq!(generate("shift_all_to_all", &params(&[("workload.group", 129)]), 8192, 1).unwrap().0.conns.len(), 63 * 129 * 128);
    }
}
