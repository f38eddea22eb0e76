"""boston97: one source's losses against the access links' cell rate (ours;
the mechanism behind fig7(a)'s deviations, docs/boston97.md §5). Part of
`fig7` (fig7_access.csv).

Fig. 7(a)'s single source (9180-byte packets, 64 kB window, 512-cell buffer)
can overflow the switch only because its access link brings cells faster than
the 1.5 Mb/s output drains them: a = 53 cells(L) / L = 1.108x with the
reproduction's reading (a packet's cells released as its bytes arrive, G2),
1x with cell access links. The sweep varies a; while the buffer is full a
fraction 1 - 1/a of the arriving cells finds no room.
"""
from __future__ import annotations

import dataclasses

from .common import LINE_BPS, cells, metrics, packet_ratio

L, B, W = 9180, 512, 64
# a = 1 is cell access; the reproduction's packet access, packet_ratio(9180) = 1.1085, lies between 1.05
# and 1.2: its runs are fig7(a)'s own.
RATIOS = (1.0, 1.025, 1.05, 1.2, 1.5, 2.0)


def runs(g, ratios=RATIOS, sources: int = 1) -> list:
    """Reno and Boston, each ratio and seed: the fig7 run of `sources` sources (one: its bytes per second recorded,
    as fig7.c6 reads them) with the access links' rate set last."""
    out = []
    for a in ratios:
        for p in ("reno", "boston"):
            for s in g.seeds:
                r = g.run(p, L, B, W, s, sources=sources, per_second=sources == 1, tag={"ratio": round(a, 4)})
                links = tuple(f"link.S{i}-X.rate={LINE_BPS * a:.0f}bps" for i in range(1, sources + 1))
                out.append(dataclasses.replace(r, overrides=r.overrides + links))
    return out


def rows(pairs, seconds: float) -> list[dict]:
    """Per run: the paper's metrics, the loss a full buffer implies (1 - 1/a) and what a damaged frame loses."""
    from atmsim.reproduce.harness import summary_of

    out = []
    for run, r in pairs:
        s = summary_of(r)
        a = run.tag.get("ratio", packet_ratio(L))
        out.append({**run.tag, "ratio": a, **metrics(s, L, run.tag["sources"], seconds), "loss_when_full": 1 - 1 / a,
                    "cells_lost_per_frame_when_full": cells(L) * (1 - 1 / a)})
    return out
