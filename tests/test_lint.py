"""Formatters and linters are part of the suite (issue 26): rustfmt, clippy with
warnings denied, and ruff (pyflakes and syntax errors; pyproject.toml)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(*cmd):
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, f"{' '.join(cmd)}:\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}"


def test_rust_is_formatted():
    _run("cargo", "fmt", "--all", "--check")


def test_clippy_finds_nothing():
    _run("cargo", "clippy", "--release", "-p", "atmsim-core", "--all-targets", "--quiet", "--", "-D", "warnings")


def test_ruff_finds_nothing():
    _run(sys.executable, "-m", "ruff", "check", "python", "tests", "validation", "bench", "buildtools")
