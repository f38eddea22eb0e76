//! Fetching a pipe head's data ahead of its event on a large network
//! (docs/performance.md, "EQDS from 8 flows to 1,024 hosts"): a packet-hop
//! reads its port, the front of the port's pipe, the next port of the
//! unit's route (a trimming port's books among its first lines) and its pipe's back, each
//! address known only from the one before, so on a network whose ports
//! do not fit the processor's caches each hop waited for one miss after
//! another. When a pipe head comes within a few places of a gap lane's
//! front it is due within a few events (`Scheduler::take_revealed`,
//! [`REVEAL_AT`]); from then on, a step an
//! event, the processor is asked for each of those lines in turn, reading
//! only the lines asked for the step before. Nothing here changes a value:
//! a prefetch is a hint (a pipe head that runs before its last step was
//! fetched for nothing).

use super::World;
use crate::net::route::{ends_route, ESCAPE, STEP};
use crate::net::{Port, PortId, VcId};

/// Ports beyond this many bytes are fetched ahead (`World::warm_ahead`):
/// a core's second-level cache on the machines this was measured on (2
/// MiB; session 36's had 1 MiB, docs/performance.md). The 1,024-host fat tree's 6,144 ports take
/// 2.75 MB before their pipes and books; the 128-host tree's 768, 344 kB.
pub(super) const WARM_FROM_BYTES: usize = 2 << 20;

/// The place in its gap lane at which a pipe head is revealed
/// (`Scheduler::reveal_at`): four events of that lane before its own, so
/// that the three steps below are done before it runs. Revealed at the
/// lane's front, a pipe head often ran before the second step; the
/// 1,024-host permutation's loop took 2.54–2.67 s at 0 against 2.07–2.14 s
/// at 4 (1 ms, pinned; 3 and 6 did no better; docs/performance.md,
/// "Pipe heads revealed four places ahead").
pub(super) const REVEAL_AT: usize = 4;

/// Do `n` ports outgrow a core's second-level cache ([`WARM_FROM_BYTES`])?
pub(super) fn outgrows_cache(n: usize) -> bool {
    n * std::mem::size_of::<Port>() > WARM_FROM_BYTES
}

/// An empty array for `n` ports. With `huge`, its capacity is rounded so
/// that the allocation, a mapping of its own at this size, spans whole
/// 2-MiB pages less the allocator's header: Linux places an anonymous
/// mapping whose length is a multiple of 2 MiB on a 2-MiB boundary
/// (`thp_get_unmapped_area`), so every port lies in a page that can be
/// made huge ([`World::huge_pages`]; measured: without the rounding the
/// 1,024-host tree's 2.75 MB of ports held no whole aligned 2 MiB, and all
/// stayed in 4-KiB pages). The spare capacity is never used: ports are
/// not added after the build. An allocator or kernel that places it
/// otherwise costs only the spare bytes.
pub(super) fn port_array(n: usize, huge: bool) -> Vec<Port> {
    if !huge {
        return Vec::with_capacity(n);
    }
    // What the allocator adds to the request: glibc's chunk header and,
    // for a 64-byte-aligned type, memalign's slack (the alignment and a
    // minimum chunk); at 64 bytes the mapping came out 4 KiB too long.
    const HEADER: usize = 256;
    let size = std::mem::size_of::<Port>();
    let pages = (n * size + HEADER).div_ceil(HUGE_PAGE);
    Vec::with_capacity((pages * HUGE_PAGE - HEADER) / size)
}

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

/// Where a pipe head's unit goes: on to a port, or to the end of its
/// route (its VC and frame).
enum Goes {
    To(PortId),
    Ends(VcId, u32),
}

/// Cache lines of a VC's ledger a unit at its route's end reads
/// (`Ledger::cell_arrived`, `open_header`, `resolve`).
const LEDGER_LINES: usize = 3;

/// The first `lines` cache lines of a value (a port's unit-hop fields lie
/// in its first four: `Port`'s layout test).
#[inline(always)]
fn prefetch_lines<T>(value: &T, lines: usize) {
    let at = (value as *const T).cast::<u8>();
    for k in 0..lines {
        prefetch(at.wrapping_add(64 * k));
    }
}

impl World {
    /// Pipe head `p` was revealed: the steps of the two revealed before
    /// it move on (and the next port found for the one before them), and
    /// `p`'s port lines are asked for.
    #[inline(never)]
    pub(super) fn warm(&mut self, p: PortId) {
        let [a, b, next] = self.warming;
        let ending = self.warming_end.take();
        // Second step: the next port of the pipe's head, from its route
        // (kept for the third step, at the next reveal); or, for a unit at
        // the end of its route, its VC's ledger (and, kept, its frame).
        let q = match b.and_then(|b| self.pipe_head_goes(b)) {
            Some(Goes::To(q)) => Some(q),
            Some(Goes::Ends(vc, frame)) => {
                prefetch_lines(&self.ledgers[vc.ix()], LEDGER_LINES);
                self.warming_end = Some((vc, frame));
                None
            }
            None => None,
        };
        self.warming = [Some(p), a, q];
        // Third step at a route's end: the frame's record in the ledger, and
        // (ATM) the record of the frame whose cells arrived before, which its
        // arrival settles (`Ledger::cell_arrived`).
        if let Some((vc, frame)) = ending {
            let ledger = &self.ledgers[vc.ix()];
            for record in [ledger.open_record(frame), ledger.arriving_record()].into_iter().flatten() {
                prefetch(record);
            }
        }
        // Third step: the next port's pipe's back (its books, a trimming
        // port's included, are on the lines asked for at the second).
        if let Some(next) = next {
            let next = &self.ports[next.ix()];
            if !next.pipe.is_empty() {
                prefetch(next.pipe.from_back(1));
            }
        }
        if let Some(q) = q {
            prefetch_lines(&self.ports[q.ix()], 4);
        }
        // First step: the pipe's head (the port's books are on its first
        // two lines, asked for at the reveal).
        if let Some(a) = a {
            if let Some(head) = self.ports[a.ix()].pipe.front() {
                prefetch(head);
            }
        }
        prefetch_lines(&self.ports[p.ix()], 2);
    }

    /// Where the head of `p`'s pipe goes (`World::pipe_head`): the next
    /// port its route names without an escape, or the end of its route.
    #[inline(always)]
    fn pipe_head_goes(&self, p: PortId) -> Option<Goes> {
        let port = &self.ports[p.ix()];
        let unit = &port.pipe.front()?.unit;
        let next = self.vcs.exits().exit(port.far_exits + (unit.route & STEP));
        if next.0 < ESCAPE.0 {
            Some(Goes::To(next))
        } else if ends_route(next, unit.route) && !unit.is_frameless() {
            Some(Goes::Ends(unit.vc, unit.frame))
        } else {
            None
        }
    }
}

/// Transparent huge pages (2 MiB on x86-64) for the memory a large run's
/// hops read at random. A 1,024-host run's 49 MiB are 12 k pages of 4 KiB,
/// beyond the processor's second-level TLB, and a miss there walks two page
/// tables on a virtual machine (docs/performance.md, "What misses at 1,024
/// hosts"); in 2-MiB pages they are 25 entries. This machine's kernel gives
/// such pages only to memory advised so (`madvise` mode), and the allocator
/// gives no advice unless told from outside the program, so the mappings
/// holding the world's arrays are advised here, and the pages already
/// written gathered at once (`MADV_COLLAPSE`, Linux 6.1). Advice changes no
/// byte of memory, so no value of the run can change; a kernel that refuses
/// it (an older one, THP off) leaves the run as it was.
const HUGE_PAGE: usize = 2 << 20;

#[cfg(target_os = "linux")]
mod advice {
    use std::ffi::{c_int, c_void};
    /// `<sys/mman.h>`: back the range with huge pages as it is touched.
    pub const MADV_HUGEPAGE: c_int = 14;
    /// `<sys/mman.h>`: gather the range's pages into huge pages now.
    pub const MADV_COLLAPSE: c_int = 25;
    extern "C" {
        /// The C library's madvise(2), linked with every Rust program on Linux.
        pub fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }
}

/// Advises huge pages for every writable anonymous mapping that holds one
/// of `held` (addresses of the world's arrays) or is the allocator's heap,
/// over its whole 2-MiB-aligned part. Errors are ignored: advice only.
#[cfg(target_os = "linux")]
fn advise_huge_pages(held: &[usize]) {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else { return };
    for line in maps.lines() {
        // start-end perms offset dev inode [path]
        let mut f = line.split_ascii_whitespace();
        let (Some(range), Some(perms), Some(inode), path) = (f.next(), f.next(), f.nth(2), f.next()) else { continue };
        let Some((a, b)) = range.split_once('-') else { continue };
        let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16)) else { continue };
        let ours = path == Some("[heap]") || (path.is_none() && held.iter().any(|&x| a <= x && x < b));
        let (start, end) = (a.next_multiple_of(HUGE_PAGE), b / HUGE_PAGE * HUGE_PAGE);
        if !ours || !perms.starts_with("rw") || inode != "0" || start >= end {
            continue;
        }
        for how in [advice::MADV_HUGEPAGE, advice::MADV_COLLAPSE] {
            // SAFETY: advice on whole pages of a mapping of this process;
            // neither kind changes its contents or frees it (madvise(2):
            // MADV_COLLAPSE copies the pages into a huge one and keeps
            // every byte), so no reference into it is invalidated.
            unsafe {
                advice::madvise(start as *mut std::ffi::c_void, end - start, how);
            }
        }
    }
}

impl World {
    /// Huge pages for the world's memory, on a network large enough to
    /// fetch ahead (`World::warm_ahead`): once built, and at each of the
    /// run's observations, for what its queues and ledgers grew since.
    pub(super) fn huge_pages(&self) {
        #[cfg(target_os = "linux")]
        {
            let mut held = vec![self.ports.as_ptr() as usize, self.ledgers.as_ptr() as usize, self.flows.as_ptr() as usize];
            held.extend(self.ports.iter().find_map(|p| p.pipe.front()).map(|h| h as *const _ as usize));
            advise_huge_pages(&held);
        }
    }
}

#[cfg(test)]
mod tests {
    /// The 16-host EQDS permutation for 200 µs, its pipe heads fetched
    /// ahead and its memory advised into huge pages, or neither.
    fn perm16(warm: bool) -> String {
        let text = include_str!("../../../../python/atmsim/scenarios/eqds-perm-16.toml");
        let s = crate::scenario::parse(text, &["duration=200us".to_string()]).unwrap();
        let mut w = super::World::new(crate::scenario::validate(&s, None).unwrap(), false);
        assert!(!w.warm_ahead, "16 hosts' ports fit a core's cache");
        w.warm_ahead = warm;
        if warm {
            // Pipe heads are revealed from the lanes alone, which 16 hosts'
            // few hundred events do not fill by default: lanes from 32 here,
            // a speed setting too.
            w.sched.set_lanes_from(32);
            w.huge_pages();
        }
        w.run();
        // Pipe heads were fetched ahead in the one run, not in the other.
        assert_eq!(w.warming[0].is_some(), warm);
        let (mut summary, _) = w.finish();
        summary.wall_s = 0.0;
        summary.to_json()
    }

    #[test]
    fn fetching_ahead_and_huge_pages_change_no_output() {
        assert_eq!(perm16(true), perm16(false));
    }
}
