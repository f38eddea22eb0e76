//! Helpers for the controller's tests.

use super::{AckCtx, CongestionControl, DupAckAction, NewAckAction, Variant};

pub const MSS: u64 = 1000;

/// An ACK context with `snd_nxt = snd_max` and a large peer window.
pub fn ctx(una: u64, max: u64) -> AckCtx {
    AckCtx { snd_una: una, snd_nxt: max, snd_max: max, snd_wnd: 1_000_000, ..Default::default() }
}

/// A controller with Brakmo & Peterson's fixes, one segment initially,
/// no window cap to speak of and no AFR.
pub fn cc(variant: Variant) -> CongestionControl {
    CongestionControl::new(variant, MSS, 1, 1 << 30, true, None)
}

pub fn fr(segments: u8, restore: bool) -> DupAckAction {
    DupAckAction::FastRetransmit { segments, restore_snd_nxt: restore }
}

pub fn new_ack(cc: &mut CongestionControl, acked: u64, una: u64, max: u64) -> NewAckAction {
    cc.on_new_ack(&AckCtx { acked, ..ctx(una, max) })
}
