"""What the aron97 figures share: the paper's parameters (from the core),
the grid, one run (`Spec`), its csv row and points (the fairness claim is in mechanisms.py).

Setup of the paper (§3, §4): topologies 1 and 2 (Figs. 1, 2), eight bulk
TCP senders staggered by 10 ms, 10 s simulated, a bottleneck of 141.33 Mb/s
(one 53-byte cell every 3 µs), 9168-byte IP packets ("an exact multiple of
the ATM payload", so 9128 bytes of TCP payload, 191 cells without AAL5
trailer), effective switch buffer B = k x 9168 bytes ("does not include the
space needed for the cell headers"), medians over 5 seeds (§4).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

import atmsim
from atmsim.reproduce.harness import medians, product  # noqa: F401  (medians: re-exported for the figures)
from atmsim.runner import Job

K_FULL = [3, 6, 9, 12, 15, 18, 21, 24, 30, 36, 45, 60]  # B = k x 9168 bytes; k = 21 is the paper's 192.5K (§5.3)
K_QUICK = [3, 9, 15, 21, 30, 45]
SEEDS_FULL = [1, 2, 3, 4, 5]  # "medians from 5 runs" (§4)
SEEDS_QUICK = [1, 2]
VARIANTS = ["lite", "lite-afr", "vegas-rm", "vegas-rm-afr", "vegas", "vegas-afr"]  # §5

# The paper's segment, cell and link parameters, as the simulator derives them from the scenarios.
_PKT = atmsim.model_facts("aron97-topo1-packet")
_ATM = atmsim.model_facts("aron97-topo1-atm")
SEG = _PKT["segment_ip_bytes"]  # 9168: the IP packet of §3, and one packet in a router's buffer
MSS = _PKT["mss"]  # 9128 bytes of TCP payload
CELLS_PER_SEG = _ATM["segment_cells"]  # 191: raw cells, no padding, no trailer
CELL_BITS = _ATM["cell_bytes"] * 8
LINK_RATE = _PKT["ports"][_PKT["bottleneck"]]["rate_bps"]  # 424e6 / 3 b/s: a cell exactly every 3 µs
LINK_RATE_PAPER = 141.33e6  # as printed in §3
PAPER_T = 10.0  # s simulated (§4)
LINK_BYTES_10S = LINK_RATE * PAPER_T / 8  # the bottleneck's 10 s in bytes
U_MAX_PACKET = _PKT["u_max_bytes"]  # payload the bottleneck carries in 10 s as 9168-byte packets
U_MAX_ATM = _ATM["u_max_bytes"]  # ... and as 191-cell frames


@dataclass(frozen=True)
class Spec:
    """One simulation of this paper."""

    topo: int
    net: str
    variant: str
    k: int
    seed: int
    tick: str = "500ms"
    size: int = 0  # bytes per sender for the short-transfer figures; 0 = the 60 MB bulk runs
    simultaneous: bool = False
    trace: bool = False
    duration: str = ""  # bulk runs only; "" = the scenario's 10 s (tests shorten it)
    delayed_ack: bool = False  # fairness-sensitivity only
    timer_phase: bool = True  # False: every host's timer ticks at 0 (seed_randomizes = "nothing")
    send_jitter: str = ""  # host.send_jitter (phase-sensitivity, fairness-anatomy); "" = the scenario's 0
    access_offset_ps: int = 0  # access-offsets: each sender's access delay + a static U[0, this) (per seed)

    def job(self) -> Job:
        o = [f"switch.buffer={self.k * SEG}B"]
        variant = self.variant
        if variant == "lite-iw2":  # fig11: Lite with the initial window of Vegas
            variant = "lite"
            o.append("tcp.initial_window=2")
        o.append(f"tcp.variant={variant}")
        if self.tick != "500ms":
            o.append(f"tcp.tick={self.tick}")
        if self.size:
            o += [f"flow.f{i}.bytes={self.size}B" for i in range(1, 9)] + ["duration=60s"]
        elif self.duration:
            o.append(f"duration={self.duration}")
        if self.simultaneous:
            o += [f"flow.f{i}.start=0ms" for i in range(1, 9)]
        if self.delayed_ack:
            o.append("tcp.delayed_ack=true")
        if not self.timer_phase:
            o.append("seed_randomizes=nothing")
        if self.send_jitter:
            o.append(f"host.send_jitter={self.send_jitter}")
        if self.access_offset_ps:
            o += access_offsets(self.topo, self.seed, self.access_offset_ps)
        text = atmsim.load_scenario(f"aron97-topo{self.topo}-{self.net}")
        return Job(text, tuple(o), self.seed, self.trace)


def access_offsets(topo: int, seed: int, spread_ps: int) -> list[str]:
    """Overrides that lengthen each sender's 1 us access link by a static amount drawn uniformly
    in [0, spread_ps) from Python's Mersenne Twister seeded by (seed, sender): breaks the exact
    arrival ties of identical paths once for the whole run, unlike host.send_jitter's per-packet
    draws (topology 1 only: its senders S1..S8 reach R1)."""
    import random

    if topo != 1:
        raise ValueError("access offsets are defined on topology 1")
    return [f"link.S{i}-R1.delay={1_000_000 + int(random.Random(seed * 1000 + i).random() * spread_ps)}ps"
            for i in range(1, 9)]


@dataclass(frozen=True)
class Grid:
    """The buffer grid k and the seeds (full, quick, or a test grid), and the simulated time of bulk runs."""

    quick: bool
    ks: tuple
    seeds: tuple
    duration: str = ""  # "" = the paper's 10 s

    def specs(self, topos, nets, variants, ks=None, **kw) -> list[Spec]:
        """Every (topology, network, variant, k, seed) combination, in that order."""
        kw.setdefault("duration", self.duration)
        axes = {"topo": topos, "net": nets, "variant": variants, "k": ks or self.ks, "seed": self.seeds}
        return [Spec(**p, **kw) for p in product(axes)]


def grid(quick: bool, ks: Optional[list] = None, seeds: Optional[list] = None, duration: Optional[str] = None) -> Grid:
    """The grid of `reproduce aron97`; ks, seeds and duration replace it for tests."""
    if duration:
        atmsim.resolve("aron97-topo1-atm", [f"duration={duration}"])  # ScenarioError "duration: ..." if bad
    return Grid(quick, tuple(ks or (K_QUICK if quick else K_FULL)), tuple(seeds or (SEEDS_QUICK if quick else SEEDS_FULL)),
                duration or "")


def row(spec: Spec, s: dict) -> dict:
    """The per-run record written to the *_runs.csv files."""
    fl = s["flows"]
    n = len(fl)
    afr = [f["afr_time_in_states_s"] for f in fl if f.get("afr_time_in_states_s") is not None]
    u = sorted(f["bytes_delivered"] for f in fl)
    done = [f["completion_time_s"] for f in fl]
    bn = next((p for p in s["ports"] if p["name"] == s["bottleneck"]), None)
    return {
        "topology": spec.topo, "network": spec.net, "variant": spec.variant, "tick": spec.tick, "k": spec.k,
        "buffer_bytes": spec.k * SEG, "buffer_kb": spec.k * SEG / 1000, "size": spec.size, "seed": spec.seed,
        "simultaneous": spec.simultaneous,
        "E": s["effective_throughput"], "E_common": s["effective_throughput_common"],
        "E_median_sender": n * (u[(n - 1) // 2] + u[n // 2]) / 2 / s["u_max_bytes"],
        "fairness": s["fairness"], "u_max_bytes": s["u_max_bytes"], "duration_s": s["duration_s"],
        "timeouts": sum(f["timeouts"] for f in fl), "fast_retransmits": sum(f["fast_retransmits"] for f in fl),
        "retx_segments": sum(f["segments_retransmitted"] for f in fl),
        "retx_bytes_mean": sum(f["bytes_retransmitted"] for f in fl) / n,
        "episodes": sum(f["loss_episodes"] for f in fl), "single": sum(f["single_loss_episodes"] for f in fl),
        "multiple": sum(f["multiple_loss_episodes"] for f in fl),
        "consecutive": sum(f["consecutive_loss_episodes"] for f in fl),
        "dead_cell_share": s["dead_cell_share"],
        "occupancy_share": bn["mean_occupancy"] / bn["limit"] if bn and bn["limit"] else float("nan"),
        "afr_conns": len(afr), "afr_double_conns": sum(a[2] + a[3] > a[0] + a[1] for a in afr),
        "afr_extra": sum(f.get("afr_extra_retransmits", 0) for f in fl),
        "afr_needless": sum(f.get("afr_needless_extra", 0) for f in fl),
        # AFR's successor retransmissions as a share of the bottleneck's capacity in this run.
        "afr_extra_share": sum(f.get("afr_extra_retransmits", 0) for f in fl) * SEG / (LINK_RATE / 8 * s["duration_s"]),
        "all_done": all(d is not None for d in done),
        "t_last": max((d for d in done if d is not None), default=float("nan")),
        "balanced": s["accounting"]["balanced"],
    }


def table(pairs) -> pd.DataFrame:
    """One row per run (`row`) from a figure's (spec, summary) pairs."""
    return pd.DataFrame([row(sp, s) for sp, s in pairs])


def series(df: pd.DataFrame, col: str = "E", **sel) -> pd.Series:
    """One column (default E) against k for one selection of a medians table."""
    m = np.ones(len(df), bool)
    for k, v in sel.items():
        m &= df[k].to_numpy() == v
    return df[m].set_index("k")[col].sort_index()


def total_variation(s: pd.Series) -> float:
    return float(np.abs(np.diff(s.to_numpy())).sum())

