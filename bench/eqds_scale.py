"""What an EQDS packet-hop costs from 8 flows to 1,024 hosts (issue 34's "cost per unit-hop flat").

Runs the core's `examples/run` binary (no Python in the loop) on:
- `dumbbell-8`: 8 EQDS flows h0..h7 -> h8..h15 of the 16-host k = 4 tree, each crossing the core
  (pods 0 and 1 to pods 2 and 3: the fat tree's 8-flow "dumbbell"; 20,000,000 B each, 2 ms, so that
  its loop runs long enough to time);
- the built-ins `eqds-perm-16` (16 hosts), `eqds-incast-128` (128) and `eqds-perm-1024` (1,024).

Loop CPU = the process's user CPU less that of the same run stopped at once (`duration=1ns`: parse,
resolve, build), the least over --repeat runs of each. Prints packet-hops, events, events per hop,
loop CPU, ns per packet-hop, that over the dumbbell's, and peak RSS:

    cargo build --release --example run -p atmsim-core
    python bench/eqds_scale.py [--bin target/release/examples/run] [--repeat 3] [--core 1]
"""
import json
import os
import subprocess
import sys
import tempfile
from atmsim.one_line_args import OneLineParser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = os.path.join(ROOT, "python", "atmsim", "scenarios")

DUMBBELL = """name = "eqds-dumbbell-8"
network = "packet"
duration = "2ms"
seed = 13
flow = [
{flows}
]
[router]
policy = "trim"
[switch]
buffer = "145250B"
[topology]
kind = "fattree"
k = 4
rate = "100Gbps"
delay = "1us"
"""


def dumbbell_text() -> str:
    flows = "\n".join(f'  {{ name = "Eqds_{i}_{i + 8}", kind = "eqds", src = "h{i}", dst = "h{i + 8}", bytes = "20000000B" }},'
                      for i in range(8))
    return DUMBBELL.format(flows=flows)


def measure(binary: str, path: str, extra: list, core) -> tuple:
    """(user CPU s, peak RSS KiB, summary) of one run, from wait4 (microseconds, not GNU time's ticks)."""
    pin = ["taskset", "-c", str(core)] if core is not None else []
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(pin + [binary, path] + extra, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            sys.exit(f"eqds_scale.py: {binary} {path} exited {proc.returncode}: {err.read().decode()[-300:]}")
        return usage.ru_utime, usage.ru_maxrss, json.loads(out.read())


def main(argv=None) -> int:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "examples", "run"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--core", type=int, default=None, help="pin every run to this core (taskset)")
    a = ap.parse_args(argv)
    if not os.path.exists(a.bin):
        sys.exit(f"eqds_scale.py: --bin: {a.bin} does not exist (cargo build --release --example run -p atmsim-core)")
    if a.repeat < 1:
        sys.exit("eqds_scale.py: --repeat: must be at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        dumbbell = os.path.join(tmp, "eqds-dumbbell-8.toml")
        with open(dumbbell, "w", encoding="utf-8") as f:
            f.write(dumbbell_text())
        runs = [("dumbbell-8", 16, dumbbell)] + [(n, h, os.path.join(SCENARIOS, f"{n}.toml"))
                                                  for n, h in (("eqds-perm-16", 16), ("eqds-incast-128", 128), ("eqds-perm-1024", 1024))]
        rows = []
        for name, hosts, path in runs:
            full = [measure(a.bin, path, [], a.core) for _ in range(a.repeat)]
            setup = [measure(a.bin, path, ["duration=1ns"], a.core) for _ in range(a.repeat)]
            s = full[0][2]
            loop = max(min(u for u, _, _ in full) - min(u for u, _, _ in setup), 0.0)
            rows.append({"run": name, "hosts": hosts, "flows": len(s["flows"]), "packet_hops": s["unit_hops"], "events": s["events"],
                         "events_per_hop": s["events"] / s["unit_hops"], "loop_cpu_s": loop,
                         "ns_per_hop": loop / s["unit_hops"] * 1e9, "peak_rss_mib": max(r for _, r, _ in full) / 1024})
    base = rows[0]["ns_per_hop"]
    print("| run | hosts | flows | packet-hops | events | events/hop | loop CPU (s) | ns/packet-hop | × dumbbell | peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['run']} | {r['hosts']:,} | {r['flows']:,} | {r['packet_hops']:,} | {r['events']:,} | {r['events_per_hop']:.2f} | "
              f"{r['loop_cpu_s']:.3f} | {r['ns_per_hop']:.0f} | {r['ns_per_hop'] / base:.2f} | {r['peak_rss_mib']:.1f} MiB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
