//! The scheduler's binary heap of the far events: a sift moves a hole and
//! places the new entry once, from registers (see [`super::Scheduler`]).

use super::{Scheduled, Taken};

/// Puts `s` into `heap`: in the place of its root if that is the event
/// handed out last (`taken == root`: one sift instead of a pop's and a
/// push's), else at the end.
#[inline(always)]
pub(super) fn place(heap: &mut Vec<Scheduled>, taken: &mut Taken, root: Taken, s: Scheduled) {
    if *taken == root {
        *taken = Taken::NONE;
        sift_down(heap, 0, s);
    } else {
        heap.push(s);
        let last = heap.len() - 1;
        sift_up(heap, last, s);
    }
}

/// Places `item` at `hole` or below: the earlier child moves up while it
/// is earlier than `item`. (Keys are unique: insertion numbers are.)
#[inline(always)]
pub(super) fn sift_down(heap: &mut [Scheduled], mut hole: usize, item: Scheduled) {
    let key = item.key();
    let n = heap.len();
    loop {
        let left = 2 * hole + 1;
        if left >= n {
            break;
        }
        let left_key = heap[left].key();
        let right_key = if left + 1 < n { heap[left + 1].key() } else { u128::MAX };
        // Which child is earlier is a coin the processor cannot call: a
        // selection, not a branch (Fig. 21: about 6 % less CPU for 2 % more
        // instructions; docs/performance.md, "Branches the processor cannot predict").
        let right = right_key < left_key;
        let child = left + right as usize;
        let child_key = std::hint::select_unpredictable(right, right_key, left_key);
        if key < child_key {
            break;
        }
        heap[hole] = heap[child];
        hole = child;
    }
    heap[hole] = item;
}

/// Places `item` at `hole` or above: parents later than `item` move down.
#[inline(always)]
fn sift_up(heap: &mut [Scheduled], mut hole: usize, item: Scheduled) {
    let key = item.key();
    while hole > 0 {
        let parent = (hole - 1) / 2;
        if heap[parent].key() < key {
            break;
        }
        heap[hole] = heap[parent];
        hole = parent;
    }
    heap[hole] = item;
}
