#!/usr/bin/env python3
"""Installs atmsim built with profile-guided optimisation (PGO): the same code, laid out by the
compiler for the branches a simulation takes. Opt-in; `pip install .` stays the plain build.

    python buildtools/pgo.py [--editable] [--keep DIR]

Three steps, each through `pip` and the build backend, so that the profile is taken from the very
build it is used on (a profile taken from `cargo build --example run` does not fit the Python
extension: cargo gives the core crate another hash there, and the compiler ignores profiles of
functions it cannot name):
1. an instrumented build (`RUSTFLAGS=-Cprofile-generate`), installed into a scratch folder;
2. training: one short run of each family of built-in scenarios (TRAINING below) through it;
3. the profiles merged by `llvm-profdata` (rustup's `llvm-tools` component, which matches the
   compiler's LLVM), then `pip install .` (or `-e .`) with `RUSTFLAGS=-Cprofile-use`.

Outputs are the plain build's, byte for byte: only speed changes (docs/performance.md gives the
measured gain). Needs a Rust toolchain with `llvm-tools` (`rustup component add llvm-tools`);
takes two builds' time (about 6 minutes on 2 cores).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python" / "atmsim"))
from one_line_args import OneLineParser  # noqa: E402  (the package may not be installed yet)

PROG = "pgo.py"
#: One run of each family (built-in name, overrides): the paths every reproduction takes, in
#: proportion to nothing in particular. Short, so that training costs seconds.
TRAINING = [
    ("aron97-topo1-atm", ["duration=3s"]),
    ("aron97-topo1-packet", ["duration=3s"]),
    ("aron97-topo2-atm", ["duration=2s"]),
    ("morris-kung95-a", []),
    ("jain96-5src", []),
    ("boston97", []),
    ("arb-fairness", []),
    ("ndp-in-out", []),
    ("ndp-failure", ["duration=20ms", "measure.from=5ms", "measure.to=20ms"]),
    ("leafspine-ndp-perm", []),
    ("eqds-incast-128", []),
    ("fabric-perm", ["duration=50us"]),
]


def fail(msg: str):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    raise SystemExit(2)


def llvm_profdata() -> Path:
    """rustup's llvm-profdata, of the compiler's own LLVM (a system one of another version cannot
    read the compiler's raw profiles)."""
    try:
        sysroot = subprocess.run(["rustc", "--print", "sysroot"], capture_output=True, text=True, check=True).stdout.strip()
        host = next(line.split(": ", 1)[1] for line in subprocess.run(
            ["rustc", "-vV"], capture_output=True, text=True, check=True).stdout.splitlines() if line.startswith("host: "))
    except (OSError, subprocess.CalledProcessError, StopIteration):
        fail("rustc: not found or not working; PGO builds atmsim from source and needs a Rust toolchain")
    tool = Path(sysroot) / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    if not tool.is_file():
        fail(f"llvm-profdata: not in {tool.parent}; install it with `rustup component add llvm-tools`")
    return tool


def pip_install(args: list, rustflags: str, target_dir: Path):
    env = dict(os.environ, RUSTFLAGS=rustflags, CARGO_TARGET_DIR=str(target_dir))
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        lines = [line.strip() for line in (done.stdout + done.stderr).splitlines() if line.strip()]
        why = next((line for line in reversed(lines) if "error" in line.lower()), lines[-1] if lines else "no output")
        fail(f"pip install {' '.join(args)} failed (exit {done.returncode}): {why}")


def train(site: Path, profiles: Path):
    """Runs every training scenario through the instrumented build installed at `site`."""
    code = ("import sys, atmsim\n"
            "assert atmsim.__file__.startswith(sys.argv[2]), 'the instrumented build was not the one imported'\n"
            "for name, sets in eval(sys.argv[1]):\n"
            "    atmsim.run(name, set=sets)\n")
    env = dict(os.environ, PYTHONPATH=str(site), LLVM_PROFILE_FILE=str(profiles / "atmsim-%p-%m.profraw"))
    done = subprocess.run([sys.executable, "-c", code, repr(TRAINING), str(site)], cwd=site, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"training run failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
    if not any(profiles.glob("*.profraw")):
        fail(f"training wrote no profile into {profiles}: the instrumented build did not take")


def main(argv=None) -> int:
    ap = OneLineParser(prog=PROG, description=__doc__.splitlines()[0])
    ap.add_argument("--editable", action="store_true", help="install as `pip install -e .` does")
    ap.add_argument("--keep", type=Path, help="an empty or new folder to keep the merged profile (atmsim.profdata) in")
    a = ap.parse_args(argv)
    if a.keep is not None and a.keep.exists() and (not a.keep.is_dir() or any(a.keep.iterdir())):
        fail(f"--keep: {a.keep} exists and is not an empty folder")
    tool = llvm_profdata()
    with tempfile.TemporaryDirectory(prefix="atmsim-pgo-") as tmp:
        tmp = Path(tmp)
        profiles, site, target = tmp / "profiles", tmp / "site", tmp / "target"
        profiles.mkdir()
        print(f"{PROG}: 1/3 instrumented build", file=sys.stderr)
        pip_install(["--no-deps", "--target", str(site), "."], f"-Cprofile-generate={profiles}", target)
        print(f"{PROG}: 2/3 training on {len(TRAINING)} built-in scenarios", file=sys.stderr)
        train(site, profiles)
        merged = tmp / "atmsim.profdata"
        done = subprocess.run([str(tool), "merge", "-o", str(merged), *map(str, profiles.glob("*.profraw"))],
                              capture_output=True, text=True)
        if done.returncode != 0:
            fail(f"llvm-profdata merge failed: {done.stderr.strip()[-300:]}")
        print(f"{PROG}: 3/3 optimised build", file=sys.stderr)
        shutil.rmtree(site)
        pip_install(["-e", "."] if a.editable else ["."], f"-Cprofile-use={merged}", target)
        if a.keep is not None:
            a.keep.mkdir(parents=True, exist_ok=True)
            shutil.copy2(merged, a.keep / "atmsim.profdata")
    print(f"{PROG}: installed atmsim built with PGO", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
