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

    /// An ACK of the established connection at an ECN sender, before any
    /// reduction it brings: `acked` bytes newly acknowledged, `marked` if it
    /// carries ECE, `snd_una` after it, `snd_nxt` as it stands. DCTCP's
    /// estimator of the marked fraction counts them (RFC 8257 §3.3);
    /// nothing by default.
    fn on_ecn_ack(&mut self, _acked: u64, _marked: bool, _snd_una: u64, _snd_nxt: u64) {}

    /// ssthresh in response to an ECN echo (RFC 3168 §6.1.2): the window's
    /// multiplicative decrease, as a fast retransmit takes ([`Window::half`]),
    /// unless the growth says otherwise (DCTCP's cwnd·(1 − α/2)).
    fn echo_ssthresh(&self, w: &Window, snd_wnd: u64) -> u64 {
        w.half(snd_wnd)
    }

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
            fn on_ecn_ack(&mut self, acked: u64, marked: bool, snd_una: u64, snd_nxt: u64) {
                match self { $($(Growth::$variant(g) => g.on_ecn_ack(acked, marked, snd_una, snd_nxt),)*)* }
            }

            #[inline]
            fn echo_ssthresh(&self, w: &Window, snd_wnd: u64) -> u64 {
                match self { $($(Growth::$variant(g) => g.echo_ssthresh(w, snd_wnd),)*)* }
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
    dctcp { Dctcp: dctcp::Dctcp },
}
