//! What a service is: an optional mechanism of a run (ABR, TCP Boston, the
//! round-robin service of switch inputs, watched ports, scripted drops, ...)
//! that takes part through a fixed set of hooks. Each implements
//! [`ServiceKind`] in its own file: its declaration ([`Mechanism`]), when
//! the model asks for it, the hooks it takes, and what it does in the
//! hooks dispatched by the registry (`services.rs`); the per-unit hooks
//! (`entering_port`, `at_switch`, `at_destination`) stay written out in
//! `services.rs`, each behind one flag.

use super::World;
use crate::base::mechanism::Mechanism;
use crate::net::{FrameHeader, Unit, VcId, VcTable};
use crate::scenario::Model;

/// The hooks a service takes; the per-unit path tests one flag per hook.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::world) struct Takes {
    /// Sees units entering ports (ABR's ERICA, a watched port).
    pub at_port: bool,
    /// Records offers and departures of ports (the port log, captures).
    pub watching: bool,
    /// Parks units arriving at switches (round-robin input service).
    pub at_switch: bool,
    /// Takes part in cutting frames at sources ([`ServiceKind::cut_frame`],
    /// [`ServiceKind::frame_leaves`]).
    pub at_source: bool,
    /// Sees data cells at their destinations.
    pub at_destination: bool,
    /// Sets CI in backward RM cells entering ports (EFCI switches'
    /// relative rate marking).
    pub relative_rate: bool,
}

impl Takes {
    pub(super) fn or(self, other: Takes) -> Takes {
        Takes {
            at_port: self.at_port | other.at_port,
            watching: self.watching | other.watching,
            at_switch: self.at_switch | other.at_switch,
            at_source: self.at_source | other.at_source,
            at_destination: self.at_destination | other.at_destination,
            relative_rate: self.relative_rate | other.relative_rate,
        }
    }
}

/// What becomes of a frame leaving its source ([`ServiceKind::frame_leaves`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Leaves {
    /// Into its first port.
    Onward,
    /// Dropped whole at the sender's adapter (a scripted loss).
    Dropped,
    /// Waiting at its ABR source for ACR.
    Queued,
}

/// A service as the registry (`services.rs`) knows it.
pub(super) trait ServiceKind: Sized {
    /// Its declaration: name, the section or key that turns it on, its
    /// counters and summary block, its goldens, its docs page.
    const MECHANISM: Mechanism;

    /// The service, if the model asks for it.
    fn from_model(model: &Model, vcs: &VcTable, trace: bool) -> Option<Self>;

    /// The hooks it takes.
    fn takes(&self) -> Takes;

    /// Its terms of the accounting identity: (cells sent, delivered,
    /// dropped, in flight) that no VC's ledger or port holds.
    fn in_flight(&self) -> [u64; 4] {
        [0; 4]
    }

    /// Units it dropped outside any port (a fabric's VOQs), which the
    /// ledgers count but no port does.
    fn units_dropped(&self) -> u64 {
        0
    }

    /// Its own books balance and its invariants hold (checked with the
    /// accounting identity at the end of every run).
    fn balanced(&self) -> bool {
        true
    }

    /// Hook: a segment is cut into a frame of `ncells` cells at its source;
    /// the frame's cells. `me`: the service's place in the run's list.
    fn cut_frame(_w: &mut World, _me: usize, _vc: VcId, _seg: &FrameHeader, _first_transmission: bool, ncells: u32) -> u32 {
        ncells
    }

    /// Hook: the frame (its first unit `first`) would enter its first port.
    fn frame_leaves(
        _w: &mut World,
        _me: usize,
        _vc: VcId,
        _seg: &FrameHeader,
        _first_transmission: bool,
        _first: Unit,
        _ncells: u16,
    ) -> Leaves {
        Leaves::Onward
    }

    /// Its block of the summary, under its own name (for services whose
    /// block is not a field of `Summary` of its own).
    fn summary_block(&self) -> Option<serde_json::Value> {
        None
    }
}
