"""ARB's M by the catalogue's rule (issue 37; reproduce/arb/interval_rule.py, docs/arb.md §3): the values it gives on
each topology, the runs that take it, its other reading, and fig16-arb's sweep of faithful readings, whose note
is computed from the runs and settles the row only when no pair fits."""
import json
from pathlib import Path

import pytest

from atmsim import settled
from atmsim.reproduce.arb import bursty
from atmsim.reproduce.arb.common import RTT_WITH_QUEUE, d23_of, grid, transport
from atmsim.reproduce.arb.interval_rule import bounds, rule_interval_s
from atmsim.reproduce.harness import Run

GOLDEN = Path(__file__).resolve().parent / "golden" / "reproduce-all-quick"
# [CHG §3.1]: 10 Mb/s, 0.1 ms host links, a 50 kb/s line of 1 s (long) or 0.01 s (short); 500-byte data, 50-byte replies
HOPS = (4000 + 400) * (2 / 10e6 + 1 / 50e3)


def test_the_rule_on_the_efficiency_topology():
    long_rtt = 2 * (1 + 2e-4) + HOPS  # 2.08928 s: the round trip binds on the long pipe
    for sc, t8 in (("arb-oneway", 8 * 4000 / (50e3 / 3)), ("arb-twoway", 8 * 4000 / 50e3)):
        b = bounds(sc, transport(sc, "arb"))
        assert b["t8"] == pytest.approx(t8) and b["rtt0"] == pytest.approx(long_rtt)
        assert rule_interval_s(sc, transport(sc, "arb")) == pytest.approx(long_rtt)
        assert rule_interval_s(sc, transport(sc, "arb"), 3) == pytest.approx(long_rtt + 3 * 0.08)
    short = transport("arb-twoway-short", "arb")  # five a direction at 10 kb/s: 8 packets take 3.2 s, the round trip 0.109 s
    assert bounds("arb-twoway-short", short)["rtt0"] == pytest.approx(2 * (0.01 + 2e-4) + HOPS)
    assert rule_interval_s("arb-twoway-short", short) == rule_interval_s("arb-twoway-short", short, 3) == pytest.approx(3.2)


def test_the_rule_on_the_fairness_and_bursty_topologies():
    # [CHG §4.1]: node 1's round trip 221.44 ms; node 2's grows with d23; 8 packets of 8000 bits at 400 kb/s take 0.16 s
    for ratio in (1, 4, 8):
        o = transport("arb-fairness", "arb") + (f"link.node-2-gateway-3.delay={round(d23_of(ratio) * 1000)}us",)
        assert rule_interval_s("arb-fairness", o) == pytest.approx(0.22144 * ratio, rel=1e-4)
        assert bounds("arb-fairness", o)["t8"] == pytest.approx(0.16)
    o = transport("arb-bursty", "arb")
    assert rule_interval_s("arb-bursty", o) == pytest.approx(2 * (0.4493 + 0.1) + 0.01144)  # node 5's round trip
    assert bounds("arb-bursty", o)["t8"] == pytest.approx(8 * 8000 / 160e3)


def test_arb_runs_take_the_rule_unless_m_is_set_and_the_other_reading_twins_only_them():
    g = grid(True)
    arb, tcp = g.run("arb-twoway", "arb", (), 1, True), g.run("arb-twoway", "tcp", (), 1, True)
    assert "arb.interval=2089280us" in arb.overrides and not any(o.startswith("arb.interval") for o in tcp.overrides)
    swept = g.run("arb-twoway", "arb", ("arb.interval=3s",))
    assert [o for o in swept.overrides if o.startswith("arb.interval")] == ["arb.interval=3s"]
    twin = RTT_WITH_QUEUE.twin(arb)
    assert "arb.interval=2329280us" in twin.overrides and "arb.interval=2089280us" not in twin.overrides
    assert RTT_WITH_QUEUE.twin(tcp) is None and RTT_WITH_QUEUE.twin(swept) is None
    assert RTT_WITH_QUEUE.twin(g.run("arb-twoway-short", "arb")) is None  # 8 packets at the fair share bind


class _Out:
    def write(self, name, df):
        self.table = df


def _pairs(loss_at_5: int, share: float) -> list:
    """Runs of two faithful pairs at buffers 5 and 9: node 5 delivers `share` of the line over [50 s, 250 s]; the
    first pair loses `loss_at_5` packets at buffer 5."""
    out = []
    line_bytes = bursty.LINE_BPS * (bursty.ENDS[-1] - bursty.ENDS[0]) / 8 * bursty.PAYLOAD_B / bursty.DATA_B
    for m, r in ((1.11, 8.0), (1.14, 8.64)):
        for b in (5, 9):
            for end, k in ((bursty.ENDS[0], 0), (bursty.ENDS[-1], 1)):
                lost = loss_at_5 * k if (m, b) == (1.11, 5) else 0
                flows = [{"segments_lost": 0, "segments_sent": 1000 * k, "bytes_delivered": 0} for _ in range(4)]
                flows.append({"segments_lost": lost, "segments_sent": 1000 * k, "bytes_delivered": k * share * line_bytes})
                out.append((Run("arb-bursty", (), 1, False, {"M": m, "rinc": r, "buffer": b, "end": end}), {"flows": flows}))
    return out


def test_fig16_arb_faithful_sweep_is_computed_from_its_runs_and_settles_only_when_nothing_fits():
    c = _Out()
    fails = bursty._sweep_sentence(c, {"faithful": _pairs(loss_at_5=40, share=0.1)})
    assert len(c.table) == 4 and "M = 1.11 s and Rinc = 8 kb/s give node 5's smallest share 0.100" in fails
    assert "drops / packets sent up to 0.0080" in fails and fails.endswith("readings at which the row holds: none.")
    kind, ev = settled.settle("arb.fig16-arb.c1", fails)
    assert kind == "sweep" and "0.100" in ev
    fits = bursty._sweep_sentence(_Out(), {"faithful": _pairs(loss_at_5=0, share=0.2)})
    assert "readings at which the row holds: 1.11 s and 8 kb/s; 1.14 s and 8.64 kb/s." in fits
    assert settled.settle("arb.fig16-arb.c1", fits) == ("none", "")


def test_the_golden_row_quotes_its_faithful_sweep():
    row = {r["id"]: r for r in json.loads((GOLDEN / "arb.claims.json").read_text(encoding="utf-8"))}["arb.fig16-arb.c1"]
    ms, rs = bursty.faithful_readings()
    for m in ms:
        for r in rs:
            assert f"M = {m:.4g} s and Rinc = {r:g} kb/s give node 5's smallest share " in row["note"]
    assert row["settled_by"] == settled.settle(row["id"], row["note"])[0]
