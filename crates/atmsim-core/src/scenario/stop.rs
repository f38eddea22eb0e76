//! Stopping a long validation when asked (Ctrl-C, SIGTERM). A generated
//! workload of 10^5 to 10^6 flows validates for seconds; the Python module
//! asks its signal handlers through `go_on` (as a run's observer does every
//! 2^20 events), so an interrupt ends the validation within a few
//! milliseconds instead of after it. [`Stop::tick`] asks every
//! [`ASK_EVERY`] items of a long loop (flows, connections); [`Stop::now`]
//! between the phases of `validate`.

use super::ScenarioError;

/// Items of a long loop between two questions: a few milliseconds of the
/// slowest (an NDP or EQDS flow's shortest paths across a k = 16 tree's pods).
pub const ASK_EVERY: u32 = 1024;

/// Asks `go_on` every so often; once told to stop, every question fails.
pub struct Stop<'a> {
    go_on: &'a mut dyn FnMut() -> bool,
    count: u32,
    stopped: bool,
}

impl<'a> Stop<'a> {
    pub fn new(go_on: &'a mut dyn FnMut() -> bool) -> Self {
        Stop { go_on, count: 0, stopped: false }
    }

    /// One item of a long loop: asks every [`ASK_EVERY`] items.
    pub fn tick(&mut self) -> Result<(), ScenarioError> {
        self.count += 1;
        if self.count < ASK_EVERY {
            return Ok(());
        }
        self.now()
    }

    /// Asks now (between phases).
    pub fn now(&mut self) -> Result<(), ScenarioError> {
        self.count = 0;
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
    fn asks_every_so_many_ticks_and_stays_stopped() {
        let mut asked = 0;
        let mut go_on = || {
            asked += 1;
            asked < 2
        };
        {
            let mut stop = Stop::new(&mut go_on);
            for _ in 0..ASK_EVERY - 1 {
                stop.tick().unwrap();
            }
            stop.tick().unwrap();
            assert!(!stop.stopped());
            for _ in 0..ASK_EVERY - 1 {
                stop.tick().unwrap();
            }
            assert_eq!(stop.tick().unwrap_err().problem, "interrupted");
            assert!(stop.stopped());
            assert!(stop.now().is_err());
        }
        assert_eq!(asked, 2, "not asked again once stopped");
    }
}
