"""arb (Chang, Huynh & Gray): every claim of the paper's catalogue is a row
of `reproduce arb --quick`, failing rows explain themselves, ARB and
random-drop runs balance their books, and bad [arb] keys are named."""
import json

import atmsim

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


def test_every_claim_is_a_row_and_failures_are_explained(cli, tmp_path):
    out = tmp_path / "arb"
    cli("reproduce", "arb", "--quick", "--out", str(out), check=True)
    rows = {r["id"]: r for r in json.loads((out / "claims.json").read_text(encoding="utf-8"))}
    assert len(CLAIMS) == 52
    assert sorted(rows) == sorted(CLAIMS)
    for r in rows.values():
        assert isinstance(r["holds"], bool)
        assert r["holds"] or r["note"], f"{r['id']} fails without a note"
    # The analytic checks are arithmetic on the paper's numbers.
    assert all(rows[f"arb.fig6.a{k}"]["holds"] for k in range(1, 6))
    for png in ("fig6", "fig7", "fig10", "fig12", "fig14", "fig16"):
        assert (out / f"{png}.png").exists()


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
    p = cli("run", "aron97-topo1-atm", "--set", "router.policy=random-drop")
    assert p.returncode == 2 and "router.policy" in p.stderr
