"""bench/memory_latency.c (docs/performance.md, "The floor under the 1.5× bar"): it builds, prints one line per
working set and page size, and refuses a bad working set with exit 2 and one line, as every script does. Its
timings are measured, never tested."""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")


@pytest.fixture(scope="module")
def exe(tmp_path_factory):
    out = tmp_path_factory.mktemp("lat") / "memory_latency"
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(out), str(ROOT / "bench/memory_latency.c")],
                   check=True)
    return str(out)


def test_one_line_per_working_set_and_page_size(exe):
    p = subprocess.run([exe, "1"], capture_output=True, text=True, timeout=120)
    lines = p.stdout.splitlines()
    assert p.returncode == 0 and p.stderr == "" and len(lines) == 2
    for line, pages in zip(lines, ("4-KiB", "huge")):
        assert re.fullmatch(rf" +1 MiB, {pages} pages: dependent +[\d.]+ ns a load, eight chains +[\d.]+ ns a load \(\d\)",
                            line), line


@pytest.mark.parametrize("arg", ["0", "4097", "12x", "-3", ""])
def test_a_bad_working_set_exits_2_with_one_line(exe, arg):
    p = subprocess.run([exe, arg], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.splitlines()) == 1 and "MiB" in p.stderr


def test_no_argument_exits_2_with_one_line(exe):
    p = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == "" and len(p.stderr.splitlines()) == 1
