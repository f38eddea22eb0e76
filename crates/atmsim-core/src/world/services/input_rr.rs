//! The round-robin service of switch inputs (`net/input_rr.rs`; Bestavros &
//! Kim 1997 §4.1) as a service: cells arriving at a switch are parked until
//! their slot ends (`World::at_switch`), then enter their output ports one
//! per input per round (`World::input_slot`, `world/forward.rs`).

use super::super::service::{ServiceKind, Takes};
use crate::base::mechanism::{Golden, Mechanism, Networks};
use crate::net::input_rr::InputRoundRobin;
use crate::net::VcTable;
use crate::scenario::Model;

impl ServiceKind for InputRoundRobin {
    const MECHANISM: Mechanism = Mechanism {
        name: "round-robin",
        selected_by: "switch.input_service",
        networks: Networks::Atm,
        about: "a switch's input ports served round robin in cell slots (Bestavros & Kim 1997 §4.1)",
        docs: "boston97.md",
        keys: &[],
        counters: &[],
        // Topology 1, where several inputs feed one output in the same slot.
        goldens: &[Golden {
            scenario: "aron97-topo1-atm",
            variation: "input-rr",
            overrides: &["switch.input_service=round-robin", "switch.buffer=48KB"],
        }],
    };

    fn from_model(model: &Model, _: &VcTable, _: bool) -> Option<Self> {
        model.input_round_robin.then(|| {
            let ends: Vec<_> = model.ports.iter().map(|p| (p.from, p.to, p.rate)).collect();
            InputRoundRobin::new(&ends, &model.is_host)
        })
    }

    fn takes(&self) -> Takes {
        Takes { at_switch: true, ..Takes::default() }
    }

    /// Cells waiting in its switches' input ports for their slot's end.
    fn in_flight(&self) -> [u64; 4] {
        [0, 0, 0, self.waiting()]
    }
}
