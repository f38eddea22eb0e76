//! The scheduler's order, checked against a sorted reference.

use super::*;
use crate::net::FlowId;

fn open(f: u32) -> Event {
    Event::Transport(TransportEvent::Open(FlowId(f)))
}

#[test]
fn earliest_first_and_ties_in_insertion_order() {
    let mut s = Scheduler::default();
    s.schedule(5, open(2));
    s.schedule(3, open(0));
    s.schedule(5, open(3));
    s.schedule(3, open(1));
    let order: Vec<_> = std::iter::from_fn(|| s.pop_until(10)).map(|(_, e)| e).collect();
    assert_eq!(order, vec![open(0), open(1), open(2), open(3)]);
    assert_eq!(s.executed(), 4);
}

#[test]
fn a_successor_scheduled_in_place_keeps_the_order() {
    // Each popped event schedules zero, one or two successors: the order
    // must be that of (time, insertion) alone.
    let mut s = Scheduler::default();
    let mut reference = std::collections::BTreeSet::new();
    let mut seq = 0u64;
    let add = |s: &mut Scheduler, r: &mut std::collections::BTreeSet<(u64, u64)>, seq: &mut u64, at: u64| {
        s.schedule(at, open(*seq as u32));
        r.insert((at, *seq));
        *seq += 1;
    };
    for at in [7, 3, 3, 9, 1] {
        add(&mut s, &mut reference, &mut seq, at);
    }
    let mut x = 12345u64;
    while let Some((t, ev)) = s.pop_until(10_000) {
        let first = reference.pop_first().unwrap();
        assert_eq!((t, ev), (first.0, open(first.1 as u32)));
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        for _ in 0..(x >> 62) % 3 {
            if seq < 2000 {
                add(&mut s, &mut reference, &mut seq, t + (x >> 40) % 7);
            }
        }
    }
    assert!(reference.is_empty());
}

#[test]
fn gap_lanes_keep_the_order_of_one_heap() {
    lanes_against_one_heap(0, &[3, 5]);
}

#[test]
fn every_lane_slot_keeps_the_order_of_one_heap() {
    // MAX_LANES gaps, then one more (ignored, as a gap already declared is).
    let gaps: Vec<u64> = (3..3 + MAX_LANES as u64 + 1).collect();
    lanes_against_one_heap(0, &gaps);
    lanes_against_one_heap(4, &gaps);
}

#[test]
fn pipe_heads_revealed_places_ahead_are_still_pending() {
    lanes_against_one_heap(4, &[3, 5]); // the place a large network reveals at (`world/warm.rs`)
    lanes_against_one_heap(1, &[3, 5]);
}

/// Enough far events to put the lanes to use, then each popped event
/// schedules successors at the declared `gaps` (at most `MAX_LANES` of
/// them become lanes) and at others; pipe heads are revealed at place
/// `reveal_at` of their lane.
fn lanes_against_one_heap(reveal_at: usize, gaps: &[u64]) {
    let mut s = Scheduler::default();
    s.reveal_at(reveal_at);
    for &g in gaps {
        s.add_lane(g);
    }
    s.add_lane(gaps[0]); // a gap already declared: ignored
    let mut reference = std::collections::BTreeMap::new();
    let mut seq = 0u64;
    let add = |s: &mut Scheduler, r: &mut std::collections::BTreeMap<(u64, u64), Event>, seq: &mut u64, at: u64, pipe: bool| {
        let e = if pipe { Event::Port(PortEvent::PipeHead(PortId(*seq as u32))) } else { open(*seq as u32) };
        s.schedule(at, e);
        r.insert((at, *seq), e);
        *seq += 1;
    };
    for i in 0..(LANES_FROM as u64 + 8) {
        add(&mut s, &mut reference, &mut seq, 50_000 + 7 * i, false);
    }
    for i in 0..6 {
        add(&mut s, &mut reference, &mut seq, i, true);
    }
    let (mut x, mut laned, mut revealed) = (777u64, 0, 0);
    while let Some((t, ev)) = s.pop_until(60_000) {
        let ((at, _), expected) = reference.pop_first().unwrap();
        assert_eq!((t, ev), (at, expected));
        laned = laned.max(s.in_lanes);
        // A pipe head revealed at a lane's new front is the one just handed
        // out or one still pending; one revealed further back is pending.
        if let Some(p) = s.take_revealed() {
            let head = Event::Port(PortEvent::PipeHead(p));
            let pending = reference.values().any(|e| *e == head);
            assert!(if reveal_at == 0 { ev == head || pending } else { pending }, "{p:?} at place {reveal_at}");
            revealed += 1;
        }
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let gap = if (x >> 61) < 6 { gaps[(x >> 40) as usize % gaps.len()] } else { 1 + (x >> 50) % 12 };
        for k in 0..1 + (x >> 63) {
            if seq < 6000 {
                add(&mut s, &mut reference, &mut seq, t + gap + k, (x >> (10 + k)) & 1 == 0);
            }
        }
    }
    assert!(reference.is_empty());
    assert!(laned > 0, "the lanes were used");
    assert!(revealed > 0, "lane fronts were revealed");
    assert_eq!(s.in_lanes, 0);
    assert_eq!(s.lanes.len(), gaps.len().min(MAX_LANES));
}

/// Schedules `open(seq)` at `at` in `s` and in the reference `r`.
fn add_open(s: &mut Scheduler, r: &mut std::collections::BTreeMap<(u64, u64), Event>, seq: &mut u64, at: u64) {
    let e = open(*seq as u32);
    s.schedule(at, e);
    r.insert((at, *seq), e);
    *seq += 1;
}

#[test]
fn far_events_keep_the_order_of_one_heap() {
    // Successors near and far (beyond FAR_FROM), ties included, and now
    // and then one due before the event being run (which one heap would
    // run next).
    const FAR_FROM: Time = 1_000;
    let mut s = Scheduler::default();
    s.set_far_from(FAR_FROM);
    let mut reference = std::collections::BTreeMap::new();
    let mut seq = 0u64;
    let add = add_open;
    for i in 0..5 {
        add(&mut s, &mut reference, &mut seq, 10 * FAR_FROM + i * FAR_FROM / 2);
    }
    let (mut x, mut far_roots) = (99u64, 0);
    while let Some((t, ev)) = s.pop_until(u64::MAX - 1) {
        let ((at, _), expected) = reference.pop_first().unwrap();
        assert_eq!((t, ev), (at, expected));
        far_roots += (s.taken == Taken::FAR) as u32;
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        for k in 0..(x >> 62) % 3 {
            if seq < 20_000 {
                let gap = [0, 1, FAR_FROM - 1, FAR_FROM, FAR_FROM + 3, 5 * FAR_FROM][((x >> (20 + 3 * k)) % 6) as usize];
                let past = (x >> 40) % 50 == 0 && t >= FAR_FROM / 3;
                add(&mut s, &mut reference, &mut seq, if past { t - FAR_FROM / 3 } else { t + gap });
            }
        }
    }
    assert!(reference.is_empty());
    assert!(far_roots > 5, "the far heap was used: {far_roots}");
}

#[test]
fn the_wheel_the_lanes_and_the_far_heap_together_keep_the_order_of_one_heap() {
    // Lanes in use from the first event, near events in the wheel between
    // the lanes' fronts, and far ones in the heap: the wheel's first is
    // handed out alone only before both the far root and every lane's
    // front (`near_alone_before`, renewed as lane fronts come and go).
    const FAR_FROM: Time = 100;
    let mut s = Scheduler::default();
    for gap in [40, 41, 90] {
        s.add_lane(gap);
    }
    s.set_lanes_from(0);
    s.set_far_from(FAR_FROM);
    let mut reference = std::collections::BTreeMap::new();
    let mut seq = 0u64;
    for i in 0..20 {
        add_open(&mut s, &mut reference, &mut seq, 3 * i);
    }
    let (mut x, mut wheel_beside_lanes, mut from_lanes) = (31u64, 0, 0);
    while let Some((t, ev)) = s.pop_until(u64::MAX - 1) {
        let ((at, _), expected) = reference.pop_first().unwrap();
        assert_eq!((t, ev), (at, expected));
        wheel_beside_lanes += (s.taken == Taken::NONE && s.in_lanes > 0) as u32;
        from_lanes += (s.taken.0 >= Taken::LANE) as u32;
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        // None, one or two successors, one on average (until 20,000), and a
        // new event when none waits: the events waiting build up and thin
        // out, so that each structure in turn holds the earliest.
        for k in 0..[0, 1, 1, 2][(x >> 62) as usize] {
            if seq < 20_000 {
                let gap = [40, 41, 90, 0, 1, 39, 60, 95, FAR_FROM + 1][((x >> (20 + 4 * k)) % 9) as usize];
                add_open(&mut s, &mut reference, &mut seq, t + gap);
            }
        }
        if reference.is_empty() && seq < 20_000 {
            add_open(&mut s, &mut reference, &mut seq, t + 3);
        }
    }
    assert!(reference.is_empty());
    assert!(wheel_beside_lanes > 1_000 && from_lanes > 1_000, "{wheel_beside_lanes} from the wheel beside lanes, {from_lanes} from lanes");
}

#[test]
fn a_reserved_place_scheduled_later_keeps_the_order_of_one_heap() {
    // Each popped event schedules successors at once, through the lanes,
    // the heap and the far heap, or reserves their places: a reserved one
    // is scheduled when a later event comes before it, or dropped. The
    // order must be that of (time, insertion) as if each kept event had
    // been scheduled when its place was taken.
    const FAR_FROM: Time = 400;
    let mut s = Scheduler::default();
    s.add_lane(3);
    s.set_far_from(FAR_FROM);
    let mut reference = std::collections::BTreeMap::new();
    let mut reserved: Vec<(Time, u64)> = Vec::new();
    let (mut x, mut kept, mut dropped) = (4242u64, 0, 0);
    for i in 0..(LANES_FROM as u64 + 4) {
        let seq = s.reserve();
        s.schedule_reserved(5 + i, seq, open(seq as u32));
        reference.insert((5 + i, seq), open(seq as u32));
    }
    while let Some((t, ev)) = s.pop_until(1_000_000) {
        let ((at, _), expected) = reference.pop_first().unwrap();
        assert_eq!((t, ev), (at, expected));
        // Places passed by now were never needed; the others may be.
        reserved.retain(|&(at, seq)| {
            let passed = s.has_passed(at, seq);
            dropped += passed as u32;
            !passed
        });
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        if let Some(&(at, seq)) = reserved.first().filter(|_| x >> 61 == 0) {
            reserved.remove(0);
            s.schedule_reserved(at, seq, open(seq as u32));
            reference.insert((at, seq), open(seq as u32));
            kept += 1;
        }
        for k in 0..1 + (x >> 62) % 2 {
            let at = t + [0, 3, 3, 7, FAR_FROM + 1, 2][((x >> (20 + 3 * k)) % 6) as usize];
            if s.next_seq >= 20_000 {
                break;
            }
            if (x >> (40 + k)) & 3 == 0 {
                reserved.push((at, s.reserve()));
            } else {
                let seq = s.next_seq;
                s.schedule(at, open(seq as u32));
                reference.insert((at, seq), open(seq as u32));
            }
        }
    }
    assert!(reference.is_empty());
    assert!(kept > 100 && dropped > 100, "both used: {kept} kept, {dropped} dropped");
}

#[test]
fn does_not_pop_past_the_horizon() {
    let mut s = Scheduler::default();
    s.schedule(11, Event::TraceSample);
    assert!(s.pop_until(10).is_none());
    assert_eq!(s.executed(), 0);
}

#[test]
fn events_stay_small() {
    // The heap moves events around on every push and pop.
    assert!(std::mem::size_of::<Event>() <= 24, "{}", std::mem::size_of::<Event>());
    assert_eq!(std::mem::size_of::<Scheduled>(), 32);
}

#[test]
fn the_tournament_names_the_least_key_after_every_change() {
    // Random keys changed one slot at a time, emptied (u128::MAX) now and
    // then: the winner's key is always the least of the eight.
    let mut keys = [u128::MAX; LANE_SLOTS];
    let mut t = Tournament::default();
    let mut x = 99u64;
    for step in 0..20_000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let i = (x >> 61) as usize;
        keys[i] = if (x >> 40).is_multiple_of(5) { u128::MAX } else { ((x >> 20) % 1000) as u128 * 1_000_000 + step as u128 };
        t.update(&keys, i);
        assert_eq!(keys[t.winner()], *keys.iter().min().unwrap(), "step {step}");
    }
}

#[test]
fn the_wheel_keeps_the_order_of_one_heap_over_many_laps() {
    // One-picosecond buckets (a horizon under a lap of 1,024), and wide
    // ones holding many instants each, so that events join a bucket
    // before its first, behind its last and in between.
    wheel_against_one_heap(1_000, 1);
    wheel_against_one_heap(10_000_000, 1 << 15);
}

/// Events waiting before the horizon is declared (some beyond it), then
/// each popped event schedules successors at gaps from 0 (ties with the
/// present) to the horizon less one, ties and the same bucket often, until
/// the run has gone round the wheel many times.
fn wheel_against_one_heap(far_from: Time, spread: u64) {
    let mut s = Scheduler::default();
    let mut reference = std::collections::BTreeMap::new();
    let mut seq = 0u64;
    let add = add_open;
    for at in [far_from * 3, 5, far_from - 1, 5, far_from, 0] {
        add(&mut s, &mut reference, &mut seq, at);
    }
    s.set_far_from(far_from);
    let (mut x, mut last, mut most_waiting) = (31u64, 0, 0);
    while let Some((t, ev)) = s.pop_until(u64::MAX - 1) {
        let ((at, _), expected) = reference.pop_first().unwrap();
        assert_eq!((t, ev), (at, expected));
        last = t;
        most_waiting = most_waiting.max(s.near.len());
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        // One successor, or two while few wait: the run goes on in time.
        for k in 0..1 + (reference.len() < 40) as u64 * (x >> 63) {
            if seq < 60_000 {
                let r = x >> (8 + 7 * k);
                let gap = match r % 4 {
                    0 => 0,
                    1 => (r >> 3) % spread,
                    2 => far_from - 1 - (r >> 3) % spread.min(far_from - 1),
                    _ => (r >> 3) % far_from,
                };
                add(&mut s, &mut reference, &mut seq, t + gap);
            }
        }
    }
    assert!(reference.is_empty());
    assert!(last > 100 * s.near.horizon(), "went round the wheel many times: {last}");
    assert!(most_waiting > 10, "{most_waiting}");
}
