//! One BSD-style TCP: 4.4BSD-Lite (as described in Wright & Stevens, TCP/IP
//! Illustrated vol. 2) and its variants. Reliable delivery is `sender.rs`
//! and `receiver.rs`; the window rules are `congestion`.
pub mod afr;
pub mod congestion;
pub mod ecn;
pub mod receiver;
pub mod rtt;
pub mod sack_option;
pub mod sender;

pub use congestion::{CongestionControl, Variant};
pub use receiver::{Reply, TcpReceiver};
pub use sender::{SenderEvent, SenderState, TcpSender};

/// The TCP parameters of a scenario.
#[derive(Clone, Debug)]
pub struct TcpConfig {
    pub variant: Variant,
    /// Adaptive fast retransmit and its predictor, if enabled.
    pub afr: Option<afr::Predictor>,
    /// Brakmo & Peterson's 1995 fixes (Aron & Druschel's "Lite.4"): no
    /// MSS/8 in congestion avoidance, finer RTT estimates, RTO ≥ RTT + 2
    /// ticks.
    pub bp95: bool,
    pub mss: u32,
    /// Sender buffer and receiver window (bytes).
    pub snd_buf: u64,
    pub rcv_buf: u64,
    pub initial_window: u32,
    pub delayed_ack: bool,
    pub rttmin_ticks: u32,
    pub rxtmax_ticks: u32,
    /// Drop the connection after `TCP_MAXRXTSHIFT` consecutive timeouts
    /// (BSD); ns-1's TCP never gives up, it keeps retransmitting at the
    /// largest backoff (Bestavros & Kim's simulator).
    pub give_up: bool,
    /// ECN-capable (RFC 3168 §6.1) at both ends of every connection.
    pub ecn: bool,
    /// SACK variants: new data on the duplicate ACKs before loss recovery,
    /// as cwnd − pipe allows (RFC 6675 §5 step 3, RFC 3042).
    pub limited_transmit: bool,
}

impl TcpConfig {
    /// RFC 1323 window scale needed for the larger buffer, and the cwnd cap
    /// `TCP_MAXWIN << snd_scale` it implies.
    pub fn max_cwnd(&self) -> u64 {
        let need = self.snd_buf.max(self.rcv_buf);
        let mut scale = 0;
        while (65535u64 << scale) < need && scale < 14 {
            scale += 1;
        }
        65535u64 << scale
    }
}

#[cfg(test)]
mod dctcp_tests;
#[cfg(test)]
mod ecn_tests;
#[cfg(test)]
mod tests;
