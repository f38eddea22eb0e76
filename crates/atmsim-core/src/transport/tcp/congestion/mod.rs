//! Congestion control: the window rules, apart from reliable delivery.
//!
//! The sender (`sender.rs`) owns sequence numbers, the retransmit timer, the
//! RTT estimator and the per-segment send log. It tells the controller what
//! happened (a duplicate ACK, a new ACK, a timeout) in an [`AckCtx`] and
//! carries out the answer ([`DupAckAction`], [`NewAckAction`]).
//!
//! The controller is three independent parts, after Aron & Druschel's own
//! factoring of Vegas into SS, RM and CA (§5) and ns-3's split of
//! `TcpCongestionOps` from `TcpRecoveryOps`:
//! - [`growth`]: how new ACKs open the window (slow start and congestion
//!   avoidance) and where it restarts after a timeout — BSD/Lite, or
//!   Vegas-SS/CA;
//! - [`recovery`]: what duplicate ACKs and the ACKs that end a loss do —
//!   Lite, Tahoe, NewReno, or Vegas-RM;
//! - AFR ([`Afr`], Aron & Druschel §5.1.1): how many segments a fast
//!   retransmission sends, whichever recovery decided on it.
//!
//! They share one [`Window`] (BSD tcpcb's `snd_cwnd`, `snd_ssthresh`,
//! `t_dupacks`). Growth and recovery are each an enum of per-variant structs,
//! as smoltcp's `congestion` module: dispatch is a `match`, with no trait
//! object and no allocation per ACK. The traits [`WindowGrowth`] and
//! [`LossRecovery`] state what a variant must provide.
//!
//! # Adding a variant
//! - A loss recovery (e.g. SACK): a file `recovery/sack.rs` with a struct
//!   implementing [`LossRecovery`], tests beside it, and one line in
//!   `recovery/mod.rs`'s `registry!`. To offer it by name, its
//!   `LossRecovery::VARIANTS` declares the [`TcpVariant`]s named after it
//!   (their scenario name, docs, goldens); `tcp.variant` and its error
//!   messages then know it.
//! - A window growth: the same in `growth/`, with [`WindowGrowth`].
//! - Nothing else changes: the controller calls the parts only through the
//!   two traits, in a fixed order — on a duplicate ACK the recovery, then
//!   the growth's hook and AFR; on a new ACK AFR's verdict, the recovery,
//!   then the growth.
//! - A new transport (a rate-based ARB sender, TCP Boston's partial ACKs)
//!   edits none of these files: it drives a [`CongestionControl`] from its
//!   own sender as `sender.rs` does (TCP Boston counts a partial ACK as a
//!   duplicate ACK), builds one from any parts with
//!   [`CongestionControl::with_parts`], or uses none at all.

pub mod growth;
pub mod recovery;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod testutil;

use super::afr::Afr;
use crate::base::mechanism::{Golden, Mechanism, Networks};
use crate::time::Time;
pub use growth::{Growth, WindowGrowth};
pub use recovery::sack::{NextSeg, Sack, SackStep};
pub use recovery::{LossRecovery, Recovery};

/// What the window rules may look at when an ACK arrives or a timer fires.
/// For a new ACK, `snd_una` is already the acknowledged point and the
/// oldest-segment fields describe the oldest segment still unacknowledged.
#[derive(Clone, Copy, Debug, Default)]
pub struct AckCtx {
    pub now: Time,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub snd_max: u64,
    /// Peer's advertised window.
    pub snd_wnd: u64,
    /// Bytes newly acknowledged (new ACKs).
    pub acked: u64,
    /// Last send time and transmissions of the oldest unacknowledged segment.
    pub oldest_sent_at: Time,
    pub oldest_transmissions: u32,
    /// Exact RTT of the newest segment this ACK covers, if it was sent once.
    pub rtt_sample: Option<Time>,
    /// The data at `snd_una` was sent before the window's last reduction for
    /// an ECN echo: a loss in it is the congestion that echo already answered
    /// ([`Window::loss_ssthresh`]).
    pub echo_cut: bool,
}

/// A TCP variant as a scenario names it (`tcp.variant`): a window growth,
/// a loss recovery and whether AFR decides how many segments a fast
/// retransmission sends, with its declaration. Each is declared by the part
/// it is named after (`recovery/tahoe.rs` declares "tahoe", `growth/vegas.rs`
/// "vegas"), in that part's `VARIANTS`.
#[derive(Debug)]
pub struct TcpVariant {
    pub mechanism: Mechanism,
    /// The window growth; `bp95` selects Brakmo & Peterson's congestion
    /// avoidance increment for the BSD growth.
    pub growth: fn(bp95: bool) -> Growth,
    pub recovery: fn() -> Recovery,
    /// Adaptive Fast Retransmit (Aron & Druschel §5.1.1) on fast retransmissions.
    pub afr: bool,
    /// Initial window in segments: Vegas starts with 2 (Aron & Druschel
    /// §5.3), the BSD variants with 1.
    pub initial_window: u32,
    /// The receiver sends SACK blocks (RFC 2018).
    pub sack_option: bool,
    /// How the variant uses ECN: as the scenario says (`tcp.ecn`), or
    /// always, with DCTCP's echo of every CE mark (RFC 8257 §3.2).
    pub ecn: EcnUse,
}

/// How a TCP variant uses ECN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnUse {
    /// RFC 3168 when the scenario enables it (`tcp.ecn`): the receiver
    /// echoes a CE mark on every ACK until the sender's CWR (§6.1.3).
    Optional,
    /// Always (DCTCP needs the marks, RFC 8257 §3): the receiver's ECE
    /// tells the CE state of the data it acknowledges (§3.2).
    Dctcp,
}

/// A registered variant.
pub type Variant = &'static TcpVariant;

/// The declaration of a variant named `name` (`tcp.variant`), on either
/// network, with its one line of docs and its goldens.
pub const fn declare(name: &'static str, about: &'static str, goldens: &'static [Golden]) -> Mechanism {
    Mechanism {
        name,
        selected_by: "tcp.variant",
        networks: Networks::Both,
        about,
        docs: "tcp.md#variants",
        keys: &[],
        counters: &[],
        goldens,
    }
}

/// The same variant with Adaptive Fast Retransmit (Aron & Druschel §5.1.1):
/// its name with "-afr", AFR's counters in each flow's summary.
pub const fn with_afr(name: &'static str, about: &'static str, goldens: &'static [Golden]) -> Mechanism {
    Mechanism { counters: &["afr_time_in_states_s", "afr_extra_retransmits", "afr_needless_extra"], ..declare(name, about, goldens) }
}

/// A variant on BSD's window growth (Lite's slow start and congestion
/// avoidance) with `recovery`: one segment initially, no AFR, no SACK option.
pub const fn on_lite(mechanism: Mechanism, recovery: fn() -> Recovery) -> TcpVariant {
    TcpVariant {
        mechanism,
        growth: |bp95| Growth::Lite(growth::lite::Lite::new(bp95)),
        recovery,
        afr: false,
        initial_window: 1,
        sack_option: false,
        ecn: EcnUse::Optional,
    }
}

/// A golden variation of topology 1 on ATM with `overrides`.
pub const fn topology1(variation: &'static str, overrides: &'static [&'static str]) -> Golden {
    Golden { scenario: "aron97-topo1-atm", variation, overrides }
}

impl PartialEq for TcpVariant {
    fn eq(&self, other: &Self) -> bool {
        self.mechanism.name == other.mechanism.name
    }
}

impl TcpVariant {
    pub fn name(&self) -> &'static str {
        self.mechanism.name
    }
}

/// Every registered TCP variant: those the loss recoveries declare (the BSD
/// family, "lite" first), then those the window growths declare.
pub fn variants() -> impl Iterator<Item = Variant> {
    recovery::VARIANTS.iter().chain(growth::VARIANTS).flat_map(|v| v.iter())
}

/// The registered variant `name` ("lite", "vegas-afr").
pub fn variant(name: &str) -> Option<Variant> {
    variants().find(|v| v.name() == name)
}

/// What reduced the window, as a growth hears of it
/// ([`WindowGrowth::on_congestion`]), after the reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Congestion {
    /// A loss recovery began (fast retransmit; RFC 6675 step 4).
    Loss,
    /// An ECN echo (RFC 3168 §6.1.2).
    Echo,
    /// A retransmission timeout.
    Timeout,
}

/// The controller's answer to a duplicate ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupAckAction {
    Nothing,
    /// Retransmit `segments` (1, or 2 with AFR) starting at `snd_una`.
    /// `restore_snd_nxt`: afterwards continue where the sender was (BSD);
    /// else continue after the retransmission (go-back-N).
    FastRetransmit {
        segments: u8,
        restore_snd_nxt: bool,
    },
    /// The window grew (recovery inflation): try to send.
    Send,
}

/// The controller's answer to an ACK of new data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewAckAction {
    Nothing,
    /// Retransmit the segment now at `snd_una` (NewReno partial ACK, or
    /// Vegas-RM's check of the first two ACKs after a retransmission).
    RetransmitFirst,
    /// NewReno partial ACK after the first of a recovery: retransmit, but
    /// leave the retransmit timer running (RFC 6582 §3.2 step 3 and §4,
    /// RFC 3782's "Impatient" variant: only the first partial ACK resets
    /// it).
    RetransmitFirstKeepTimer,
}

/// The window state all parts share (bytes).
#[derive(Clone, Debug)]
pub struct Window {
    /// `snd_cwnd`.
    pub cwnd: u64,
    /// `snd_ssthresh`.
    pub ssthresh: u64,
    /// `t_maxseg`.
    pub mss: u64,
    /// `TCP_MAXWIN << snd_scale`: cwnd never grows beyond it.
    pub max_cwnd: u64,
    /// Consecutive duplicate ACKs (`t_dupacks`).
    pub dupacks: u32,
    /// The multiplicative decrease on a congestion event, as a fraction
    /// (numerator, denominator): ½ for the BSD family (RFC 5681), 7/10 for
    /// CUBIC (RFC 9438 §4.6, β_cubic). Set from the growth
    /// ([`WindowGrowth::decrease`]); every recovery applies it.
    pub decrease: (u64, u64),
}

impl Window {
    pub fn new(mss: u64, initial_window: u64, max_cwnd: u64) -> Self {
        Window {
            cwnd: initial_window * mss,
            // 65535 << 14, as `tcp_newtcpcb` (4.4BSD-Lite tcp_subr.c):
            // effectively unlimited, so the first loss ends slow start.
            ssthresh: 65535 << 14,
            mss,
            max_cwnd,
            dupacks: 0,
            decrease: (1, 2),
        }
    }

    /// BSD's halving on a loss (`tcp_timers`, `tcp_input.c`): max(2,
    /// min(wnd, cwnd) / 2 / MSS) segments, in whole segments — RFC 5681
    /// eq. 4 with min(wnd, cwnd) standing for the flight size; with the
    /// growth's decrease in place of ½ (CUBIC: 7/10 of it).
    pub fn half(&self, snd_wnd: u64) -> u64 {
        let (num, den) = self.decrease;
        (snd_wnd.min(self.cwnd) * num / den / self.mss).max(2) * self.mss
    }

    /// ssthresh after a loss from the flight size (RFC 5681 eq. 4; RFC
    /// 6582, RFC 6675 §5 step 4.2): the growth's decrease of it (½, or
    /// CUBIC's β_cubic), at least 2 segments.
    pub fn reduced_flight(&self, flight: u64) -> u64 {
        let (num, den) = self.decrease;
        (flight * num / den).max(2 * self.mss)
    }

    /// ssthresh on a fast retransmit: `cut`, the recovery's decrease, unless
    /// the lost data's window was already cut for an ECN echo
    /// (`c.echo_cut`), which keeps ssthresh. RFC 3168 §6.1.2 reduces at most
    /// once per window of data, whatever the signal (RFC 8257 §3.5 likewise
    /// for DCTCP); Linux's `tcp_enter_recovery` keeps ssthresh when it enters
    /// recovery from CWR. Finding N11 of docs/validation.md.
    pub fn loss_ssthresh(&self, c: &AckCtx, cut: u64) -> u64 {
        if c.echo_cut {
            self.ssthresh
        } else {
            cut
        }
    }

    /// One more MSS during fast recovery, for a segment that left the
    /// network (Jacobson's window inflation, RFC 5681 §3.2 step 4).
    pub fn inflate(&mut self) {
        self.cwnd = (self.cwnd + self.mss).min(self.max_cwnd);
    }
}

/// Window growth + loss recovery + optional AFR, behind the narrow
/// interface the sender uses.
#[derive(Clone, Debug)]
pub struct CongestionControl {
    w: Window,
    growth: Growth,
    recovery: Recovery,
    afr: Option<Afr>,
    /// The ACK being processed echoes congestion (ECN's ECE): the window
    /// does not grow on it (RFC 3168 §6.1.2).
    echo: bool,
}

impl CongestionControl {
    pub fn new(variant: Variant, mss: u64, initial_window: u64, max_cwnd: u64, bp95: bool, afr: Option<Afr>) -> Self {
        Self::with_parts(Window::new(mss, initial_window, max_cwnd), (variant.growth)(bp95), (variant.recovery)(), afr)
    }

    /// Any growth with any recovery (combinations no [`Variant`] names).
    pub fn with_parts(mut window: Window, growth: Growth, recovery: Recovery, afr: Option<Afr>) -> Self {
        window.decrease = growth.decrease();
        CongestionControl { w: window, growth, recovery, afr, echo: false }
    }

    /// Congestion window (bytes).
    pub fn cwnd(&self) -> u64 {
        self.w.cwnd
    }

    /// Slow-start threshold (bytes).
    pub fn ssthresh(&self) -> u64 {
        self.w.ssthresh
    }

    /// Consecutive duplicate ACKs.
    pub fn dupacks(&self) -> u32 {
        self.w.dupacks
    }

    /// In an RFC 6582 (NewReno) or RFC 6675 (SACK) recovery; the BSD
    /// recoveries keep no such state, theirs is `t_dupacks > 3`.
    pub fn in_recovery(&self) -> bool {
        self.recovery.in_recovery()
    }

    pub fn window(&self) -> &Window {
        &self.w
    }

    pub fn growth(&self) -> &Growth {
        &self.growth
    }

    pub fn recovery(&self) -> &Recovery {
        &self.recovery
    }

    /// Adaptive fast retransmit, if enabled.
    pub fn afr(&self) -> Option<&Afr> {
        self.afr.as_ref()
    }

    pub fn afr_mut(&mut self) -> Option<&mut Afr> {
        self.afr.as_mut()
    }

    /// The SACK recovery, if this controller has one (its sender then
    /// reads SACK blocks and asks it what to send).
    pub fn sack(&self) -> Option<&Sack> {
        match &self.recovery {
            Recovery::Sack(s) => Some(s),
            _ => None,
        }
    }

    pub fn sack_mut(&mut self) -> Option<&mut Sack> {
        match &mut self.recovery {
            Recovery::Sack(s) => Some(s),
            _ => None,
        }
    }

    /// Any ACK at a SACK sender, with its blocks (RFC 6675 §5; see
    /// [`Sack::on_ack`]). Outside recovery an ACK of new data opens the
    /// window by the growth's rule; during recovery cwnd stays at ssthresh.
    pub fn on_sack_ack(&mut self, c: &AckCtx, blocks: &[(u64, u64)]) -> SackStep {
        let Recovery::Sack(s) = &mut self.recovery else { panic!("on_sack_ack: not a SACK controller") };
        let before = self.w.cwnd;
        let step = s.on_ack(&mut self.w, c, blocks);
        match step {
            SackStep::Normal if c.acked > 0 && !self.echo => self.growth.on_ack(&mut self.w, c),
            SackStep::Enter if !c.echo_cut => self.growth.on_congestion(&mut self.w, before, Congestion::Loss),
            SackStep::Exit => self.growth.on_recovery_exit(&mut self.w),
            _ => {}
        }
        step
    }

    /// An ACK that is neither a duplicate nor new (a window update, data):
    /// BSD `tcp_input.c` zeroes `t_dupacks`.
    pub fn reset_dupacks(&mut self) {
        self.w.dupacks = 0;
    }

    /// A duplicate ACK arrived.
    pub fn on_dup_ack(&mut self, c: &AckCtx) -> DupAckAction {
        self.w.dupacks += 1;
        let before = self.w.cwnd;
        match self.recovery.on_dup_ack(&mut self.w, c) {
            recovery::DupOutcome::Nothing => DupAckAction::Nothing,
            recovery::DupOutcome::Send => DupAckAction::Send,
            recovery::DupOutcome::FastRetransmit { restore_snd_nxt, cut_to } => {
                if let Some(newcwnd) = cut_to {
                    self.growth.on_window_cut(&mut self.w, newcwnd);
                }
                // A loss in a window an echo already cut is not a new
                // congestion event (`Window::loss_ssthresh`).
                if !c.echo_cut {
                    self.growth.on_congestion(&mut self.w, before, Congestion::Loss);
                }
                let segments = match &mut self.afr {
                    Some(afr) => afr.fast_retransmit(c.snd_una, c.snd_max, self.w.mss),
                    None => 1,
                };
                DupAckAction::FastRetransmit { segments, restore_snd_nxt }
            }
        }
    }

    /// An ACK for new data arrived (`c.acked` bytes, now at `c.snd_una`).
    pub fn on_new_ack(&mut self, c: &AckCtx) -> NewAckAction {
        let dupacks = std::mem::take(&mut self.w.dupacks);
        if let Some(afr) = &mut self.afr {
            afr.on_advance(c.snd_una, c.now);
        }
        let out = self.recovery.on_new_ack(&mut self.w, c, dupacks);
        if out.left_recovery {
            self.growth.on_recovery_exit(&mut self.w);
        }
        if out.grow && !self.echo {
            self.growth.on_ack(&mut self.w, c);
        }
        out.action
    }

    /// The ACK about to be processed echoes congestion (ECE, RFC 3168
    /// §6.1.2: "the sender SHOULD NOT increase the congestion window in
    /// response to the receipt of an ECN-Echo ACK packet"); until the next
    /// call.
    pub fn set_echo(&mut self, echo: bool) {
        self.echo = echo;
    }

    /// An ACK at an ECN sender, before the reduction it may bring: the
    /// growth counts it ([`WindowGrowth::on_ecn_ack`]).
    pub fn on_ecn_ack(&mut self, acked: u64, marked: bool, snd_una: u64, snd_nxt: u64) {
        self.growth.on_ecn_ack(acked, marked, snd_una, snd_nxt);
    }

    /// ECN's congestion response (RFC 3168 §6.1.2), one for every variant:
    /// halve the window as for a fast retransmit (ssthresh to half the
    /// flight, BSD's [`Window::half`], at least 2 segments; cwnd to
    /// ssthresh, the window a fast recovery ends with, but never up),
    /// retransmitting nothing. Vegas too takes this
    /// multiplicative decrease, not a rule of its own: Brakmo & Peterson
    /// define no response to ECN. DCTCP's growth sets ssthresh to
    /// cwnd·(1 − α/2) instead ([`WindowGrowth::echo_ssthresh`]). The sender
    /// calls it at most once per window of data (`ecn.rs`).
    pub fn on_ecn_echo(&mut self, c: &AckCtx) {
        let before = self.w.cwnd;
        self.w.ssthresh = self.growth.echo_ssthresh(&self.w, c.snd_wnd);
        self.w.cwnd = self.w.cwnd.min(self.w.ssthresh);
        self.growth.on_congestion(&mut self.w, before, Congestion::Echo);
    }

    /// Retransmission timeout (4.4BSD-Lite `tcp_timers`; Jacobson 1988;
    /// RFC 5681 §3.1 eq. 4): remember half the window, restart slow start
    /// from the growth's restart window.
    pub fn on_timeout(&mut self, c: &AckCtx) {
        let before = self.w.cwnd;
        self.w.ssthresh = self.w.half(c.snd_wnd);
        self.w.cwnd = self.growth.restart_window(self.w.mss);
        self.growth.on_congestion(&mut self.w, before, Congestion::Timeout);
        self.w.dupacks = 0;
        if let Some(afr) = &mut self.afr {
            afr.on_timeout();
        }
        self.recovery.on_timeout(c);
    }
}
