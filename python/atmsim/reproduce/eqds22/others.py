"""validate.txt's other six runs: bidir, outcast-incast, and the permutations of 16 and 1,024 hosts
over 128 entropies and over one (docs/reproductions.md, eqds22)."""
from __future__ import annotations

import statistics

from atmsim.claims import at_least, at_most, check, within
from atmsim.reproduce.harness import Run, figure, summary_of

from .common import HTSIM, HTSIM_SEEDS, LINE_BOUND_US, every_flow_completes, fcts_us, line_bound, near_htsim, one_run, tail_target

#: Seeds beside the scenario's for the one-entropy permutations: which flows the switches' salted
#: hashes put on one link is a draw of the salts, in htsim (its `-seed`) as here, so their tails,
#: medians and retransmissions are compared as medians over these seeds on both sides (the
#: catalogue's aggregation, and its amendment of 2026-11-29: a comparison within the noise of one
#: draw is judged on 10 seeds).
SALT_SEEDS = tuple(range(1, 11))
assert all(sorted(sweep) == list(SALT_SEEDS) for sweep in HTSIM_SEEDS.values()), "htsim's seed sweeps cover SALT_SEEDS"


@figure("bidir", runs=lambda g: [Run("eqds-bidir")])
def bidir(c, runs):
    """h0 <-> h13 on the 16-host tree: validate.txt's target, the line-rate bound, htsim's tail."""
    s, ref, row = one_run(c, runs, "bidir", "eqds_bidir")
    tail_target(c, "c1", "two-way run", row["tail_us"], 190.0)
    line_bound(c, "c2", row)
    near_htsim(c, "c3", "the tail within ±1 % of a fresh htsim run's", "tail", row["tail_us"], ref["tail_us"], 0.01)
    every_flow_completes(c, "c4", row)


@figure("outcast-incast", runs=lambda g: [Run("eqds-outcast-incast")])
def outcast_incast(c, runs):
    """h1, h2, h3 -> h0 while h2 and h3 send to 9 hosts more each, on the 128-host tree."""
    s, ref, row = one_run(c, runs, "outcast-incast", "eqds_outcast_incast")
    lone = next(f["completion_time_s"] * 1e6 for f in s["flows"] if f["name"] == "Eqds_1_0" and f["completion_time_s"] is not None)
    tail_target(c, "c1", "outcast-incast", row["tail_us"], 2500.0)
    c.claim("c2", statement="flow Eqds_1_0, its sender's only one, meets validate.txt's target", kind="value",
            paper_value="Eqds_1_0 <= 215 µs (validate.txt)", ours=lone,
            holds=check(("Eqds_1_0's FCT (µs)", lone, at_most(215.0))), rule="")
    near_htsim(c, "c3", "the tail within ±2 % of a fresh htsim run's", "tail", row["tail_us"], ref["tail_us"], 0.02)
    near_htsim(c, "c4", "Eqds_1_0 within ±2 % of a fresh htsim run's", "Eqds_1_0", lone, ref["flow_fct_us"]["Eqds_1_0"], 0.02)
    every_flow_completes(c, "c5", row)


def _perm(c, row: dict, ref: dict, target_us: float, retransmissions: bool, note: str = ""):
    tail_target(c, "c1", "permutation", row["tail_us"], target_us, note)
    line_bound(c, "c2", row, note)
    near_htsim(c, "c3", "the tail within ±5 % of a fresh htsim run's", "tail", row["tail_us"], ref["tail_us"], 0.05, note)
    near_htsim(c, "c4", "the median FCT within ±3 % of a fresh htsim run's", "median", row["median_us"], ref["median_us"], 0.03,
               note)
    every_flow_completes(c, "c5", row, note)
    if retransmissions:
        rtx = row["retransmissions"]
        c.claim("c6", statement="as many retransmissions as htsim's", kind="value",
                paper_value=f"htsim 841d9e7: {ref['retransmissions']:,} ±20 %", ours=rtx,
                holds=check(("retransmissions / htsim's", None if rtx is None else rtx / ref["retransmissions"], within(0.80, 1.20))),
                rule="", note=note)


def _perm_run(c, runs, name: str, ref_name: str, target_us: float, retransmissions: bool):
    _, ref, row = one_run(c, runs, name, ref_name, median=True)
    _perm(c, row, ref, target_us, retransmissions)


@figure("perm-16", runs=lambda g: [Run("eqds-perm-16")])
def perm_16(c, runs):
    """A 16-host permutation over 128 entropies."""
    _perm_run(c, runs, "perm-16", "eqds_perm_16n_paths128", 210.0, False)


def _perm_16_1path_runs(g) -> dict:
    return {"run": [Run("eqds-perm-16-1path")], "seeds": [Run("eqds-perm-16-1path", seed=s) for s in SALT_SEEDS]}


@figure("perm-16-1path", runs=_perm_16_1path_runs)
def perm_16_1path(c, runs):
    """A 16-host permutation with one entropy per flow: each flow on the one path its hashes pick."""
    _salt_sweep(c, runs, "perm-16-1path", "eqds_perm_16n_paths1", 1300.0, False)


def _above(seeds: list) -> str:
    return f"above the target at seed {', '.join(map(str, seeds))}" if seeds else "no seed above the target"


def _salt_sweep(c, runs, name: str, ref_name: str, target_us: float, retransmissions: bool):
    """A one-entropy permutation at the scenario's seed and SALT_SEEDS. validate.txt's target at the
    scenario's seed, where validate.txt sets it; the line-rate bound and completion on every run; the
    tail, the median (and the retransmissions) beside htsim's as medians over SALT_SEEDS, each
    simulator at its own seeds."""
    import pandas as pd

    s, ref, row = one_run(c, runs["run"], name, ref_name, median=True)
    theirs = HTSIM_SEEDS[ref_name]
    by_seed = [(spec.seed, summary_of(result)) for spec, result in runs["seeds"]]
    rows = [{"seed": seed, "tail_us": max(fcts_us(r)), "median_us": statistics.median(fcts_us(r)), "completed": len(fcts_us(r)),
             "retransmissions": sum(f["segments_retransmitted"] for f in r["flows"]),
             **{f"htsim_{k}": v for k, v in theirs[seed].items() if k != "finished"}} for seed, r in by_seed]
    c.table(pd.DataFrame(rows), f"{name}_seeds")
    every = [fcts_us(r) for _, r in by_seed] + [fcts_us(s)]
    worst, shortest = max(max(f) for f in every[:-1]), min(min(f) for f in every)
    done, flows = sum(len(f) for f in every), len(s["flows"]) * len(every)
    # validate.txt's target is set at htsim's default seed (13, the scenario's): judged there, with
    # how both simulators fare at the other seeds in the note.
    over = [seed for seed, r in by_seed if max(fcts_us(r)) > target_us]
    h_over = [seed for seed, _ in by_seed if theirs[seed]["tail_us"] > target_us]
    c.claim("c1", statement="the permutation meets validate.txt's target", kind="value",
            paper_value=f"tail <= {target_us:,.0f} µs (validate.txt)", ours=row["tail_us"],
            holds=check(("tail FCT (µs)", row["tail_us"], at_most(target_us))), rule="", one_run=True,
            note=(f"At the scenario's seed {s['seed']}, where validate.txt sets the target. Largest tail over seeds "
                  f"{SALT_SEEDS[0]}-{SALT_SEEDS[-1]}: ours {worst:,.1f} µs ({_above(over)}), "
                  f"htsim's {max(theirs[s]['tail_us'] for s, _ in by_seed):,.1f} µs ({_above(h_over)})."))
    c.claim("c2", statement="no flow finishes sooner than its bytes at line rate, at any seed", kind="value",
            paper_value=f">= W·8/C = {LINE_BOUND_US:.1f} µs (closed form)", ours=shortest,
            holds=check(("shortest FCT (µs)", shortest, at_least(LINE_BOUND_US))), rule="")
    seeds = f"seeds {SALT_SEEDS[0]}-{SALT_SEEDS[-1]}"

    def spread(key: str) -> str:
        mine, htsims = [r[key] for r in rows], [r[f"htsim_{key}"] for r in rows]
        d = 0 if key == "retransmissions" else 1
        return (f"ours {min(mine):,.{d}f}-{max(mine):,.{d}f} (mean {statistics.fmean(mine):,.{d}f}), htsim's "
                f"{min(htsims):,.{d}f}-{max(htsims):,.{d}f} (mean {statistics.fmean(htsims):,.{d}f})")

    tails, h_tails = [r["tail_us"] for r in rows], [r["htsim_tail_us"] for r in rows]
    draw = (f"Which flows share a link is a draw of the switches' salts in both simulators, so both run at {seeds} "
            f"(htsim `-seed S`, stored by validation/htsim/run.py --seed-sweep; {name}_seeds.csv). Tails: {spread('tail_us')}; "
            f"above htsim's largest in {sum(t > max(h_tails) for t in tails)} of our {len(tails)} seeds. Medians: "
            f"{spread('median_us')}." + (f" Retransmissions: {spread('retransmissions')}." if retransmissions else "") +
            f" At the scenario's seed {s['seed']} alone (one draw each): tail {row['tail_us']:,.1f} against htsim's {ref['tail_us']:,.1f}, "
            f"median {row['median_us']:,.1f} against {ref['median_us']:,.1f}.")
    compared = [("c3", "tail", "tail_us", 0.05), ("c4", "median FCT", "median_us", 0.03)]
    for cid, what, key, band in compared + ([("c6", "retransmissions", "retransmissions", 0.20)] if retransmissions else []):
        mine, htsims = statistics.median(r[key] for r in rows), statistics.median(r[f"htsim_{key}"] for r in rows)
        unit = "" if key == "retransmissions" else " µs"
        c.claim(cid, statement=f"the {what} within ±{band:.0%} of htsim's, medians over {seeds} on both sides", kind="value",
                paper_value=f"htsim 841d9e7, median over {seeds}: {htsims:,.1f}{unit} ±{band:.0%}", ours=mine,
                holds=check((f"{what} / htsim's (medians over {seeds})", mine / htsims, within(1 - band, 1 + band))),
                rule="", note=draw)
    c.claim("c5", statement="every flow completes, at every seed", kind="value", paper_value="validate.txt: all flows finished",
            ours=done, holds=check(("flows completed / flows, over the seeds", done / flows, at_least(1.0))), rule="")


@figure("perm-1024", runs=lambda g: [Run("eqds-perm-1024")])
def perm_1024(c, runs):
    """A 1,024-host permutation over 128 entropies on the k = 16 tree."""
    _perm_run(c, runs, "perm-1024", "eqds_perm_1024n_paths128", 220.0, True)


def _perm_1024_1path_runs(g) -> dict:
    # --quick builds the scenario and stops at once (`duration=1ns`): it still checks that the run
    # builds, without the CPU of eleven runs (14-27 s each).
    if g.quick:
        return {"run": [Run("eqds-perm-1024-1path", ("duration=1ns",))], "seeds": []}
    return {"run": [Run("eqds-perm-1024-1path")], "seeds": [Run("eqds-perm-1024-1path", seed=s) for s in SALT_SEEDS]}


@figure("perm-1024-1path", runs=_perm_1024_1path_runs)
def perm_1024_1path(c, runs):
    """A 1,024-host permutation with one entropy per flow (only built by --quick)."""
    if not c.quick:
        return _salt_sweep(c, runs, "perm-1024-1path", "eqds_perm_1024n_paths1", 1300.0, True)
    nothing = {"tail_us": None, "median_us": None, "min_us": None, "retransmissions": None, "completed": 0, "flows": 1024}
    _perm(c, nothing, HTSIM["eqds_perm_1024n_paths1"], 1300.0, True,
          note="not run by --quick (built only: a 1,024-host run is too long for it): judged on the full run")
