//! Stopping a long validation when asked (Ctrl-C, SIGTERM). A generated
//! workload of 10^5 to 10^6 flows validates for seconds; the Python module
//! asks its signal handlers through `go_on` (as a run's observer does every
//! 2^20 events), so an interrupt ends the validation within a few
//! milliseconds instead of after it. [`Stop::tick`], once per item of a
//! long loop (flows, connections), asks when [`ASK_AFTER`] has passed since
//! the last question, reading the clock every [`CLOCK_EVERY`] items (an item
//! costs from a microsecond, a connection written out, to milliseconds, a
//! flow's routes across a k = 64 tree); [`Stop::now`] asks between the
//! phases of `validate`.

use super::ScenarioError;
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
    stopped: bool,
}

impl<'a> Stop<'a> {
    pub fn new(go_on: &'a mut dyn FnMut() -> bool) -> Self {
        Stop { go_on, count: 0, asked: Instant::now(), stopped: false }
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
        if !self.stopped && !(self.go_on)() {
            self.stopped = true;
        }
        match self.stopped {
            true => Err(ScenarioError { key: "validation".into(), problem: "interrupted".into() }),
            false => Ok(()),
        }
    }

    /// Whether `go_on` said stop (an error then is the interruption's).
    pub fn stopped(&self) -> bool {
        self.stopped
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
}
