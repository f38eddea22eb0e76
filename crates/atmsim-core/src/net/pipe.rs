//! The pipe of a link: the units on the wire (and, at a FIFO port, the ones
//! still queued for it), in arrival order, each with its arrival time at the
//! far node: a [`Ring`] of [`InFlight`].

use crate::net::InFlight;
use crate::ring::Ring;

pub type Pipe = Ring<InFlight>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{Unit, VcId};
    use std::collections::VecDeque;

    fn f(t: u64) -> InFlight {
        InFlight { arrive_at: t, unit: Unit::new(VcId(0), t as u32, 0, 1, 53) }
    }

    #[test]
    fn behaves_as_a_deque_across_growth_and_wrap_around() {
        let (mut p, mut d) = (Pipe::new(), VecDeque::new());
        let mut x = 7u64;
        for t in 0..5000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if (x >> 61) < 5 {
                p.push_back(f(t));
                d.push_back(f(t));
            } else {
                assert_eq!(p.pop_front().map(|i| i.arrive_at), d.pop_front().map(|i| i.arrive_at));
            }
            assert_eq!(p.len(), d.len());
            assert_eq!(p.front().map(|i| i.arrive_at), d.front().map(|i| i.arrive_at));
            if !d.is_empty() {
                assert_eq!(p.from_back(1).arrive_at, d.back().unwrap().arrive_at);
                let mid = d.len() / 2;
                assert_eq!(p.get(mid).arrive_at, d[mid].arrive_at);
                // The runs from a position, across the wrap-around too.
                let i = (x >> 20) as usize % (d.len() + 1);
                assert!(p.iter_from(i).map(|f| f.arrive_at).eq(d.range(i..).map(|f| f.arrive_at)));
            }
        }
        assert!(p.iter().map(|i| i.arrive_at).eq(d.iter().map(|i| i.arrive_at)));
    }

    #[test]
    fn extend_with_is_push_back_in_order() {
        let (mut whole, mut single) = (Pipe::new(), Pipe::new());
        for round in 0..40u64 {
            // Runs of every length, across growth and the wrap-around.
            let n = (round * 7 % 23) as usize;
            whole.extend_with(n, |k| f(100 * round + k as u64));
            for k in 0..n {
                single.push_back(f(100 * round + k as u64));
            }
            for _ in 0..(round % 5) * 3 {
                assert_eq!(whole.pop_front().map(|i| i.arrive_at), single.pop_front().map(|i| i.arrive_at));
            }
            assert!(whole.iter().map(|i| i.arrive_at).eq(single.iter().map(|i| i.arrive_at)));
        }
        assert_eq!(whole.slots(), single.slots());
    }

    #[test]
    fn a_new_capacity_is_filled_only_as_the_ring_reaches_it() {
        let mut p = Pipe::new();
        for t in 0..17 {
            p.push_back(f(t));
        }
        assert_eq!(p.slots(), (32, 17));
        for t in 17..40 {
            p.pop_front();
            p.push_back(f(t));
        }
        assert_eq!(p.slots(), (32, 32));
        assert!(p.iter().map(|i| i.arrive_at).eq(23..40));
    }

    #[test]
    fn remove_closes_the_gap_and_update_reaches_the_tail() {
        let mut p = Pipe::new();
        // Wrap the ring first so the removal crosses its end.
        for t in 0..12 {
            p.push_back(f(t));
        }
        for _ in 0..10 {
            p.pop_front();
        }
        for t in 12..24 {
            p.push_back(f(t));
        }
        assert_eq!(p.remove(3).arrive_at, 13);
        p.update_from(10, |i| i.arrive_at += 100);
        let got: Vec<_> = p.iter().map(|i| i.arrive_at).collect();
        assert_eq!(got, vec![10, 11, 12, 14, 15, 16, 17, 18, 19, 20, 121, 122, 123]);
        assert_eq!(p.iter_from(11).count(), 2);
    }

    #[test]
    #[should_panic(expected = "beyond")]
    fn indexing_past_the_end_panics() {
        let mut p = Pipe::new();
        p.push_back(f(1));
        p.get(1);
    }
}
