//! Round-robin service of a switch's input ports (Bestavros & Kim 1997,
//! §4.1, the switch of Fig. 4: "a simple, 16-port output-buffered
//! single-stage switch [...] cells in input ports are served in a
//! round-robin fashion to ensure fairness"); `switch.input_service =
//! "round-robin"`.
//!
//! The fabric of a switch runs in cell slots: one slot is the time of one
//! 53-byte cell on the fastest line attached to the switch (rounded down to a
//! picosecond), so no input link brings more than one cell per slot. A cell
//! that reaches the switch over an input link waits in its input port until
//! the end of the slot it arrived in; then the switch moves the cells of all
//! its input ports to their output buffers, one cell per input per round,
//! visiting the inputs in round-robin order from the input after the last
//! one served in the previous slot. The order decides which cells still
//! find room in a nearly full output buffer; without this component cells
//! enter the output buffer at their arrival instants, in event order. A
//! cell that arrives exactly at a slot's end, before the switch's wake-up
//! has run, joins that slot (the scheduler's order of equal times).
//!
//! A plain value: [`InputRoundRobin::park`] says whether the switch needs a
//! wake-up at the end of the slot, [`InputRoundRobin::drain`] gives the cells
//! in service order. No allocation once its buffers have grown, no hashing.

use crate::net::{NodeId, PortId, Unit, CELL_BYTES};
use crate::time::{Rate, Time};

/// A port whose far end is not a round-robin switch.
const NO_INPUT: u16 = u16::MAX;

/// What [`InputRoundRobin::park`] did with a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Park {
    /// The cell did not arrive at a switch: offer it to its port now.
    Through,
    /// Parked in its input port; the switch's wake-up is already due.
    Parked,
    /// Parked, the first of its slot: drain the switch at this time.
    Wake(Time),
}

/// One switch: its input ports' waiting cells and the round-robin pointer.
#[derive(Default)]
struct Fabric {
    slot: Time,
    /// Per input: the cells waiting, with the output port each goes to.
    parked: Vec<Vec<(PortId, Unit)>>,
    /// The input the next slot's scan starts at.
    next: usize,
    waiting: usize,
}

/// The input ports of every switch with round-robin input service.
pub struct InputRoundRobin {
    /// Per port (the link a cell arrives over): its input index at the
    /// switch at its far end, or `NO_INPUT` when the far end is a host.
    input_of: Vec<u16>,
    /// Per port: the node at its far end.
    far: Vec<NodeId>,
    /// Per node (empty for hosts).
    fabrics: Vec<Fabric>,
    /// The order of the last drain, reused (the world takes and returns it).
    pub order: Vec<(PortId, Unit)>,
}

impl InputRoundRobin {
    /// `ports`: (from, to, rate) of every port, in port order; `is_host`
    /// per node. The inputs of a switch are the ports ending at it, in port
    /// order (link order of the scenario).
    pub fn new(ports: &[(NodeId, NodeId, Rate)], is_host: &[bool]) -> Self {
        let mut fabrics: Vec<Fabric> = (0..is_host.len()).map(|_| Fabric::default()).collect();
        let mut input_of = vec![NO_INPUT; ports.len()];
        for (p, &(_, to, _)) in ports.iter().enumerate() {
            if !is_host[to.ix()] {
                let f = &mut fabrics[to.ix()];
                input_of[p] = u16::try_from(f.parked.len()).expect("fewer than 65535 inputs per switch");
                f.parked.push(Vec::new());
            }
        }
        for (n, f) in fabrics.iter_mut().enumerate() {
            let fastest = ports.iter().filter(|(a, b, _)| a.ix() == n || b.ix() == n).map(|&(_, _, r)| r);
            f.slot = fastest.map(cell_slot).min().unwrap_or(1);
        }
        InputRoundRobin { input_of, far: ports.iter().map(|&(_, to, _)| to).collect(), fabrics, order: Vec::new() }
    }

    /// A cell arrived at `now` over `via` and goes on to port `out`.
    #[inline]
    pub fn park(&mut self, now: Time, via: PortId, out: PortId, unit: Unit) -> Park {
        let input = self.input_of[via.ix()];
        if input == NO_INPUT {
            return Park::Through;
        }
        let f = &mut self.fabrics[self.far[via.ix()].ix()];
        f.parked[input as usize].push((out, unit));
        f.waiting += 1;
        if f.waiting == 1 {
            Park::Wake((now / f.slot + 1) * f.slot)
        } else {
            Park::Parked
        }
    }

    /// Moves every cell waiting at `node`'s inputs into `self.order`, in
    /// service order: round r takes the r-th waiting cell of each input,
    /// inputs in round-robin order from the pointer; the pointer then moves
    /// to the input after the last one served.
    pub fn drain(&mut self, node: NodeId) {
        let f = &mut self.fabrics[node.ix()];
        let n = f.parked.len();
        let rounds = f.parked.iter().map(Vec::len).max().unwrap_or(0);
        let mut last = None;
        for r in 0..rounds {
            for k in 0..n {
                let i = (f.next + k) % n;
                if let Some(&cell) = f.parked[i].get(r) {
                    self.order.push(cell);
                    last = Some(i);
                }
            }
        }
        if let Some(i) = last {
            f.next = (i + 1) % n;
        }
        for q in &mut f.parked {
            q.clear();
        }
        f.waiting = 0;
    }

    /// Cells waiting in input ports (in flight for the accounting).
    pub fn waiting(&self) -> u64 {
        self.fabrics.iter().map(|f| f.waiting as u64).sum()
    }

    /// The slot length of `node`'s fabric.
    pub fn slot(&self, node: NodeId) -> Time {
        self.fabrics[node.ix()].slot
    }
}

/// One 53-byte cell at `rate`, rounded down (at least 1 ps).
fn cell_slot(rate: Rate) -> Time {
    ((CELL_BYTES as u128 * 8 * rate.ps as u128) / rate.bits as u128).max(1) as Time
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::VcId;

    const MBPS: u64 = 1_000_000;

    fn rate(bps: u64) -> Rate {
        Rate::new(bps as u128, crate::time::PS_PER_S as u128).unwrap()
    }

    /// Hosts 0, 1, 2 -> switch 3 -> host 4: ports 0..2 are inputs 0..2 of
    /// the switch, port 3 its output, ports 4..7 the reverse directions.
    fn star() -> InputRoundRobin {
        let r = rate(MBPS * 3 / 2);
        let n = |i| NodeId(i);
        let ports = [
            (n(0), n(3), r),
            (n(1), n(3), r),
            (n(2), n(3), r),
            (n(3), n(4), r),
            (n(3), n(0), r),
            (n(3), n(1), r),
            (n(3), n(2), r),
            (n(4), n(3), r),
        ];
        InputRoundRobin::new(&ports, &[true, true, true, false, true])
    }

    fn cell(vc: u32, index: u16) -> Unit {
        Unit::new(VcId(vc), 0, index, 8, 53).on_route(1)
    }

    fn served(rr: &mut InputRoundRobin) -> Vec<(u32, u16)> {
        rr.drain(NodeId(3));
        let out = rr.order.iter().map(|(_, u)| (u.vc.0, u.index())).collect();
        rr.order.clear();
        out
    }

    #[test]
    fn slot_is_one_cell_on_the_fastest_line_rounded_down() {
        let rr = star();
        // 424 bits at 1.5 Mb/s = 282.666... us.
        assert_eq!(rr.slot(NodeId(3)), 282_666_666);
    }

    #[test]
    fn only_cells_arriving_at_a_switch_are_parked() {
        let mut rr = star();
        assert_eq!(rr.park(5, PortId(4), PortId(9), cell(0, 0)), Park::Through);
        assert_eq!(rr.park(5, PortId(3), PortId(9), cell(0, 0)), Park::Through);
        assert_eq!(rr.waiting(), 0);
    }

    #[test]
    fn the_first_cell_of_a_slot_asks_for_a_wake_up_at_its_end() {
        let mut rr = star();
        let slot = rr.slot(NodeId(3));
        assert_eq!(rr.park(slot + 7, PortId(2), PortId(3), cell(2, 0)), Park::Wake(2 * slot));
        assert_eq!(rr.park(slot + 9, PortId(0), PortId(3), cell(0, 0)), Park::Parked);
        assert_eq!(rr.waiting(), 2);
        served(&mut rr);
        assert_eq!(rr.waiting(), 0);
        assert_eq!(rr.park(2 * slot, PortId(1), PortId(3), cell(1, 0)), Park::Wake(3 * slot));
    }

    #[test]
    fn cells_of_a_slot_leave_in_round_robin_order_of_inputs_not_arrival() {
        let mut rr = star();
        // Arrival order: input 2, input 0, input 1.
        rr.park(1, PortId(2), PortId(3), cell(2, 0));
        rr.park(2, PortId(0), PortId(3), cell(0, 0));
        rr.park(3, PortId(1), PortId(3), cell(1, 0));
        assert_eq!(served(&mut rr), vec![(0, 0), (1, 0), (2, 0)]);
        // The pointer moved past input 2: the next slot starts at input 3
        // (the output's reverse link, K -> X), then wraps to 0.
        rr.park(1, PortId(1), PortId(3), cell(1, 1));
        rr.park(2, PortId(0), PortId(3), cell(0, 1));
        assert_eq!(served(&mut rr), vec![(0, 1), (1, 1)]);
        // Last served input 1: input 2 goes first now.
        rr.park(1, PortId(0), PortId(3), cell(0, 2));
        rr.park(2, PortId(2), PortId(3), cell(2, 1));
        assert_eq!(served(&mut rr), vec![(2, 1), (0, 2)]);
    }

    #[test]
    fn two_cells_of_one_input_go_one_per_round() {
        let mut rr = star();
        rr.park(1, PortId(0), PortId(3), cell(0, 0));
        rr.park(2, PortId(0), PortId(3), cell(0, 1));
        rr.park(3, PortId(1), PortId(3), cell(1, 0));
        assert_eq!(served(&mut rr), vec![(0, 0), (1, 0), (0, 1)]);
    }

    #[test]
    fn each_cell_keeps_its_output_port() {
        let mut rr = star();
        rr.park(1, PortId(0), PortId(3), cell(0, 0));
        rr.park(1, PortId(7), PortId(5), cell(9, 0));
        rr.drain(NodeId(3));
        assert_eq!(rr.order.iter().map(|&(p, u)| (p.0, u.vc.0)).collect::<Vec<_>>(), vec![(3, 0), (5, 9)]);
    }
}
