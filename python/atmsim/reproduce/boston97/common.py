"""What the boston97 figures share: the paper's setup, the grid, the runs
and the paper's metrics.

Bestavros & Kim 1997 §4.1: 16 TCP sources and a sink on one output-buffered
ATM switch, 1.5 Mb/s and 10 ms on every link, 700 simulated seconds; ns-1
Reno (windows in packets, an ACK per packet, 100 ms timer) against TCP
Boston (the same Reno with AIDA, no spatial redundancy). Our readings of
what the paper leaves open are in docs/boston97.md.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

import numpy as np

import atmsim
from atmsim import _core
from atmsim.toml import tomllib
from atmsim.reproduce.harness import Run
from atmsim.reproduce.readings import Reading

SCENARIO = "boston97"
SOURCES = 16
LINE_BPS = 1.5e6
HEADER = 40
SIZES = [512, 1518, 4352, 9180]  # Table 1's packet sizes (the text lists 576, 1500, 4470, 9180)
BUFFERS = [64, 256, 512, 1000, 2000, 4000]  # cells (§4.1)
BUFFER_KB = {64: 3.5, 256: 13.5, 512: 27, 1000: 54, 2000: 104, 4000: 208}  # Table 1's labels
WINDOWS = [8, 16, 32, 64]  # kB, read as KiB
ENCAPSULATION = atmsim.model_facts(SCENARIO)["encapsulation"]  # aal5-vcmux: AAL5 trailer, no LLC


def cells(L: int) -> int:
    """Cells of an L-byte IP packet (AAL5 trailer, no LLC): 11, 32, 91, 192."""
    return _core.aal5_cells(L, ENCAPSULATION)


def cap(L: int) -> float:
    """The most effective throughput any protocol can reach: L bytes per cells(L) x 53 on the line."""
    return L / (53 * cells(L))


def packet_ratio(L: int) -> float:
    """How much faster a packet access link brings cells than the 1.5 Mb/s output drains them: 53 cells(L) / L
    (1.108 for 9180 B; docs/boston97.md, access links)."""
    return 53 * cells(L) / L


# What would settle a failing row that nothing here settles (issue 37): appended to its note.
SETTLE_SIMULATOR = (" What would settle it: the same points on the paper's own simulator (ns-1 with the authors' cell switch "
                    "and Boston's dispersal, not public) or on another cell-level simulator with TCP Reno and Boston; ns-2 "
                    "has neither cells nor Boston, so no independent twin exists here.")
SETTLE_STARTS = (" What would settle it: the paper's start times, which it does not state (ours are drawn from the seed), "
                 "or a seed sweep of the smallest buffer's runs at ten seeds or more, which this reproduction does not make: "
                 "it would tell whether the lockout is a draw of the start times or comes with every draw.")
SETTLE_ACCESS = (" What would settle it: the paper's access model (cell or packet access, which sets a; it states neither); "
                 "at the a that fit this row the single source's loss rates are not the paper's, and no swept a gives "
                 "those (fig7.c1).")


def unless_cell_access(settle: str, quick: bool) -> str:
    """A 16-source row's "What would settle it" on the full run, which also judges it with cell access links
    (`CELL_ACCESS`): failing there too settles it (settled.py), so the sentence names what would otherwise."""
    if quick:
        return settle
    return (" Unless it fails with cell access links too (the reading below, which then settles it as a sweep of the "
            "access links' two readings), what would settle it: " + settle.split("What would settle it: ", 1)[1])


def window_packets(w_kb: int, L: int) -> int:
    """ns-1 windows are in packets: max(1, floor(w x 1024 / L))."""
    return max(1, w_kb * 1024 // L)


def start_times(seed: int) -> list[float]:
    """Each source starts uniformly in [0, 1 s), drawn from the seed (the paper does not say)."""
    rng = np.random.default_rng([seed, 1997])
    return [round(float(t), 6) for t in rng.uniform(0.0, 1.0, SOURCES)]


@dataclass(frozen=True)
class Grid:
    quick: bool
    seeds: tuple
    duration: str

    @property
    def seconds(self) -> float:
        return float(self.duration.rstrip("s"))

    def run(self, protocol: str, L: int, B: int, w_kb: int, seed: int, sources: int = SOURCES,
            per_second: bool = False, tag=None) -> Run:
        """One run of the star: protocol "boston", "reno" or "reno-epd"."""
        mss = L - HEADER
        o = [f"duration={self.duration}", f"ip.mtu={L}B", f"tcp.mss={mss}B",
             f"tcp.window={window_packets(w_kb, L) * mss}B", f"switch.buffer={B}cells",
             f"boston.aida={'true' if protocol == 'boston' else 'false'}"]
        if protocol == "reno-epd":
            o.append("switch.policy=epd")
        if per_second:
            o.append("boston.per_second=true")
        # Access links carry whole packets at 1.5 Mb/s; the switch releases a packet's cells as its
        # bytes arrive: a cell stream at 1.5 Mb/s x 53 x cells(L) / L (docs/boston97.md, access links).
        rate = f"{int(LINE_BPS) * 53 * cells(L)}/{L}bps"
        starts = start_times(seed)
        for i in range(1, SOURCES + 1):
            o.append(f"link.S{i}-X.rate={rate}")
            # A source that is not part of the run is left out of it (a start past the end is refused).
            o.append(f"flow.s{i}.start={starts[i - 1]}s" if i <= sources else f"flow.s{i}=off")
        t = dict(protocol=protocol, L=L, B=B, w_kb=w_kb, seed=seed, sources=sources)
        return Run(SCENARIO, tuple(o), seed, False, {**t, **(tag or {})})


# The dispersal group size of the catalogue's G8 before its amendment of 2026-11-29: N <= 256 (GF(2^8));
# the scenario's is 65535 (docs/boston97.md §3, "Dispersal group size").
PIECES_G8 = 256


def _with_g8_pieces(run: Run) -> Optional[Run]:
    """A Boston run with N = PIECES_G8 pieces; None for a Reno run, which disperses nothing."""
    if "boston.aida=true" not in run.overrides:
        return None
    return dataclasses.replace(run, overrides=run.overrides + (f"boston.pieces={PIECES_G8}",))


N_256 = Reading(f"N = {PIECES_G8}", f"the catalogue's G8 before its amendment; the scenario's N is "
                f"{tomllib.loads(atmsim.load_scenario(SCENARIO))['boston']['pieces']}", _with_g8_pieces)


# G2, the access links, read as the paper's text has them: its AAL divides IP packets "into 48-byte units for
# transmission as ATM cells" and reassembles them at the "destination AAL" [BK97 §4.1], so the hosts' 1.5 Mb/s
# links carry cells, at the output's own cell rate (a = 1). The scenario's are packet links (a = 53 cells(L) / L),
# the catalogue's choice, which Fig. 7(a)'s single-source drops require (docs/boston97.md, "The access links").
CELL_LINKS = tuple(f"link.S{i}-X.rate={int(LINE_BPS)}bps" for i in range(1, SOURCES + 1))


def _with_cell_access(run: Run) -> Optional[Run]:
    """The run with cell access links; None for a run of the access sweep, which sets the links' rate itself."""
    if "ratio" in run.tag:
        return None
    return dataclasses.replace(run, overrides=run.overrides + CELL_LINKS)


# Every run twice is some minutes of CPU: the full run only (`--quick` keeps its length, CI).
CELL_ACCESS = Reading("cell access", "cell links at the output's rate, the text's, §4.1; the scenario's are packet links, G2",
                      _with_cell_access, quick=False, quote_failing=True)


def grid(quick: bool, seeds: Optional[list] = None, duration: Optional[str] = None) -> Grid:
    if duration:
        atmsim.resolve(SCENARIO, [f"duration={duration}"])  # ScenarioError "duration: ..." if bad
    return Grid(quick, tuple(seeds or ([1] if quick else [1, 2, 3])), duration or "700s")


def metrics(s: dict, L: int, sources: int, seconds: float) -> dict:
    """The paper's metrics of one run (§4.1-4.2)."""
    b = s["boston"][:sources]
    sent = sum(x["cells_sent"] for x in b)
    frames = sum(x["frames_sent"] for x in b)
    useful = sum(f["bytes_delivered"] for f in s["flows"][:sources]) * L / (L - HEADER)
    line = LINE_BPS * seconds / 8
    fs = [x["frames_sent"] for x in b]
    top = int(np.argmax(fs)) if fs else 0
    lost = sum(x["frames_lost"] for x in b)
    return {
        "clr": sum(x["cells_dropped"] for x in b) / sent if sent else 0.0,
        "plr": sum(x["frames_lost"] for x in b) / frames if frames else 0.0,
        "retx_rate": sum(x["cells_retransmitted"] for x in b) / sent if sent else 0.0,
        "eta": useful / line,
        "eta_over_cap": useful / line / cap(L),
        "response_us_per_byte": sources * seconds / useful * 1e6 if useful else float("inf"),
        "window_bytes": float(np.mean([x["mean_window_bytes"] for x in b])),
        "window_segments": float(np.mean([x["mean_window_bytes"] for x in b])) / (L - HEADER),
        "cells_sent": sent,
        "partial_acks": sum(x["partial_acks"] for x in b),
        "timeouts": sum(f["timeouts"] for f in s["flows"][:sources]),
        "fast_retransmits": sum(f["fast_retransmits"] for f in s["flows"][:sources]),
        # What the claims' notes measure (docs/boston97.md §5).
        "bottleneck_busy": next(p["busy_fraction"] for p in s["ports"] if p["name"] == s["bottleneck"]),
        "fairness": s["fairness"],
        "top_frame_share": fs[top] / frames if frames else 0.0,
        "top_plr": b[top]["frames_lost"] / fs[top] if fs and fs[top] else 0.0,
        "cells_per_lost_frame": sum(x["cells_dropped"] for x in b) / lost if lost else 0.0,
        # Line capacity spent on segments the receiver already had: duplicate segments x cells(L) cells.
        "duplicate_share": s["accounting"]["bytes_duplicate"] / (L - HEADER) * 53 * cells(L) / line,
    }


def table(runs, seconds: float):
    """One row per run (its tag and metrics), and per point the median over seeds."""
    import pandas as pd

    from atmsim.reproduce.harness import medians, summary_of

    rows = [{**run.tag, **metrics(summary_of(r), run.tag["L"], run.tag["sources"], seconds)} for run, r in runs]
    df = pd.DataFrame(rows)
    by = [c for c in ("protocol", "L", "B", "w_kb", "sources") if c in df.columns]
    return df, medians(df, by)
