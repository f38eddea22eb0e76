"""bench/paired.py, the timing of two builds against each other that docs/performance.md quotes: its
table's shape and a failed run's one line. (What it measures is time, which no test asserts.)"""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def paired(*args):
    return subprocess.run([sys.executable, "bench/paired.py", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_two_commands_in_turn_give_each_ones_spread_and_the_pairs_ratios():
    py = sys.executable
    p = paired("--a", f"{py} -c pass", "--b", f"{py} -c 'sum(range(10**5))'", "--pairs", "3", "--warmup", "0")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("3 pairs, core any") and len(lines) == 5, p.stdout
    for row, label in zip(lines[2:], ("A user s", "B user s", "A/B user")):
        assert row.startswith(label), row
        lo, mid, hi = map(float, row[len(label):].split())
        assert 0 <= lo <= mid <= hi, row


def test_a_failing_command_stops_the_timing_with_one_line():
    p = paired("--a", "false", "--b", "true", "--pairs", "2")
    assert p.returncode == 1 and p.stderr == "paired.py: false exited 1\n" and p.stdout == "", (p.returncode, p.stderr)
