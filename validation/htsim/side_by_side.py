#!/usr/bin/env python3
"""atmsim's and htsim's loop CPU on the same NDP and EQDS runs, side by side on one pinned core.

    python validation/htsim/side_by_side.py BIN_DIR [--repeat N] [--core C] [--only ROW] [--out FILE]

The rows are the four runs of issue 34's speed bar (docs/fabrics.md): NDP Fig. 21 (`fig21`), NDP
Fig. 22 in both strategies (`fig22-perm`, `fig22-pull`), EQDS's 127 -> 1 incast (`eqds-incast-128`)
and its 1,024-host permutation at 128 paths (`eqds-perm-1024`), each as validation/htsim/run.py runs
htsim on it. BIN_DIR holds the binaries validation/htsim/build.sh builds (htsim_ndp_in_out,
htsim_ndp_permutation_fail, htsim_eqds). Each repeat runs atmsim then htsim for every scenario,
interleaved, both under `taskset -c CORE`. atmsim's figures are its event loop's wall time (the
summary's `wall_s`: one thread, pinned, so its CPU when nothing else shares the core), its process's
user CPU, and its loop's CPU: that user CPU less the user CPU of the same run stopped at once
(`duration=1ns`: Python, parsing, building), the least of the repeats each. htsim's is its process's
user CPU (its topology set-up is negligible: 0.07 s for the 1,024-host tree, docs/fabrics.md). Two
ratios: htsim's CPU over atmsim's loop wall time, and over atmsim's loop CPU, the issue's measure,
which a busy machine does not bias (time the core spends on other processes counts in a wall time,
not in a CPU time). Prints a table and
writes side_by_side.json beside this file: the least time of the repeats per simulator, the
packet-hops and the cost per packet-hop, each row with its sitting (time, load, core, repeats); with
--only, the file's other rows are kept as they were. A benchmark, not a test: times depend on the machine and
its load, which the file records.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from atmsim.one_line_args import OneLineParser

HERE = Path(__file__).resolve().parent
SCENARIOS = {
    # name: (atmsim built-in, its overrides, htsim binary, its arguments, htsim packet-hops from the counted build)
    "fig21": ("ndp-in-out", ["duration=1.1s"], "htsim_ndp_in_out", ["-conns", "4", "-nodes", "128", "-cwnd", "23", "-strat", "perm", "-q", "8"], "ndp_in_out"),
    "fig22-perm": ("ndp-failure", ['ndp.paths="perm"'], "htsim_ndp_permutation_fail",
                   ["-strat", "perm", "-conns", "128", "-nodes", "128", "-cwnd", "23", "-q", "8"], "ndp_failure_perm"),
    "fig22-pull": ("ndp-failure", ['ndp.paths="pull"'], "htsim_ndp_permutation_fail",
                   ["-strat", "pull", "-conns", "128", "-nodes", "128", "-cwnd", "23", "-q", "8"], "ndp_failure_pull"),
    # EQDS: htsim reads its matrix from connection_matrices/ (linked to validation/htsim/matrices), and runs
    # to its -end after the last completion (its pacers pull the finished flows): so does atmsim here.
    "eqds-incast-128": ("eqds-incast-128", ['stop="duration"'], "htsim_eqds",
                        ["-tm", "connection_matrices/incast_128.cm", "-end", "30000"], "eqds_incast_128"),
    "eqds-perm-1024": ("eqds-perm-1024", ['stop="duration"'], "htsim_eqds",
                       ["-tm", "connection_matrices/perm_1024n_1024c_0u_2000000b.cm", "-end", "2000", "-paths", "128"],
                       "eqds_perm_1024n_paths128"),
}
# What stops an atmsim scenario at once (its set-up alone); the NDP runs read rates over a window, kept within the run.
STOP_AT_ONCE = ["duration=1ns"]
WINDOWED = {"ndp-in-out", "ndp-failure"}


def fail(msg: str):
    print(f"side_by_side.py: {msg}", file=sys.stderr)
    raise SystemExit(2)


def child_cpu(cmd: list, cwd: Path) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"{' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()[-300:]}")
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before, out.stdout


def main(argv=None) -> int:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("bin_dir", type=Path)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--core", type=int, default=1)
    ap.add_argument("--only", choices=sorted(SCENARIOS))
    ap.add_argument("--out", type=Path, default=HERE / "side_by_side.json", help="the JSON written (default: beside this script)")
    a = ap.parse_args(argv)
    if a.repeat < 1:
        fail("--repeat: must be at least 1")
    sys.path.insert(0, str(HERE))
    import reference

    out_path = a.out
    # Rows this call does not run (--only) are kept as they were measured, each with its own sitting.
    earlier = {}
    if a.only and out_path.is_file():
        try:
            old = json.loads(out_path.read_text(encoding="utf-8"))
            earlier = old["runs"]
            for row in earlier.values():
                row.setdefault("sitting", {k: old[k] for k in ("when", "loadavg_at_start", "core", "repeats")})
        except (ValueError, KeyError, TypeError, AttributeError):
            fail(f"--out: {out_path} is not the JSON this script writes; move it aside to start afresh")
    pin = ["taskset", "-c", str(a.core)]
    sitting = {"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "loadavg_at_start": os.getloadavg(),
               "core": a.core, "repeats": a.repeat}
    probe = ("import atmsim,json,sys; s=atmsim.run(sys.argv[1], sys.argv[2:]).summary; "
             "print(json.dumps({k: s[k] for k in ('wall_s','events','unit_hops')}))")
    rows = {}
    for name, (scenario, sets, binary, args, ref) in SCENARIOS.items():
        if a.only and name != a.only:
            continue
        exe = a.bin_dir / binary
        if not exe.is_file():
            fail(f"{exe}: no such htsim binary (build it with validation/htsim/build.sh)")
        ours, theirs, loop, setup = [], [], [], []
        for _ in range(a.repeat):
            cpu, out = child_cpu(pin + [sys.executable, "-c", probe, scenario, *sets], HERE)
            s = json.loads(out)
            ours.append(cpu)
            loop.append(s["wall_s"])
            stop = STOP_AT_ONCE + (["measure.from=0s", "measure.to=1ns"] if scenario in WINDOWED else [])
            cpu, _ = child_cpu(pin + [sys.executable, "-c", probe, scenario, *sets, *stop], HERE)
            setup.append(cpu)
            # htsim writes its log where it runs: a scratch folder, removed with what htsim wrote.
            with tempfile.TemporaryDirectory(prefix="htsim-sbs-") as scratch:
                (Path(scratch) / "connection_matrices").symlink_to(HERE / "matrices")
                cpu, _ = child_cpu(pin + [str(exe.resolve()), "-o", "logfile", *args], Path(scratch))
            theirs.append(cpu)
        counted = reference.counts(ref) or {}
        hops_h = counted.get("packet_hops")
        loop_cpu = min(ours) - min(setup)
        if loop_cpu <= 0:
            fail(f"{name}: atmsim's loop took no measurable CPU beyond its set-up ({min(ours):.3f} s against {min(setup):.3f} s): too short a run to time")
        rows[name] = {
            "atmsim_loop_s": min(loop), "atmsim_process_user_s": min(ours), "htsim_user_s": min(theirs),
            "atmsim_setup_user_s": min(setup), "atmsim_loop_cpu_s": loop_cpu,
            "ratio_htsim_over_atmsim_loop": min(theirs) / min(loop),
            "ratio_htsim_over_atmsim_loop_cpu": min(theirs) / loop_cpu,
            "atmsim_events": s["events"], "atmsim_packet_hops": s["unit_hops"], "htsim_packet_hops": hops_h,
            "atmsim_ns_per_hop": min(loop) / s["unit_hops"] * 1e9,
            "htsim_ns_per_hop": (min(theirs) / hops_h * 1e9) if hops_h else None,
            "repeats": {"atmsim_loop_s": loop, "atmsim_process_user_s": ours, "atmsim_setup_user_s": setup, "htsim_user_s": theirs},
            "sitting": sitting,
        }
        r = rows[name]
        print(f"{name:11s} atmsim loop {r['atmsim_loop_s']:.3f} s ({r['atmsim_ns_per_hop']:.0f} ns/hop), "
              f"process {r['atmsim_process_user_s']:.3f} s; htsim {r['htsim_user_s']:.3f} s "
              f"({r['htsim_ns_per_hop'] or float('nan'):.0f} ns/hop); htsim/atmsim {r['ratio_htsim_over_atmsim_loop']:.2f}x; "
              f"atmsim loop CPU {loop_cpu:.3f} s (set-up {r['atmsim_setup_user_s']:.3f} s), htsim/atmsim {r['ratio_htsim_over_atmsim_loop_cpu']:.2f}x",
              flush=True)
    result = {**sitting, "runs": {**earlier, **rows}}
    # Written whole to a neighbour, then moved over the old file: never half a file.
    tmp = out_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, out_path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
