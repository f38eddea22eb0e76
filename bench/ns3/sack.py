#!/usr/bin/env python3
"""SACK cross-check: ns-3 and atmsim, NewReno and SACK, on aron97-topo1-packet.

    python bench/ns3/sack.py [--buffers 192528] [--cubic [--cubic-attr NAME=VALUE ...]] [--ns3-python PY]
                             [--atmsim CMD] [--json] [--refresh-atmsim STORE]

For each router buffer (bytes, rounded down to whole 9168-byte packets, see below) runs

* ns-3 (bench/ns3/aron97_topo1_packet.py, one process each): TcpNewReno growth with
  TcpClassicRecovery and no SACK ("newreno"), with SACK ("sack-classic": ns-3's RFC 6675
  scoreboard, pipe and NextSeg, cwnd held at ssthresh in recovery), and SACK with
  TcpPrrRecovery ("sack-prr": RFC 6937 proportional rate reduction, ns-3's default);
* atmsim (`atmsim run aron97-topo1-packet --set tcp.variant=... --set switch.buffer=...B
  --json`): `newreno` (RFC 6582) and `sack` (RFC 2018 + RFC 6675, docs/tcp.md),

or with `--cubic` CUBIC (RFC 9438) on both, 10 segments initially: ns-3's TcpCubic with SACK
and its classic recovery ("cubic-sack") or PRR ("cubic-sack-prr"), HyStart off (atmsim models
none), against atmsim's `cubic-sack` and `cubic` (NewReno recovery underneath); with `--cubic-attr`
only ns-3's cubic-sack, once for each TcpCubic attribute setting given ("ns-3 cubic-sack
CubicDelta=0", ...: docs/tcp.md, "CUBIC beside ns-3"); with `--cubic --refresh-atmsim STORE`
atmsim alone at the buffers of that stored comparison (validation/ns3/cubic_reference.json),
whose atmsim rows it rewrites, keeping ns-3's: after a change to atmsim alone;

and prints one table: effective throughput E, Jain's fairness index over the 8 flows,
retransmitted segments, coarse timeouts (RTO expiries) and fast recoveries entered.

Buffers: atmsim's router limit counts the packet in transmission and holds
floor(B / 9168) packets; at a B that is not a multiple of 9168 ns-3's device queue plus
its flow control admit one packet more (bench/ns3/README.md), so both get
floor(B / 9168) x 9168 bytes.
"""

import json
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import run  # noqa: E402  (same folder)
from atmsim.one_line_args import OneLineParser

HERE = os.path.dirname(os.path.abspath(__file__))
NS3_SCRIPT = os.path.join(HERE, "aron97_topo1_packet.py")
PACKET = 9168
NS3_MODELS = [("ns-3 newreno", []), ("ns-3 sack-classic", ["--sack"]),
              ("ns-3 sack-prr", ["--sack", "--recovery", "prr"])]
ATMSIM_MODELS = [("atmsim newreno", "newreno"), ("atmsim sack", "sack")]
#: `--cubic`: CUBIC (RFC 9438) on both, SACK underneath, 10 segments initially; ns-3's HyStart off
#: (atmsim has none), its classic recovery (atmsim's RFC 6675 recovery has no PRR).
CUBIC_NS3 = [("ns-3 cubic-sack", ["--cc", "cubic", "--sack", "--initial-cwnd", "10"]),
             ("ns-3 cubic-sack-prr", ["--cc", "cubic", "--sack", "--initial-cwnd", "10", "--recovery", "prr"])]
CUBIC_ATMSIM = [("atmsim cubic-sack", "cubic-sack"), ("atmsim cubic", "cubic")]


def atmsim_row(summary):
    flows = summary["flows"]
    return {
        "effective_throughput": summary["effective_throughput"],
        "fairness": summary["fairness"],
        "retransmissions": sum(f["segments_retransmitted"] for f in flows),
        "timeouts": sum(f["timeouts"] for f in flows),
        "recoveries": sum(f["fast_retransmits"] for f in flows),
        "bottleneck_drops": next(p["units_dropped"] for p in summary["ports"]
                                 if p["name"] == summary["bottleneck"]),
    }


def main():
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--buffers", default="192528",
                    help="comma-separated router buffers in bytes (default 192528)")
    ap.add_argument("--ns3-python", default=sys.executable)
    ap.add_argument("--atmsim", default="atmsim", help="atmsim command (default: atmsim)")
    ap.add_argument("--json", action="store_true", help="also print every row as JSON")
    ap.add_argument("--cubic", action="store_true", help="CUBIC on both instead of NewReno and SACK")
    ap.add_argument("--cubic-attr", action="append", default=[], metavar="NAME=VALUE",
                    help="with --cubic: ns-3's cubic-sack alone, with this TcpCubic attribute set (repeatable)")
    ap.add_argument("--refresh-atmsim", metavar="STORE",
                    help="with --cubic: atmsim alone at STORE's buffers; rewrite STORE's atmsim rows, keep ns-3's")
    args = ap.parse_args()
    ns3_models, atmsim_models = (CUBIC_NS3, CUBIC_ATMSIM) if args.cubic else (NS3_MODELS, ATMSIM_MODELS)
    if args.refresh_atmsim:
        if not args.cubic or args.cubic_attr:
            ap.error("--refresh-atmsim needs --cubic and no --cubic-attr")
        try:
            store = json.loads(open(args.refresh_atmsim, encoding="utf-8").read())
            args.buffers = ",".join(str(b) for b in sorted({r["buffer"] for r in store["rows"]}))
        except (OSError, ValueError, KeyError, TypeError) as e:
            ap.error("--refresh-atmsim: %s is not a stored comparison (%s)" % (args.refresh_atmsim, e))
        ns3_models = []
    if args.cubic_attr:
        if not args.cubic:
            ap.error("--cubic-attr needs --cubic")
        ns3_models = [("ns-3 cubic-sack " + a, CUBIC_NS3[0][1] + ["--cubic-attr", a]) for a in args.cubic_attr]
        atmsim_models = []

    rows = []
    for b in [int(x) for x in args.buffers.split(",")]:
        buf = b // PACKET * PACKET
        for name, extra in ns3_models:
            print("%s, buffer %d B ..." % (name, buf), file=sys.stderr, flush=True)
            r = run([args.ns3_python, NS3_SCRIPT, "--queue-bytes", str(buf)] + extra, 1800)
            rows.append(dict(model=name, buffer=buf, **{k: r[k] for k in (
                "effective_throughput", "fairness", "retransmissions", "timeouts",
                "recoveries", "bottleneck_drops")}))
        for name, variant in atmsim_models:
            print("%s, buffer %d B ..." % (name, buf), file=sys.stderr, flush=True)
            cmd = shlex.split(args.atmsim) + [
                "run", "aron97-topo1-packet", "--set", "tcp.variant=" + variant,
                "--set", "switch.buffer=%dB" % buf, "--json"]
            rows.append(dict(model=name, buffer=buf, **atmsim_row(run(cmd, 1800))))

    print()
    print("aron97-topo1-packet, 8 flows, 10 s simulated, MSS 9128, window 512 KiB, no delayed ACK")
    head = ("model", "buffer B", "E", "Jain", "rexmit", "timeouts", "recoveries", "drops")
    print("%-20s %9s %7s %6s %7s %9s %10s %6s" % head)
    for r in rows:
        print("%-20s %9d %7.4f %6.3f %7d %9d %10d %6d" % (
            r["model"], r["buffer"], r["effective_throughput"], r["fairness"],
            r["retransmissions"], r["timeouts"], r["recoveries"], r["bottleneck_drops"]))
    if args.json:
        print(json.dumps(rows))
    if args.refresh_atmsim:
        fresh = {(r["model"], r["buffer"]): r for r in rows}
        store["rows"] = [fresh.get((r["model"], r["buffer"]), r) for r in store["rows"]]
        store["atmsim_command"] = "python bench/ns3/sack.py --cubic --refresh-atmsim " + args.refresh_atmsim
        with open(args.refresh_atmsim, "w", encoding="utf-8") as f:
            f.write(json.dumps(store, indent=1) + "\n")


if __name__ == "__main__":
    main()
