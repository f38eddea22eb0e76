"""Binary feedback (EFCI) against ERICA on a parking lot of n congested
trunks (issue 28, docs/jain96.md "Binary feedback: EFCI switches"): the long
VC crosses all n trunks, one cross VC crosses each trunk alone; max-min
fairness gives every VC half of a trunk. Per n, the long VC's and the cross
VCs' rates, the long VC's rate against the cross VCs' and against its
max-min share, and the share of backward RM cells that told each source to
decrease (CI), as a table and a figure. Three switches: ERICA, EFCI marking, and EFCI marking with
relative rate marking (CI in backward RM cells). Three layouts: "1-ms links" (every
link 1 ms: the long VC's round trip grows with n as well), "equal RTT" (the
cross VCs' access links lengthened so every VC has the long VC's round
trip: only the number of trunks differs) and "RTT only" (the control: one
trunk, the long VC's access links lengthened to the round trip it has
across n trunks with 1-ms links: only the round trip differs).

    python validation/efci_beatdown.py [--out out/efci-beatdown] [--hops 1 2 3 4] [--duration 12]

Each row's window is [2 s, duration]: the difference of a run of `duration`
and one of 2 s (a run's first two seconds are the same run).
"""

from __future__ import annotations

from pathlib import Path

import atmsim
from atmsim.one_line_args import OneLineParser

LINE = "155.52Mbps"
TRUNK_DELAY_MS = 1.0
# The same source parameters for both switches: TM 4.0's defaults for RIF
# and RDF (1/16), which a binary-feedback source needs (jain96's RIF = 1
# would jump to PCR on every backward RM cell without CI).
SOURCE = """
[abr]
pcr = "155.52Mbps"
icr = "10Mbps"
rif = 0.0625
rdf = 0.0625
nrm = 32
tbe = 512
"""
CASES = [
    ("ERICA", ["abr.switch=erica"]),
    ("EFCI", ["abr.switch=efci"]),
    # Relative rate marking as well: CI in backward RM cells at congested switches.
    ("EFCI + backward CI", ["abr.switch=efci", "abr.efci.backward_ci=true"]),
]
LAYOUTS = ["1-ms links", "equal RTT", "RTT only"]
# Data cells/s of a 155.52 Mb/s line less the sources' forward RM cells (one
# in Nrm = 32): the max-min share is half of it, times ERICA's target
# utilisation 0.9 under ERICA (EFCI switches have no target).
DATA_CAPACITY = 155.52e6 / 424 * 31 / 32
TARGET = {"ERICA": 0.9, "EFCI": 1.0, "EFCI + backward CI": 1.0}


def scenario(hops: int, duration: float = 6.0, layout: str = "equal RTT") -> str:
    """The parking lot as TOML text: switches SW0..SWn in a chain; the long
    VC L from A (at SW0) to B (at SWn); cross VC Ci from Xi (at SW(i-1)) to
    Yi (at SWi). Trunks of 1 ms. "1-ms links": every link 1 ms. "equal
    RTT": every VC's one-way delay is the long VC's, (n + 2) ms, so the VCs
    differ only in the trunks they cross (the cross VCs' access links take
    (n + 1)/2 ms each). "RTT only": one trunk and one cross VC, the long
    VC's access links (n + 1)/2 ms each (its one-way delay across n trunks
    of the first layout)."""
    n = trunks(hops, layout)
    longer = (hops + 1) * TRUNK_DELAY_MS / 2
    access = longer if layout == "equal RTT" else TRUNK_DELAY_MS
    long_access = longer if layout == "RTT only" else TRUNK_DELAY_MS
    hosts = ["A", "B"] + [h for i in range(1, n + 1) for h in (f"X{i}", f"Y{i}")]
    switches = [f"SW{i}" for i in range(n + 1)]
    links = [("A", "SW0", long_access), (f"SW{n}", "B", long_access)]
    links += [(f"SW{i - 1}", f"SW{i}", TRUNK_DELAY_MS) for i in range(1, n + 1)]
    links += [link for i in range(1, n + 1) for link in ((f"X{i}", f"SW{i - 1}", access), (f"SW{i}", f"Y{i}", access))]
    flows = [("L", "A", "B")] + [(f"C{i}", f"X{i}", f"Y{i}") for i in range(1, n + 1)]
    text = f"""name = "efci-parking-lot-{n}"
description = "Parking lot of {n} congested trunks: the long VC L crosses all, cross VC Ci trunk i."
network = "atm"
duration = "{duration}s"
seed = 1

[atm]
encapsulation = "aal5-llc"

[tcp]
variant = "timeout-only"
mss = "512B"
window = "1024KiB"
delayed_ack = false
tick = "100ms"

[switch]
# Lossless: the rates are ABR's alone, no TCP loss recovery mixed in.
buffer = "100000 cells"
policy = "tail"
{SOURCE}
[report]
bottleneck = "SW0->SW1"

[topology]
hosts = {hosts!r}
switches = {switches!r}
""".replace("'", '"')
    for a, b, d in links:
        text += f'\n[[link]]\nends = ["{a}", "{b}"]\nrate = "{LINE}"\ndelay = "{d}ms"\n'
    for name, src, dst in flows:
        text += f'\n[[flow]]\nname = "{name}"\nsrc = "{src}"\ndst = "{dst}"\n'
    return text


def trunks(hops: int, layout: str) -> int:
    """Congested trunks of the layout: n, or one for the "RTT only" control."""
    return 1 if layout == "RTT only" else hops


def _sources(summary: dict) -> dict:
    return {s["flow"]: s for s in summary["abr"]["sources"] if s["direction"] == "data"}


def window(hops: int, sets: list[str], t1: float, t2: float, layout: str = "equal RTT") -> dict:
    """Per data VC over [t1, t2]: data cells per second, and the share of
    its backward RM cells that carried CI (EFCI runs only)."""
    a = atmsim.run(scenario(hops, t1, layout), sets).summary
    b = atmsim.run(scenario(hops, t2, layout), sets).summary
    assert b["accounting"]["balanced"] and b["cell_loss_ratio"] == 0.0
    sa, sb = _sources(a), _sources(b)
    out = {}
    for flow, s in sb.items():
        brm = s["brm_received"] - sa[flow]["brm_received"]
        ci = s.get("brm_with_ci", 0) - sa[flow].get("brm_with_ci", 0)
        out[flow] = {"rate": (s["data_cells_sent"] - sa[flow]["data_cells_sent"]) / (t2 - t1),
                     "ci_share": ci / brm if brm else 0.0}
    return out


def beatdown(switch: str, hops: int, t1: float = 2.0, t2: float = 12.0, layout: str = "equal RTT") -> dict:
    """The long VC's rate against the cross VCs' mean (max-min: equal, every
    trunk being shared by L and one cross VC) and against its max-min share
    (half a trunk's data capacity, at ERICA's target under ERICA); the share
    of backward RM cells with CI, the long VC's and the cross VCs' mean."""
    w = window(hops, dict(CASES)[switch], t1, t2, layout)
    k = trunks(hops, layout)
    long = w["L"]["rate"]
    cross = sum(w[f"C{i}"]["rate"] for i in range(1, k + 1)) / k
    share = TARGET[switch] * DATA_CAPACITY / 2
    return {"long": long, "cross": cross, "long_over_cross": long / cross, "long_over_share": long / share,
            "ci_long": w["L"]["ci_share"], "ci_cross": sum(w[f"C{i}"]["ci_share"] for i in range(1, k + 1)) / k}


def main(argv=None) -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("out/efci-beatdown"))
    ap.add_argument("--hops", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--duration", type=float, default=12.0)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"Data cells/s over [2 s, {args.duration:g} s]; max-min share {TARGET['ERICA'] * DATA_CAPACITY / 2:,.0f} "
          f"(ERICA, U = 0.9), {DATA_CAPACITY / 2:,.0f} (EFCI).\n")
    print("| layout | switch | n | long VC | cross VCs (mean) | long / cross | long / max-min share "
          "| BRM with CI: long, cross |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = {}
    for layout in LAYOUTS:
        for switch, _ in CASES:
            for n in args.hops:
                r = beatdown(switch, n, 2.0, args.duration, layout)
                rows[(layout, switch, n)] = r
                ci = f"{r['ci_long']:.2f}, {r['ci_cross']:.2f}" if switch != "ERICA" else "-"
                print(f"| {layout} | {switch} | {n} | {r['long']:,.0f} | {r['cross']:,.0f} | {r['long_over_cross']:.2f} "
                      f"| {r['long_over_share']:.2f} | {ci} |")
    figure(rows, args.hops, args.out / "efci-beatdown.png")


def figure(rows: dict, hops: list[int], path: Path) -> None:
    """The long VC's rate over the cross VCs' against n, one panel per
    layout, one line per switch."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(LAYOUTS), figsize=(9, 3.4), sharey=True)
    for ax, layout in zip(axes, LAYOUTS):
        for (switch, _), colour in zip(CASES, ("C0", "C3", "C2")):
            ax.plot(hops, [rows[(layout, switch, n)]["long_over_cross"] for n in hops], marker="o", color=colour,
                    label=switch)
        ax.axhline(1.0, color="grey", linewidth=0.6)
        ax.set_title(layout, fontsize=9)
        ax.set_xticks(hops)
        ax.set_ylim(0, 1.2)
        ax.set_xlabel("congested trunks (n)" if layout != "RTT only" else "round trip of n trunks")
    axes[0].set_ylabel("long VC's rate / cross VCs' mean")
    axes[0].legend(loc="lower left", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"figure: {path}")


if __name__ == "__main__":
    main()
