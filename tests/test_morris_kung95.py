"""morris-kung95 on a tiny grid: credit flow control, UDP, claim rows."""
import pandas as pd

from atmsim.reproduce import harness
from atmsim.reproduce import morris_kung95 as mk


def reproduce(figures, out):
    return {r["id"]: r for r in harness.reproduce(mk.PAPER, figures, quick=True, out=out, workers=2, duration="3s")}


def test_credit_runs_and_claims(tmp_path):
    rows = reproduce(["fig8", "fig8-tcp-udp", "credit-buffer"], tmp_path)
    for cid in ["fig8.c1", "fig8.c2", "fig8.c3", "fig8.c4", "fig8.c5", "fig8.c6", "fig8.c7", "fig8-tcp-udp.c1", "fig8-tcp-udp.c5",
                "credit-buffer.c1"]:
        assert f"morris-kung95.{cid}" in rows
    # Hard invariants hold in every run, whatever the grid.
    assert rows["morris-kung95.fig8.c5"]["holds"]
    assert rows["morris-kung95.fig8-tcp-udp.c5"]["holds"]
    df = pd.read_csv(tmp_path / "fig8.csv")
    assert (df[df.credit].cells_dropped == 0).all()
    assert (df[~df.credit].cells_dropped > 0).all()


def test_g_max_arithmetic():
    assert round(mk.g_max(9180) / 1e6, 2) == 5.73
    assert round(mk.g_max(1500) / 1e6, 2) == 5.49
    assert mk.cells(9180) == 192 and mk.cells(40) == 2


def test_trace_figures_emit_their_claims(tmp_path):
    rows = reproduce(["fig5", "fig6", "fig9"], tmp_path)
    for cid in ["fig5.c1", "fig5.c2", "fig5.c3", "fig5.c4", "fig9.c1", "fig9.c2", "fig9.c3", "fig9.c4"]:
        assert f"morris-kung95.{cid}" in rows
    # Fig. 6 is the paper's own calculation: the fluid model and the cell run must both reproduce it.
    for k in range(1, 5):
        assert rows[f"morris-kung95.fig6.c{k}"]["holds"], rows[f"morris-kung95.fig6.c{k}"]
    assert rows["morris-kung95.fig5.c2"]["ours"]["episodes"] >= 1
    assert rows["morris-kung95.fig9.c1"]["holds"]  # the credit bound is hard
    for png in ["fig5.png", "fig6.png", "fig9.png"]:
        assert (tmp_path / png).stat().st_size > 0
