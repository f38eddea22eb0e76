//! Window growth: how ACKs of new data open the window (slow start and
//! congestion avoidance), and where it restarts after a loss — ns-3's
//! `TcpCongestionOps`, Aron & Druschel's "SS" and "CA" (§5).

use super::{AckCtx, Congestion, TcpVariant, Window};

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

    /// The multiplicative decrease every loss response applies
    /// ([`Window::decrease`]): ½ unless the growth says otherwise.
    fn decrease(&self) -> (u64, u64) {
        (1, 2)
    }

    /// The window was just reduced by `why`, from `cwnd_before` (bytes):
    /// a growth that keeps state across congestion events (CUBIC's W_max)
    /// records it here. Nothing by default.
    fn on_congestion(&mut self, _w: &mut Window, _cwnd_before: u64, _why: Congestion) {}

    /// The TCP variants named after this growth (`tcp.variant`).
    const VARIANTS: &'static [TcpVariant] = &[];
}

/// Writes, from the one list of growths: their modules, [`Growth`] (static
/// dispatch to the variant's struct) and [`VARIANTS`].
macro_rules! registry {
    ($($module:ident { $($variant:ident: $ty:ty),* $(,)? },)*) => {
        $(pub mod $module;)*

        #[derive(Clone, Debug)]
        pub enum Growth {
            $($($variant($ty),)*)*
        }

        /// The TCP variants each growth declares.
        pub const VARIANTS: &[&[TcpVariant]] = &[$($(<$ty as WindowGrowth>::VARIANTS,)*)*];

        impl WindowGrowth for Growth {
            #[inline]
            fn on_ack(&mut self, w: &mut Window, c: &AckCtx) {
                match self { $($(Growth::$variant(g) => g.on_ack(w, c),)*)* }
            }

            #[inline]
            fn restart_window(&self, mss: u64) -> u64 {
                match self { $($(Growth::$variant(g) => g.restart_window(mss),)*)* }
            }

            #[inline]
            fn on_window_cut(&mut self, w: &mut Window, newcwnd: u64) {
                match self { $($(Growth::$variant(g) => g.on_window_cut(w, newcwnd),)*)* }
            }

            #[inline]
            fn on_recovery_exit(&mut self, w: &mut Window) {
                match self { $($(Growth::$variant(g) => g.on_recovery_exit(w),)*)* }
            }

            #[inline]
            fn decrease(&self) -> (u64, u64) {
                match self { $($(Growth::$variant(g) => g.decrease(),)*)* }
            }

            #[inline]
            fn on_congestion(&mut self, w: &mut Window, cwnd_before: u64, why: Congestion) {
                match self { $($(Growth::$variant(g) => g.on_congestion(w, cwnd_before, why),)*)* }
            }
        }
    };
}

// The registry: every window growth, one line per file.
registry! {
    lite { Lite: lite::Lite },
    vegas { Vegas: vegas::Vegas },
    cubic { Cubic: cubic::Cubic },
}
