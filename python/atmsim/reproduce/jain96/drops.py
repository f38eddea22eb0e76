"""jain96 slides "Tail Drop", "Tail Drop (Cont)", "Fast Retransmit and
Recovery" and "Effect of Fast Retransmit".

Tail drop vs "intelligent tail drop" (never drop an EOM cell unless the
queue is full: the `eom-protect` policy) on the summary table's (5, 128,
640) and (2, 128, 256) rows, with the bottleneck's every change logged; and
TCP with and without the slides' fast retransmit and recovery (our `lite`,
4.4BSD-Lite's Reno: ssthresh = max{2, min{cwnd/2, wnd}}, cwnd = ssthresh +
3, +1 per duplicate ACK, cwnd = ssthresh at the new ACK) under bursty loss.
"""
from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd

from atmsim.claims import above, at_least, at_most, check
from atmsim.reproduce import seeds
from atmsim.reproduce.harness import figure, per_run

from .common import MSS, fairness, frames, row, throughputs, total
from .table import TAIL_ROWS, VBR, VBR_NOTE
from .traces import eom_chain

CONFIGS = TAIL_ROWS  # the plain runs are the summary table's runs of these rows
POLICIES = ["tail", "eom-protect"]


FAIRER_SHARE = 4 / 6  # tail-drop.c3's band on the share of pairs where intelligent drop is at least as fair


def _tail_runs(g):
    """Both policies on both rows, traced, at the grid's seeds; for the notes of c1, c3 and c4, the same at seeds
    1-10 (the seed sweep, seeds.SWEEP; seeds.sweep_seeds: 1-3 on --quick), traced too: c1 and c4 count events in the port log and the windows."""
    runs = {(k, p): [g.run(*k, s, policy=p, vbr=VBR, trace=True, log_port=True, tag=s) for s in g.seeds]
            for k in CONFIGS for p in POLICIES}
    runs[seeds.SWEEP] = [g.run(*k, s, policy=p, vbr=VBR, trace=True, log_port=True, tag=(k, p, s)) for k in CONFIGS for p in POLICIES
                         for s in seeds.sweep_seeds(g)]
    return runs


def _sweep_table(c, sweep) -> pd.DataFrame:
    """The seed sweep, one row per run: Jain's index (c3), the EOM chains (c1) and the entries into ssthresh = 2
    (c4) (tail-drop_seeds.csv)."""
    rows = []
    for spec, (s, tr) in sweep:
        k, p, sd = spec.tag
        rows.append({"n": k[0], "tbe": k[1], "buffer": k[2], "policy": p, "seed": sd,
                     "fairness": row(s, n=k[0], tbe=k[1], buffer=k[2], policy=p, seed=sd)["fairness"],
                     **{name: v for name, v in _counts(spec, (tr, k[2])).items() if not name.startswith("eom_drops")}})
    df = pd.DataFrame(rows)
    c.table(df, "tail-drop_seeds")
    return df


def _c1_noise(df) -> str:
    """tail-drop.c1's two tests over the plain runs of the sweep, per seed and as the claim aggregates them (merges
    per run of the configuration with fewer; EOM chains pooled), each with its noise (seeds.noise)."""
    plain = df[df.policy == "tail"]
    merges = plain.pivot_table(index="seed", columns=["n", "tbe", "buffer"], values="merges")
    chains = plain.groupby("seed").eom_chains.sum()
    return "Seed noise (tail-drop_seeds.csv): " + " ".join([
        seeds.noise("the frame merges per plain run (the configuration with fewer)", merges.min(axis=1).to_dict(),
                    float(merges.mean().min()), (1.0, math.inf)),
        seeds.noise("the count of second retransmissions at ssthresh = 2 MSS after a merged first one (plain)",
                    chains.to_dict(), float(chains.sum()), (1.0, math.inf))])


def _c4_noise(df) -> str:
    """tail-drop.c4's entries into ssthresh = 2, plain - intelligent, per seed of the sweep and summed over it, with
    its noise (seeds.noise); the counts are whole, so "> 0" is "at least 1"."""
    per = df.pivot_table(index="seed", columns="policy", values="ssthresh2_entries", aggfunc="sum")
    gain = per["tail"] - per["eom-protect"]
    return (f"Seed noise (tail-drop_seeds.csv): entries into ssthresh = 2 MSS over the {len(per)} seeds, plain {int(per['tail'].sum())}, "
            f"intelligent {int(per['eom-protect'].sum())}. " + seeds.noise(
                "the entries into ssthresh = 2 MSS, plain - intelligent,", gain.to_dict(), float(gain.sum()), (1.0, math.inf)))


def _c3_noise(df) -> str:
    """tail-drop.c3's share of configurations where intelligent drop is at least as fair, at each seed of the
    sweep, and whether its shortfall lies inside their noise (seeds.noise)."""
    fair = df.pivot_table(index=["n", "tbe", "buffer", "seed"], columns="policy", values="fairness")
    better = (fair["eom-protect"] >= fair["tail"]).astype(float)
    gain = fair["eom-protect"] - fair["tail"]
    return " ".join([
        seeds.noise("the share of the two configurations where intelligent drop is at least as fair",
                    better.groupby(level="seed").mean().to_dict(), float(better.mean()), (FAIRER_SHARE, math.inf)),
        seeds.noise("the mean Jain's index, intelligent - plain,", gain.groupby(level="seed").mean().to_dict(), float(gain.mean()),
                    (0.0, math.inf))])


def _eom_drops(tr, limit):
    """ABR EOM cells dropped at SW1->SW2, and those dropped with the ABR
    queue (what the port's admission counts: the VBR cells have a queue of
    their own) below its limit."""
    from atmsim import portlog

    occ = portlog.occupancy(tr["port"][tr["port"].flow != "vbr"])
    d = occ[(occ.change == "drop") & occ.eom]
    return len(d), int((d.q < limit).sum())


def _ssthresh2(tr):
    """Per run: entries into ssthresh = 2 segments (the slides' second
    retransmission in a row)."""
    entries = 0
    for _, g in tr["window"].groupby("flow"):
        at2 = g.ssthresh.to_numpy() == 2 * MSS
        entries += int((at2 & ~np.r_[False, at2[:-1]]).sum())
    return entries


@per_run
def _counts(spec, traced) -> dict:
    """One run's counts from its traces (`traced`: the traces, and the ABR queue's limit, which the spec
    fixes): EOM cells dropped (all, and below the limit), entries into ssthresh = 2, and the EOM chain's
    counts (tail-drop.csv, tail-drop_seeds.csv)."""
    tr, limit = traced
    tr = frames(tr)
    eom, eom_not_full = _eom_drops(tr, limit)
    return {"eom_drops": eom, "eom_drops_below_limit": eom_not_full, "ssthresh2_entries": _ssthresh2(tr), **eom_chain(tr)}


@figure("tail-drop", runs=_tail_runs)
def tail_drop(c, runs):
    rows = []
    for (k, p), group in ((key, grp) for key, grp in runs.items() if key != seeds.SWEEP):
        limit = k[2]
        for spec, (s, tr) in group:
            r = row(s, n=k[0], tbe=k[1], buffer=k[2], policy=p, seed=spec.tag)
            counts = _counts(spec, (tr, limit))
            first = ("eom_drops", "eom_drops_below_limit", "ssthresh2_entries")  # tail-drop.csv's columns, in order
            r.update(**{k: counts[k] for k in first}, frames_discarded=s["frames_discarded_at_reassembly"],
                     **{k: v for k, v in counts.items() if k not in first})
            rows.append(r)
    df = pd.DataFrame(rows)
    df.to_csv(c.out / "tail-drop.csv", index=False)
    sweep = _sweep_table(c, runs[seeds.SWEEP])
    plain, intel = df[df.policy == "tail"], df[df.policy == "eom-protect"]
    per_config = plain.groupby(["n", "tbe", "buffer"]).merges.mean()
    c.claim("c1", statement="If EOM is dropped ... two retransmissions in a row (SSTHRESH = 2, W = 1)", kind="shape", paper_value="slide Tail Drop",
            ours={"merges_per_run_by_configuration": {str(k): v for k, v in per_config.items()},
             "eom_drops": int(plain.eom_drops.sum()), "merged_retransmissions": int(plain.merged_retransmissions.sum()),
             "second_retransmissions_at_ssthresh_2": int(plain.second_retransmissions_at_ssthresh_2.sum()),
             "eom_chains": int(plain.eom_chains.sum())},
            holds=check(("frame merges per plain run, pooled over seeds (the configuration with fewer)", per_config.min(), at_least(1)),
                  (("second retransmissions of a segment sent with ssthresh = 2 MSS whose first retransmission AAL5 merged "
                    "with an earlier frame whose EOM was dropped (plain, all runs)"), plain.eom_chains.sum(), at_least(1))),
            rule="plain tail drop; a merge is a reassembly buffer closed with cells of more than one frame (SW1->SW2 port log, "
            "the only port that drops); frame k of a VC carries its flow's k-th transmission", note=VBR_NOTE,
            deviation=_c1_noise(sweep))
    c.claim("c2", statement="Intelligent tail drop: do not drop EOM", kind="hard", paper_value="Do not drop EOM",
            ours={"eom_drops": int(intel.eom_drops.sum()), "eom_drops_below_limit": int(intel.eom_drops_below_limit.sum())},
            holds=check(("EOM cells dropped with the ABR queue below B (eom-protect, all runs)", intel.eom_drops_below_limit.sum(),
                   at_most(0))),
            rule="SW1->SW2 port log")
    key = ["n", "tbe", "buffer", "seed"]
    pair = plain.set_index(key).fairness.to_frame("plain").join(intel.set_index(key).fairness.to_frame("intelligent"))
    better = int((pair.intelligent >= pair.plain).sum())
    c.claim("c3", statement="Intelligent Tail Drop => Improved fairness", kind="shape", paper_value="slide Tail Drop (Cont)",
            ours={"pairs": [[str(i), a, b] for i, a, b in zip(pair.index, pair.plain, pair.intelligent)],
             "mean_plain": float(pair.plain.mean()), "mean_intelligent": float(pair.intelligent.mean())},
            holds=check(("share of (configuration x seed) pairs with Jain's index intelligent >= plain", better / len(pair),
                   at_least(FAIRER_SHARE)),
                  ("mean Jain's index, intelligent - plain", pair.intelligent.mean() - pair.plain.mean(), above(0))),
            rule="the two configurations, every seed", note=VBR_NOTE, deviation=_c3_noise(sweep))
    c.claim("c4", statement="fewer ssthresh = 2 episodes with intelligent drop", kind="shape", paper_value="slide Tail Drop (Cont)",
            ours={"plain": int(plain.ssthresh2_entries.sum()), "intelligent": int(intel.ssthresh2_entries.sum())},
            holds=check(("entries into ssthresh = 2 MSS summed over runs, plain - intelligent",
                   int(plain.ssthresh2_entries.sum() - intel.ssthresh2_entries.sum()), above(0))),
            rule="the two configurations, every seed", note=VBR_NOTE, deviation=_c4_noise(sweep))
    import matplotlib.pyplot as plt

    from atmsim.plotting import save

    fig, ax = plt.subplots(1, 2, figsize=(10, 3.5))
    for a, k in zip(ax, CONFIGS):
        for i, p in enumerate(POLICIES):
            g = df[(df.n == k[0]) & (df.buffer == k[2]) & (df.policy == p)]
            ts = [[r[f"T{j + 1}"] for j in range(k[0])] for _, r in g.iterrows()]
            med = [statistics.median(col) for col in zip(*ts)]
            a.bar([j + (i - 0.5) * 0.4 for j in range(k[0])], med, 0.4, label=p, color=("0.7", "k")[i])
        a.set_title(f"{k[0]} sources, TBE {k[1]}, B {k[2]}", fontsize=9)
        a.set_xlabel("source")
        a.set_ylabel("throughput (Mb/s)")
        a.legend(fontsize=7)
    save(fig, c.out / "tail-drop.png")


SCATTERED = 1e-4  # probability of losing each cell on SW1->SW2 (our choice: the slides give no loss model)


def _fr_runs(g):
    """Bursty loss: B = 1024 with tail drop. Scattered: B = 4096 (no overflow) and independent random cell loss."""
    runs = {("bursty", v): [g.run(2, 512, 1024, s, variant=v, tag=s) for s in g.seeds] for v in ("timeout-only", "lite")}
    runs.update({("scattered", v): [g.run(2, 512, 4096, s, variant=v, loss=SCATTERED, tag=s) for s in g.seeds]
                 for v in ("timeout-only", "lite")})
    return runs


@figure("fast-retransmit", runs=_fr_runs)
def fast_retransmit(c, runs):
    rows = []
    for (loss, v), group in runs.items():
        for spec, s in group:
            r = row(s, loss=loss, variant=v, seed=spec.tag)
            r["timeouts_per_source"] = [f["timeouts"] for f in s["flows"]]
            r["fast_retransmits"] = sum(f["fast_retransmits"] for f in s["flows"])
            rows.append(r)
    df = pd.DataFrame(rows)
    df.to_csv(c.out / "fast-retransmit.csv", index=False)
    med = {k: statistics.median(total(s) for _, s in group) for k, group in runs.items()}
    sc = {v: med[("scattered", v)] for v in ("timeout-only", "lite")}
    bu = {v: med[("bursty", v)] for v in ("timeout-only", "lite")}
    c.claim("c1", statement="scattered loss: fast retransmit helps", kind="shape", paper_value="With FRR, scattered loss: good",
            ours={"total_without_frr": sc["timeout-only"], "total_with_frr": sc["lite"]},
            holds=check(("total with FRR / total without", sc["lite"] / sc["timeout-only"], above(1))),
            rule=f"scattered loss (B = 4096, each cell on SW1->SW2 lost with probability {SCATTERED:g}, no VBR), medians of seeds")
    c.claim("c2", statement="bursty loss: no fast retransmit is better", kind="shape", paper_value="Without FRR, bursty loss: good",
            ours={"total_without_frr": bu["timeout-only"], "total_with_frr": bu["lite"]},
            holds=check(("total without FRR / total with", bu["timeout-only"] / bu["lite"], at_least(1))),
            rule="bursty loss (B = 1024, tail drop, no VBR), medians of seeds")
    frr = runs[("bursty", "lite")]
    to = [[f["timeouts"] for f in s["flows"]] for _, s in frr]
    per_source = [statistics.median(col) for col in zip(*to)]
    c.claim("c3", statement="Even with fast retransmits, there are time-outs when the losses are bursty", kind="shape",
            paper_value="slide Effect of Fast Retransmit", ours={"timeouts_per_source": per_source, "timeouts_per_source_by_seed": to},
            holds=check(("timeouts of the source with fewest, with FRR under bursty loss", min(per_source), at_least(1))),
            rule="median of seeds per source")


__all__ = ["tail_drop", "fast_retransmit", "throughputs", "fairness"]
