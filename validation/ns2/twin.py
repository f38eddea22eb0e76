#!/usr/bin/env python3
"""An ns-2 twin of an atmsim packet-network scenario (aron97 topology 1 and the like).

    python validation/ns2/twin.py tcl [SCENARIO] [--set KEY=VALUE ...] [--draw N]
    python validation/ns2/twin.py run [SCENARIO] [--set ...] [--draw N] [--no-atmsim]
    python validation/ns2/twin.py grid [--ks 3,9,15,21,30,45] [--variants lite,vegas,tahoe,newreno,sack]
                                       [--draws 10] [--jobs 2] [--out DIR]
    python validation/ns2/twin.py table DIR/results.json

The twin reads the RESOLVED scenario (`atmsim.resolve`, what `python -m atmsim show SCENARIO
--set ...` prints, and `atmsim.model_facts` for the exact line rates) and writes ns-2 2.35 Tcl with
the same topology, rates, delays, queue limits, packet sizes, window, initial window, tick, RTO
bounds and start times. It runs ns-2 (`ns`) and atmsim on the same draw of start-time jitter and
computes from ns-2's bottleneck trace the numbers atmsim's summary reports: E (in-order payload
delivered by the end over U_max, docs/metrics.md), Jain's index over the flows' delivered bytes,
retransmitted packets, coarse timeouts, bottleneck drops and the bottleneck's mean occupancy / B.
docs/validation.md ("An ns-2 twin of aron97's packet network") has every mapping choice.

Phase: ns-2's seed changes nothing here (no random agent, and its tick only rounds RTT samples,
which stay below one tick), so phase is varied explicitly and identically in both simulators:
draw N adds to every flow's start a jitter U[0, 1 ms) from Python's Mersenne Twister seeded by
("twin", N, flow index), in picoseconds. atmsim also runs with seed N, which draws its hosts' BSD
timer phases (`seed_randomizes = "timer-phase"`, the scenario's own setting; ns-2's timers have
no phase: D10).
"""
from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import atmsim
from atmsim.toml import tomllib

SCENARIO = "aron97-topo1-packet"
JITTER_PS = 1_000_000_000  # 1 ms: each flow's start + U[0, JITTER_PS)

# The model and the Tcl writer (twin_model.py), re-exported: twin.ns2_tcl, twin.Twin, ...
from twin_model import ACK_BYTES as ACK_BYTES
from twin_model import HOST_QUEUE as HOST_QUEUE
from twin_model import NS_VARIANTS as NS_VARIANTS
from twin_model import RANDOM_DROP_TCL as RANDOM_DROP_TCL
from twin_model import Flow as Flow
from twin_model import Link as Link
from twin_model import NsVariant as NsVariant
from twin_model import Twin as Twin
from twin_model import _link as _link
from twin_model import _on_path as _on_path
from twin_model import _path as _path
from twin_model import ns2_tcl as ns2_tcl
from twin_model import picoseconds as picoseconds
from twin_model import seconds as seconds
from twin_model import size_bytes as size_bytes
from atmsim.one_line_args import OneLineParser
from atmsim.seed_range import argparse_seed, argparse_seed_count


def load(scenario: str = SCENARIO, sets=()) -> Twin:
    """The twin of a resolved atmsim scenario (with --set overrides)."""
    text = atmsim.resolve(scenario, list(sets))
    s = tomllib.loads(text)
    facts = atmsim.model_facts(scenario, list(sets))
    if s["network"] != "packet":
        raise ValueError("the ns-2 twin is defined for packet networks only")
    tcp = s["tcp"]
    variant = tcp["variant"]
    if variant not in NS_VARIANTS:
        raise ValueError(f"ns-2 has no twin of tcp.variant = {variant!r} (have: {', '.join(NS_VARIANTS)})")
    iw = tcp.get("initial_window", 2 if variant == "vegas" else 1)
    ports = facts["ports"]
    links, link_buffers = [], {}
    for ln in s["link"]:
        a, b = ln["ends"]
        links.append(Link(a, b, ports[f"{a}->{b}"]["rate_bps"], ports[f"{b}->{a}"]["rate_bps"], seconds(ln["delay"])))
        if "buffer" in ln:
            link_buffers[f"{a}->{b}"] = link_buffers[f"{b}->{a}"] = ln["buffer"]
    flows = []
    for f in s["flow"]:
        if f.get("kind", "tcp") != "tcp":
            raise ValueError("the ns-2 twin has TCP flows only")
        flows.append(Flow(f["name"], f["src"], f["dst"], picoseconds(f.get("start", "0s")),
                          size_bytes(f["bytes"]) if f.get("bytes", "unbounded") != "unbounded" else None))
    router = s.get("router", {})
    policy = router.get("policy", "tail")
    if policy not in ("tail", "random-drop") or not router.get("include_arrival", True):
        raise ValueError(f"router.policy = {policy!r} (include_arrival {router.get('include_arrival', True)}): "
                         "the twin maps drop tail and random drop among the waiting packets and the arrival")
    return Twin(
        name=s["name"], network=s["network"], duration=seconds(s["duration"]), variant=variant,
        mss=facts["mss"], header_bytes=facts["header_bytes"], window_bytes=size_bytes(tcp["window"]),
        initial_window=iw, delayed_ack=bool(tcp["delayed_ack"]), tick=seconds(tcp["tick"]),
        rttmin_ticks=tcp["rttmin_ticks"], rxtmax_ticks=tcp["rxtmax_ticks"], buffer=s["switch"]["buffer"],
        hosts=list(s["topology"]["hosts"]), switches=list(s["topology"]["switches"]), links=links, flows=flows,
        bottleneck=facts["bottleneck"], u_max_bytes=facts["u_max_bytes"], seed_randomizes=s["seed_randomizes"],
        link_buffers=link_buffers, policy=policy)


def jitter(draw: int, n: int) -> list:
    """Draw `draw`'s start jitter of n flows, in ps: U[0, 1 ms), the same in both simulators."""
    return [int(random.Random(f"twin-{draw}-{i}").random() * JITTER_PS) for i in range(n)]


def jitter_sets(tw: Twin, draw: int) -> list:
    """atmsim overrides that add draw `draw`'s jitter to each flow's start (0 = no jitter)."""
    if draw == 0:
        return []
    return [f"flow.{f.name}.start={f.start_ps + j}ps" for f, j in zip(tw.flows, jitter(draw, len(tw.flows)))]


def offset_sets(tw: Twin, draw: int, spread_ps: int) -> list:
    """Overrides that lengthen each flow source's access link by a static U[0, spread_ps) drawn for
    `draw` (as reproduce/aron97 `access_offsets`): identical paths then never deliver two packets to
    the bottleneck at the same instant, so neither simulator's order of simultaneous events matters
    (D13). Applied to both simulators through the resolved scenario."""
    if spread_ps <= 0:
        return []
    out = []
    for i, f in enumerate(tw.flows):
        ln = next(ln for ln in tw.links if f.src in (ln.a, ln.b))
        extra = int(random.Random(f"twin-offset-{draw}-{i}").random() * spread_ps)
        out.append(f"link.{ln.a}-{ln.b}.delay={round(ln.delay * 1e12) + extra}ps")
    return out


# ------------------------------------------------------------------------------------------------
# running and measuring ns-2

def ns2_binary():
    return shutil.which("ns")


def run_ns2(tw: Twin, workdir: str | None = None, keep: bool = False) -> dict:
    """Run the twin in ns-2; the metrics of `ns2_metrics`."""
    tmp = None
    if workdir is None:
        tmp = workdir = tempfile.mkdtemp(prefix="twin-")
    os.makedirs(workdir, exist_ok=True)
    try:
        with open(os.path.join(workdir, "twin.tcl"), "w", encoding="utf-8") as f:
            f.write(ns2_tcl(tw, events=tmp is None, cwnd=tmp is None))
        p = subprocess.run([ns2_binary(), "twin.tcl"], cwd=workdir, capture_output=True, text=True, timeout=600, check=False)
        if p.returncode != 0:
            raise RuntimeError(f"ns failed ({p.returncode}): {p.stderr.strip()[-800:]}")
        return ns2_metrics(tw, os.path.join(workdir, "bottleneck.tr"), p.stdout)
    finally:
        if tmp and not keep:
            shutil.rmtree(tmp, ignore_errors=True)


def ns2_metrics(tw: Twin, trace_path: str, stdout: str) -> dict:
    """The numbers of atmsim's summary, from ns-2's bottleneck trace and the agents' counters.

    * delivered bytes of flow i: the payload of the data packets 1..n that reached the destination
      in order by the end (packet 0 is the SYN), from the bottleneck's `r` events plus the store-and-
      forward time of the uncongested hops after it (one packet transmission + delay per hop);
    * drops: `d` events at the bottleneck; occupancy: each accepted packet's bytes x its stay from
      arrival (`+`) to the end of its transmission (`-` + transmission time), cut at the end, over
      duration x B (atmsim's Little's-law mean, metrics.md), B = queue limit x packet bytes;
    * retransmitted packets, timeouts: the agents' nrexmitpack_, nrexmit_."""
    T = tw.duration
    bn_a, bn_b = tw.bottleneck.split("->")
    rate, _ = _link(tw, bn_a, bn_b)
    nflow = len(tw.flows)
    # after the bottleneck: the rest of each flow's path
    after = {}
    for i, f in enumerate(tw.flows, 1):
        p = _path(tw, f.src, f.dst)
        j = next(k for k in range(len(p) - 1) if (p[k], p[k + 1]) == (bn_a, bn_b))
        after[i] = [_link(tw, p[k], p[k + 1]) for k in range(j + 1, len(p) - 1)]
    enq, drops = {}, [0] * (nflow + 1)
    occ_bytes_s = 0.0
    recv = {i: set() for i in range(1, nflow + 1)}
    nxt = {i: 1 for i in range(1, nflow + 1)}
    with open(trace_path, encoding="utf-8") as fh:
        for line in fh:
            w = line.split()
            if len(w) < 12:
                continue
            ev, t, size, fid, seq, uid = w[0], float(w[1]), int(w[5]), int(w[7]), int(w[10]), w[11]
            if ev == "+":
                enq[uid] = (t, size)
            elif ev == "d":
                enq.pop(uid, None)
                if w[4] == "tcp" and 1 <= fid <= nflow:
                    drops[fid] += 1
            elif ev == "-":
                t0, sz = enq.pop(uid)
                occ_bytes_s += sz * (min(t + sz * 8 / rate, T) - t0)
            elif ev == "r" and w[4] == "tcp" and seq >= 1:
                tarr = t + sum(size * 8 / r + d for r, d in after[fid])
                if tarr <= T:
                    recv[fid].add(seq)
                    while nxt[fid] in recv[fid]:
                        recv[fid].discard(nxt[fid])
                        nxt[fid] += 1
    for t0, sz in enq.values():      # still waiting at the end
        occ_bytes_s += sz * (T - t0)
    agents = {}
    for line in stdout.splitlines():
        w = line.split()
        if w and w[0] == "flow":
            agents[int(w[1])] = {"ndatapack": int(w[2]), "nrexmitpack": int(w[3]), "nrexmit": int(w[4]),
                                 "ack": int(w[5])}
    delivered = []
    for i, f in enumerate(tw.flows, 1):
        b = (nxt[i] - 1) * tw.mss
        delivered.append(min(b, f.bytes) if f.bytes is not None else b)
    limit = tw.queue_limit(tw.bottleneck, tw.packet_bytes) * tw.packet_bytes
    return summarize(delivered, tw.u_max_bytes,
                     retx=[agents[i]["nrexmitpack"] for i in range(1, nflow + 1)],
                     timeouts=[agents[i]["nrexmit"] for i in range(1, nflow + 1)],
                     drops=sum(drops), occupancy_share=occ_bytes_s / T / limit,
                     acked=[agents[i]["ack"] * tw.mss for i in range(1, nflow + 1)])


def jain(x: list) -> float:
    s, s2 = sum(x), sum(v * v for v in x)
    return 1.0 if s2 == 0 else s * s / (len(x) * s2)


def summarize(delivered, u_max, retx, timeouts, drops, occupancy_share, acked=None) -> dict:
    out = {"E": sum(delivered) / u_max, "jain": jain(delivered), "retx": sum(retx), "timeouts": sum(timeouts),
           "drops": drops, "occupancy_share": occupancy_share, "delivered": delivered,
           "timeouts_per_flow": timeouts}
    if acked is not None:   # ns-2: what each source holds acknowledged at the end (ack_ x MSS)
        out["acked"] = acked
    return out


# ------------------------------------------------------------------------------------------------
# atmsim

def run_atmsim(scenario: str, sets: list, seed: int) -> dict:
    s = atmsim.run(scenario, sets, seed=seed).summary
    fl = s["flows"]
    bn = next(p for p in s["ports"] if p["name"] == s["bottleneck"])
    out = summarize([f["bytes_delivered"] for f in fl], s["u_max_bytes"],
                    retx=[f["segments_retransmitted"] for f in fl], timeouts=[f["timeouts"] for f in fl],
                    drops=bn["units_dropped"], occupancy_share=bn["mean_occupancy"] / bn["limit"])
    assert abs(out["E"] - s["effective_throughput"]) < 1e-9 and abs(out["jain"] - s["fairness"]) < 1e-9
    return out


# ------------------------------------------------------------------------------------------------
# one point, the grid

def point_sets(variant: str, k: int, duration: str = "") -> list:
    """aron97's overrides of one grid point: buffer k x 9168 bytes, the variant (as
    reproduce/aron97/common.py Spec.job)."""
    seg = atmsim.model_facts(SCENARIO)["segment_ip_bytes"]
    sets = [f"switch.buffer={k * seg}B", f"tcp.variant={variant}"]
    if duration:
        sets.append(f"duration={duration}")
    return sets


def run_case(scenario: str, sets: list, draw: int, atmsim_seed: int | None = None, ns2: bool = True,
             at: bool = True, workdir: str | None = None, offset_ps: int = 0) -> dict:
    """Both simulators on one draw of start jitter (and, with offset_ps, of static access-delay
    offsets). atmsim's seed is the draw (its timer phases) unless `atmsim_seed` is given."""
    tw0 = load(scenario, sets)
    js = jitter_sets(tw0, draw) + offset_sets(tw0, draw, offset_ps)
    tw = load(scenario, list(sets) + js)
    row = {"draw": draw}
    if ns2:
        row["ns2"] = run_ns2(tw, workdir)
    if at:
        row["atmsim"] = run_atmsim(scenario, list(sets) + js, draw if atmsim_seed is None else atmsim_seed)
    return row


def _grid_job(args):
    variant, k, draw, duration, atmsim_seed, offset_ps = args
    r = run_case(SCENARIO, point_sets(variant, k, duration), draw, atmsim_seed, offset_ps=offset_ps)
    r.update(variant=variant, k=k)
    return r


def grid(ks, variants, draws, jobs=1, duration="", atmsim_seed=None, out=None, offset_ps=0):
    from concurrent.futures import ProcessPoolExecutor
    todo = [(v, k, d, duration, atmsim_seed, offset_ps) for v in variants for k in ks for d in range(1, draws + 1)]
    rows = []
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as ex:
            for i, r in enumerate(ex.map(_grid_job, todo), 1):
                rows.append(r)
                print(f"[{i}/{len(todo)}] {r['variant']} k={r['k']} draw {r['draw']}: ns-2 E {r['ns2']['E']:.3f} "
                      f"J {r['ns2']['jain']:.3f} | atmsim E {r['atmsim']['E']:.3f} J {r['atmsim']['jain']:.3f}",
                      file=sys.stderr, flush=True)
    else:
        for i, t in enumerate(todo, 1):
            rows.append(_grid_job(t))
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as f:
            json.dump({"ns": ns2_version(), "scenario": SCENARIO, "draws": draws, "duration": duration or "10s",
                       "atmsim_seed": atmsim_seed, "offset_ps": offset_ps, "rows": rows}, f)
    return rows


def ns2_version() -> str:
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "ns2"], capture_output=True, text=True, check=False).stdout
    except OSError:
        out = ""
    return "ns-2 " + (out or "unknown")


# ------------------------------------------------------------------------------------------------
# tables

def _stats(vals):
    return statistics.median(vals), min(vals), max(vals)


def points(rows) -> list:
    """Per (variant, k): median, min and max over draws of each metric, both simulators."""
    by = {}
    for r in rows:
        by.setdefault((r["variant"], r["k"]), []).append(r)
    pts = []
    for (v, k), rs in sorted(by.items(), key=lambda x: (x[0][0], x[0][1])):
        p = {"variant": v, "k": k, "n": len(rs)}
        for sim in ("atmsim", "ns2"):
            for m in ("E", "jain", "timeouts", "retx", "drops", "occupancy_share"):
                p[f"{sim}_{m}"] = _stats([r[sim][m] for r in rs])
        pts.append(p)
    return pts


def markdown(pts, metrics=("E", "jain", "timeouts"), spread: bool = True) -> str:
    head = "| variant | k | " + " | ".join(f"{m} atmsim | {m} ns-2" for m in metrics) + " |"
    lines = [head, "| --- | ---: | " + " | ".join("---: | ---:" for _ in metrics) + " |"]
    for p in pts:
        cells = []
        for m in metrics:
            for sim in ("atmsim", "ns2"):
                med, lo, hi = p[f"{sim}_{m}"]
                if m in ("timeouts", "retx", "drops"):
                    cells.append(f"{med:g} ({lo:g}-{hi:g})" if spread else f"{med:g}")
                else:
                    cells.append(f"{med:.3f} ({lo:.3f}-{hi:.3f})" if spread else f"{med:.3f}")
        lines.append(f"| {p['variant']} | {p['k']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def flagged(pts) -> list:
    """Points where the medians differ by more than 10 % in E or 0.1 in Jain."""
    out = []
    for p in pts:
        ea, en = p["atmsim_E"][0], p["ns2_E"][0]
        ja, jn = p["atmsim_jain"][0], p["ns2_jain"][0]
        if abs(ea - en) > 0.1 * max(ea, en) or abs(ja - jn) > 0.1:
            out.append((p["variant"], p["k"], ea, en, ja, jn))
    return out


# ------------------------------------------------------------------------------------------------

def main(argv=None):
    ap = OneLineParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("tcl", "run"):
        p = sub.add_parser(name)
        p.add_argument("scenario", nargs="?", default=SCENARIO)
        p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
        p.add_argument("--draw", type=argparse_seed, default=0, help="start-jitter draw (0: none), and atmsim's seed")
        p.add_argument("--access-offset", type=int, default=0, metavar="PS",
                       help="static access-delay offsets U[0, PS) ps per draw, in both (D13)")
        if name == "run":
            p.add_argument("--keep", metavar="DIR", help="keep ns-2's Tcl and trace here")
            p.add_argument("--no-atmsim", action="store_true")
            p.add_argument("--atmsim-seed", type=argparse_seed)
    g = sub.add_parser("grid")
    g.add_argument("--ks", default="3,9,15,21,30,45")
    g.add_argument("--variants", default="lite,vegas,tahoe,newreno,sack")
    g.add_argument("--draws", type=argparse_seed_count, default=10, help="draws 1 to N, each also atmsim's seed")
    g.add_argument("--jobs", type=int, default=2)
    g.add_argument("--duration", default="")
    g.add_argument("--atmsim-seed", type=argparse_seed, help="fixed atmsim seed (default: the draw)")
    g.add_argument("--access-offset", type=int, default=0, metavar="PS",
                   help="also lengthen each sender's access link by a static U[0, PS) ps per draw, in both (D13)")
    g.add_argument("--out", default=os.path.join(HERE, "out", "twin"))
    t = sub.add_parser("table")
    t.add_argument("results")
    t.add_argument("--metrics", default="E,jain,timeouts")
    t.add_argument("--medians", action="store_true", help="medians only, no (min-max)")
    t.add_argument("--write-points", metavar="FILE", help="store the points (median, min, max per metric) as JSON")
    args = ap.parse_args(argv)

    if args.cmd == "tcl":
        tw0 = load(args.scenario, args.set)
        sys.stdout.write(ns2_tcl(load(args.scenario, args.set + jitter_sets(tw0, args.draw)
                                      + offset_sets(tw0, args.draw, args.access_offset))))
    elif args.cmd == "run":
        if not args.no_atmsim or ns2_binary():
            r = run_case(args.scenario, args.set, args.draw, args.atmsim_seed, ns2=ns2_binary() is not None,
                         at=not args.no_atmsim, workdir=args.keep, offset_ps=args.access_offset)
            print(json.dumps(r, indent=1))
    elif args.cmd == "grid":
        if ns2_binary() is None:
            sys.exit("ns (ns-2) is not on PATH: apt-get install ns2")
        rows = grid([int(x) for x in args.ks.split(",")], args.variants.split(","), args.draws, args.jobs,
                    args.duration, args.atmsim_seed, args.out, args.access_offset)
        pts = points(rows)
        print(markdown(pts))
    elif args.cmd == "table":
        with open(args.results, encoding="utf-8") as f:
            data = json.load(f)
        rows = data["rows"]
        pts = points(rows)
        if args.write_points:
            with open(args.write_points, "w", encoding="utf-8") as f:
                head = {k: v for k, v in data.items() if k != "rows"}
                f.write(json.dumps(head)[:-1] + ', "points": [\n')
                f.write(",\n".join(json.dumps(p, separators=(",", ":")) for p in pts) + "\n]}\n")
        print(markdown(pts, args.metrics.split(","), not args.medians))
        print()
        for v, k, ea, en, ja, jn in flagged(pts):
            print(f"flag {v} k={k}: E {ea:.3f} vs {en:.3f}, Jain {ja:.3f} vs {jn:.3f}")


if __name__ == "__main__":
    main()
