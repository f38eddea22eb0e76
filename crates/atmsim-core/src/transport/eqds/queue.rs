//! A first-in first-out queue whose front element is kept inline. A host's
//! NIC queues and pull pacer lists hold one or two entries at a time on a
//! permutation (one flow each way per host), so their element is read
//! from the host's own state rather than from a heap buffer elsewhere,
//! a cache line missed per packet on a large network; longer queues (an
//! incast's pacer) spill behind it, in order.

use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct FrontInline<T> {
    /// The front element; `None` only when the queue is empty.
    front: Option<T>,
    rest: VecDeque<T>,
}

impl<T> Default for FrontInline<T> {
    fn default() -> Self {
        FrontInline { front: None, rest: VecDeque::new() }
    }
}

impl<T> FrontInline<T> {
    pub fn push_back(&mut self, x: T) {
        if self.front.is_none() {
            self.front = Some(x);
        } else {
            self.rest.push_back(x);
        }
    }

    pub fn pop_front(&mut self) -> Option<T> {
        let x = self.front.take()?;
        self.front = self.rest.pop_front();
        Some(x)
    }

    pub fn front(&self) -> Option<&T> {
        self.front.as_ref()
    }

    pub fn is_empty(&self) -> bool {
        self.front.is_none()
    }

    pub fn len(&self) -> usize {
        self.front.is_some() as usize + self.rest.len()
    }

    pub fn contains(&self, x: &T) -> bool
    where
        T: PartialEq,
    {
        self.front.as_ref() == Some(x) || self.rest.contains(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_first_in_first_out_order_across_the_inline_front() {
        let (mut q, mut model) = (FrontInline::default(), VecDeque::new());
        let mut x = 7u64;
        for i in 0..2000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if (x >> 61) < 4 {
                q.push_back(i);
                model.push_back(i);
            } else {
                assert_eq!(q.pop_front(), model.pop_front());
            }
            assert_eq!((q.front(), q.len(), q.is_empty()), (model.front(), model.len(), model.is_empty()));
            assert_eq!(q.contains(&i), model.contains(&i));
        }
    }
}
