//! The host and adapter model of Morris & Kung (1995: the OTTO adapters and
//! host rates of their setup, and the discussion of Fig. 3). Hosts are ideal (zero processing) unless a scenario
//! asks for this model.
//!
//! - Each host's TCP/IP processing takes L / R_host per packet sent or
//!   received, serialised on one CPU, pipelined with the link.
//! - The transmit adapter holds exactly one packet: the next is fetched over
//!   the bus (L / R_bus) only when the last cell of the current one has left.
//! - The receive adapter reassembles a whole packet (store and forward),
//!   then moves it over the bus (L / R_bus) and TCP processes it (L / R_host).
//!
//! So up to about one packet sits in each adapter: the "storage" that lets
//! Morris & Kung's TCP do well with a switch buffer slightly below a window.

use crate::net::{FrameHeader, VcId, CELL_PAYLOAD};
use crate::time::{Rate, Serializer, Time};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostModel {
    pub tcp_rate: Rate,
    pub bus_rate: Rate,
}

/// Where one host's packets are in its pipeline.
#[derive(Clone, Debug)]
pub struct HostPipeline {
    cpu: Serializer,
    bus_tx: Serializer,
    bus_rx: Serializer,
    /// The receive adapter moving cells to host memory at the host's rate.
    rx_cells: Serializer,
    /// Processed by TCP, waiting for the transmit adapter: (VC, segment, IP bytes, ready at).
    tx_wait: VecDeque<(VcId, FrameHeader, u32, Time)>,
    /// The transmit adapter holds a packet (being loaded or being sent).
    pub adapter_busy: bool,
    /// Received packets on their way to TCP, in delivery order.
    rx: VecDeque<(Time, VcId, FrameHeader)>,
    /// IP bytes held in the host's transmit path, before the adapter: the
    /// back-pressure of credit flow control ends here (Morris & Kung §V).
    pub tx_backlog: u64,
    /// ∫ tx_backlog dt in byte·ps, up to `backlog_at`.
    backlog_integral: u128,
    backlog_at: Time,
}

impl HostPipeline {
    pub fn new(m: &HostModel) -> Self {
        HostPipeline {
            cpu: Serializer::new(m.tcp_rate),
            bus_tx: Serializer::new(m.bus_rate),
            bus_rx: Serializer::new(m.bus_rate),
            rx_cells: Serializer::new(m.tcp_rate),
            tx_wait: VecDeque::new(),
            adapter_busy: false,
            rx: VecDeque::new(),
            tx_backlog: 0,
            backlog_integral: 0,
            backlog_at: 0,
        }
    }

    /// TCP hands a packet down: the CPU processes it.
    pub fn submit(&mut self, now: Time, vc: VcId, seg: FrameHeader, ip_len: u32) {
        let ready = self.cpu.send(now, ip_len as u64);
        self.integrate(now);
        self.tx_backlog += ip_len as u64;
        self.tx_wait.push_back((vc, seg, ip_len, ready));
    }

    /// If the adapter is free and a packet is processed, start loading it;
    /// returns when it is loaded.
    pub fn load(&mut self, now: Time) -> Option<Time> {
        if self.adapter_busy {
            return None;
        }
        let &(_, _, ip_len, ready) = self.tx_wait.front()?;
        self.adapter_busy = true;
        Some(self.bus_tx.send(now.max(ready), ip_len as u64))
    }

    /// The loaded packet, to be segmented onto the link now.
    pub fn loaded(&mut self, now: Time) -> (VcId, FrameHeader) {
        let (vc, seg, ip_len, _) = self.tx_wait.pop_front().expect("a packet was loading");
        self.integrate(now);
        self.tx_backlog -= ip_len as u64;
        (vc, seg)
    }

    fn integrate(&mut self, now: Time) {
        self.backlog_integral += self.tx_backlog as u128 * (now - self.backlog_at) as u128;
        self.backlog_at = now;
    }

    /// Time-average of `tx_backlog` over [0, horizon] (bytes).
    pub fn mean_tx_backlog(&self, horizon: Time) -> f64 {
        if horizon == 0 {
            return 0.0;
        }
        let tail = self.tx_backlog as u128 * horizon.saturating_sub(self.backlog_at) as u128;
        (self.backlog_integral + tail) as f64 / horizon as f64
    }

    /// A cell arrived at the receive adapter: when its 48 bytes of payload
    /// have moved to host memory at the host's rate, freeing its slot (what
    /// credit reports upstream; S004 §III: 13 MB/s with credit).
    pub fn consume_cell(&mut self, now: Time) -> Time {
        self.rx_cells.send(now, CELL_PAYLOAD as u64)
    }

    /// A packet arrived whole at the receive adapter: returns its delivery
    /// time to TCP and whether it heads the queue (schedule an event then).
    pub fn receive(&mut self, now: Time, vc: VcId, seg: FrameHeader, ip_len: u32) -> (Time, bool) {
        let on_host = self.bus_rx.send(now, ip_len as u64);
        let at = self.cpu.send(on_host, ip_len as u64);
        let head = self.rx.is_empty();
        self.rx.push_back((at, vc, seg));
        (at, head)
    }

    /// Payload bytes of data segments (even VCs carry data) still in the
    /// transmit path and in the receive path, for the accounting identity.
    pub fn data_payload(&self) -> (u64, u64) {
        let data = |vc: &VcId| vc.0.is_multiple_of(2);
        let tx = self.tx_wait.iter().filter(|x| data(&x.0)).map(|x| x.1.payload_len() as u64).sum();
        let rx = self.rx.iter().filter(|x| data(&x.1)).map(|x| x.2.payload_len() as u64).sum();
        (tx, rx)
    }

    /// The packet due now, and the time of the next one.
    pub fn deliver(&mut self) -> ((VcId, FrameHeader), Option<Time>) {
        let (_, vc, seg) = self.rx.pop_front().expect("a delivery was scheduled");
        ((vc, seg), self.rx.front().map(|x| x.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{PS_PER_S, PS_PER_US};

    fn model() -> HostModel {
        // 10 MB/s CPU (1 µs per 10 bytes), 100 MB/s bus.
        HostModel {
            tcp_rate: Rate::new(80_000_000, PS_PER_S as u128).unwrap(),
            bus_rate: Rate::new(800_000_000, PS_PER_S as u128).unwrap(),
        }
    }

    #[test]
    fn cpu_serialises_and_adapter_holds_one_packet() {
        let mut h = HostPipeline::new(&model());
        h.submit(0, VcId(0), FrameHeader::Tcp(Default::default()), 1000);
        h.submit(0, VcId(0), FrameHeader::Tcp(Default::default()), 1000);
        // CPU: 100 µs each; bus: 10 µs.
        assert_eq!(h.load(0), Some(110 * PS_PER_US));
        assert_eq!(h.load(0), None, "the adapter holds one packet");
        h.loaded(110 * PS_PER_US);
        h.adapter_busy = false; // its last cell left
        assert_eq!(h.load(150 * PS_PER_US), Some(210 * PS_PER_US), "waits for the CPU (200 µs), then the bus");
        // 2000 B held for 110 µs, then 1000 B until 210 µs.
        assert_eq!(h.mean_tx_backlog(210 * PS_PER_US), (2000.0 * 110.0 + 1000.0 * 100.0) / 210.0);
    }

    #[test]
    fn receive_path_is_bus_then_cpu_in_order() {
        let mut h = HostPipeline::new(&model());
        let (t1, head1) = h.receive(0, VcId(0), FrameHeader::Tcp(Default::default()), 1000);
        let (t2, head2) = h.receive(0, VcId(0), FrameHeader::Tcp(Default::default()), 1000);
        assert_eq!((t1, head1), (110 * PS_PER_US, true));
        assert_eq!((t2, head2), (210 * PS_PER_US, false));
        let (_, next) = h.deliver();
        assert_eq!(next, Some(t2));
    }
}
