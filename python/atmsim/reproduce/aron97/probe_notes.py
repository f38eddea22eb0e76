"""aron97: the probes' findings quoted in the notes of failing rows, measured on the probes' own runs in
the same reproduction (issue 37: a note's numbers come from the run it annotates).

The probes are the figures fairness-anatomy (Lite over ATM at 192.5K, traced) and vegas-anatomy
(Vegas-AFR on both networks, traced). A figure whose notes quote them declares their runs beside its own
(`with_probes`); the harness runs each spec once, so a whole `reproduce aron97` simulates nothing more,
and `--figure fig7` alone runs the probes it quotes. Every number below is read from those runs; the
text says which seeds and buffers it covers, since the quick grid has fewer of both.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .common import SEG
from .fairness import _anatomy_runs, anatomy_of
from .mechanisms import rng
from .vegas_anatomy import _runs as _vegas_runs
from .vegas_anatomy import vegas_anatomy_of

FAIRNESS_ANATOMY_CMD = "python -m atmsim reproduce aron97 --figure fairness-anatomy --out DIR"
VEGAS_ANATOMY_CMD = "python -m atmsim reproduce aron97 --figure vegas-anatomy --out DIR"
LITE_PROBE = ("shipped", "tick10ms")  # the fairness-anatomy settings the notes quote


def with_probes(runs, g, lite: bool = False, vegas: bool = False) -> dict:
    """A figure's runs as {"main": its own, "lite-anatomy": {...}, "vegas-anatomy": [...]}, the probes
    only if asked for."""
    out = {"main": runs}
    if lite:
        out.update({f"lite-anatomy:{k}": v for k, v in _anatomy_runs(g).items() if k in LITE_PROBE})
    if vegas:
        out["vegas-anatomy"] = _vegas_runs(g)
    return out


def _kb(k: int) -> str:
    return f"{k * SEG / 1000:.1f}K"


def _seeds(seeds) -> str:
    s = sorted(set(seeds))
    return f"seed {s[0]}" if len(s) == 1 else f"seeds {', '.join(map(str, s))}"


def lite_stalls(runs: dict) -> str:
    """fairness-anatomy's finding: a Lite flow's share follows the time it stalls around coarse timeouts."""
    shipped, fine = runs.get("lite-anatomy:shipped", []), runs.get("lite-anatomy:tick10ms", [])
    if not shipped:
        return ""
    flows, eps, stalled, low = [], [], [], []
    for spec, result in shipped:
        table, _, ep, s = anatomy_of(spec, result)
        flows.append(table)
        eps.append(ep)
        stalled.append(100 * table.stall_s.sum() / (len(table) * s["end_time_s"]))
        lo = table.loc[table.share.idxmin()]
        low.append((100 * lo.share, lo.stall_s))
    fl, ep = pd.concat(flows, ignore_index=True), pd.concat(eps, ignore_index=True)
    r = fl.share.corr(fl.stall_s) if fl.stall_s.nunique() > 1 else float("nan")
    spec = shipped[0][0]
    text = (f"fairness-anatomy (Lite, ATM, {_kb(spec.k)}, {_seeds(s.seed for s, _ in shipped)}: {FAIRNESS_ANATOMY_CMD}): "
            f"a flow's share against the time it stalls around {spec.tick} coarse timeouts: r = {r:.2f} over {len(fl)} "
            f"flows; a stall costs a median {ep.stall_s.median():.2f} s; {rng(stalled, 0)} % of all sender time is "
            f"stalled; the smallest share per run is {rng([a for a, _ in low], 1)} % of the bytes "
            f"({rng([b for _, b in low], 1)} s stalled).")
    if fine:
        fe = pd.concat([anatomy_of(sp, res)[2] for sp, res in fine], ignore_index=True)
        jain = [anatomy_of(sp, res)[3]["fairness"] for sp, res in fine]
        text += (f" With a {fine[0][0].tick} tick a stall costs a median {fe.stall_s.median():.2f} s and Jain's index "
                 f"is {rng(jain)}.")
    return text


def _vegas_tables(runs: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    flows, per_run = [], []
    for spec, result in runs.get("vegas-anatomy", []):
        table, run = vegas_anatomy_of(spec, result)
        flows.append(table)
        per_run.append(run)
    return (pd.concat(flows, ignore_index=True), pd.DataFrame(per_run)) if flows else (pd.DataFrame(), pd.DataFrame())


def _net(net: str) -> str:
    return "ATM" if net == "atm" else "the packet network"


def vegas_start(runs: dict) -> str:
    """How Vegas-AFR's slow start ends on each network (500 ms tick), per buffer."""
    fl, pr = _vegas_tables(runs)
    if fl.empty:
        return ""
    parts = []
    for (net, k), f in fl[fl.tick == "500ms"].groupby(["network", "k"]):
        by_ss, by_loss = f[f.ss_exit_by == "vegas-ss"], f[f.ss_exit_by == "loss"]
        r = pr[(pr.network == net) & (pr.tick == "500ms") & (pr.k == k)]
        parts.append(f"on {_net(net)} at {_kb(k)} Vegas-SS ends the slow start before any loss for {len(by_ss)} of "
                     f"{len(f)} flows" + (f" (median cwnd {by_ss.ss_exit_cwnd_segs.median():.1f} segments)" if len(by_ss) else "")
                     + (f", the others at a loss (median cwnd {by_loss.ss_exit_cwnd_segs.median():.1f})" if len(by_loss) else "")
                     + f", and the start-up loses {rng(r.overshoot_lost, 0)} segments per run")
    seeds = _seeds(pr.seed)
    return f"vegas-anatomy (Vegas-AFR, {seeds}: {VEGAS_ANATOMY_CMD}): " + "; ".join(parts) + "."


def vegas_frozen(runs: dict) -> str:
    """After the start-up: whether a flow's share follows its window at the end, and where the losses fall."""
    fl, pr = _vegas_tables(runs)
    if fl.empty:
        return ""
    parts = []
    for (net, tick, k), f in fl.groupby(["network", "tick", "k"]):
        r = pr[(pr.network == net) & (pr.tick == tick) & (pr.k == k)]
        corr = f.share.corr(f.cwnd_end_segs) if f.cwnd_end_segs.nunique() > 1 else float("nan")
        parts.append(f"{_net(net)}, {tick} tick, {_kb(k)}: r(share, end window) = {corr:.2f} over {len(f)} flows, end "
                     f"windows {rng(f.cwnd_end_segs, 1)} segments, last loss at {rng(r.t_last_loss, 2)} s, "
                     f"{rng(r.losses_second_half, 0)} losses in the second half, smallest share "
                     f"{rng(100 * r.min_share, 1)} %, Jain {rng(r.fairness, 2)}")
    seeds = _seeds(pr.seed)
    return (f"vegas-anatomy (Vegas-AFR, {seeds}: {VEGAS_ANATOMY_CMD}), after the start-up, per network, tick and "
            f"buffer: " + "; ".join(parts) + ".")


def vegas_cite(runs: dict, start: bool = True, frozen: bool = True) -> str:
    """The vegas-anatomy findings a note quotes, measured on its runs."""
    return " ".join(t for t in [vegas_start(runs) if start else "", vegas_frozen(runs) if frozen else ""] if t)


def median_stall(runs: dict, setting: str) -> float:
    """fairness-anatomy's median stall per timeout episode in `setting` (nan without its runs)."""
    pairs = runs.get(f"lite-anatomy:{setting}", [])
    if not pairs:
        return float("nan")
    return float(np.median(pd.concat([anatomy_of(sp, res)[2] for sp, res in pairs]).stall_s))
