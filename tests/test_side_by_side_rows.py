"""validation/htsim/side_by_side.py with --only re-measures one row and keeps the others as they were
measured (each with its sitting), written whole: a partial sitting never wipes the stored comparison.
htsim is stood in for by a program that does nothing (its time is not what is tested here)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORED = ROOT / "validation" / "htsim" / "side_by_side.json"


def run(*args, tmpdir=None):
    env = {**os.environ, "TMPDIR": str(tmpdir)} if tmpdir else None
    return subprocess.run([sys.executable, "validation/htsim/side_by_side.py", *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)


def test_only_one_row_keeps_the_others_and_their_sittings(tmp_path):
    bins = tmp_path / "bin"
    bins.mkdir()
    for name in ("htsim_ndp_in_out", "htsim_ndp_permutation_fail"):
        (bins / name).write_text("#!/bin/sh\necho log > logfile\nexit 0\n", encoding="utf-8")
        (bins / name).chmod(0o755)
    out = tmp_path / "sbs.json"
    shutil.copy(STORED, out)
    before = json.loads(out.read_text(encoding="utf-8"))
    (tmp_path / "scratch").mkdir()
    p = run(bins, "--only", "fig21", "--repeat", "1", "--core", "0", "--out", out, tmpdir=tmp_path / "scratch")
    assert p.returncode == 0, p.stderr
    after = json.loads(out.read_text(encoding="utf-8"))
    assert set(after["runs"]) == set(before["runs"]) and "fig22-perm" in after["runs"]
    for name, row in before["runs"].items():
        if name == "fig21":
            continue
        kept = dict(after["runs"][name])
        sitting = kept.pop("sitting")
        assert {k: v for k, v in row.items() if k != "sitting"} == kept, name
        assert sitting == row.get("sitting", {k: before[k] for k in ("when", "loadavg_at_start", "core", "repeats")})
    new = after["runs"]["fig21"]
    assert new["sitting"]["repeats"] == 1 and new["atmsim_packet_hops"] == 4095755
    assert not list(tmp_path.glob("*.tmp"))
    # htsim's scratch folders (it writes its log where it runs) are removed, under TMPDIR.
    assert not list((tmp_path / "scratch").iterdir())


def test_a_file_not_its_own_is_refused_in_one_line_and_left_alone(tmp_path):
    bins = tmp_path / "bin"
    bins.mkdir()
    out = tmp_path / "sbs.json"
    out.write_text("not json", encoding="utf-8")
    p = run(bins, "--only", "fig21", "--out", out)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "--out" in p.stderr, p.stderr
    assert out.read_text(encoding="utf-8") == "not json"


def test_the_stored_comparison_has_every_row_and_its_figures_follow_from_its_times():
    # Every row the script measures (issue 34's four runs, Fig. 22 in both strategies) is stored,
    # each with its own sitting, and each ratio and cost per hop is what its stored times give.
    import importlib.util
    spec = importlib.util.spec_from_file_location("side_by_side", ROOT / "validation" / "htsim" / "side_by_side.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    stored = json.loads(STORED.read_text(encoding="utf-8"))["runs"]
    assert set(stored) == set(script.SCENARIOS)
    for name, row in stored.items():
        assert row["atmsim_loop_s"] == min(row["repeats"]["atmsim_loop_s"]), name
        assert row["htsim_user_s"] == min(row["repeats"]["htsim_user_s"]), name
        assert abs(row["ratio_htsim_over_atmsim_loop"] - row["htsim_user_s"] / row["atmsim_loop_s"]) < 1e-9, name
        assert abs(row["atmsim_ns_per_hop"] - row["atmsim_loop_s"] / row["atmsim_packet_hops"] * 1e9) < 1e-6, name
        # The loop's CPU: the process's least user CPU less that of the same run stopped at once.
        assert row["atmsim_setup_user_s"] == min(row["repeats"]["atmsim_setup_user_s"]), name
        assert abs(row["atmsim_loop_cpu_s"] - (row["atmsim_process_user_s"] - row["atmsim_setup_user_s"])) < 1e-9, name
        assert 0 < row["atmsim_loop_cpu_s"] < row["atmsim_process_user_s"], name
        assert abs(row["ratio_htsim_over_atmsim_loop_cpu"] - row["htsim_user_s"] / row["atmsim_loop_cpu_s"]) < 1e-9, name
        assert len(row["repeats"]["atmsim_loop_s"]) == row["sitting"]["repeats"], name
        # Both simulators ran the same scenario over the same span (EQDS's with stop = "duration", as htsim
        # runs to its -end: docs/fabrics.md, "Packet-hops against htsim"): as many packet-hops within 0.5 %.
        assert abs(row["atmsim_packet_hops"] / row["htsim_packet_hops"] - 1) < 0.005, name
