//! Stopping a long validation when asked (Ctrl-C, SIGTERM). A generated
//! workload of 10^5 to 10^6 flows validates for seconds; the Python module
//! asks its signal handlers through `go_on` (as a run's observer does every
//! 2^20 events), so an interrupt ends the validation within a few
//! milliseconds instead of after it. [`Stop::tick`], once per item of a
//! long loop (flows, connections), asks when [`ASK_AFTER`] has passed since
//! the last question, reading the clock every [`CLOCK_EVERY`] items (an item
//! costs from a microsecond, a connection written out, to milliseconds, a
//! flow's routes across a k = 64 tree, a port of a k = 48 tree's 166k);
//! [`Stop::now`] asks between the phases of `validate`.
//!
//! An interrupted validation's half-built parts, each held as a [`Kept`],
//! are not freed where it stops but handed to its caller as [`Leftovers`]:
//! freeing a k = 16 tree's 10^6 connections took 0.4 s between Ctrl-C and
//! the exit, which the Python module now spends on a thread of its own.

use super::ScenarioError;
use std::cell::RefCell;
use std::ops::{Deref, DerefMut};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// The longest a long loop goes without asking (Python's own signal
/// handlers run about this often in a run: `world::OBSERVE_EVERY`).
pub const ASK_AFTER: Duration = Duration::from_millis(20);
/// Items between two readings of the clock.
pub const CLOCK_EVERY: u32 = 16;

/// Asks `go_on` every so often; once told to stop, every question fails.
pub struct Stop<'a> {
    go_on: &'a mut dyn FnMut() -> bool,
    count: u32,
    asked: Instant,
    bin: Rc<RefCell<Bin>>,
}

/// Whether `go_on` said stop, and what the [`Kept`] values dropped since then left.
#[derive(Default)]
struct Bin {
    stopped: bool,
    kept: Leftovers,
}

/// The result of work that may be told to stop: done, or what it had built
/// when it was.
pub enum Stoppable<T> {
    Done(T),
    Stopped(Leftovers),
}

/// What an interrupted validation had built, not yet freed: dropping it
/// frees it (a caller that must answer at once drops it on another thread).
#[derive(Default)]
pub struct Leftovers(Vec<Box<dyn Send>>);

impl Leftovers {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A value freed as usual unless dropped after `go_on` said stop: then it
/// goes, unfreed, to the [`Leftovers`] (`?` on an interruption drops it).
pub struct Kept<T: Send + 'static> {
    value: Option<T>,
    bin: Rc<RefCell<Bin>>,
}

impl<T: Send + 'static> Kept<T> {
    pub fn into_inner(mut self) -> T {
        self.value.take().expect("a kept value is taken once")
    }
}

impl<T: Send + 'static> Deref for Kept<T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value.as_ref().expect("a kept value until taken")
    }
}

impl<T: Send + 'static> DerefMut for Kept<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value.as_mut().expect("a kept value until taken")
    }
}

impl<T: Send + 'static> Drop for Kept<T> {
    fn drop(&mut self) {
        let Some(value) = self.value.take() else { return };
        // Not borrowed while `value` is freed: it may hold Kept values of its own.
        let stopped = self.bin.borrow().stopped;
        if stopped {
            self.bin.borrow_mut().kept.0.push(Box::new(value));
        }
    }
}

impl<'a> Stop<'a> {
    pub fn new(go_on: &'a mut dyn FnMut() -> bool) -> Self {
        Stop { go_on, count: 0, asked: Instant::now(), bin: Rc::default() }
    }

    /// `value`, handed to the [`Leftovers`] rather than freed if the
    /// validation stops while it is held.
    pub fn keep<T: Send + 'static>(&self, value: T) -> Kept<T> {
        Kept { value: Some(value), bin: Rc::clone(&self.bin) }
    }

    /// What the validation had built when it was stopped (empty otherwise).
    pub fn leftovers(&self) -> Leftovers {
        std::mem::take(&mut self.bin.borrow_mut().kept)
    }

    /// One item of a long loop: asks if [`ASK_AFTER`] has passed.
    pub fn tick(&mut self) -> Result<(), ScenarioError> {
        self.count += 1;
        if self.count < CLOCK_EVERY {
            return Ok(());
        }
        self.count = 0;
        if self.asked.elapsed() < ASK_AFTER {
            return Ok(());
        }
        self.now()
    }

    /// Asks now (between phases).
    pub fn now(&mut self) -> Result<(), ScenarioError> {
        self.asked = Instant::now();
        if !self.stopped() && !(self.go_on)() {
            self.bin.borrow_mut().stopped = true;
        }
        match self.stopped() {
            true => Err(ScenarioError { key: "validation".into(), problem: "interrupted".into() }),
            false => Ok(()),
        }
    }

    /// Whether `go_on` said stop (an error then is the interruption's).
    pub fn stopped(&self) -> bool {
        self.bin.borrow().stopped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_once_its_time_has_passed_and_stays_stopped() {
        let mut asked = 0;
        let mut go_on = || {
            asked += 1;
            asked < 2
        };
        {
            let mut stop = Stop::new(&mut go_on);
            // Fast items: the clock read every CLOCK_EVERY, no question before ASK_AFTER.
            for _ in 0..10 * CLOCK_EVERY {
                stop.tick().unwrap();
            }
            assert!(!stop.stopped());
            std::thread::sleep(ASK_AFTER);
            for _ in 0..CLOCK_EVERY - 1 {
                stop.tick().unwrap();
            }
            stop.tick().unwrap();
            assert!(!stop.stopped(), "asked once and told to go on");
            std::thread::sleep(ASK_AFTER);
            for _ in 0..CLOCK_EVERY - 1 {
                stop.tick().unwrap();
            }
            assert_eq!(stop.tick().unwrap_err().problem, "interrupted");
            assert!(stop.stopped());
            assert!(stop.now().is_err());
        }
        assert_eq!(asked, 2, "not asked again once stopped");
    }

    #[test]
    fn kept_values_are_freed_as_usual_until_told_to_stop_then_handed_back() {
        let mut go_on = || false;
        let mut stop = Stop::new(&mut go_on);
        drop(stop.keep(vec![1u8; 10]));
        assert!(stop.leftovers().is_empty(), "freed where dropped before the stop");
        let held = stop.keep(vec![2u8; 10]);
        let taken = stop.keep(vec![3u8]).into_inner();
        assert!(stop.now().is_err());
        drop(held);
        assert_eq!(taken, [3], "a value taken out is the caller's");
        assert_eq!(stop.leftovers().0.len(), 1, "dropped after the stop: handed back unfreed");
        assert!(stop.leftovers().is_empty(), "handed back once");
    }

    #[test]
    fn a_large_trees_validation_asks_every_so_often() {
        // A k = 48 tree (27,648 hosts, 166k ports) went 124 ms before its first question (the tree
        // written out), 434 ms in its ports and 655 ms in its queues' memory bound without one: Ctrl-C
        // waited that long. Now each of those loops asks; the bound here is ten times ASK_AFTER, generous
        // for a loaded machine, and a validation told to stop at once hands back what it built.
        use crate::scenario::{validate_stoppable, Stoppable};
        let text = include_str!("../../../../python/atmsim/scenarios/eqds-one.toml");

        let sets = ["topology.k=48", "report.bottleneck=h0->tor0", "switch.buffer=9600B"].map(String::from);
        let s = crate::parse(text, &sets).unwrap();
        let mut asked = vec![Instant::now()];
        let whole = validate_stoppable(&s, None, &mut || {
            asked.push(Instant::now());
            true
        });
        asked.push(Instant::now());
        assert!(matches!(whole, Ok(Stoppable::Done(_))), "{:?}", whole.err());
        let longest = asked.windows(2).map(|w| w[1] - w[0]).max().unwrap();
        assert!(longest < 10 * ASK_AFTER, "{longest:?} without a question ({} asked)", asked.len() - 2);
        let mut say_stop = || false;
        match validate_stoppable(&s, None, &mut say_stop) {
            Ok(Stoppable::Stopped(left)) => assert!(!left.is_empty()),
            _ => panic!("told to stop"),
        }
    }
}
