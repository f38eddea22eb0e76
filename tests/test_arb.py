"""arb (Chang, Huynh & Gray): every claim of the paper's catalogue is a row
of `reproduce arb --quick`, failing rows explain themselves, ARB and
random-drop runs balance their books, and bad [arb] keys are named."""
import json
from pathlib import Path

import atmsim
from atmsim.toml import tomllib

CLAIMS = (
    [f"arb.fig6.a{k}" for k in range(1, 6)]
    + [f"arb.fig6.c{k}" for k in range(1, 5)]
    + [f"arb.fig7.c{k}" for k in range(1, 9)]
    + [f"arb.fig8.c{k}" for k in range(1, 4)]
    + [f"arb.fig9.c{k}" for k in range(1, 5)]
    + [f"arb.fig10.c{k}" for k in range(1, 6)]
    + [f"arb.fig11.c{k}" for k in range(1, 4)]
    + [f"arb.fig12.c{k}" for k in range(1, 6)]
    + [f"arb.fig13.c{k}" for k in range(1, 4)]
    + [f"arb.fig14.c{k}" for k in range(1, 4)]
    + [f"arb.fig15.c{k}" for k in range(1, 3)]
    + [f"arb.fig16.c{k}" for k in range(1, 3)]
    + [f"arb.fig17.c{k}" for k in range(1, 5)]
    + ["arb.fig16-arb.c1"]
)


GOLDEN = Path(__file__).parent / "golden/reproduce-all-quick/arb.claims.json"


def test_every_claim_is_a_row_and_failures_are_explained():
    # Read from what `reproduce arb --quick` writes: the golden, which tests/test_golden.py checks a fresh
    # `reproduce all --quick` writes byte for byte (it checks arb's plots there too). This test ran arb's 1,168
    # quick runs a second time for the same file.
    rows = {r["id"]: r for r in json.loads(GOLDEN.read_text(encoding="utf-8"))}
    assert len(CLAIMS) == 52
    assert sorted(rows) == sorted(CLAIMS)
    for r in rows.values():
        assert isinstance(r["holds"], bool)
        assert r["holds"] or r["note"], f"{r['id']} fails without a note"
    # The analytic checks are arithmetic on the paper's numbers.
    assert all(rows[f"arb.fig6.a{k}"]["holds"] for k in range(1, 6))


def test_arb_and_random_drop_runs_balance():
    r = atmsim.run("arb-twoway", set=["duration=200s"], trace=True)
    assert r.summary["accounting"]["balanced"]
    assert {f["kind"] for f in r.summary["flows"]} == {"arb"}
    assert set(r.traces["rate"].columns) == {"t", "flow", "rate_bps", "region", "rinc_bps"}
    r = atmsim.run("arb-fairness", set=["duration=60s", "flow.f1.kind=tcp", "flow.f2.kind=tcp", "router.policy=random-drop"])
    assert r.summary["accounting"]["balanced"]


def test_bad_arb_key_is_one_line_exit_2(cli):
    p = cli("run", "arb-oneway", "--set", "arb.theta=1.5")
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "arb.theta" in p.stderr
    # The accumulation rule's keys do nothing without an ARB flow: refused, as one line.
    p = cli("run", "aron97-topo1-packet", "--set", "arb.accumulation=own-rate")
    assert p.returncode == 2 and p.stderr.strip().count("\n") == 0 and "arb.accumulation" in p.stderr and "no flow" in p.stderr
    p = cli("run", "aron97-topo1-atm", "--set", "router.policy=random-drop")
    assert p.returncode == 2 and "router.policy" in p.stderr


def _outcome(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in ("seed", "wall_s")}


def test_the_seed_reaches_nothing_in_the_efficiency_figures_arb_runs_and_they_run_once():
    # Why the ARB groups of Figs. 7, 10 and 11 run once (efficiency.ARB_ONCE): the seed draws the hosts'
    # TCP timer phases, which ARB never reads. Measured on each ARB scenario, and, as a check that the
    # seed does reach a run that reads a timer, on TCP-SS over the short pipe, where seeds differ.
    from atmsim.reproduce.arb import efficiency
    from atmsim.reproduce.arb.common import grid, transport

    for sc in ("arb-oneway", "arb-twoway", "arb-twoway-short"):
        got = [_outcome(atmsim.run(sc, set=[*transport(sc, "arb"), "duration=150s"], seed=s).summary) for s in (1, 2, 3)]
        assert got[0] == got[1] == got[2], sc
    sc = "arb-twoway-short"
    tcp = [_outcome(atmsim.run(sc, set=[*transport(sc, "tcp"), "duration=150s"], seed=s).summary) for s in (1, 2)]
    assert tcp[0] != tcp[1]
    for k, rs in efficiency._eff_runs(grid(False)).items():
        group = k.removesuffix(efficiency.WARM)
        kind = efficiency.GROUPS[group][1] if group in efficiency.GROUPS else "tcp"  # twoway-tcp-host2: TCP-SS
        assert len({r.seed for r in rs}) == (3 if kind == "tcp" else 1), k


def test_every_row_with_arb_runs_gives_its_verdict_under_both_accumulation_readings():
    # Issue 37: the runs count k_acc in packets of the bottleneck's queue ([CHG §3.3]); the own-rate reading is
    # declared as another reading of the setup, twinned on ARB runs only (docs/arb.md §2). The quick golden (what
    # `reproduce all --quick` writes): every row of a figure with ARB runs has its own-rate verdict, the rows of
    # TCP-SS-only figures none, and a row whose verdict differs says so in its note.

    from atmsim.reproduce import harness
    from atmsim.reproduce.arb import PAPER
    from atmsim.reproduce.arb.common import OWN_RATE, grid

    g = grid(True)
    assert OWN_RATE.twin(g.run("arb-oneway", "arb")).overrides[-1] == "arb.accumulation=own-rate"
    assert OWN_RATE.twin(g.run("arb-oneway", "tcp")) is None
    assert tomllib.loads(atmsim.resolve("arb-twoway", []))["arb"]["accumulation"] == "queue"
    twinned = {f for f, t in harness.plan(PAPER, None, True).twins.items() if t}
    assert {"fig7", "fig10", "fig11", "fig15", "fig16-arb"} <= twinned and not {"fig12", "fig16", "fig17"} & twinned
    for r in json.loads(GOLDEN.read_text(encoding="utf-8")):
        if r["figure"] not in twinned:
            assert "readings" not in r, r["id"]
            continue
        other = r["readings"][OWN_RATE.name]["holds"]
        assert isinstance(other, bool), r["id"]
        assert (f"At {OWN_RATE.name} " in r["note"]) == (other != r["holds"]), r["id"]
