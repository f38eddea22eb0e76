//! Loss recovery: what duplicate ACKs do, and what the ACKs that end a loss
//! do — ns-3's `TcpRecoveryOps`, Aron & Druschel's "RM" (§5). The window
//! growth stays out of it: a recovery says whether a new ACK may open the
//! window and the controller asks the growth to do so.

pub mod scoreboard;

use super::{AckCtx, NewAckAction, TcpVariant, Window};

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

    /// The TCP variants named after this recovery (`tcp.variant`).
    const VARIANTS: &'static [TcpVariant] = &[];
}

/// Writes, from the one list of recoveries: their modules, [`Recovery`]
/// (static dispatch to the variant's struct) and [`VARIANTS`].
macro_rules! registry {
    ($($module:ident { $($variant:ident: $ty:ty),* $(,)? },)*) => {
        $(pub mod $module;)*

        #[derive(Clone, Debug)]
        pub enum Recovery {
            $($($variant($ty),)*)*
        }

        /// The TCP variants each recovery declares.
        pub const VARIANTS: &[&[TcpVariant]] = &[$($(<$ty as LossRecovery>::VARIANTS,)*)*];

        impl LossRecovery for Recovery {
            #[inline]
            fn on_dup_ack(&mut self, w: &mut Window, c: &AckCtx) -> DupOutcome {
                match self { $($(Recovery::$variant(r) => r.on_dup_ack(w, c),)*)* }
            }

            #[inline]
            fn on_new_ack(&mut self, w: &mut Window, c: &AckCtx, dupacks: u32) -> AckOutcome {
                match self { $($(Recovery::$variant(r) => r.on_new_ack(w, c, dupacks),)*)* }
            }

            #[inline]
            fn on_timeout(&mut self, c: &AckCtx) {
                match self { $($(Recovery::$variant(r) => r.on_timeout(c),)*)* }
            }

            #[inline]
            fn in_recovery(&self) -> bool {
                match self { $($(Recovery::$variant(r) => r.in_recovery(),)*)* }
            }
        }
    };
}

// The registry: every loss recovery, one line per file.
registry! {
    lite { Lite: lite::Lite },
    tahoe { Tahoe: tahoe::Tahoe },
    timeout_only { TimeoutOnly: timeout_only::TimeoutOnly },
    newreno { NewReno: newreno::NewReno },
    vegas_rm { VegasRm: vegas_rm::VegasRm },
    sack { Sack: sack::Sack },
}
