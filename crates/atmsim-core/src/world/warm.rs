//! Fetching a pipe head's data ahead of its event on a large network
//! (docs/performance.md, "EQDS from 8 flows to 1,024 hosts"): a packet-hop
//! reads its port, the front of the port's pipe, the next port of the
//! unit's route, that port's trimming books and its pipe's back, each
//! address known only from the one before, so on a network whose ports
//! do not fit the processor's caches each hop waited for one miss after
//! another. When a pipe head becomes a gap lane's front it is due within
//! a few events (`Scheduler::take_revealed`); from then on, a step an
//! event, the processor is asked for each of those lines in turn, reading
//! only the lines asked for the step before. Nothing here changes a value:
//! a prefetch is a hint (a pipe head that runs before its last step was
//! fetched for nothing).

use super::World;
use crate::net::route::{ESCAPE, STEP};
use crate::net::{Discipline, Port, PortId};

/// Ports beyond this many bytes are fetched ahead (`World::warm_ahead`):
/// a core's second-level cache on this project's machines (2 MiB;
/// docs/performance.md). The 1,024-host fat tree's 6,144 ports take
/// 2.75 MB before their pipes and books; the 128-host tree's 768, 344 kB.
pub(super) const WARM_FROM_BYTES: usize = 2 << 20;

/// Asks the processor to bring the cache line holding `at` into its
/// caches. Not a read the program sees: it cannot change a value.
#[inline(always)]
fn prefetch<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHh only hints the cache hierarchy; it never faults,
    // whatever the address, and reads nothing into the program (Intel
    // SDM vol. 2, PREFETCHh).
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast())
    }
    // Elsewhere no hint is given.
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// The first `lines` cache lines of a port (a unit-hop's fields lie in
/// its first four: `Port`'s layout test).
#[inline(always)]
fn prefetch_port(port: &Port, lines: usize) {
    let at = (port as *const Port).cast::<u8>();
    for k in 0..lines {
        prefetch(at.wrapping_add(64 * k));
    }
}

/// A trimming port's books live in a box of their own.
#[inline(always)]
fn prefetch_books(port: &Port) {
    if let Discipline::TrimFifo(t) = &port.discipline {
        prefetch(&**t);
    }
}

impl World {
    /// Pipe head `p` was revealed: the steps of the two revealed before
    /// it move on (and the next port found for the one before them), and
    /// `p`'s port lines are asked for.
    #[inline(never)]
    pub(super) fn warm(&mut self, p: PortId) {
        let [a, b, next] = self.warming;
        // Second step: the next port of the pipe's head, from its route
        // (kept for the third step, at the next reveal).
        let q = b.and_then(|b| self.next_port(b));
        self.warming = [Some(p), a, q];
        // Third step: the next port's books and its pipe's back.
        if let Some(next) = next {
            let next = &self.ports[next.ix()];
            prefetch_books(next);
            if !next.pipe.is_empty() {
                prefetch(next.pipe.from_back(1));
            }
        }
        if let Some(q) = q {
            prefetch_port(&self.ports[q.ix()], 4);
        }
        // First step: the pipe's head and the port's books.
        if let Some(a) = a {
            let port = &self.ports[a.ix()];
            if let Some(head) = port.pipe.front() {
                prefetch(head);
            }
            prefetch_books(port);
        }
        prefetch_port(&self.ports[p.ix()], 2);
    }

    /// The port the head of `p`'s pipe enters next, if it names one
    /// without an escape (`World::pipe_head`).
    #[inline(always)]
    fn next_port(&self, p: PortId) -> Option<PortId> {
        let port = &self.ports[p.ix()];
        let head = port.pipe.front()?;
        let next = self.vcs.exits().exit(port.far_exits + (head.unit.route & STEP));
        (next.0 < ESCAPE.0).then_some(next)
    }
}
