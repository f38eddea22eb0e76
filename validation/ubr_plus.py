"""Tail drop, EPD, Selective Drop and Fair Buffer Allocation side by side on
the N-source UBR configuration of the Ohio State group's TCP-over-UBR+ work
(Goyal et al. 1998, §3: N identical TCP bulk transfers S_i -> SW1 -> SW2 ->
D_i, 155.52 Mb/s links of 5 ms each, the SW1 -> SW2 port the bottleneck):
efficiency and Jain's fairness index over a buffer sweep, for 5 and 15
sources (issue 28; docs/atm.md "UBR+: per-VC buffer accounting").

    python validation/ubr_plus.py [--out out/ubr-plus] [--duration 10] [--seeds 3]
    python validation/ubr_plus.py --quick      # one buffer, 5 sources, 1 seed

The TCP and ATM sections are jain96-5src's (timeout-only TCP with a 100 ms
tick, 512-byte segments, window scaling, AAL5 with LLC/SNAP) with the ABR
section taken out: every VC is UBR. EPD's threshold is set to the same
R = 0.9 K at which Selective Drop and FBA start testing, so the one
difference between EPD and them is the per-VC test.

Efficiency is the delivered TCP payload over what the bottleneck could
carry in the run (the summary's `effective_throughput`); fairness is Jain's
index of the flows' delivered bytes. Each value is the mean over seeds
(the seed draws each host's TCP timer phase).
"""

from __future__ import annotations

import re
from pathlib import Path

import atmsim
from atmsim.one_line_args import OneLineParser
from atmsim.seed_range import argparse_seed_count

POLICIES = [
    ("tail", ["switch.policy=tail"]),
    ("EPD", ["switch.policy=epd"]),
    ("SD", ["switch.policy=selective-drop"]),
    ("FBA", ["switch.policy=fba"]),
]
BUFFERS = [12000, 24000, 36000]  # cells: about 1, 2 and 3 bandwidth-delay products (30 ms RTT)
SOURCES = [5, 15]


def scenario(n: int) -> str:
    """jain96-5src without ABR and with `n` sources: the N-source UBR configuration."""
    text = atmsim.load_scenario("jain96-5src")
    text = re.sub(r"\n\[abr\][\s\S]*?(?=\n\[report\])", "\n", text)
    head = text[: text.index("[topology]")]
    head = re.sub(r'name = ".*"', f'name = "ubr-{n}src"', head, count=1)
    head = re.sub(r'description = ".*"', f'description = "N-source UBR configuration, {n} TCP sources"', head, count=1)
    hosts = [f"S{i}" for i in range(1, n + 1)] + [f"D{i}" for i in range(1, n + 1)]
    out = [head, "[topology]", f"hosts = {hosts!r}".replace("'", '"'), 'switches = ["SW1", "SW2"]', ""]
    link = '[[link]]\nends = ["{}", "{}"]\nrate = "155.52Mbps"\ndelay = "5ms"\n'
    out += [link.format(f"S{i}", "SW1") for i in range(1, n + 1)]
    out.append(link.format("SW1", "SW2"))
    out += [link.format("SW2", f"D{i}") for i in range(1, n + 1)]
    out += [f'[[flow]]\nname = "T{i}"\nsrc = "S{i}"\ndst = "D{i}"\n' for i in range(1, n + 1)]
    return "\n".join(out)


def jain(xs: list[float]) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if any(xs) else 0.0


def _common(buffer: int, sets: list[str], duration: float) -> list[str]:
    """The buffer and duration of every arm; EPD's threshold at 0.9 of the buffer, as R is for
    Selective Drop and FBA (set only for EPD: a key of a policy that does not run is refused)."""
    epd = [f"switch.epd_threshold={round(0.9 * buffer)}"] if "switch.policy=epd" in sets else []
    return [f"switch.buffer={buffer}cells", *epd, f"duration={duration}s"]


def measure(n: int, buffer: int, sets: list[str], duration: float, seeds: int) -> dict:
    """Efficiency, fairness, cell loss ratio and timeouts, means over seeds."""
    text = scenario(n)
    common = _common(buffer, sets, duration)
    rows = []
    for seed in range(1, seeds + 1):
        s = atmsim.run(text, common + sets, seed=seed).summary
        bn = next(p for p in s["ports"] if p["name"] == s["bottleneck"])
        rows.append({
            "efficiency": s["effective_throughput"],
            "fairness": jain([f["bytes_delivered"] for f in s["flows"]]),
            "clr": s["cell_loss_ratio"],
            "timeouts": sum(f["timeouts"] for f in s["flows"]) / n,
            "drops": bn["drops_by_reason"],
        })
    mean = {k: sum(r[k] for r in rows) / len(rows) for k in ("efficiency", "fairness", "clr", "timeouts")}
    mean["drops"] = rows[0]["drops"]
    return mean


def spread(n: int, buffer: int, sets: list[str], duration: float, seeds: int) -> tuple:
    """Mean efficiency, and fairness's mean and standard deviation, over `seeds` seeds."""
    import statistics

    common = _common(buffer, sets, duration)
    runs = [atmsim.run(scenario(n), common + sets, seed=k).summary for k in range(1, seeds + 1)]
    fair = [jain([f["bytes_delivered"] for f in s["flows"]]) for s in runs]
    return statistics.mean(s["effective_throughput"] for s in runs), (statistics.mean(fair), statistics.stdev(fair))


def synchrony(n: int, buffer: int, sets: list[str], duration: float) -> dict:
    """Timeouts of all flows, the mean number of other flows timing out within
    100 ms of each, and the bottleneck's busy fraction (seed 1, traces on)."""
    common = _common(buffer, sets, duration)
    r = atmsim.run(scenario(n), common + sets, seed=1, trace=True)
    ev = r.traces["events"]
    to = ev[ev.kind == "timeout"]
    t, f = to.t.to_numpy(), to.flow.to_numpy()
    others = [len(set(f[(abs(t - ti) < 0.1) & (f != fi)])) for ti, fi in zip(t, f)]
    bn = next(p for p in r.summary["ports"] if p["name"] == r.summary["bottleneck"])
    return {"timeouts": len(t), "others": sum(others) / max(len(others), 1), "busy": bn["busy_fraction"]}


def main(argv=None) -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("out/ubr-plus"))
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--seeds", type=argparse_seed_count, default=3, help="runs each point at seeds 1 to N (default 3)")
    ap.add_argument("--quick", action="store_true", help="5 sources, 12000 cells, 1 seed, 3 s")
    ap.add_argument("--figure", type=Path, default=None, help="write the figure here")
    args = ap.parse_args(argv)
    sources, buffers = (SOURCES, BUFFERS)
    if args.quick:
        sources, buffers, args.seeds, args.duration = [5], [12000], 1, 3.0
    args.out.mkdir(parents=True, exist_ok=True)
    for n in sources:
        (args.out / f"ubr-{n}src.toml").write_text(scenario(n), encoding="utf-8")
    results = {}
    print("| sources | buffer (cells) | policy | efficiency | fairness | CLR | timeouts/flow |")
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for n in sources:
        for b in buffers:
            for label, sets in POLICIES:
                m = measure(n, b, sets, args.duration, args.seeds)
                results[(n, b, label)] = m
                print(f"| {n} | {b} | {label} | {m['efficiency']:.3f} | {m['fairness']:.3f} | {m['clr']:.4f} | {m['timeouts']:.1f} |")
    if not args.quick:
        print()
        print("Sensitivity (15 sources, 24000 cells): Z of Selective Drop and FBA at R = 0.9 K")
        print("| policy | Z | efficiency | fairness |")
        print("| --- | ---: | ---: | ---: |")
        for label, policy in (("SD", "selective-drop"), ("FBA", "fba")):
            for z in (0.5, 0.8, 1.0, 1.5):
                m = measure(15, 24000, [f"switch.policy={policy}", f"switch.fair_share.z={z}"], args.duration, args.seeds)
                print(f"| {label} | {z} | {m['efficiency']:.3f} | {m['fairness']:.3f} |")
        print()
        print("Five sources, 36000 cells, 10 seeds: fairness mean ± standard deviation")
        print("| policy | efficiency | fairness |")
        print("| --- | ---: | ---: |")
        cases = [("EPD", ["switch.policy=epd"])]
        cases += [(f"SD, Z = {z}", ["switch.policy=selective-drop", f"switch.fair_share.z={z}"]) for z in (0.8, 1.0, 1.5)]
        cases += [("FBA", ["switch.policy=fba"])]
        for label, sets in cases:
            e, f = spread(5, 36000, sets, args.duration, 10)
            print(f"| {label} | {e:.3f} | {f[0]:.3f} ± {f[1]:.3f} |")
        print()
        print("Mechanism (24000 cells, seed 1): timeouts, and how many other flows time out within 100 ms of each")
        print("| sources | policy | timeouts | others within 100 ms | bottleneck busy |")
        print("| ---: | --- | ---: | ---: | ---: |")
        for n in sources:
            for label, sets in POLICIES[1:]:
                m = synchrony(n, 24000, sets, args.duration)
                print(f"| {n} | {label} | {m['timeouts']} | {m['others']:.1f} of {n - 1} | {m['busy']:.3f} |")
        figure(results, sources, buffers, args.figure or args.out / "ubr-plus.png")
    return results


def figure(results: dict, sources: list[int], buffers: list[int], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(sources), figsize=(5 * len(sources), 6), sharex=True, squeeze=False)
    for col, n in enumerate(sources):
        for row, key in enumerate(("efficiency", "fairness")):
            ax = axes[row][col]
            for label, _ in POLICIES:
                ax.plot(buffers, [results[(n, b, label)][key] for b in buffers], marker="o", label=label)
            ax.set_ylim(0, 1.05)
            ax.set_title(f"{n} sources: {key}")
            ax.grid(alpha=0.3)
            if row == 1:
                ax.set_xlabel("switch buffer (cells)")
    axes[0][0].legend()
    fig.suptitle("UBR+ on the N-source configuration: tail, EPD, Selective Drop, FBA (TCP, 30 ms RTT)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"figure: {path}")


if __name__ == "__main__":
    main()
