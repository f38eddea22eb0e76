//! A host's EQDS NIC (htsim `EqdsNIC`; rule E3 of docs/fabrics.md). It
//! sends one packet at a time at line rate. Sources that want to send wait
//! in a round-robin queue and are asked, at their turn, what to send (their
//! credit may have changed since they asked); the host's own control
//! packets (ACKs, NACKs, PULLs, RTSs) wait in a FIFO. When both wait, a
//! counter gives data one turn in 21 and control the other 20.

use super::queue::FrontInline;
use crate::base::EqdsHeader;
use crate::net::{FlowId, VcId};
use crate::time::Time;

/// Control turns per data turn when both wait (htsim `_ratio_control`, `_ratio_data`).
const RATIO_CONTROL: u32 = 20;
const RATIO_DATA: u32 = 1;

/// Whose turn it is at the NIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NicTurn {
    Data(FlowId),
    Control,
}

#[derive(Clone, Debug, Default)]
pub struct EqdsNic {
    /// When the packet on the line ends (htsim `_send_end_time`).
    pub tx_end: Time,
    srcs: FrontInline<FlowId>,
    pub control: FrontInline<(VcId, EqdsHeader)>,
    crt: u32,
    /// A turn is scheduled at `tx_end`.
    pub pending: bool,
    pub peak_control: usize,
}

impl EqdsNic {
    /// htsim counts the NIC busy at the very instant its packet ends.
    pub fn busy(&self, now: Time) -> bool {
        self.tx_end >= now
    }

    /// Source `f` wants to send (htsim `requestSending`): true if it may
    /// send at once; else it waits for its turn.
    pub fn request(&mut self, now: Time, f: FlowId) -> bool {
        if self.busy(now) {
            self.srcs.push_back(f);
            return false;
        }
        true
    }

    /// A control packet to send.
    pub fn push_control(&mut self, vc: VcId, h: EqdsHeader) {
        self.control.push_back((vc, h));
        self.peak_control = self.peak_control.max(self.control.len());
    }

    pub fn has_work(&self) -> bool {
        !self.srcs.is_empty() || !self.control.is_empty()
    }

    /// Whose turn it is now (htsim `doNextEvent`).
    pub fn turn(&mut self) -> Option<NicTurn> {
        match (self.srcs.front(), self.control.is_empty()) {
            (Some(&f), false) => {
                self.crt += 1;
                if self.crt >= RATIO_CONTROL + RATIO_DATA {
                    self.crt = 0;
                }
                Some(if self.crt < RATIO_DATA { NicTurn::Data(f) } else { NicTurn::Control })
            }
            (Some(&f), true) => Some(NicTurn::Data(f)),
            (None, false) => Some(NicTurn::Control),
            (None, true) => None,
        }
    }

    /// The source at the front of the queue had its turn: it leaves the
    /// queue (and rejoins its back if it wants another turn).
    pub fn served(&mut self, again: bool) {
        let f = self.srcs.pop_front().expect("a source had its turn");
        if again {
            self.srcs.push_back(f);
        }
    }

    /// The source whose turn comes next.
    pub fn front(&self) -> Option<FlowId> {
        self.srcs.front().copied()
    }

    /// Sources waiting.
    pub fn waiting(&self) -> usize {
        self.srcs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_gets_one_turn_in_21_when_control_waits() {
        let mut nic = EqdsNic { tx_end: 10, ..EqdsNic::default() };
        assert!(!nic.request(10, FlowId(3)), "busy at the instant its packet ends");
        assert!(nic.request(11, FlowId(4)), "idle after it");
        let h = EqdsHeader {
            kind: crate::base::EqdsKind::Ack,
            psn: 0,
            cum_ack: 0,
            sack: 0,
            len: 0,
            pull: 0,
            path: 0,
            ev: 0,
            ar: false,
            last: false,
        };
        for _ in 0..40 {
            nic.push_control(VcId(1), h);
        }
        let turns: Vec<NicTurn> = (0..21)
            .map(|_| {
                let t = nic.turn().unwrap();
                if t == NicTurn::Control {
                    nic.control.pop_front();
                }
                t
            })
            .collect();
        assert_eq!(turns.iter().filter(|&&t| t == NicTurn::Data(FlowId(3))).count(), 1);
        assert_eq!(turns[20], NicTurn::Data(FlowId(3)), "the 21st contested turn is data's");
    }
}
