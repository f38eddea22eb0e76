"""Run htsim's reference scenarios (spec fabrics.md §3.1) and store what they produce.

    python validation/htsim/run.py [--bin /tmp/htsim-build/bin] [--only NAME ...] [--repeat N]
                                   [--cpu 1] [--out validation/htsim/htsim_reference.json]

The binaries come from build.sh. Each run is pinned to one core (`taskset -c CPU`), runs alone, in a
fresh scratch directory, and its user CPU time is the child's own rusage (os.wait4). With --only
the named runs replace their entries in an existing --out file and the others are kept; a re-run
whose outputs are unchanged keeps its stored counts (--count, build_counted.sh).

What is stored per run: the exact command line, htsim's commit, user/system CPU seconds and wall
seconds of every repeat, peak RSS, and the outputs parsed by htsim_outputs.py (rates from the NDP
sink sampler's binary log; FCTs from the EQDS mains' "finished" lines).
"""
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import htsim_outputs  # noqa: E402
import reference  # noqa: E402
from atmsim.one_line_args import OneLineParser

HTSIM_COMMIT = "841d9e7be46bb968eece766aa4b6c044c7799f67"
MATRICES = os.path.join(HERE, "matrices")

# The NDP runs as EXAMPLES/in_and_out/run.sh and EXAMPLES/failure/run.sh run them (HOST_NIC = 10 Gb/s
# build). The failure example runs "pull" twice with the same output name; once is enough.
NDP_RUNS = {
    "ndp_in_out": ("htsim_ndp_in_out", "logfile",
                   ["-o", "logfile", "-conns", "4", "-nodes", "128", "-cwnd", "23", "-strat", "perm", "-q", "8"]),
    # the same test built as committed, host links at 100 Gb/s (htsim's committed HOST_NIC)
    "ndp_in_out_100g": ("htsim_ndp_in_out_100g", "logfile",
                        ["-o", "logfile", "-conns", "4", "-nodes", "128", "-cwnd", "23", "-strat", "perm", "-q", "8"]),
    "ndp_failure_perm": ("htsim_ndp_permutation_fail", "ndp_perm",
                         ["-o", "ndp_perm", "-strat", "perm", "-conns", "128", "-nodes", "128", "-cwnd", "23", "-q", "8"]),
    "ndp_failure_pull": ("htsim_ndp_permutation_fail", "ndp_penalty",
                         ["-o", "ndp_penalty", "-strat", "pull", "-conns", "128", "-nodes", "128", "-cwnd", "23", "-q", "8"]),
}

# sim/datacenter/validate.txt at 841d9e7, run by run: matrix, extra parameters, tail-FCT target (µs),
# per-flow FCT targets (µs). validate.py runs `./htsim_eqds -tm connection_matrices/X.cm PARAMS`.
EQDS_RUNS = {
    "eqds_one": ("one.cm", ["-end", "1000"], 180, {}),
    "eqds_bidir": ("bidir.cm", ["-end", "1000"], 190, {}),
    "eqds_incast": ("incast.cm", ["-end", "3000"], 2500, {}),
    "eqds_incast_128": ("incast_128.cm", ["-end", "30000"], 23000, {}),
    "eqds_outcast_incast": ("outcast_incast.cm", ["-end", "3000"], 2500, {"Eqds_1_0": 215}),
    "eqds_perm_16n_paths128": ("perm_16n_16c_2MB.cm", ["-end", "1000", "-paths", "128"], 210, {}),
    "eqds_perm_16n_paths1": ("perm_16n_16c_2MB.cm", ["-end", "2000", "-paths", "1"], 1300, {}),
    "eqds_perm_1024n_paths128": ("perm_1024n_1024c_0u_2000000b.cm", ["-end", "2000", "-paths", "128"], 220, {}),
    "eqds_perm_1024n_paths1": ("perm_1024n_1024c_0u_2000000b.cm", ["-end", "3000", "-paths", "1"], 1300, {}),
}

SCENARIOS = list(NDP_RUNS) + list(EQDS_RUNS)
assert SCENARIOS == reference.SCENARIOS

# Runs whose outputs are a draw of htsim's seed (`-seed S`, 13 by default): with one entropy a flow keeps
# the path its switches' salted hashes give it. `--seed-sweep` runs them at these seeds, once each.
SEED_SWEEPS = {"eqds_perm_16n_paths1": tuple(range(1, 11)), "eqds_perm_1024n_paths1": tuple(range(1, 11))}
assert set(SEED_SWEEPS) <= set(EQDS_RUNS) and reference.SEED_SWEEPS == {k: list(v) for k, v in SEED_SWEEPS.items()}


def fail(message):
    """One line naming the problem, exit status 2 (the project's rule for bad input)."""
    print(f"run.py: {message}", file=sys.stderr)
    sys.exit(2)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def timed_run(argv, cwd, stdout_path, stderr_path):
    """Runs argv alone; returns (exit code, user s, system s, wall s, peak RSS kB) of that child only."""
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, ru.ru_utime, ru.ru_stime, wall, ru.ru_maxrss


def run_one(name, bindir, cpu, repeat, seed=None):
    if name in NDP_RUNS:
        binary, logname, args = NDP_RUNS[name]
        matrix = None
    else:
        matrix, params, _, _ = EQDS_RUNS[name]
        binary, logname = "htsim_eqds", None
        args = ["-tm", f"connection_matrices/{matrix}", *params, *(["-seed", str(seed)] if seed is not None else [])]
    exe = os.path.join(bindir, binary)
    if not os.access(exe, os.X_OK):
        fail(f"{exe} is missing: build it with validation/htsim/build.sh CHECKOUT")
    timings, outputs = [], None
    for _ in range(repeat):
        scratch = tempfile.mkdtemp(prefix=f"htsim-{name}-")
        shutil.copy(exe, os.path.join(scratch, binary))
        if matrix:
            os.symlink(MATRICES, os.path.join(scratch, "connection_matrices"))
        argv = ["taskset", "-c", str(cpu), f"./{binary}", *args]
        stdout_path, stderr_path = os.path.join(scratch, "stdout.txt"), os.path.join(scratch, "stderr.txt")
        load = os.getloadavg()[0]
        rc, user, sys_s, wall, rss = timed_run(argv, scratch, stdout_path, stderr_path)
        if rc != 0:
            fail(f"{name} exited {rc}; its outputs are kept in {scratch}")
        timings.append({"user_cpu_s": round(user, 3), "sys_cpu_s": round(sys_s, 3), "wall_s": round(wall, 3),
                        "max_rss_kb": rss, "loadavg_1min_before": round(load, 2)})
        with open(stdout_path, encoding="utf-8", errors="replace") as f:
            stdout = f.read()
        with open(stderr_path, encoding="utf-8", errors="replace") as f:
            counted = htsim_outputs.counts(f.read())
        if name in NDP_RUNS:
            parsed = htsim_outputs.ndp_outputs(name, stdout, os.path.join(scratch, logname),
                                               link_gbps=100.0 if name == "ndp_in_out_100g" else 10.0)
        else:
            _, _, tail_target, flow_targets = EQDS_RUNS[name]
            n_conns = reference.read_matrix(matrix)["connections"]
            parsed = htsim_outputs.eqds_outputs(stdout, tail_target, flow_targets, n_conns)
        # htsim is deterministic for a given seed: every repeat must give the same outputs.
        if outputs is not None and parsed != outputs:
            fail(f"{name} gave different outputs on a repeat; the last run's are kept in {scratch}")
        outputs = parsed
        shutil.rmtree(scratch, ignore_errors=True)
    entry = {
        "command": " ".join(["taskset", "-c", str(cpu), f"./{binary}", *args]),
        "binary": binary,
        "build": "ndp10g (HOST_NIC = 10 Gb/s)" if binary.startswith("htsim_ndp") and not binary.endswith("_100g")
                 else "stock (HOST_NIC = 100 Gb/s)",
        "htsim_commit": HTSIM_COMMIT,
        "runs": timings,
        "user_cpu_s": min(t["user_cpu_s"] for t in timings),
        "outputs": outputs,
    }
    if counted:
        entry["counts"] = counted
    if matrix:
        entry["matrix"] = matrix
        entry["params"] = params
        entry["targets"] = {"tail_fct_us": EQDS_RUNS[name][2], "flow_fct_us": EQDS_RUNS[name][3]}
    return entry


def to_json(value, indent=0):
    """JSON with one line per list or record of scalars (a flow, a sample), so the stored file stays readable."""
    pad, inner = " " * indent, " " * (indent + 1)
    if isinstance(value, dict) and any(isinstance(v, (dict, list)) for v in value.values()):
        items = [f"{inner}{json.dumps(k)}: {to_json(v, indent + 1).lstrip()}" for k, v in value.items()]
        return pad + "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and value and any(isinstance(v, (dict, list)) for v in value):
        return pad + "[\n" + ",\n".join(to_json(v, indent + 1) for v in value) + "\n" + pad + "]"
    return pad + json.dumps(value)


def cpu_table(ref):
    """Markdown rows of spec §3.1's table from a stored reference: CPU, wall, counts, CPU per hop."""
    rows = ["| run | user CPU s (least; all) | wall s (least) | packet-hops | events | CPU per packet-hop |",
            "| --- | --- | --- | --- | --- | --- |"]
    for name, run in ref["runs"].items():
        c = run.get("counted")
        hops = f"{c['packet_hops']:,}" if c else "—"
        events = f"{c['events']:,}" if c else "—"
        # CPU below 10 ms is at the resolution of the rusage clock: no per-hop figure from it
        per_hop = f"{run['user_cpu_s'] / c['packet_hops'] * 1e9:.0f} ns" if c and run["user_cpu_s"] >= 0.01 else "—"
        every = ", ".join(f"{t['user_cpu_s']:g}" for t in run["runs"])
        wall = min(t["wall_s"] for t in run["runs"])
        rows.append(f"| `{name}` | {run['user_cpu_s']:g} ({every}) | {wall:g} | {hops} | {events} | {per_hop} |")
    return "\n".join(rows)


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "")
    except OSError:
        pass
    return {"cpu": model, "cores": os.cpu_count(), "system": platform.platform(),
            "loadavg_at_start": [round(x, 2) for x in os.getloadavg()]}


def main(argv=None):
    ap = OneLineParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="/tmp/htsim-build/bin", help="directory of the binaries build.sh made")
    ap.add_argument("--only", nargs="+", choices=SCENARIOS, help="run these and keep the other stored entries")
    ap.add_argument("--repeat", type=int, default=1, help="runs per scenario; CPU is the minimum")
    ap.add_argument("--cpu", type=int, default=1, help="core to pin to")
    ap.add_argument("--out", default=os.path.join(HERE, "htsim_reference.json"))
    ap.add_argument("--count", nargs="+", choices=SCENARIOS,
                    help="run these with the counted binaries (--counted-bin) and add their events and packet-hops "
                         "to the stored entries, which must exist and whose outputs they must reproduce")
    ap.add_argument("--table", action="store_true", help="print the CPU table of the stored --out file and stop")
    ap.add_argument("--seed-sweep", action="store_true",
                    help="run " + ", ".join(SEED_SWEEPS) + " at htsim seeds 1-10 and store their tails and medians "
                         "(seed_sweeps); the other stored entries are kept")
    ap.add_argument("--counted-bin", default="/tmp/htsim-build/counted-bin", help="directory build_counted.sh made")
    a = ap.parse_args(argv)
    if a.repeat < 1:
        fail("--repeat must be at least 1")
    if (a.table or a.count) and not os.path.exists(a.out):
        fail(f"{a.out} does not exist: make it with a run first")
    names = a.count or a.only or SCENARIOS
    bindir = a.counted_bin if a.count else a.bin
    for exe in sorted({os.path.join(bindir, NDP_RUNS[n][0] if n in NDP_RUNS else "htsim_eqds") for n in names}):
        if not a.table and not os.access(exe, os.X_OK):
            fail(f"{exe} is missing: build it with validation/htsim/" + ("build_counted.sh" if a.count else "build.sh CHECKOUT"))
    if a.table:
        with open(a.out, encoding="utf-8") as f:
            return print(cpu_table(json.load(f)))
    if a.count:
        return add_counts(a)
    if a.seed_sweep:
        return seed_sweep(a)
    ref = {}
    if os.path.exists(a.out):
        with open(a.out, encoding="utf-8") as f:
            ref = json.load(f)
    ref.update({
        "htsim": {"repository": "https://github.com/Broadcom/csg-htsim", "commit": HTSIM_COMMIT},
        "measured": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": machine(),
        "matrices": {m: sha256(os.path.join(MATRICES, m)) for m in sorted(os.listdir(MATRICES)) if m.endswith(".cm")},
    })
    runs = ref.setdefault("runs", {})
    for name in a.only or SCENARIOS:
        print(f"{name} ...", end=" ", flush=True)
        old = runs.get(name, {})
        runs[name] = run_one(name, a.bin, a.cpu, a.repeat)
        # the counts of a counted build still hold if the outputs did not change
        if "counted" in old and json.loads(json.dumps(runs[name]["outputs"])) == old["outputs"]:
            runs[name]["counted"] = old["counted"]
        print(f"user {runs[name]['user_cpu_s']} s")
    ref["runs"] = {k: runs[k] for k in SCENARIOS if k in runs}
    write(ref, a.out)


def seed_sweep(a):
    """Each run of SEED_SWEEPS at each of its seeds: the tail and the median FCT (µs), the flows finished and the
    retransmissions."""
    if not os.path.exists(a.out):
        fail(f"{a.out} does not exist: make it with a run first")
    with open(a.out, encoding="utf-8") as f:
        ref = json.load(f)
    sweeps = ref.setdefault("seed_sweeps", {})
    for name, seeds in SEED_SWEEPS.items():
        by_seed = {}
        for seed in seeds:
            out = run_one(name, a.bin, a.cpu, 1, seed)["outputs"]
            by_seed[str(seed)] = {"tail_us": out["tail_fct_us"], "median_us": out["median_fct_us"], "finished": out["finished"],
                                  "retransmissions": out["totals"]["rtx"]}
            print(f"{name} -seed {seed}: tail {out['tail_fct_us']} µs")
        matrix, params, _, _ = EQDS_RUNS[name]
        sweeps[name] = {"command": " ".join(["taskset", "-c", str(a.cpu), "./htsim_eqds", "-tm", f"connection_matrices/{matrix}",
                                             *params, "-seed", "S"]),
                        "measured": time.strftime("%Y-%m-%d", time.gmtime()), "seeds": by_seed}
    write(ref, a.out)


def write(ref, path):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(to_json(ref) + "\n")
    os.replace(tmp, path)
    print(f"wrote {path}")


def add_counts(a):
    with open(a.out, encoding="utf-8") as f:
        ref = json.load(f)
    for name in a.count:
        if name not in ref.get("runs", {}):
            fail(f"{a.out} has no run {name} to add counts to; run it first")
        print(f"{name} (counted) ...", end=" ", flush=True)
        entry = run_one(name, a.counted_bin, a.cpu, 1)
        if "counts" not in entry:
            fail(f"{a.counted_bin}/{entry['binary']} printed no COUNTS line: build it with build_counted.sh")
        # json round trip: the stored outputs went through JSON, the fresh ones did not (tuples, floats)
        if json.loads(json.dumps(entry["outputs"])) != ref["runs"][name]["outputs"]:
            fail(f"the counted {name} gave other outputs than the stored run")
        ref["runs"][name]["counted"] = {**entry["counts"], "user_cpu_s": entry["user_cpu_s"]}
        print(entry["counts"])
    write(ref, a.out)


if __name__ == "__main__":
    main()
