//! The scheduled cell fabric (`world/fabric.rs`) as a service: turned on by
//! `topology.kind = "fabric"`, it takes packets at the `at_switch` hook,
//! holds them (its term of the accounting identity), counts the packets its
//! VOQs drop, and writes its block of the summary: cells by kind, the cell
//! identity, VOQ, scheduler, reorder and link-credit figures (docs/fabric.md).

use super::super::fabric::Fabric;
use super::super::service::{ServiceKind, Takes};
use crate::base::mechanism::{Golden, Mechanism, Networks};
use crate::net::VcTable;
use crate::scenario::Model;
use serde_json::json;

impl ServiceKind for Fabric {
    const MECHANISM: Mechanism = Mechanism {
        name: "fabric",
        selected_by: "topology.kind",
        networks: Networks::Packet,
        about: "a scheduled cell fabric (Broadcom DNX, Stardust): VOQs, credit request and grant, cells sprayed over fabric elements, reassembly",
        docs: "fabric.md",
        keys: &[],
        counters: &["fabric"],
        goldens: &[
            Golden { scenario: "fabric-incast", variation: "", overrides: &[] },
            Golden {
                scenario: "fabric-incast",
                variation: "link-down",
                overrides: &["fabric.fail=[{link = \"fap1.l0\", at = \"100us\"}]", "fabric.reach.detect=2us"],
            },
            Golden {
                scenario: "fabric-incast",
                variation: "link-slowed",
                overrides: &["fabric.fail=[{link = \"fap0.l3\", at = \"100us\", rate = \"10Gbps\", dir = \"down\"}]", "fabric.packing=continuous"],
            },
            // DCTCP senders, two of them sharing a VOQ, with ECN at the VOQs (`fabric.voq.ecn_above`).
            Golden {
                scenario: "fabric-incast",
                variation: "voq-ecn",
                overrides: &[
                    "flow=[{name = \"a\", kind = \"tcp\", src = \"h4\", dst = \"h0\", bytes = \"400000B\"}, {name = \"b\", kind = \"tcp\", src = \"h5\", dst = \"h0\", bytes = \"400000B\"}, {name = \"c\", kind = \"tcp\", src = \"h8\", dst = \"h0\", bytes = \"400000B\"}]",
                    "tcp.variant=dctcp-sack",
                    "tcp.window=4MiB",
                    "tcp.delayed_ack=false",
                    "fabric.voq.ecn_above=20000B",
                    "duration=300us",
                ],
            },
        ],
    };

    fn from_model(model: &Model, _: &VcTable, _: bool) -> Option<Self> {
        model.fabric.as_ref().map(|fm| Fabric::new(model, fm))
    }

    fn takes(&self) -> Takes {
        Takes { at_switch: true, ..Takes::default() }
    }

    /// Packets in VOQs and on their way through the fabric.
    fn in_flight(&self) -> [u64; 4] {
        [0, 0, 0, self.packets_held()]
    }

    fn units_dropped(&self) -> u64 {
        self.voq_drops + self.packets_discarded
    }

    fn balanced(&self) -> bool {
        self.cells_balanced() && self.invariants_hold()
    }

    fn summary_block(&self) -> Option<serde_json::Value> {
        let g = &self.cfg.geometry;
        let kinds = |k: &[u64; 3]| json!({"data": k[0], "flow_status": k[1], "credit": k[2]});
        let spread = |count: &dyn Fn(usize) -> u64| {
            (0..(g.faps * g.links) as usize).map(count).fold((u64::MAX, 0), |(lo, hi), c| (lo.min(c), hi.max(c)))
        };
        let (least, most) = spread(&|l| self.links[l].cells());
        let (data_least, data_most) = spread(&|l| self.up_counts[l].data_cells);
        let header = self.cfg.cell_header as u64;
        let mut block = json!({
            "cells_made": kinds(&self.made),
            "cells_received": kinds(&self.received),
            "cells_inside": self.cells_inside(),
            "data_payload_bytes_made": self.data_bytes_made,
            "data_payload_bytes_received": self.data_bytes_received,
            "data_wire_bytes_made": self.data_bytes_made + self.made[0] * header,
            "up_link_wire_bytes": self.up_counts.iter().map(|c| c.wire_bytes).sum::<u64>(),
            "control_wire_bytes_made": (self.made[1] + self.made[2]) * (self.cfg.control_bytes as u64 + header),
            "bursts": self.bursts,
            "packets_in": self.packets_in,
            "packets_out": self.packets_out,
            "packets_held": self.packets_held(),
            "voq_bytes": self.voqs.iter().map(|v| v.qsize).sum::<u64>(),
            "reassembly_bytes": self.streams.iter().map(|s| s.bytes_waiting()).sum::<u64>(),
            "cells_lost": kinds(&self.lost),
            "cells_lost_at_failure": self.lost_at_failure,
            "cells_lost_before_detection": self.lost_before_detection,
            "cells_lost_unreachable": self.lost_unreachable,
            "data_payload_bytes_lost": self.lost_payload,
            "packets_discarded": self.packets_discarded,
            "voq_drops": self.voq_drops,
            "voq_drop_bytes": self.voq_drop_bytes,
            "voq_peak_bytes": self.voqs.iter().map(|v| v.peak).max().unwrap_or(0),
            "credits_received": self.voqs.iter().map(|v| v.granted).sum::<u64>(),
            "credit_bytes_discarded": self.voqs.iter().map(|v| v.discarded).sum::<u64>(),
            "credits_granted": self.schedulers.iter().map(|s| s.granted).sum::<u64>(),
            "paused_slots": self.schedulers.iter().map(|s| s.paused_slots).sum::<u64>(),
            "reorder_depth_max": self.streams.iter().map(|s| s.peak_held).max().unwrap_or(0),
            // Per stream that carried a data cell: [source FAP, egress port,
            // class, the most cells it held at once]; and over every
            // arrival, the cells its stream held just after it, in bins
            // [least, most, arrivals] (docs/fabric.md R8).
            "reorder_depth_by_stream": self.depth_by_stream(),
            "reorder_depth_at_arrival": self.depth_at_arrival.rows(),
            "llfc_bound_cells": self.cfg.llfc.0,
            "llfc_peak_resident_cells": self.peak_resident,
            "llfc_stalls": self.links.iter().map(|l| l.credit_stalls).sum::<u64>(),
            "up_link_cells_least": least,
            "up_link_cells_most": most,
            "up_link_data_cells_least": data_least,
            "up_link_data_cells_most": data_most,
            // Per FAP up-link, FAP by FAP and link by link within a FAP: the
            // load spread a designer plots (reproduce fabric, C1_links.png).
            "up_link_cells": (0..g.faps * g.links).map(|l| self.links[l as usize].cells()).collect::<Vec<_>>(),
            "up_link_data_cells": self.up_counts.iter().map(|c| c.data_cells).collect::<Vec<_>>(),
            "voq_identity_holds": self.invariants_hold(),
            "cells_balanced": self.cells_balanced(),
        });
        if self.cfg.voq_ecn_above.is_some() {
            // Only where marking is on: elsewhere the count means nothing.
            block["voq_marks"] = json!(self.voq_marks);
        }
        Some(block)
    }
}

impl Fabric {
    fn depth_by_stream(&self) -> Vec<[u32; 4]> {
        let g = &self.cfg.geometry;
        let used = self.streams.iter().enumerate().filter(|(_, s)| s.numbered > 0);
        used.map(|(v, s)| {
            let (src, port) = g.voq_ends(v as u32);
            [src, port, g.voq_tc(v as u32), s.peak_held]
        })
        .collect()
    }

    /// Cells made = received + inside (waiting or on a wire) + lost; data
    /// payload made = received + on its way + lost; packets in = out + held
    /// + dropped in VOQs + discarded at reassembly.
    fn cells_balanced(&self) -> bool {
        let made: u64 = self.made.iter().sum();
        let received: u64 = self.received.iter().sum();
        let payload_inside: u64 = self.links.iter().map(|l| l.data_payload_inside()).sum();
        let lost: u64 = self.lost.iter().sum();
        // F10: every lost cell was lost at a failure, sent onto a failed
        // link before its detection, or found no link to its FAP after.
        lost == self.lost_at_failure + self.lost_before_detection + self.lost_unreachable
            && made == received + self.cells_inside() + lost
            && self.data_bytes_made == self.data_bytes_received + payload_inside + self.lost_payload
            && self.packets_in == self.packets_out + self.packets_held() + self.voq_drops + self.packets_discarded
    }

    /// Every VOQ's credit identity (F8) and every link within its link credit (F5).
    fn invariants_hold(&self) -> bool {
        let worth = self.cfg.credit_worth;
        self.voqs.iter().all(|v| v.identity_holds(worth)) && self.peak_resident <= self.cfg.llfc.0
    }
}
