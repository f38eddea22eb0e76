"""Judge Morris & Kung's Fig. 3 claims (and fig4.c1) on cellsim's runs, by the rules of the experiments
catalogue, section 2.3/2.4, as written there (not atmsim's code): a point is the median over seeds of
goodput over [1 s, 20 s]; B90(L) is the smallest grid B with goodput >= 0.9 G_max(L); "one grid step" is
one position in the grid of buffers. Standard library only."""
from __future__ import annotations

import statistics

B_FULL = [8, 16, 24, 32, 40, 48, 52, 56, 60, 64, 72, 80]  # KiB, catalogue 2.3
MTUS = [1500, 4352, 9180]
SERIES = ("host storage", "PPD", "no host storage")


def cells(mtu: int) -> int:
    """LLC/SNAP (8) + AAL5 trailer (8), padded to 48-byte payloads (atm.md 5)."""
    return -(-(mtu + 16) // 48)


def g_max(mtu: int) -> float:
    """Catalogue 2.2: 120,370.4 cells/s / cells(L) x (L - 40), in MB/s (10^6 B)."""
    return 353207.547 * 53 / 155.52 / cells(mtu) * (mtu - 40) / 1e6


def mine(r: dict, uplink: int, short: bool = True) -> bool:
    """Whether run `r` is of the variant judged: B's uplink rate, Lite's short retransmissions or full segments."""
    return r["b_uplink"] == uplink and r["short_rexmit"] == short


def points(runs: list[dict], series: str, seeds: list[int], uplink: int = 53, short: bool = True) -> dict:
    """{(L, B): median goodput over `seeds`} of one series."""
    by: dict = {}
    for r in runs:
        if r["series"] == series and mine(r, uplink, short) and r["seed"] in seeds:
            by.setdefault((r["mtu"], r["B_kib"]), []).append(r["goodput_MBps"])
    return {k: statistics.median(v) for k, v in by.items()}


def b90(pts: dict, mtu: int):
    """The smallest grid B with goodput >= 0.9 G_max(L), or None."""
    return next((b for b in B_FULL if pts.get((mtu, b), 0) >= 0.9 * g_max(mtu)), None)


def judge(runs: list[dict], seeds: list[int], uplink: int = 53, short: bool = True) -> dict:
    """Each claim's numbers and verdict.  The ablation runs at seed 1 only (catalogue 2.3, "1 seed")."""
    tail = points(runs, "host storage", seeds, uplink, short)
    ppd = points(runs, "PPD", seeds, uplink, short)
    abl = points(runs, "no host storage", [1], uplink, short)
    out = {}
    low = [tail[(m, b)] / g_max(m) for m in MTUS for b in B_FULL if b <= 32]
    out["fig3.c1"] = {"max_share_B_le_32": max(low), "holds": max(low) <= 0.2}
    high = [tail[(m, b)] / g_max(m) for m in MTUS for b in B_FULL if b >= 64]
    out["fig3.c2"] = {"min_share_B_ge_64": min(high), "holds": min(high) >= 0.9}
    b9180 = b90(tail, 9180)
    out["fig3.c3"] = {"B90_9180": b9180, "holds": b9180 is not None and b9180 <= 60}
    bs = [b90(tail, m) for m in MTUS]
    nonincr = all(x is not None for x in bs) and bs[0] >= bs[1] >= bs[2]
    share = statistics.mean(tail[(9180, b)] >= tail[(1500, b)] for b in B_FULL)
    out["fig3.c4"] = {"B90": dict(zip(map(str, MTUS), bs)), "B90_non_increasing": nonincr,
                      "share_9180_ge_1500": share, "holds": nonincr and share >= 0.8}
    a1500, a9180 = b90(abl, 1500), b90(abl, 9180)
    steps = None if a1500 is None or a9180 is None else abs(B_FULL.index(a1500) - B_FULL.index(a9180))
    out["fig3.c5"] = {"B90_1500": a1500, "B90_9180": a9180, "grid_steps": steps,
                      "holds": steps is not None and steps <= 1}
    small = [b for b in B_FULL if b <= 48]
    gain = max((ppd[(9180, b)] - tail[(9180, b)]) / g_max(9180) for b in small)
    top = max(ppd[(9180, b)] / g_max(9180) for b in small)
    worst = max(small, key=lambda b: ppd[(9180, b)] - tail[(9180, b)])
    out["fig3.c6"] = {"max_ppd_gain_share": gain, "max_ppd_share": top, "at_B_kib": worst,
                      "ppd_MBps": ppd[(9180, worst)], "tail_MBps": tail[(9180, worst)],
                      "holds": gain <= 0.1 and top <= 0.3}
    pauses = [p for r in runs if r["series"] == "host storage" and mine(r, uplink, short) and r["seed"] in seeds
              and r["mtu"] == 9180 and r["B_kib"] == 32 for p in r["pauses_s"]]
    med = statistics.median(pauses) if pauses else None
    out["fig4.c1"] = {"pauses": len(pauses), "short_le_1_5s": sum(p <= 1.5 for p in pauses),
                      "long_gt_2s": sum(p > 2 for p in pauses), "median_pause_s": med,
                      "holds": med is not None and 1.0 <= med <= 2.0}
    return out


def table(data: dict) -> str:
    """Markdown: each point of atmsim's fig3 beside cellsim's (53 Mb/s uplink; seeds 1-3, the ablation seed 1):
    goodput, and timeouts / fast retransmits in [1 s, 20 s] (medians over the seeds)."""
    runs, seeds = data["runs"], data["seeds"][:3]

    def med(series, mtu, b, key):
        ss = [1] if series == "no host storage" else seeds
        return statistics.median(r[key] for r in runs if r["series"] == series and r["mtu"] == mtu
                                 and r["B_kib"] == b and r["seed"] in ss and mine(r, 53))

    out = ["| series | L | B (KiB) | atmsim MB/s | cellsim MB/s | difference | timeouts a / c | fast retransmits a / c |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in sorted(data["atmsim_fig3"]["points"], key=lambda p: (SERIES.index(p["series"]), p["L"], p["B_kib"])):
        s, mtu, b = p["series"], int(p["L"]), int(p["B_kib"])
        g = med(s, mtu, b, "goodput_MBps")
        out.append(f"| {s} | {mtu} | {b} | {p['goodput_MBps']:.4f} | {g:.4f} | {g - p['goodput_MBps']:+.4f} | "
                   f"{p['timeouts']:g} / {med(s, mtu, b, 'timeouts_window'):g} | "
                   f"{p['fast_retransmits']:g} / {med(s, mtu, b, 'fast_retransmits_window'):g} |")
    return "\n".join(out)


def read_compared(ap, path: str, script: str) -> dict:
    """A stored grid that holds atmsim's fig3 points beside cellsim's (`script` run with --atmsim); a file
    that cannot be read, or has none, is `ap`'s one-line error naming it."""
    import json

    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except OSError as e:
        ap.error(f"points: {path}: cannot be read ({e.strerror})")
    except ValueError:
        ap.error(f"points: {path}: not a JSON file (expected the --out of {script})")
    if not isinstance(d, dict) or "atmsim_fig3" not in d:
        ap.error(f"points: {path} has no atmsim_fig3 (run {script} with --atmsim)")
    return d


if __name__ == "__main__":
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    from atmsim.one_line_args import OneLineParser

    ap = OneLineParser(prog="validation/cellsim/claims.py", description="print the comparison table of a stored grid")
    ap.add_argument("points", help="validation/cellsim/mk95_points.json (run.py with --atmsim)")
    print(table(read_compared(ap, ap.parse_args().points, "run.py")))
