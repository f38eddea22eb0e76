"""validation/today_tcp.py (docs/tcp.md, "Today's TCP on the seeds' networks") on a tiny grid:
every arm and variant runs, balanced, and the table and figure are written."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_today_tcp_runs_every_arm_and_variant(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("today_tcp", ROOT / "validation" / "today_tcp.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(["--out", str(tmp_path), "--seeds", "1", "--ks", "9", "--duration", "1s"])
    rows = [line for line in (tmp_path / "today-tcp.md").read_text(encoding="utf-8").splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 1 + len(mod.ARMS) * len(mod.VARIANTS)
    assert (tmp_path / "today-tcp.png").stat().st_size > 10_000
    printed = capsys.readouterr().out
    assert printed.count(" k= 9 ") == len(mod.ARMS) * len(mod.VARIANTS)
