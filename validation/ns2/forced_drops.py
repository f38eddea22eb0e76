#!/usr/bin/env python3
"""The Fall & Floyd forced-drop suite: ns-2 against atmsim, packet by packet.

    python validation/ns2/forced_drops.py [--variants tahoe,reno,newreno,sack]
        [--drops 1,2,3,4] [--out validation/ns2/out] [--no-plots] [--json]

ns-2's `tcl/test/test-suite-tcpVariants.tcl` (Fall & Floyd, "Simulation-based
comparisons of Tahoe, Reno and SACK TCP", CCR 26(3), 1996) runs one TCP over
its topology `net4` and drops chosen packets of the first windows by number
at the bottleneck. This script rebuilds those tests (the Tcl is written here,
from the suite's parameters, not copied), runs them in the ns-2 installed on
the machine (`ns`, Debian's ns2 2.35), runs the same scenario in atmsim
(`python -m atmsim run FILE --out DIR`), and compares the two sequence-number
versus time traces of the packets the source sends. docs/validation.md has
every mapping choice and the results.

The suite's cases (drops, profiles, variants, the named causes, `Trace`) are in
forced_drops_cases.py and the ns-2 side (the Tcl, running `ns`, reading its
traces) in forced_drops_ns2.py, both beside this script and re-exported here;
this script writes and reads the atmsim side, compares, plots and prints.

The suite's parameters (test-suite-tcpVariants.tcl, ns-2.35; defaults from
ns-2.35's ns-default.tcl, read back from the installed `ns`):

* net4: s1 -- r1 8 Mb/s 0 ms, r1 -- k1 800 kb/s 100 ms, drop tail, queue
  limit 8 on r1->k1 (and k1->r1); s2 (idle) also hangs off r1.
* one connection s1 -> k1, fid 1; Agent/TCP (Tahoe), TCP/Reno, TCP/Newreno
  with TCPSink, TCP/Sack1 with TCPSink/Sack1; window_ 28; FTP from t = 1 s
  to 6 s.
* drops: an ErrorModel/List on r1->k1 bound to fid 1 drops the packets
  numbered {14}, {14 28}, {14 26 28}, {14 24 26 28} (counted from 0 over
  every packet of the flow that reaches the link's error module).
* overrides at the top of the suite: precisionReduce_ false, rtxcur_init_ 6,
  updated_rttvar_ false, minrto_ 1, Newreno newreno_changes1_ 0 and
  partial_window_deflation_ 0, singledup_ 0 (no limited transmit).
* ns-2.35 defaults that matter: packetSize_ 1000 (+ 40 bytes of headers,
  useHeaders_), syn_ true (packet 0 is a 40-byte SYN), delay_growth_ true and
  windowInit_ 2 (2 data packets after the SYN's ACK), tcpTick_ 0.01,
  maxrto_ 60, bugFix_ true, ssthresh_ 0 (reset to window_), TCPSink ACKs
  every packet (40 bytes; Sack1 sinks add 8 bytes per block, up to 3).
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from atmsim.one_line_args import OneLineParser

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The suite's cases (forced_drops_cases.py) and its ns-2 side (forced_drops_ns2.py), re-exported:
# forced_drops.DROPS, forced_drops.run_ns2, ...
from forced_drops_cases import DROPS as DROPS
from forced_drops_cases import Profile as Profile
from forced_drops_cases import PROFILES as PROFILES
from forced_drops_cases import START as START
from forced_drops_cases import DURATION as DURATION
from forced_drops_cases import PAYLOAD as PAYLOAD
from forced_drops_cases import HEADERS as HEADERS
from forced_drops_cases import Variant as Variant
from forced_drops_cases import VARIANTS as VARIANTS
from forced_drops_cases import CAUSES as CAUSES
from forced_drops_cases import Trace as Trace
from forced_drops_ns2 import NS_FAST_RETX as NS_FAST_RETX
from forced_drops_ns2 import NS_TCL as NS_TCL
from forced_drops_ns2 import ns2_tcl as ns2_tcl
from forced_drops_ns2 import ns2_binary as ns2_binary
from forced_drops_ns2 import run_ns2 as run_ns2
from forced_drops_ns2 import parse_ns2 as parse_ns2
from forced_drops_ns2 import ns2_version as ns2_version


# ----------------------------------------------------------------------------------------------
# atmsim

ATMSIM_TOML = """\
# Written by validation/ns2/forced_drops.py: ns-2's test-suite-tcpVariants.tcl ({test}), in atmsim.
name = "ff96-{name}-{ndrops}drops"
description = "Fall & Floyd 1996 forced drops as in ns-2's test-suite-tcpVariants (net4): one flow, 8 Mb/s 0 ms then 800 kb/s 100 ms, 8 waiting packets, window 28 x 1000 B; drops {drops}."
network = "packet"
duration = "{duration}s"
seed = 1
seed_randomizes = "nothing"

[ip]
header_bytes = {headers}          # ns-2 tcpip_base_hdr_size_: 1000 + 40 = 1040-byte packets
mtu = "{mtu}B"

[tcp]
variant = "{variant}"
bp95 = true                 # no MSS/8 term in congestion avoidance (ns-2 adds 1/cwnd per ACK)
mss = "{payload}B"                # ns-2 packetSize_
window = "{window}B"            # window_ 28 packets
initial_window = {iw}          # ns-2 windowInit_ ({profile} profile)
delayed_ack = false         # TCPSink ACKs every packet
tick = "10ms"               # tcpTick_ 0.01
rttmin_ticks = 100          # minrto_ 1 (s)
rxtmax_ticks = 6000         # maxrto_ 60 (s)

[switch]
buffer = "8packets"         # ns-2 queue-limit 8: DropTail drops when waiting + 1 >= 8, so 8 with the one in transmission

[topology]
hosts = ["s1", "k1"]
switches = ["r1"]

[[link]]
ends = ["s1", "r1"]
rate = "8Mbps"
delay = "0s"

[[link]]
ends = ["r1", "k1"]
rate = "800kbps"
delay = "100ms"

[[flow]]
name = "f1"
src = "s1"
dst = "k1"
start = "0s"
drop_segments = [{segments}]   # ns-2 packet n = atmsim segment n - {first} ({profile} profile)
"""


def atmsim_toml(v: Variant, drops: list, profile: Profile = PROFILES["suite"]) -> str:
    return ATMSIM_TOML.format(test=f"{v.name} {drops}", name=v.name, ndrops=len(drops), drops=drops,
                              duration=int(DURATION), headers=HEADERS, mtu=PAYLOAD + HEADERS, variant=v.atmsim,
                              payload=PAYLOAD, window=28 * PAYLOAD, iw=profile.initial_window,
                              profile=profile.name, first=profile.first_data,
                              segments=", ".join(str(d - profile.first_data) for d in drops))


def run_atmsim(v: Variant, drops: list, workdir: str, profile: Profile = PROFILES["suite"],
               python: str = sys.executable) -> Trace:
    os.makedirs(workdir, exist_ok=True)
    toml = os.path.join(workdir, "scenario.toml")
    with open(toml, "w", encoding="utf-8") as f:
        f.write(atmsim_toml(v, drops, profile))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([python, "-m", "atmsim", "run", toml, "--out", os.path.join(workdir, "out")],
                       capture_output=True, text=True, timeout=300, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"atmsim failed ({p.returncode}): {p.stderr.strip()[-500:]}")
    return parse_atmsim(os.path.join(workdir, "out"), profile.first_data)


def _pkt(seq_byte: int, first_data: int = 1) -> int:
    """ns-2 packet number of the atmsim segment starting at byte `seq_byte` (the SYN is byte 0)."""
    return (seq_byte - 1) // PAYLOAD + first_data


def parse_atmsim_rows(events, window, first_data: int = 1) -> Trace:
    """`events` and `window` as iterables of dicts (csv rows or DataFrame records)."""
    tr = Trace()
    for r in events:
        kind, t = r["kind"], float(r["t"])
        if kind in ("send", "retransmit"):
            tr.sends.append((t, _pkt(int(r["seq"]), first_data), kind == "retransmit"))
        elif kind == "loss":
            tr.drops.append((t, _pkt(int(r["seq"]), first_data)))
        elif kind == "fast_retransmit":
            tr.fast_retransmits.append(t)
        elif kind == "timeout":
            tr.timeouts.append(t)
    # snd_una from the window rows: snd_max - unacked, snd_max = one segment past the highest sent.
    sends = sorted(tr.sends)
    i, top, last = 0, None, -1
    for r in window:
        t = float(r["t"])
        while i < len(sends) and sends[i][0] <= t:
            top = sends[i][1] if top is None else max(top, sends[i][1])
            i += 1
        if top is None:
            continue
        snd_max = (top - first_data + 1) * PAYLOAD + 1
        una = snd_max - int(r["unacked"])
        acked = (una - 1) // PAYLOAD + first_data - 1   # highest data packet acknowledged
        if acked > last:
            tr.acks.append((t, acked))
            last = acked
        tr.cwnd.append((t, int(r["cwnd"]) / PAYLOAD))
        tr.window.append((t, int(r["cwnd"]), int(r["ssthresh"])))
    return tr


def parse_atmsim(outdir: str, first_data: int = 1) -> Trace:
    with open(os.path.join(outdir, "trace_events.csv"), encoding="utf-8") as f:
        events = list(csv.DictReader(f))
    with open(os.path.join(outdir, "trace_window.csv"), encoding="utf-8") as f:
        window = list(csv.DictReader(f))
    return parse_atmsim_rows(events, window, first_data)


# ----------------------------------------------------------------------------------------------
# comparison

EPS = 1e-6   # s: the same instant (ns-2 prints 15 significant digits, atmsim's clock is in ps)
NEAR = 1e-3  # s: the same packet within 1 ms, i.e. but for the SACK option's bytes on the wire (D9)


def compare(ns: Trace, at: Trace) -> dict:
    """Walk the two send sequences in order. `timing`: first index whose packet or time (beyond
    EPS) differs; `near`: the same with times allowed to differ by NEAR; `order`: first index
    whose packet numbers differ, whatever the times."""
    n = min(len(ns.sends), len(at.sends))
    timing = near = order = None
    max_dt = 0.0
    for i in range(n):
        (tn, pn, _), (ta, pa, _) = ns.sends[i], at.sends[i]
        if pn != pa:
            order = i
            break
        if timing is None and abs(tn - ta) > EPS:
            timing = i
        if near is None and abs(tn - ta) > NEAR:
            near = i
        if near is None:
            max_dt = max(max_dt, abs(tn - ta))
    if order is None and len(ns.sends) != len(at.sends):
        order = n
    if timing is None:
        timing = order
    if near is None:
        near = order

    def ev(tr, i):
        if i is None or i >= len(tr.sends):
            return None
        t, p, r = tr.sends[i]
        return {"t": round(t, 6), "pkt": p, "rtx": r}

    def parts_at(i):
        """When the traces part at index i: the earlier of the two sends there."""
        ts = [tr.sends[i][0] for tr in (ns, at) if i is not None and i < len(tr.sends)]
        return round(min(ts), 6) if ts else None

    return {
        "n_ns2": len(ns.sends), "n_atmsim": len(at.sends),
        "identical_packets": timing if timing is not None else n,
        "parts_at_s": parts_at(timing),
        "timing_divergence": None if timing is None else {"index": timing, "ns2": ev(ns, timing),
                                                           "atmsim": ev(at, timing)},
        "near_identical_packets": near if near is not None else n,
        "near_parts_at_s": parts_at(near),
        "max_dt_while_near_ms": round(max_dt * 1e3, 3),
        "same_packet_order": order if order is not None else n,
        "order_parts_at_s": parts_at(order),
        "order_divergence": None if order is None else {"index": order, "ns2": ev(ns, order),
                                                        "atmsim": ev(at, order)},
    }


def slow_start_at_equality(at: Trace, t: float) -> bool:
    """Whether an ACK at time `t` took atmsim's cwnd from ssthresh or above (cwnd == ssthresh, or
    an inflated window deflated to ssthresh at the end of a recovery) to ssthresh + 1 MSS: BSD's
    slow start at cwnd = ssthresh (tcp_input.c: congestion avoidance only if cw > snd_ssthresh),
    where ns-2 (tcp.cc opencwnd: slow start only if cwnd_ < ssthresh_) adds 1/cwnd."""
    before = [w for w in at.window if w[0] < t - EPS]
    now = [w for w in at.window if abs(w[0] - t) <= EPS]
    if not before or not now:
        return False
    _, cwnd, ssthresh = before[-1]
    return cwnd >= ssthresh and any(c == s + PAYLOAD and s == ssthresh for _, c, s in now)


def summarize(tr: Trace, drops: list) -> dict:
    rec = tr.recovered_at(max(drops))
    return {
        "fast_retransmits": len(tr.fast_retransmits),
        "timeouts": len(tr.timeouts),
        "retransmissions": sum(1 for s in tr.sends if s[2]),
        "drops": [p for _, p in tr.drops],
        "last_drop_acked_s": None if rec is None else round(rec, 6),
        "acked_by_5s": tr.acked_by(DURATION),
        "fast_retransmit_times": [round(t, 6) for t in tr.fast_retransmits],
        "timeout_times": [round(t, 6) for t in tr.timeouts],
    }


# ----------------------------------------------------------------------------------------------
# plots

def plot_variant(v: Variant, cases: dict, path: str, tmax: float = 2.0, note: str = ""):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharex=True, sharey=True)
    for ax, (nd, (ns, at)) in zip(axes.flat, sorted(cases.items())):
        for tr, style in ((ns, dict(marker="o", s=22, facecolors="none", edgecolors="tab:blue", label="ns-2 2.35")),
                          (at, dict(marker="x", s=14, color="tab:red", label="atmsim"))):
            pts = [(t, p) for t, p, _ in tr.sends if t <= tmax]
            if pts:
                ax.scatter([t for t, _ in pts], [p for _, p in pts], linewidths=0.8, **style)
        dropped = [(t, p) for t, p in ns.drops if t <= tmax]
        ax.scatter([t for t, _ in dropped], [p + 2.5 for _, p in dropped], marker="v", s=18, color="gray",
                   label="dropped (ns-2)")
        ax.set_title(f"{nd} drop{'s' if nd > 1 else ''}: {DROPS[nd]}", fontsize=9)
        ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("time since the application started (s)")
    for ax in axes[:, 0]:
        ax.set_ylabel("packet number")
    axes[0, 0].legend(loc="upper left", fontsize=8)
    fig.suptitle(v.label + note, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=72)
    plt.close(fig)


# ----------------------------------------------------------------------------------------------


def reference(ns: Trace, row: dict) -> dict:
    """What tests/test_ns2_forced_drops.py checks atmsim against, without ns-2: every data packet
    ns-2's source sent (time rounded to the microsecond, packet number)."""
    c = row["compare"]
    return {"sends": [[round(t, 6), p] for t, p, _ in ns.sends], "ns2": row["ns2"],
            "identical_packets": c["identical_packets"], "near_identical_packets": c["near_identical_packets"],
            "same_packet_order": c["same_packet_order"],
            "cause": row["cause"]}


def side_by_side(ns: Trace, at: Trace, t0: float, t1: float):
    """Both simulators' sends, ACK advances, fast retransmits, timeouts and cwnd changes, by time."""
    def events(tr, tag):
        out = [(t, 3, f"{tag} send {p}{' (rtx)' if r else ''}") for t, p, r in tr.sends]
        out += [(t, 0, f"{tag} ack {a}") for t, a in tr.acks]
        out += [(t, 2, f"{tag} FAST RETRANSMIT") for t in tr.fast_retransmits]
        out += [(t, 2, f"{tag} TIMEOUT") for t in tr.timeouts]
        last = None
        for t, c in tr.cwnd:
            if c != last:
                out.append((t, 1, f"{tag} cwnd {c:.3f}"))
            last = c
        return [(round(t, 9), tag != "ns-2", k, s) for t, k, s in out if t0 <= t <= t1]
    for t, right, _, s in sorted(events(ns, "ns-2") + events(at, "atmsim"), key=lambda e: e[:3]):
        print(f"{t:10.6f}  " + (" " * 30 if right else "") + s)


def case_dir(outdir: str, profile: Profile, name: str, nd) -> str:
    return os.path.join(outdir, ("" if profile.name == "suite" else profile.name + "-") + f"{name}-{nd}")


def align(ns: Trace, at: Trace, profile: Profile) -> Trace:
    """ns-2's trace, shifted (iw1 profile) so that its first data packet leaves with atmsim's."""
    if not profile.align or not ns.sends or not at.sends:
        return ns
    return ns.shifted(at.sends[0][0] - ns.sends[0][0])


def run_case(v: Variant, nd: int, outdir: str, profile: Profile = PROFILES["suite"]) -> tuple:
    drops = DROPS[nd]
    base = case_dir(outdir, profile, v.name, nd)
    ns = run_ns2(v, drops, os.path.join(base, "ns2"), profile)
    at = run_atmsim(v, drops, os.path.join(base, "atmsim"), profile)
    return align(ns, at, profile), at


def main(argv=None):
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variants", default="tahoe,reno,newreno,sack,reno-nobugfix")
    ap.add_argument("--drops", default="1,2,3,4")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--json", action="store_true", help="print every case as JSON")
    ap.add_argument("--profile", default="suite", choices=sorted(PROFILES),
                    help="suite: ns-2.35 as the test suite runs (SYN, initial window 2); iw1: no SYN, "
                         "initial window 1, ns-2 times aligned at the first data packet")
    ap.add_argument("--side", metavar="VARIANT:DROPS:T0:T1",
                    help="print both traces of a case already run (sends, ACKs, cwnd changes) between T0 and T1")
    ap.add_argument("--write-reference", metavar="FILE",
                    help="store ns-2's sends and the comparison, for tests (validation/ns2/ns2_reference.json)")
    args = ap.parse_args(argv)
    if ns2_binary() is None:
        sys.exit("ns (ns-2) is not on PATH: apt-get install ns2")
    os.makedirs(args.out, exist_ok=True)
    if args.side:
        name, nd, t0, t1 = args.side.split(":")
        prof = PROFILES[args.profile]
        base = case_dir(args.out, prof, name, nd)
        at = parse_atmsim(os.path.join(base, "atmsim", "out"), prof.first_data)
        ns = align(parse_ns2(os.path.join(base, "ns2"), prof.first_data), at, prof)
        side_by_side(ns, at, float(t0), float(t1))
        return
    rows, refs = [], {}
    for name in args.variants.split(","):
        v = VARIANTS[name]
        cases = {}
        for nd in [int(x) for x in args.drops.split(",")]:
            ns, at = run_case(v, nd, args.out, PROFILES[args.profile])
            cases[nd] = (ns, at)
            rows.append({"variant": name, "drops": nd, "drop_list": DROPS[nd], "ns2": summarize(ns, DROPS[nd]),
                         "atmsim": summarize(at, DROPS[nd]), "compare": compare(ns, at),
                         "cause": CAUSES.get((name, nd), "") if args.profile == "suite" else ""})
            refs[f"{name}-{nd}"] = reference(ns, rows[-1])
        if not args.no_plots and len(cases) == 4:
            suite = args.profile == "suite"
            plot_variant(v, cases, os.path.join(args.out, f"ff96-{'' if suite else args.profile + '-'}{name}.png"),
                         note="" if suite else " (ns-2 without SYN, initial window 1; aligned at the first data packet)")
    with open(os.path.join(args.out, f"results-{args.profile}.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1)
    if args.write_reference and args.profile == "suite":
        with open(args.write_reference, "w", encoding="utf-8") as f:
            f.write('{"ns": %s, "cases": {\n' % json.dumps(ns2_version()))
            f.write(",\n".join("%s: %s" % (json.dumps(k), json.dumps(v, separators=(",", ":")))
                               for k, v in refs.items()))
            f.write("\n}}\n")
    if args.json:
        print(json.dumps(rows, indent=1))
    print_table(rows)


def _fmt(s: dict) -> str:
    t = "-" if s["last_drop_acked_s"] is None else f"{s['last_drop_acked_s']:.3f}"
    return f"{s['fast_retransmits']:>2} FR {s['timeouts']:>2} TO  {t:>6} s {s['acked_by_5s']:>4}"


def print_table(rows):
    print("times from the application's start; 'acked' = first ACK covering the last dropped packet; "
          "'by 5s' = packets acked by 5 s")
    print("identical = packets sent identically (same packet, same instant) before the traces part at (s); "
          "<1 ms: the same within 1 ms; order: the same packets whatever the times")
    print(f"{'variant':<14}{'drops':>5}  {'ns-2: FR, TO, acked, by 5s':<30}{'atmsim: FR, TO, acked, by 5s':<30}"
          f"{'identical':>9} {'at':>6} {'<1 ms':>6} {'at':>6} {'order':>6} {'at':>6}  cause")
    for r in rows:
        c = r["compare"]
        until = "end" if c["parts_at_s"] is None else f"{c['parts_at_s']:.3f}"
        nuntil = "end" if c["near_parts_at_s"] is None else f"{c['near_parts_at_s']:.3f}"
        ountil = "end" if c["order_divergence"] is None or c["order_divergence"]["ns2"] is None \
            else f"{c['order_parts_at_s']:.3f}"
        print(f"{r['variant']:<14}{r['drops']:>5}  {_fmt(r['ns2']):<30}{_fmt(r['atmsim']):<30}"
              f"{c['identical_packets']:>9} {until:>6} {c['near_identical_packets']:>6} {nuntil:>6}"
              f" {c['same_packet_order']:>6} {ountil:>6}  {r['cause']}")


if __name__ == "__main__":
    main()