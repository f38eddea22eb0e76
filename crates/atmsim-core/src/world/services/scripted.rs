//! Losses the scenario scripts (`flow.drop_segments`), for tests and
//! teaching: the first transmission of these data segments is dropped whole
//! at the sender's adapter (counted as `scripted` drops of its port).

use super::super::service::{Leaves, ServiceKind, Takes};
use super::super::World;
use crate::base::mechanism::{Golden, Mechanism, Networks};
use crate::net::{FlowId, FrameHeader, Unit, VcId, VcTable};
use crate::scenario::Model;

pub(in crate::world) struct ScriptedDrops {
    /// Per flow, the sorted segment numbers.
    segments: Vec<Vec<u64>>,
    mss: u64,
}

impl ScriptedDrops {
    /// Is the data segment of flow `f` starting at `seq` one the scenario drops?
    fn drops(&self, f: FlowId, seq: u64) -> bool {
        let list = &self.segments[f.ix()];
        !list.is_empty() && list.binary_search(&((seq - 1) / self.mss)).is_ok()
    }
}

impl ServiceKind for ScriptedDrops {
    const MECHANISM: Mechanism = Mechanism {
        name: "scripted-drops",
        selected_by: "flow.drop_segments",
        networks: Networks::Both,
        about: "the first transmission of the listed data segments of a flow dropped whole at its sender's adapter",
        docs: "scenarios.md",
        keys: &[],
        counters: &["scripted"],
        goldens: &[Golden { scenario: "aron97-topo1-packet", variation: "scripted-drops", overrides: &["flow.f1.drop_segments=[10, 11, 30]"] }],
    };

    fn from_model(model: &Model, _: &VcTable, _: bool) -> Option<Self> {
        let segments: Vec<Vec<u64>> = model.flows.iter().map(|f| f.drop_segments.clone()).collect();
        segments.iter().any(|s| !s.is_empty()).then_some(ScriptedDrops { segments, mss: model.tcp.mss as u64 })
    }

    fn takes(&self) -> Takes {
        Takes { at_source: true, ..Takes::default() }
    }

    fn frame_leaves(w: &mut World, me: usize, vc: VcId, seg: &FrameHeader, first_transmission: bool, first: Unit, ncells: u16) -> Leaves {
        let v = w.vcs.get(vc);
        let (flow, port) = (v.flow, v.ports[0]);
        if first_transmission && v.carries_payload() && w.services.at_mut::<ScriptedDrops>(me).drops(flow, seg.seq()) {
            w.scripted_drop(port, first, ncells);
            return Leaves::Dropped;
        }
        Leaves::Onward
    }
}
