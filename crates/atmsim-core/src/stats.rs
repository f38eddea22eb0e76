//! Derived statistics: loss episodes, Jain's fairness index.

use crate::ledger::Loss;

/// Jain's fairness index (Σx)² / (n Σx²); 1 for equal shares.
pub fn jain_fairness(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if s2 == 0.0 {
        return 1.0;
    }
    s * s / (n * s2)
}

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct EpisodeCounts {
    pub episodes: u64,
    /// Exactly one segment lost.
    pub single: u64,
    /// Two or more segments lost.
    pub multiple: u64,
    /// Two or more lost, two of them adjacent in sequence space.
    pub consecutive: u64,
    /// Histogram: `by_size[k]` episodes with k+1 lost segments (last bucket: ≥ 8).
    pub by_size: [u64; 8],
}

/// Groups one connection's lost segments into loss episodes
/// (our reading of Aron & Druschel §5.2; docs/metrics.md): the segments whose transmissions
/// fall within one smoothed RTT of the episode's first lost segment.
pub fn loss_episodes(losses: &[Loss]) -> EpisodeCounts {
    let mut v: Vec<Loss> = losses.to_vec();
    v.sort_by_key(|l| (l.sent_at, l.seq));
    let mut c = EpisodeCounts::default();
    let mut i = 0;
    while i < v.len() {
        let first = v[i];
        let window = first.srtt.max(1);
        let mut j = i + 1;
        while j < v.len() && v[j].sent_at - first.sent_at <= window {
            j += 1;
        }
        let ep = &mut v[i..j];
        ep.sort_by_key(|l| l.seq);
        let n = ep.len();
        c.episodes += 1;
        c.by_size[(n - 1).min(7)] += 1;
        if n == 1 {
            c.single += 1;
        } else {
            c.multiple += 1;
            if ep.windows(2).any(|w| w[0].seq + w[0].len as u64 == w[1].seq) {
                c.consecutive += 1;
            }
        }
        i = j;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loss(seq: u64, at: u64) -> Loss {
        Loss { seq, len: 10, sent_at: at, srtt: 100 }
    }

    #[test]
    fn fairness_index_bounds() {
        assert!((jain_fairness(&[1.0, 1.0, 1.0]) - 1.0).abs() < 1e-12);
        assert!((jain_fairness(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }

    #[test]
    fn episodes_group_by_rtt_and_detect_adjacency() {
        let l = vec![loss(1, 0), loss(11, 5), loss(100, 1000), loss(200, 2000), loss(300, 2050)];
        let c = loss_episodes(&l);
        assert_eq!(c.episodes, 3);
        assert_eq!(c.single, 1);
        assert_eq!(c.multiple, 2);
        assert_eq!(c.consecutive, 1, "1 and 11 are adjacent; 200 and 300 are not");
    }
}
