"""What the report and the console say beside each claim and figure (issue 38): `ours` with its unit, and
each figure labelled by the run that made it."""
import json

from atmsim.report import ours_text

ROWS = {r["id"]: r for p in ("aron97", "arb", "morris-kung95")
        for r in json.load(open(f"tests/golden/reproduce-all-quick/{p}.claims.json", encoding="utf-8"))}


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


def _row(paper, figure, cid):
    return {"paper": paper, "figure": figure, "claim": f"{paper}.{figure}.{cid} a claim", "paper_value": "1",
            "ours": 1.0, "holds": True, "id": f"{paper}.{figure}.{cid}", "rule": "x: y >= 0"}


def test_each_figure_is_labelled_by_the_run_that_made_it(tmp_path, monkeypatch):
    # One quick/commit flag per paper labelled a quick figure and a full one, or two commits' figures, as one.
    from atmsim import html_report, provenance
    from atmsim.reproduce.harness import Run

    d = tmp_path / "toy"
    d.mkdir()
    (d / "claims.json").write_text(json.dumps([_row("toy", "fig-a", "c1"), _row("toy", "fig-b", "c1")]), encoding="utf-8")
    run = Run("aron97-topo1-atm", ("duration=1s",), 1)
    monkeypatch.setattr(provenance, "commit", lambda: "aaaaaaaaaaaa")
    provenance.record(d, "toy", True, {"fig-a": [run]})  # reproduce toy --figure fig-a --quick
    monkeypatch.setattr(provenance, "commit", lambda: "bbbbbbbbbbbb")
    provenance.record(d, "toy", False, {"fig-b": [run]})  # later, at another commit: the full grid of fig-b
    page = html_report.pages(d)[d / "index.html"]
    sections = {f: page[page.index(f"<section id='{f}'>"):] for f in ("fig-a", "fig-b")}
    label = {f: s[:s.index("</p>")] for f, s in sections.items()}
    assert "--quick grid" in label["fig-a"] and "aaaaaaaaaaaa" in label["fig-a"], label["fig-a"]
    assert "full grid" in label["fig-b"] and "bbbbbbbbbbbb" in label["fig-b"] and "quick" not in label["fig-b"]
    head = page[:page.index("<section")]
    assert "made by 2 different runs" in head and "aaaaaaaaaaaa" not in head and "bbbbbbbbbbbb" not in head
    # Rerunning fig-a full at the second commit: one run made both, and the page says so once.
    provenance.record(d, "toy", False, {"fig-a": [run]})
    page = html_report.pages(d)[d / "index.html"]
    head = page[:page.index("<section")]
    assert "different runs" not in head and "bbbbbbbbbbbb" in head and "full grid" in head
    assert page.count("--quick") == 0


def test_a_report_of_a_file_without_per_figure_labels_uses_the_papers(tmp_path):
    # reproduction.json written before figures kept their own labels: the paper's, for every figure.
    from atmsim import html_report

    d = tmp_path / "old"
    d.mkdir()
    (d / "claims.json").write_text(json.dumps([_row("old", "fig-a", "c1")]), encoding="utf-8")
    (d / "reproduction.json").write_text(json.dumps({
        "paper": "old", "atmsim_version": "0.1.0", "atmsim_core": "c0ffee", "commit": "cccccccccccc", "quick": True,
        "figures": {"fig-a": {"runs": 1, "scenarios": {}}}, "scenarios": {}}))
    page = html_report.pages(d)[d / "index.html"]
    section = page[page.index("<section id='fig-a'>"):]
    assert "cccccccccccc" in section[:section.index("</p>")] and "--quick grid" in section[:section.index("</p>")]
