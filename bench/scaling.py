"""How atmsim's cost grows with run length, flows and topology size.

Runs the core's `examples/run` binary (no Python in the loop) on scenarios
derived from aron97 topology 1 (ATM, TCP-Lite, 141.33 Mb/s links, 3 µs per
cell) and prints events/s, ns per event, events per cell-hop and peak RSS,
one column per build, so an old and a new build are measured in one run:

    cargo build --release --example run -p atmsim-core
    python bench/scaling.py --build new=target/release/examples/run \
                            [--build old=/path/to/old/run] [--repeat 3] [--json]

Families (each varies one thing; the rest is topology 1 as shipped):
- `duration`: 10, 40, 160 s simulated;
- `flows`: 8, 64, 512 bulk flows S_i -> R1 -> R2 -> D_i on the one
  bottleneck, starts spread over the first 80 ms, windows 512 KiB;
- `chain`: 8 flows across a chain of 10, 30, 100 switches R1 -> ... -> Rk,
  the 30 ms of topology 1 split evenly over the k - 1 inter-switch links
  (the round trip stays the paper's; only the network grows);
- `inflight`: one loss-free flow with a 4 MiB or 32 MiB window over a 0.5 s
  bottleneck (30 s, the window full after ~13 round trips), for the memory
  of an in-flight cell: RSS difference over the difference of windows in
  cells (191 cells per 9128-byte segment).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
from atmsim.one_line_args import OneLineParser

LINK = 'rate = "3us/cell"\n'
HEAD = """name = "{name}"
network = "atm"
duration = "{duration}"
seed = 1
[atm]
encapsulation = "raw48"
[ip]
header_bytes = 40
mtu = "9180B"
[tcp]
variant = "lite"
bp95 = true
mss = "9128B"
window = "{window}"
delayed_ack = false
tick = "500ms"
[switch]
buffer = "{buffer}"
policy = "tail"
[report]
bottleneck = "R1->R2"
"""


def scenario(name, flows=8, switches=2, duration="10s", window="512KiB", buffer="192528B",
             bottleneck_delay_us=30_000, start_spread_ms=80, bytes_per_flow="60MB"):
    hosts = [f"S{i}" for i in range(1, flows + 1)] + [f"D{i}" for i in range(1, flows + 1)]
    sw = [f"R{i}" for i in range(1, switches + 1)]
    out = [HEAD.format(name=name, duration=duration, window=window, buffer=buffer)]
    out.append(f"[topology]\nhosts = {json.dumps(hosts)}\nswitches = {json.dumps(sw)}\n")
    hop_delay = bottleneck_delay_us / (switches - 1)
    for i in range(1, flows + 1):
        out.append(f'[[link]]\nends = ["S{i}", "R1"]\n{LINK}delay = "1us"\n')
        out.append(f'[[link]]\nends = ["R{switches}", "D{i}"]\n{LINK}delay = "1us"\n')
    for k in range(1, switches):
        out.append(f'[[link]]\nends = ["R{k}", "R{k + 1}"]\n{LINK}delay = "{hop_delay:.6f}us"\n')
    for i in range(1, flows + 1):
        start = (i - 1) * start_spread_ms / flows
        out.append(f'[[flow]]\nname = "f{i}"\nsrc = "S{i}"\ndst = "D{i}"\nstart = "{start:.6f}ms"\n'
                   f'bytes = "{bytes_per_flow}"\n')
    return "\n".join(out)


def families(quick):
    d = ["10s", "40s"] if quick else ["10s", "40s", "160s"]
    yield "duration", [(x, scenario(f"duration-{x}", duration=x, bytes_per_flow="10GB")) for x in d]
    yield "flows", [(n, scenario(f"flows-{n}", flows=n, duration="10s")) for n in (8, 64, 512)]
    yield "chain", [(k, scenario(f"chain-{k}", switches=k, duration="10s")) for k in (10, 30, 100)]
    yield "inflight", [(w, scenario(f"inflight-{w}", flows=1, duration="30s", window=w, buffer="1GB",
                                    bottleneck_delay_us=500_000, bytes_per_flow="10GB"))
                       for w in ("4MiB", "32MiB")]


def measure(binary, path, repeat):
    """Median wall time of the event loop, the run's counters, peak RSS (KiB,
    by GNU time: the child alone, not the Python that started it)."""
    walls, summary, rss = [], None, 0
    for _ in range(repeat):
        with tempfile.NamedTemporaryFile("r", encoding='utf-8') as t:
            proc = subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%M", binary, path], capture_output=True)
            if proc.returncode != 0:
                sys.exit(f"{binary} {path}: exit {proc.returncode}: {proc.stderr.decode().strip()}")
            rss = max(rss, int(t.read().split()[-1]))
        summary = json.loads(proc.stdout)
        walls.append(summary["wall_s"])
    wall = statistics.median(walls)
    return {
        "events": summary["events"],
        "unit_hops": summary["unit_hops"],
        "wall_s": wall,
        "events_per_s": summary["events"] / wall,
        "ns_per_event": wall * 1e9 / summary["events"],
        "events_per_hop": summary["events"] / max(1, summary["unit_hops"]),
        "rss_kib": rss,
    }


def main():
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", action="append", required=True, metavar="NAME=PATH")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="10 and 40 s only in the duration family")
    ap.add_argument("--family", action="append", help="only these families")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    builds = [b.split("=", 1) for b in a.build]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for family, points in families(a.quick):
            if a.family and family not in a.family:
                continue
            for x, text in points:
                path = os.path.join(tmp, f"{family}-{x}.toml")
                with open(path, "w", encoding='utf-8') as f:
                    f.write(text)
                row = {"family": family, "point": str(x)}
                for name, binary in builds:
                    row[name] = measure(binary, path, a.repeat)
                rows.append(row)
                if not a.json:
                    cells = "  ".join(
                        f"{n}: {r[n]['events_per_s'] / 1e6:5.1f} M ev/s {r[n]['ns_per_event']:6.1f} ns/ev "
                        f"{r[n]['events_per_hop']:.2f} ev/hop {r[n]['rss_kib'] / 1024:7.1f} MiB"
                        for n, _ in builds for r in [row])
                    print(f"{family:9s} {str(x):6s} {row[builds[0][0]]['events']:>11,} ev  {cells}", flush=True)
    inflight = [r for r in rows if r["family"] == "inflight"]
    if len(inflight) == 2:
        # Cells of the window difference: 191 cells per 9128-byte segment.
        cells = (32 - 4) * 2**20 / 9128 * 191
        for name, _ in builds:
            per_cell = (inflight[1][name]["rss_kib"] - inflight[0][name]["rss_kib"]) * 1024 / cells
            for r in inflight:
                r[name]["rss_bytes_per_inflight_cell"] = per_cell
            if not a.json:
                print(f"memory per in-flight cell, {name}: {per_cell:.1f} bytes")
    if a.json:
        print(json.dumps(rows))


if __name__ == "__main__":
    main()
