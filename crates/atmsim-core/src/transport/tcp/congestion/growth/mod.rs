//! Window growth: how ACKs of new data open the window (slow start and
//! congestion avoidance), and where it restarts after a loss — ns-3's
//! `TcpCongestionOps`, Aron & Druschel's "SS" and "CA" (§5).

pub mod lite;
pub mod vegas;

use super::{AckCtx, Window};

/// What a window growth provides. Implemented by each variant's struct and
/// by [`Growth`], which dispatches to them statically.
pub trait WindowGrowth {
    /// An ACK of new data that loss recovery lets open the window.
    fn on_ack(&mut self, w: &mut Window, c: &AckCtx);

    /// The window after a retransmission timeout (bytes).
    fn restart_window(&self, mss: u64) -> u64;

    /// A recovery cut the window to `newcwnd` without choosing ssthresh
    /// (Vegas-RM's decrease): set it as this growth needs.
    fn on_window_cut(&mut self, w: &mut Window, newcwnd: u64);

    /// A fast recovery ended by deflating the window.
    fn on_recovery_exit(&mut self, w: &mut Window);
}

#[derive(Clone, Debug)]
pub enum Growth {
    Lite(lite::Lite),
    Vegas(vegas::Vegas),
}

/// Static dispatch to the variant's struct: a new growth adds its line.
macro_rules! dispatch {
    ($self:expr, $g:ident => $e:expr) => {
        match $self {
            Growth::Lite($g) => $e,
            Growth::Vegas($g) => $e,
        }
    };
}

impl WindowGrowth for Growth {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, c: &AckCtx) {
        dispatch!(self, g => g.on_ack(w, c))
    }

    #[inline]
    fn restart_window(&self, mss: u64) -> u64 {
        dispatch!(self, g => g.restart_window(mss))
    }

    #[inline]
    fn on_window_cut(&mut self, w: &mut Window, newcwnd: u64) {
        dispatch!(self, g => g.on_window_cut(w, newcwnd))
    }

    #[inline]
    fn on_recovery_exit(&mut self, w: &mut Window) {
        dispatch!(self, g => g.on_recovery_exit(w))
    }
}
