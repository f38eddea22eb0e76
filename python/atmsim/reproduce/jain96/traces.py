"""What the jain96 claims read from a run's traces: when a source's VC
sent its cells, which frames AAL5 merged at the destination, which TCP
transmission each frame carried, and how long a source sat idle before each
retransmission timeout.

Every cell a source sends crosses SW1->SW2 (the port `Grid.run(...,
log_port=True)` logs) exactly one access link and one cell time after it
left the source: the drops of all our runs are at that port, so its log
holds every cell of a VC, accepted or dropped, in sending order. A VC's
data frames are numbered 1, 2, ... in the order TCP hands segments down
(frame 0 is the SYN; RM cells carry numbers counted down from 2^32), so
frame k is the k-th `send` or `retransmit` event of its flow.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import atmsim
from atmsim.toml import tomllib

from .common import MSS

_RM_FRAMES = 2**31  # RM cells are numbered down from 2^32 - 1


def _access_delay() -> float:
    """Seconds from a cell leaving a source to its arrival at SW1: the
    access link's delay plus one cell time on it (the same for every source
    of both scenarios)."""
    delays = set()
    for scenario in ("jain96-2src", "jain96-5src"):
        t = tomllib.loads(atmsim.resolve(scenario))
        delays |= {_seconds(x["delay"]) for x in t["link"] if x["ends"][1] == "SW1"}
    rate = atmsim.model_facts("jain96-2src")["ports"]["S1->SW1"]["rate_bps"]
    assert len(delays) == 1, delays
    return delays.pop() + 424 / rate


def _seconds(text: str) -> float:
    for unit, f in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("ps", 1e-12), ("s", 1.0)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * f
    raise ValueError(f"not a duration: {text}")


SOURCE_TO_PORT_S = _access_delay()


def vc_cells(port: pd.DataFrame, flow: str) -> pd.DataFrame:
    """The cells of `flow`'s data VC that reached SW1->SW2, accepted or
    dropped, in arrival order, with `sent` = when the source sent them."""
    d = port[(port.flow == flow) & (port.direction == "data") & (port.change != "depart")]
    d = d.sort_values("t", kind="stable")
    return d.assign(sent=d.t - SOURCE_TO_PORT_S)


def transmissions(events: pd.DataFrame, flow: str) -> pd.DataFrame:
    """`flow`'s segment transmissions in order, indexed by the frame number
    that carried them (1, 2, ...): t, kind (send or retransmit), seq."""
    tx = events[(events.flow == flow) & events.kind.isin(["send", "retransmit"])][["t", "kind", "seq"]]
    return tx.set_index(pd.RangeIndex(1, len(tx) + 1, name="frame"))


def merges(cells: pd.DataFrame) -> list[list[int]]:
    """The reassembly buffers the destination's AAL5 closed with cells of
    more than one frame (a frame whose EOM was dropped, merged with the
    next frame to arrive): each as its data frame numbers, in order. Only
    the accepted cells of `vc_cells` reach the destination; nothing is
    dropped after SW1->SW2."""
    out, cur = [], []
    acc = cells[(cells.change == "arrive") & (cells.frame < _RM_FRAMES)]
    for fr, eom in zip(acc.frame.to_numpy(), acc.eom.to_numpy()):
        if not cur or cur[-1] != fr:
            cur.append(int(fr))
        if eom:
            if len(cur) > 1:
                out.append(cur)
            cur = []
    return out


def ssthresh_at(window: pd.DataFrame, flow: str, t) -> np.ndarray:
    """`flow`'s ssthresh (bytes) just after time(s) t (the window trace's
    sample at a timeout is written after the timeout's update)."""
    w = window[window.flow == flow]
    i = np.searchsorted(w.t.to_numpy(), np.atleast_1d(t), side="right") - 1
    return w.ssthresh.to_numpy()[np.maximum(i, 0)]


def eom_chain(tr: dict) -> dict:
    """The slides' "Tail Drop" chain in one run: frame merges, and second
    retransmissions of a segment, sent with ssthresh = 2 segments, whose
    first retransmission was lost merged with an earlier frame whose EOM
    was dropped ("retransmitted packet gets merged with previous partial
    packet ... two retransmissions in a row")."""
    ev, port, win = tr["events"], tr["port"], tr["window"]
    n_merges = cases = second_at_2 = merged_retransmissions = 0
    for f in sorted(ev.flow.unique()):
        cells = vc_cells(port, f)
        tx = transmissions(ev, f)
        ms = merges(cells)
        n_merges += len(ms)
        after_partial = {fr for m in ms for fr in m[1:]}  # frames merged into an earlier frame's partial buffer
        rx = tx[tx.kind == "retransmit"].assign(k=lambda d: d.groupby("seq").cumcount() + 1)
        merged_retransmissions += int(rx.index.isin(list(after_partial)).sum())
        second = rx[rx.k == 2]
        at2 = second[ssthresh_at(win, f, second.t.to_numpy()) == 2 * MSS]
        second_at_2 += len(at2)
        first = rx[rx.k == 1].reset_index().set_index("seq").frame
        cases += sum(int(first[s] in after_partial) for s in at2.seq)
    return {"merges": n_merges, "merged_retransmissions": merged_retransmissions,
            "second_retransmissions_at_ssthresh_2": second_at_2, "eom_chains": cases}


def timeout_idle(tr: dict, end_s: float) -> dict:
    """Per flow, the share of the run its source sent no cell of its VC
    while waiting for a retransmission timeout: for every timeout, the time
    since the VC's last cell left the source (the timeout's retransmission
    goes at once). The source's own cells are its data cells and its
    forward RM cells, which it sends only while data waits (source rule 3),
    so the last of them is a data cell; the RM cells without data on the
    VC are the ACK VC's forward RM cells turned around by the source host
    (the backward RM cells of the ACK direction ride the data VC), which
    are not the source's transmission."""
    ev, port = tr["events"], tr["port"]
    out = {}
    for f in sorted(ev.flow.unique()):
        cells = vc_cells(port, f)
        sent = cells[cells.frame < _RM_FRAMES].sent.to_numpy()
        idle = 0.0
        for t in ev[(ev.flow == f) & (ev.kind == "timeout")].t.to_numpy():
            i = np.searchsorted(sent, t - 1e-9, side="left") - 1  # the retransmission's own cells leave at t
            idle += t - (sent[i] if i >= 0 else 0.0)
        out[str(f)] = idle / end_s
    return out


def timeout_idle_sampled(tr: dict, end_s: float) -> dict:
    """`timeout_idle` without a port log, from the 1 ms ABR samples: a
    source's idle spell before a timeout starts at its last transmission
    (TCP `send` or `retransmit`) or one sample after the last sample with
    cells of its VC still waiting for ACR, whichever is later. Within a
    sample of `timeout_idle`."""
    ev, abr = tr["events"], tr["abr"]
    step = float(np.median(np.diff(np.unique(abr.t.to_numpy()))))
    out = {}
    for f in sorted(ev.flow.unique()):
        tx = ev[(ev.flow == f) & ev.kind.isin(["send", "retransmit"])].t.to_numpy()
        a = abr[abr.flow == f]
        busy = a.t.to_numpy()[a.waiting.to_numpy() > 0]
        idle = 0.0
        for t in ev[(ev.flow == f) & (ev.kind == "timeout")].t.to_numpy():
            i, j = np.searchsorted(tx, t - 1e-9) - 1, np.searchsorted(busy, t - 1e-9) - 1
            last = max(tx[i] if i >= 0 else 0.0, busy[j] + step if j >= 0 else 0.0)
            idle += max(0.0, t - last)
        out[str(f)] = idle / end_s
    return out


def vbr_onsets(tr: dict, line_cells_per_s: float, gap_s: float = 0.05) -> pd.DataFrame:
    """One row per VBR on-period at SW1->SW2 (port log): its start t, the
    ABR cells queued there at the start (`q0`, what the port's admission
    counts), the peak ABR queue during the period, the ABR cells dropped in
    it, the sources' summed ACR just before it (fraction of the line) and
    how long after the start the summed ACR first fell to the ABR share of
    the line the VBR leaves (`lag_s`; NaN if it did not within the period)."""
    from atmsim import portlog

    port = tr["port"]
    vbr = np.sort(port[(port.flow == "vbr") & (port.change == "arrive")].t.to_numpy())
    starts = vbr[np.r_[True, np.diff(vbr) > gap_s]]
    ends = vbr[np.r_[np.diff(vbr) > gap_s, True]]
    on_rate = (np.sum((vbr >= starts[0]) & (vbr <= ends[0])) - 1) / max(ends[0] - starts[0], 1e-12) / line_cells_per_s
    occ = portlog.occupancy(port[port.flow != "vbr"])
    drops = occ[occ.change == "drop"].t.to_numpy()
    qt, q = occ.t.to_numpy(), occ.q.to_numpy()
    acr = tr["abr"].pivot_table(index="t", columns="flow", values="acr_cells_per_s").sum(axis=1) / line_cells_per_s
    at, av = acr.index.to_numpy(), acr.to_numpy()
    rows = []
    for t0, t1 in zip(starts, ends):
        i0 = np.searchsorted(qt, t0, side="right") - 1
        inside = (qt >= t0) & (qt <= t1)
        j0 = max(np.searchsorted(at, t0, side="right") - 1, 0)
        w = (at > t0) & (at <= t1) & (av <= 1 - on_rate)
        rows.append({"t": t0, "end": t1, "q0": int(q[i0]) if i0 >= 0 else 0, "peak": int(q[inside].max()) if inside.any() else 0,
                     "drops": int(((drops >= t0) & (drops <= t1)).sum()), "acr_before": float(av[j0]),
                     "lag_s": float(at[w][0] - t0) if w.any() else float("nan")})
    out = pd.DataFrame(rows)
    out.attrs["drops_outside"] = int(len(drops) - out.drops.sum())
    out.attrs["on_rate"] = float(on_rate)
    return out
