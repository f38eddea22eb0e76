"""What the report and the console say beside each claim and figure (issue 38): `ours` with its unit, and
each figure labelled by the run that made it."""
import json

from atmsim.report import ours_text

ROWS = {r["id"]: r for p in ("aron97", "arb", "morris-kung95")
        for r in json.load(open(f"tests/golden/reproduce-all-quick/{p}.claims.json"))}


def test_ours_carries_its_unit():
    # A bare 5.06e+05 stood against the paper's "<= 560 KB".
    r = ROWS["aron97.fig3.c3"]
    assert isinstance(r["ours"], float) and 1e5 < r["ours"] < 1e6 and "bytes" in r["rule"]
    assert ours_text(r) == f"{r['ours'] / 1e3:.3g} KB"
    # A number's unit from its name: Mb/s, ms, %, KB/s, µs.
    assert ours_text({"ours": {"total_mbps": 59.572224, "rtt_ms": 221.44, "share_percent": 7.2, "retx_KB_per_s": 56.0,
                               "cell_time_us": 3.0, "points": 28}, "rule": ""}, 200) == \
        "total_mbps=59.57 Mb/s, rtt_ms=221.4 ms, share_percent=7.2 %, retx_KB_per_s=56 KB/s, cell_time_us=3 µs, points=28"
    # A bare number's from its rule's test: seconds, MB/s, cells; none where the rule names none, or several tests.
    assert ours_text(ROWS["morris-kung95.fig4.c1"]).endswith(" s")
    assert ours_text(ROWS["morris-kung95.fig8.c1"]).endswith(" MB/s")
    assert ours_text(ROWS["morris-kung95.fig9.c1"]) == f"{ROWS['morris-kung95.fig9.c1']['ours']} cells"
    assert ours_text({"ours": 0.5, "rule": "x: share of points with a >= b >= 0.8"}) == "0.5"
    assert ours_text({"ours": 3.0, "rule": "x: a (s) >= 1 and b bytes <= 2"}) == "3"
    assert ours_text({"ours": 1234567, "rule": "total bytes <= 2e6"}) == "1.23 MB"
