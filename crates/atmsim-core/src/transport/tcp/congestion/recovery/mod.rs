//! Loss recovery: what duplicate ACKs do, and what the ACKs that end a loss
//! do — ns-3's `TcpRecoveryOps`, Aron & Druschel's "RM" (§5). The window
//! growth stays out of it: a recovery says whether a new ACK may open the
//! window and the controller asks the growth to do so.

pub mod lite;
pub mod newreno;
pub mod sack;
pub mod scoreboard;
pub mod tahoe;
pub mod timeout_only;
pub mod vegas_rm;

use super::{AckCtx, NewAckAction, Window};

/// Duplicate ACKs that trigger a fast retransmission (`tcprexmtthresh`,
/// 4.4BSD-Lite `tcp_input.c`; RFC 5681 §3.2).
pub const THRESH: u32 = 3;

/// A recovery's answer to a duplicate ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupOutcome {
    Nothing,
    /// The window grew (inflation): try to send.
    Send,
    /// Retransmit the segment at `snd_una` (AFR may add its successor).
    /// `restore_snd_nxt`: afterwards continue where the sender was (BSD),
    /// else after the retransmission (go-back-N). `cut_to`: the recovery cut
    /// the window to this many bytes and leaves ssthresh to the growth.
    FastRetransmit {
        restore_snd_nxt: bool,
        cut_to: Option<u64>,
    },
}

/// A recovery's answer to an ACK of new data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckOutcome {
    pub action: NewAckAction,
    /// Let the growth open the window for this ACK (false while an RFC 6582
    /// recovery holds it).
    pub grow: bool,
    /// This ACK ended a fast recovery by deflating the window.
    pub left_recovery: bool,
}

impl AckOutcome {
    /// The usual case: no retransmission, the window opens.
    pub const GROW: AckOutcome = AckOutcome { action: NewAckAction::Nothing, grow: true, left_recovery: false };
}

/// What a loss recovery provides. Implemented by each variant's struct and
/// by [`Recovery`], which dispatches to them statically. The caller has
/// already counted the duplicate ACK in `w.dupacks`; for a new ACK it has
/// zeroed `w.dupacks` and passes the count it had as `dupacks`.
pub trait LossRecovery {
    fn on_dup_ack(&mut self, w: &mut Window, c: &AckCtx) -> DupOutcome;

    fn on_new_ack(&mut self, w: &mut Window, c: &AckCtx, dupacks: u32) -> AckOutcome;

    /// A retransmission timeout (the controller has already reset cwnd,
    /// ssthresh and `t_dupacks`).
    fn on_timeout(&mut self, c: &AckCtx);

    /// In an RFC 6582 or RFC 6675 recovery.
    fn in_recovery(&self) -> bool {
        false
    }
}

#[derive(Clone, Debug)]
pub enum Recovery {
    Lite(lite::Lite),
    Tahoe(tahoe::Tahoe),
    TimeoutOnly(timeout_only::TimeoutOnly),
    NewReno(newreno::NewReno),
    VegasRm(vegas_rm::VegasRm),
    Sack(sack::Sack),
}

/// Static dispatch to the variant's struct: a new recovery adds its line.
macro_rules! dispatch {
    ($self:expr, $r:ident => $e:expr) => {
        match $self {
            Recovery::Lite($r) => $e,
            Recovery::Tahoe($r) => $e,
            Recovery::TimeoutOnly($r) => $e,
            Recovery::NewReno($r) => $e,
            Recovery::VegasRm($r) => $e,
            Recovery::Sack($r) => $e,
        }
    };
}

impl LossRecovery for Recovery {
    #[inline]
    fn on_dup_ack(&mut self, w: &mut Window, c: &AckCtx) -> DupOutcome {
        dispatch!(self, r => r.on_dup_ack(w, c))
    }

    #[inline]
    fn on_new_ack(&mut self, w: &mut Window, c: &AckCtx, dupacks: u32) -> AckOutcome {
        dispatch!(self, r => r.on_new_ack(w, c, dupacks))
    }

    #[inline]
    fn on_timeout(&mut self, c: &AckCtx) {
        dispatch!(self, r => r.on_timeout(c))
    }

    #[inline]
    fn in_recovery(&self) -> bool {
        dispatch!(self, r => r.in_recovery())
    }
}
