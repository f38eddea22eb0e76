"""`settled_by` on every failing row (issue 37; python/atmsim/settled.py): every failing row of
`reproduce all --quick` (the goldens) carries one of the six values, every value but `none` names its
evidence, and the stored evidence shows the deviation it is cited for."""
import json
import re
import statistics
from pathlib import Path

import pytest

from atmsim import settled
from atmsim.reproduce.arb.common import ratio_of

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests/golden/reproduce-all-quick"


def rows() -> list[dict]:
    return [r for p in sorted(GOLDEN.glob("*.claims.json")) for r in json.loads(p.read_text(encoding="utf-8"))]


def test_every_failing_row_says_what_settles_it_and_holding_rows_do_not():
    failing = [r for r in rows() if not r["holds"]]
    assert failing
    for r in failing:
        assert r["settled_by"] in settled.KINDS, r["id"]
        if r["settled_by"] == "none":
            assert r["evidence"] == "", r["id"]
        elif r["evidence"].startswith("note: "):
            quoted = r["evidence"].removeprefix("note: ")
            assert quoted in r["note"] and re.search(r"\d", quoted), r["id"]
        else:
            assert (ROOT / r["evidence"]).is_file(), r["id"]
    assert all("settled_by" not in r for r in rows() if r["holds"])


def test_every_listed_row_is_a_claim_and_every_file_is_stored():
    ids = {r["id"] for r in rows()}
    assert set(settled.SETTLED) <= ids
    for e in settled.SETTLED.values():
        assert not e.file or (ROOT / e.file).is_file(), e.file


def test_settle_needs_the_runs_evidence():
    # A listed row whose note does not show its evidence stays at none; an unlisted row is none.
    row = "boston97.table1.c6"
    kind, ev = settled.settle(row, "the physical floor of 16 connections: 94.6 µs/byte at best (4352 B)")
    assert kind == "arithmetic" and ev.startswith("note: physical floor") and "94.6" in ev
    assert settled.settle(row, "a note that shows nothing") == ("none", "")
    assert settled.settle("p.fig1.c1", "94.6 µs/byte at best") == ("none", "")
    with pytest.raises(ValueError):
        settled.Evidence("hunch", note="x")
    with pytest.raises(ValueError):
        settled.Evidence("sweep")


def _json(path: str) -> dict:
    return json.loads((ROOT / path).read_text(encoding="utf-8"))


def test_ns2_shows_the_deviation_of_aron97_fig8_c6():
    # The claim: Lite's mean occupancy / B >= 0.5 at every k >= 21 (fig8.c6's first band). ns-2's medians
    # over its draws are below it at each of those buffers.
    pts = [p for p in _json(settled.SETTLED["aron97.fig8.c6"].file)["points"] if p["variant"] == "lite" and p["k"] >= 21]
    assert pts and all(p["ns2_occupancy_share"][0] < 0.5 for p in pts)


@pytest.mark.parametrize("row", ["aron97.fig3.fair", "aron97.fig8.fair"])
def test_ns2_shows_the_deviation_of_aron97_fairness_rows(row):
    # The row's packet-network series that ns-2 has, at every buffer of the full grid and of the quick grid: its
    # points (median over the draws of start jitter, and the draw-0 run, the reproduction's own scenario) fail the
    # row's band in ns-2, as the row fails in atmsim; Lite alone fails it too (ns-2's Vegas departs from the
    # paper's, D14-D16). Both of the band's tests fail, as both do in the row.
    from atmsim.reproduce.aron97.common import K_FULL, K_QUICK
    from atmsim.reproduce.aron97.mechanisms import FAIR_FLOOR, FAIR_HIGH, FAIR_MOST

    data = _json(settled.SETTLED[row].file)
    series = {tuple(s) for s in data["series"][row.removeprefix("aron97.")]}
    assert {s[1] for s in series} <= {"lite", "vegas"} and data["draws"] >= 10
    pts = [p for p in data["points"] if (p["topology"], p["variant"], p["tick"]) in series]
    assert {p["k"] for p in pts} == set(K_FULL)
    for ks in (K_FULL, K_QUICK):
        for variants in ({"lite", "vegas"}, {"lite"}):
            for key in ("ns2_jain", "ns2_draw0_jain"):  # [median, min, max] over the draws; the draw-0 run
                jain = [(p[key][0] if key == "ns2_jain" else p[key], p["topology"])
                        for p in pts if p["k"] in ks and p["variant"] in variants]
                assert min(j / FAIR_FLOOR[t] for j, t in jain) < 1, (ks, variants, key)
                assert statistics.mean(j >= FAIR_HIGH for j, _ in jain) <= FAIR_MOST, (ks, variants, key)


def test_ns2_shows_the_deviations_of_arb_fig9_c1_and_fig12_c1():
    ref = {p["key"]: p for p in _json(settled.SETTLED["arb.fig9.c1"].file)["points"]}
    # fig9.c1: two-way short-pipe utilisation in [0.55, 0.85]; ns-2's is above it in both directions.
    assert min(ref["twoway-short"]["ns2_util"].values()) > 0.85
    # fig12.c1: node 1's share about 90 % (>= 0.8) for most ratios; below 1.2 ns-2's median is far under it.
    low = [statistics.median(p["ns2_share1"]) for k, p in ref.items()
           if k.startswith("fair tail ") and ratio_of(float(k.split()[-1])) < 1.2]
    assert len(low) >= 5 and statistics.median(low) < 0.8


def test_ns2_shows_the_deviation_of_arb_fig17_c2():
    # fig17.c2 asks node 5's share to lie in TAIL_BAND in >= 80 % of the marks (drop tail, buffers < 14): both
    # simulators leave it below the band in most marks, and both give node 5 every drop of some mark.
    from atmsim.reproduce.arb.bursty import SMALL_B, TAIL_BAND

    marks = _json(settled.SETTLED["arb.fig17.c2"].file)["marks"]
    assert {m["buffer"] for m in marks} == set(range(5, SMALL_B)) and {m["draw"] for m in marks} == {1, 2, 3}
    for sim in ("ns2", "atmsim"):
        inb = statistics.mean(TAIL_BAND[0] <= m[f"{sim}_share5"] <= TAIL_BAND[1] for m in marks)
        below = statistics.mean(m[f"{sim}_share5"] < TAIL_BAND[0] for m in marks)
        assert inb < 0.5 and below > 0.5, sim
        assert max(m[f"{sim}_drop_share5"] or 0 for m in marks) >= 0.8, sim


def test_seed_noise_settles_only_at_ten_seeds_and_inside_the_noise():
    # morris-kung95.fig8.c2's note measures its ratio over fig8's seed sweep; only an excess inside twice the
    # standard error at 10 seeds or more settles it.
    row = "morris-kung95.fig8.c2"
    inside = ("Over 10 seeds (1-10) total(two) / total(one) is from 2.755 to 4.561 per seed, 4.065 as the claim aggregates "
              "it, standard error 0.187: its distance from 4 (0.065) lies inside twice its standard error (0.373).")
    kind, ev = settled.settle(row, inside)
    assert kind == "seeds" and ev.startswith("note: Over 10 seeds")
    assert settled.settle(row, inside.replace("inside", "outside")) == ("none", "")
    assert settled.settle(row, inside.replace("Over 10 seeds (1-10)", "Over 3 seeds (1-3)")) == ("none", "")
    # On the 10-s quick grid the excess lies outside the noise: the row stays at none, with the sweep in its note.
    got = {r["id"]: r for r in rows()}[row]
    assert got["settled_by"] == "none" and "Over 10 seeds (1-10)" in got["note"] and "lies outside" in got["note"]


def test_a_sweep_that_finds_a_fitting_value_settles_nothing():
    # fig10 and fig11 sweep ARB's M on their two-way runs; an M at which the row holds means a faithful
    # reading meets the paper, so the row is not settled (it stays at none, docs/arb.md §8).
    got = {r["id"]: r for r in rows()}
    for row in ("arb.fig10.c2", "arb.fig11.c3"):
        fit = re.search(r"M at which the row holds: ([^.]+)\.", got[row]["note"])
        assert fit and fit.group(1) != "none" and got[row]["settled_by"] == "none", row
    for r in got.values():
        m = re.search(r"at which the row holds: ([^.]+)\.", r.get("note", ""))
        assert not (m and m.group(1) != "none" and r.get("settled_by") == "sweep"), r["id"]


def test_seed_noise_settles_a_row_of_several_points_only_if_every_point_is_inside():
    # aron97.fig10.c1 quotes one sentence per failing size; one size outside the noise leaves the row at none.
    row = "aron97.fig10.c1"
    one = ("At 10000K, E_atm - E_pkt: Over 10 seeds (1-10) it is from -0.058 to 0.060 per seed, -0.015 as the "
           "claim aggregates it, standard error 0.010: its distance from -0.01 (0.005) lies inside twice its standard error "
           "(0.020).")
    kind, ev = settled.settle(row, "Per size ... Seed noise (fig10_seeds.csv): " + one)
    assert kind == "seeds" and ev.startswith("note: Over 10 seeds (1-10) it is")
    assert settled.settle(row, one + " " + one.replace("inside", "outside")) == ("none", "")
    assert settled.settle(row, one.replace("inside", "outside") + " " + one) == ("none", "")


def test_a_row_that_holds_at_ten_seeds_is_settled_by_seeds():
    row = "jain96.summary-table.c1"
    note = ("Over 10 seeds (1-10) the Spearman correlation is from 0.452 to 0.929 per seed, 0.881 as the claim aggregates "
            "it, standard error 0.052: inside the band at 10 seeds.")
    assert settled.settle(row, note)[0] == "seeds"
    assert settled.settle(row, note.replace("10 seeds", "3 seeds")) == ("none", "")


def test_fig7_c6_is_settled_only_if_no_reading_of_packet_tcp_fits():
    # Both readings of "packet-TCP" are judged by the row's own band (variants._c6_check); a reading that fits leaves
    # the row at none.
    import pandas as pd

    from atmsim.reproduce.aron97 import variants

    ks = [3, 9]
    E = {"vegas": pd.Series([0.9, 0.9], index=ks), "vegas-afr": pd.Series([0.95, 0.95], index=ks)}
    Ep = {"vegas": pd.Series([1.0, 1.0], index=ks), "vegas-afr": pd.Series([0.97, 0.97], index=ks),
          "lite": pd.Series([0.8, 0.8], index=ks)}
    assert variants._c6_check(*variants._c6_gaps(E, Ep, ks, None)).holds        # gap 0.10, Vegas-AFR's a fifth of it
    assert not variants._c6_check(*variants._c6_gaps(E, Ep, ks, "lite")).holds  # ATM above packet Lite
    row = "aron97.fig7.c6"
    note = ("Readings of 'packet-TCP' run (median gap of Vegas, of Vegas-AFR): as Vegas on the packet network -0.055, -0.054; "
            "as Lite on the packet network -0.209, -0.208; readings that fit the band: none. vegas-anatomy ...")
    kind, ev = settled.settle(row, note)
    assert kind == "sweep" and ev.endswith("readings that fit the band: none") and "-0.209" in ev
    assert settled.settle(row, note.replace("band: none", "band: Lite")) == ("none", "")


def test_boston97_16_source_rows_are_settled_only_if_they_fail_under_both_access_readings():
    from atmsim.reproduce.boston97.common import CELL_ACCESS

    row = "boston97.fig5.c2"
    note = f"Measured ... 0.47. At {CELL_ACCESS.name} ({CELL_ACCESS.why}) this claim fails too (margin -0.42)."
    kind, ev = settled.settle(row, note)
    assert kind == "sweep" and ev.endswith("fails too (margin -0.42)")
    assert settled.settle(row, note.replace("fails too (margin -0.42)", "holds (margin +0.1)")) == ("none", "")
    assert settled.settle(row, "Measured ... 0.47.") == ("none", "")  # the quick grid does not run the reading


def test_boston97_fig7_c7_is_settled_by_the_paper_only_if_its_two_panels_need_two_access_models():
    from types import SimpleNamespace as R

    from atmsim.reproduce.boston97 import traffic

    def fits(r, b):
        return b.eta - r.eta >= 0.1
    a0 = 1.108
    one = {(1.0, p): R(clr=0.0) for p in ("reno", "boston")} | {(a, p): R(clr=0.02) for a in (1.05, a0) for p in ("reno", "boston")}
    six = {(1.0, "reno"): R(eta=0.6), (1.0, "boston"): R(eta=0.8), (1.05, "reno"): R(eta=0.55), (1.05, "boston"): R(eta=0.7),
           (a0, "reno"): R(eta=0.42), (a0, "boston"): R(eta=0.45)}
    one |= {(1.05, "reno"): R(clr=0.004, plr=0.11)}
    said = traffic._two_panels(one, six, fits, a0)
    assert "this row holds (0.800 / 0.600)" in said and "loses cells: 1.05 (its Boston CLR / Reno PLR 0.0200 / 0.110)" in said
    assert said.endswith("rates are Fig. 7(a)'s (fig7.c1): none.")
    kind, ev = settled.settle("boston97.fig7.c7", "Measured ..." + said)
    assert kind == "paper" and ev == "note: this row holds (0.800 / 0.600) while one source loses 0.0000 (Boston) and 0.0000 (Reno) of its cells"
    # a single source that loses cells with cell links, or a row that holds with packet links: no contradiction
    assert traffic._two_panels(one | {(1.0, "reno"): R(clr=0.001)}, six, fits, a0) == ""
    assert traffic._two_panels(one, six | {(a0, "boston"): R(eta=0.6)}, fits, a0) == ""
    assert settled.settle("boston97.fig7.c7", "Measured ... Swept a with every test of the row in its band: 1.") == ("none", "")


def test_boston97_fig7_c2_is_settled_by_the_paper_only_if_it_fits_where_nothing_is_lost():
    from types import SimpleNamespace as R

    from atmsim.reproduce.boston97 import traffic

    def fits(r, b):
        return r.fit
    a0 = 1.108
    A = {(1.0, p): R(clr=0.0, fit=True) for p in ("reno", "boston")} | {(a, p): R(clr=0.02, fit=False) for a in (1.05, a0)
                                                                         for p in ("reno", "boston")}
    said = traffic._nothing_lost_fit(A, fits, a0)
    assert "CLR 0.0000 Reno, 0.0000 Boston" in said and "(a = 1.108: CLR 0.0200 Reno, 0.0200 Boston)" in said
    kind, ev = settled.settle("boston97.fig7.c2", "Measured ..." + said)
    assert kind == "paper" and ev.startswith("note: The one swept a that fits, 1 (cell links")
    # another a that fits too, a single source that loses cells with cell links, or none lost at a0: nothing said
    assert traffic._nothing_lost_fit(A | {(1.05, "reno"): R(clr=0.02, fit=True)}, fits, a0) == ""
    assert traffic._nothing_lost_fit(A | {(1.0, "reno"): R(clr=0.001, fit=True)}, fits, a0) == ""
    assert traffic._nothing_lost_fit(A | {(a0, "boston"): R(clr=0.0, fit=False)}, fits, a0) == ""
    assert settled.settle("boston97.fig7.c2", "Measured ... Swept a with every test of the row in its band: 1.") == ("none", "")


def test_boston97_fig5_c1_is_settled_by_the_paper_only_if_it_holds_with_cell_links():
    from atmsim.reproduce.boston97.common import CELL_ACCESS

    fig7a = (" Fig. 7(a)'s single source (fig7's runs: 512 cells, 9180 B) loses 0.0201 (Boston) and 0.0190 (Reno) of its "
             "cells with the scenario's packet links and 0.0000 and 0.0000 with cell links, where its cells arrive at the "
             "output's own rate: the drops Fig. 7(a) reports (fig7.c1) need packet links, so ...")
    holds = f" At {CELL_ACCESS.name} ({CELL_ACCESS.why}) this claim holds (margin +1)."
    kind, ev = settled.settle("boston97.fig5.c1", "Measured ..." + fig7a + holds)
    assert kind == "paper" and "0.0201 (Boston)" in ev
    assert settled.settle("boston97.fig5.c1", "Measured ..." + fig7a) == ("none", "")  # quick: no cell-access reading
    assert settled.settle("boston97.fig5.c1", "Measured ..." + fig7a + holds.replace("holds (margin +1)", "fails too (margin -1)")) \
        == ("none", "")
    assert settled.settle("boston97.fig5.c1", "Measured ..." + holds) == ("none", "")  # one source's losses not shown


def test_aron97_fig11_c2_is_arithmetic_only_if_every_tie_is_forced():
    import pandas as pd

    from atmsim.reproduce.aron97 import transfers

    def t_last(rows):
        return pd.DataFrame(rows, columns=["variant", "size", "t_last"]).set_index(["variant", "size"])["t_last"]
    sizes = [10_000, 13_000, 20_000, 50_000]
    rows = [(v, S, 0.1) for v in ("lite-iw2", "vegas-afr") for S in sizes[:3]] + [("lite-iw2", 50_000, 0.2), ("vegas-afr", 50_000, 0.3)]
    said = transfers._forced_ties(t_last(rows), sizes, sizes[:3])
    assert "with 3 of the 4 sizes tied by construction" in said and "at most 0.25 and cannot reach 0.75" in said
    kind, ev = settled.settle("aron97.fig11.c2", "sizes ..." + said)
    assert kind == "arithmetic" and ev.startswith("note: Every tie is at 3 segments or fewer")
    # Vegas-AFR ahead at 50K, or a tie at more than three segments: not the arithmetic
    behind = rows[:-2] + [("lite-iw2", 50_000, 0.3), ("vegas-afr", 50_000, 0.2)]
    assert transfers._forced_ties(t_last(behind), sizes, sizes[:3]) == ""
    tied = rows[:-2] + [("lite-iw2", 50_000, 0.3), ("vegas-afr", 50_000, 0.3)]
    assert transfers._forced_ties(t_last(tied), sizes, sizes) == ""
    assert settled.settle("aron97.fig11.c2", "At 10K lite-iw2 and vegas-afr deliver their last byte at the same instant") == ("none", "")


def _cellsim(script: str):
    """A validation/cellsim script loaded as a module (it is not a package; its folder goes on the path, since
    a script there imports another, as aron97_offsets.py does aron97.py)."""
    import importlib.util
    import sys

    sys.path.insert(0, str(ROOT / "validation/cellsim"))
    spec = importlib.util.spec_from_file_location(f"cellsim_{script}", ROOT / "validation/cellsim" / f"{script}.py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


@pytest.mark.parametrize("row", ["morris-kung95.fig3.c4", "morris-kung95.fig3.c5", "morris-kung95.fig3.c6"])
def test_cellsim_shows_the_deviation_of_morris_kung95_fig3_rows(row):
    # validation/cellsim's fig3 grid (B's link at 53 Mb/s as the scenario has it, seeds 1-3, the ablation at seed 1)
    # fails the row's band as the catalogue writes it (section 2.3), and so does the other reading of B's link.
    claims = _cellsim("claims")
    data = _json(settled.SETTLED[row].file)
    key = row.removeprefix("morris-kung95.")
    for uplink in (53, 155):
        got = claims.judge(data["runs"], [1, 2, 3], uplink)[key]
        assert got["holds"] is False, (uplink, got)
    got = claims.judge(data["runs"], [1, 2, 3])[key]
    if key == "fig3.c4":
        assert got["share_9180_ge_1500"] < 0.8
    if key == "fig3.c5":
        assert got["grid_steps"] is not None and got["grid_steps"] > 1
    if key == "fig3.c6":
        assert got["max_ppd_gain_share"] > 0.1 and got["max_ppd_share"] > 0.3


def test_cellsim_shows_the_deviation_of_aron97_fig3_c9():
    # validation/cellsim on aron97 (aron97_offsets.py, aron97.py; docs/validation.md): fig3.c9 (total variation of
    # the packet curve / the ATM curve's <= 2/3, each topology) fails in cellsim at ten seeds under every reading, ties
    # as shipped and broken alike; topology 2, which the row also requires, fails under every reading at five and ten
    # seeds and with any one of ten left out. With the ties broken alike the two simulators run one scenario: on
    # topology 2 cellsim's ATM E is within 0.05 of atmsim's at every buffer.
    off = _cellsim("aron97_offsets")
    topo2 = [_json(settled.SETTLED["aron97.fig3.c9"].file), _json("validation/cellsim/aron97_offsets_topo2_shipped_points.json")]
    topo1 = _json("validation/cellsim/aron97_offsets_points.json")
    for d, every in [(x, True) for x in topo2] + [(topo1, False)]:
        for v in d.get("readings", list(off.VARIANTS)):
            for u in d["spread_ns"]:
                for seeds in ([1, 2, 3, 4, 5], d["seeds"]) if every else (d["seeds"],):
                    assert not off.claims_of(d["runs"], v, u, seeds)["fig3.c9"]["holds"], (v, u, seeds)
                if every:
                    assert min(off.leave_one_out(d["runs"], v, u, d["seeds"])) > 2 / 3, (v, u)
    shipped = _json("validation/cellsim/aron97_points.json")
    for v in off.aron97.VARIANTS:
        assert not off.aron97.claims_of(shipped["runs"], v, shipped["seeds"])["fig3.c9"]["holds"], v
    for v in off.VARIANTS:
        gap = [c - a for c, a in zip(off.curve(topo2[0]["runs"], v, 300, "atm"), off.curve(topo2[0]["runs"], "atmsim", 300, "atm"))]
        assert max(map(abs, gap)) <= 0.05, (v, gap)


@pytest.mark.parametrize("row", ["aron97.fig6.fair", "aron97.fig7.fair"])
def test_cellsim_shows_the_deviation_of_aron97_vegas_fairness_rows(row):
    # validation/cellsim's topology-1 series of the row (Vegas, Vegas-RM and AFR written from the paper and the spec
    # files without atmsim's code): under each order of simultaneous events at R1 it ran, at seeds 1-5 and at every
    # stored seed set, a point's median Jain index lies below topology 1's floor, which fails the row whatever its
    # topology-2 points are; and Jain falls with the run's coarse timeouts, as atmsim's note of the row measures.
    from atmsim.reproduce.aron97.mechanisms import FAIR_FLOOR

    m = _cellsim("aron97_vegas")
    data = _json(settled.SETTLED[row].file)
    key = row.removeprefix("aron97.")
    assert {"base", "arrivals-first", "random"} <= set(data["readings"])
    for name in data["claims"]:
        reading, lo = name.split(", seeds ")
        seeds = list(range(1, int(lo.split("-")[1]) + 1))
        got = m.judge(data["runs"], reading, seeds)[key]
        assert got["min"] < FAIR_FLOOR[1] and not got["holds"], (name, got)
        by = m.fair_anatomy(data["runs"], key, reading, seeds)["jain_by_timeouts"]
        assert by["0-2"]["median"] > by["3-9"]["median"], (name, by)


@pytest.mark.parametrize("row", ["aron97.fig7.c2", "aron97.fig8.c4", "aron97.fig12.c4"])
def test_cellsim_with_the_ties_broken_alike_shows_the_deviation_of_aron97_vegas_rows(row):
    # validation/cellsim's topology-1 series with atmsim's static access offsets in both simulators (aron97_vegas.py
    # --spread-ns): the row fails under each of cellsim's stored readings and in atmsim's own runs of the same
    # scenario, at seeds 1-5 and 1-10, judged again from the stored runs.
    m = _cellsim("aron97_vegas")
    data = _json(settled.SETTLED[row].file)
    assert data["spread_ns"] > 0 and {"base", "arrivals-first", "worried-once", "atmsim"} <= set(data["readings"])
    assert len(data["claims"]) == 6
    for name in data["claims"]:
        reading, lo = name.split(", seeds ")
        got = m.judge(data["runs"], reading, list(range(1, int(lo.split("-")[1]) + 1)))[row.removeprefix("aron97.")]
        assert not got["holds"], (name, got)
