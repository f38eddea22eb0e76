//! ECN in TCP (RFC 3168 §6.1): the two ends' state machines, apart from
//! the window rules (the one response, `CongestionControl::on_ecn_echo`,
//! serves every variant).
//!
//! - Negotiation (§6.1.1): the sender's SYN carries ECE and CWR (an
//!   "ECN-setup SYN"); an ECN-capable receiver answers with ECE alone on its
//!   SYN-ACK ("ECN-setup SYN-ACK"). Only then is the connection ECN-capable.
//! - The sender (§6.1.2) sends new data ECT(0), never a retransmission
//!   (§6.1.5), nor a SYN or a pure ACK (§6.1.1, §6.1.4). On an ACK with ECE
//!   it halves its window as for a fast retransmit, without retransmitting
//!   and at most once per window of data: not again until data sent after
//!   the last reduction (by ECN, a fast retransmit or a timeout) is
//!   acknowledged. The window does not grow on an ACK with ECE. After any
//!   reduction, the first new data segment carries CWR.
//! - The receiver (§6.1.3) sets ECE on every ACK from a CE-marked data
//!   segment on, until a data segment with CWR arrives (a segment with both
//!   CWR and CE starts the echo again).
//! - A DCTCP receiver (RFC 8257 §3.2) instead sets ECE on exactly the ACKs
//!   of CE-marked data, and ACKs at once when the mark changes.

use crate::net::{flags, Segment};

/// What an ECN sender counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EcnSenderStats {
    /// ACKs with ECE.
    pub echoes: u64,
    /// Window reductions in response to ECE.
    pub reductions: u64,
    /// Data segments sent with CWR.
    pub cwr_sent: u64,
}

/// The sending end's ECN state (RFC 3168 §6.1.1, §6.1.2, §6.1.5).
#[derive(Clone, Debug, Default)]
pub struct EcnSender {
    /// The handshake agreed on ECN.
    pub active: bool,
    /// `snd_max` at the last window reduction: an ECE reduces again only on
    /// an ACK beyond it, one reduction per window of data (§6.1.2).
    recover: u64,
    /// `snd_max` at the last reduction for an echo: data below it was sent
    /// in a window that echo already cut, and its loss keeps ssthresh
    /// (`Window::loss_ssthresh`).
    echo_recover: u64,
    /// A reduction not yet announced with CWR (§6.1.2).
    cwr_pending: bool,
    pub stats: EcnSenderStats,
}

impl EcnSender {
    /// The flags of an ECN-setup SYN (§6.1.1).
    pub const SYN_FLAGS: u8 = flags::ECE | flags::CWR;

    /// The SYN-ACK: ECN-capable iff it carries ECE and not CWR (§6.1.1).
    pub fn on_syn_ack(&mut self, seg: &Segment) {
        self.active = seg.flags & (flags::ECE | flags::CWR) == flags::ECE;
    }

    /// An ACK of the established connection arrived: does its ECE call for
    /// a window reduction now (§6.1.2, once per window of data)?
    pub fn reduce_on(&mut self, seg: &Segment) -> bool {
        if !self.echoes(seg) {
            return false;
        }
        self.stats.echoes += 1;
        seg.ack > self.recover
    }

    /// Does this ACK echo congestion on an ECN connection?
    #[inline]
    pub fn echoes(&self, seg: &Segment) -> bool {
        self.active && seg.flags & flags::ECE != 0
    }

    /// The sender reduced its window (for ECE, a fast retransmit or a
    /// timeout) with `snd_max` sent: the next new data carries CWR, and no
    /// ECE of data sent before reduces it again.
    pub fn reduced(&mut self, snd_max: u64) {
        if self.active {
            self.recover = snd_max;
            self.cwr_pending = true;
        }
    }

    /// The sender halved its window for an ECE (counted), `snd_max` sent.
    pub fn reduced_for_echo(&mut self, snd_max: u64) {
        self.stats.reductions += 1;
        self.echo_recover = snd_max;
        self.reduced(snd_max);
    }

    /// Was data from `seq` on sent in a window an echo already cut?
    #[inline]
    pub fn echo_cut_covers(&self, seq: u64) -> bool {
        self.active && seq < self.echo_recover
    }

    /// The ECN flags of a data segment: ECT(0) on new data, nothing on a
    /// retransmission (§6.1.5); CWR on the first new data after a reduction.
    pub fn data_flags(&mut self, new_data: bool) -> u8 {
        if !self.active || !new_data {
            return 0;
        }
        if std::mem::take(&mut self.cwr_pending) {
            self.stats.cwr_sent += 1;
            flags::ECT | flags::CWR
        } else {
            flags::ECT
        }
    }
}

/// The receiving end's ECN state (RFC 3168 §6.1.1, §6.1.3; RFC 8257 §3.2).
#[derive(Clone, Debug, Default)]
pub struct EcnReceiver {
    /// The sender's SYN asked for ECN (the receiver is ECN-capable).
    pub active: bool,
    /// What its ACKs' ECE says.
    echo: Echo,
    /// Data segments that arrived marked CE.
    pub ce_received: u64,
}

/// The rule the receiver's ECE follows, with its state.
#[derive(Clone, Copy, Debug)]
enum Echo {
    /// RFC 3168 §6.1.3: ECE from a CE-marked segment on until a segment
    /// with CWR (`echo`: between the two).
    UntilCwr { echo: bool },
    /// RFC 8257 §3.2 (DCTCP.CE): ECE tells whether the last data segment
    /// carried CE, so that the sender can count the marked bytes; CWR is
    /// ignored.
    CeState { ce: bool },
}

impl Default for Echo {
    fn default() -> Self {
        Echo::UntilCwr { echo: false }
    }
}

impl EcnReceiver {
    /// A DCTCP receiver (RFC 8257 §3.2).
    pub fn dctcp() -> Self {
        EcnReceiver { echo: Echo::CeState { ce: false }, ..Self::default() }
    }

    /// The SYN: an ECN-setup SYN carries ECE and CWR (§6.1.1).
    pub fn on_syn(&mut self, seg: &Segment) {
        self.active = seg.flags & EcnSender::SYN_FLAGS == EcnSender::SYN_FLAGS;
    }

    /// Does this data segment change a DCTCP receiver's CE state? Then the
    /// receiver ACKs at once (RFC 8257 §3.2), and an ACK it still owes for
    /// earlier data goes first, with the old state (§3.2's two ACKs, as
    /// Alizadeh et al. §3.1 and Linux `dctcp_ece_ack_update`), so that the
    /// sender counts every byte under the mark it met.
    pub fn changes_state(&self, seg: &Segment) -> bool {
        match self.echo {
            Echo::CeState { ce } => self.active && ce != (seg.flags & flags::CE != 0),
            Echo::UntilCwr { .. } => false,
        }
    }

    /// A data segment arrived: CWR ends the echo, CE (re)starts it; or, for
    /// DCTCP, its CE mark is the new state.
    pub fn on_data(&mut self, seg: &Segment) {
        if !self.active {
            return;
        }
        let ce = seg.flags & flags::CE != 0;
        self.ce_received += ce as u64;
        match &mut self.echo {
            Echo::UntilCwr { echo } => {
                if seg.flags & flags::CWR != 0 {
                    *echo = false;
                }
                *echo |= ce;
            }
            Echo::CeState { ce: state } => *state = ce,
        }
    }

    /// The ECN flags of the ACK (or SYN-ACK) sent now.
    pub fn ack_flags(&self, syn_ack: bool) -> u8 {
        let echo = match self.echo {
            Echo::UntilCwr { echo } => echo,
            Echo::CeState { ce } => ce,
        };
        if self.active && (syn_ack || echo) {
            flags::ECE
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(fl: u8, ack: u64) -> Segment {
        Segment { seq: 1, ack, len: 1000, wnd: 65535, flags: fl, opt: 0, sack: 0 }
    }

    fn negotiated() -> (EcnSender, EcnReceiver) {
        let (mut s, mut r) = (EcnSender::default(), EcnReceiver::default());
        r.on_syn(&seg(flags::SYN | EcnSender::SYN_FLAGS, 0));
        s.on_syn_ack(&seg(flags::SYN | flags::ACK | r.ack_flags(true), 1));
        assert!(s.active && r.active);
        (s, r)
    }

    #[test]
    fn negotiation_needs_both_syns() {
        let mut r = EcnReceiver::default();
        r.on_syn(&seg(flags::SYN, 0));
        assert!(!r.active && r.ack_flags(true) == 0, "a plain SYN: no ECN");
        let mut s = EcnSender::default();
        s.on_syn_ack(&seg(flags::SYN | flags::ACK | flags::ECE | flags::CWR, 1));
        assert!(!s.active, "ECE with CWR is not an ECN-setup SYN-ACK");
        assert_eq!(s.data_flags(true), 0, "not negotiated: nothing ECT");
        negotiated();
    }

    #[test]
    fn the_receiver_echoes_ce_until_cwr() {
        let (_, mut r) = negotiated();
        r.on_data(&seg(flags::ACK | flags::ECT, 0));
        assert_eq!(r.ack_flags(false), 0);
        r.on_data(&seg(flags::ACK | flags::ECT | flags::CE, 0));
        for _ in 0..3 {
            assert_eq!(r.ack_flags(false), flags::ECE, "every ACK until CWR");
            r.on_data(&seg(flags::ACK | flags::ECT, 0));
        }
        r.on_data(&seg(flags::ACK | flags::ECT | flags::CWR, 0));
        assert_eq!(r.ack_flags(false), 0, "CWR ends the echo");
        r.on_data(&seg(flags::ACK | flags::ECT | flags::CWR | flags::CE, 0));
        assert_eq!(r.ack_flags(false), flags::ECE, "CWR with CE: echo again");
        assert_eq!(r.ce_received, 2);
    }

    #[test]
    fn the_sender_reduces_once_per_window_and_announces_it_with_cwr() {
        let (mut s, _) = negotiated();
        assert_eq!(s.data_flags(true), flags::ECT);
        assert!(s.reduce_on(&seg(flags::ACK | flags::ECE, 1001)));
        s.reduced_for_echo(10_001);
        // Further echoes of data sent before the reduction: no reduction.
        assert!(!s.reduce_on(&seg(flags::ACK | flags::ECE, 5001)));
        assert!(!s.reduce_on(&seg(flags::ACK | flags::ECE, 10_001)));
        assert!(!s.reduce_on(&seg(flags::ACK, 12_001)), "no ECE");
        assert_eq!(s.data_flags(false), 0, "a retransmission is not ECT");
        assert_eq!(s.data_flags(true), flags::ECT | flags::CWR, "the first new data");
        assert_eq!(s.data_flags(true), flags::ECT);
        // An echo of data sent after the reduction: the next window.
        assert!(s.reduce_on(&seg(flags::ACK | flags::ECE, 12_001)));
        assert_eq!(s.stats, EcnSenderStats { echoes: 4, reductions: 1, cwr_sent: 1 });
    }

    #[test]
    fn a_dctcp_receiver_echoes_the_ce_state_and_ignores_cwr() {
        let mut r = EcnReceiver::dctcp();
        r.on_syn(&seg(flags::SYN | EcnSender::SYN_FLAGS, 0));
        assert_eq!(r.ack_flags(true), flags::ECE, "the ECN-setup SYN-ACK");
        let (plain, ce) = (seg(flags::ACK | flags::ECT, 0), seg(flags::ACK | flags::ECT | flags::CE, 0));
        assert!(!r.changes_state(&plain) && r.changes_state(&ce));
        r.on_data(&ce);
        assert_eq!(r.ack_flags(false), flags::ECE);
        assert!(!r.changes_state(&ce) && r.changes_state(&plain));
        r.on_data(&seg(flags::ACK | flags::ECT | flags::CWR | flags::CE, 0));
        assert_eq!(r.ack_flags(false), flags::ECE, "CWR does not end a DCTCP echo");
        r.on_data(&plain);
        assert_eq!(r.ack_flags(false), 0, "the next unmarked segment does");
        assert_eq!(r.ce_received, 2);
        let mut classic = EcnReceiver::default();
        classic.on_syn(&seg(flags::SYN | EcnSender::SYN_FLAGS, 0));
        assert!(!classic.changes_state(&ce), "RFC 3168's receiver has no CE state");
    }
}
