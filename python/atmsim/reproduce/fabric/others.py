"""The fabric's figures on rates, failures and reorder: F3 (a fabric-limited FAP), F9 and F10
(three of FAP 0's links failing under the full-load permutation), F11 (reorder depth from skew)."""
from __future__ import annotations

import math

import pandas as pd

import atmsim
from atmsim.claims import at_least, at_most, check, within
from atmsim.reproduce.harness import Run, figure, summary_of

from . import reorder
from .common import CTL, H, LINK_BPS, LINKS, MTU, P, PERM, W, efficiency, sources_to

F3_LINKS = 12


def _f3_runs(g):
    flows = [(4 + i, 8 + 4 * i) for i in range(4)]
    spec = ", ".join(f'{{name = "s{s}", kind = "udp", src = "h{s}", dst = "h{d}", rate = "400Gbps", datagram = "4122B"}}'
                     for s, d in flows)
    return [Run("fabric-incast", (f"flow=[{spec}]", f"fabric.fap_links={F3_LINKS}", "duration=100us",
                                  "measure.from=30us", "measure.to=100us"))]


@figure("F3", runs=_f3_runs)
def f3(c, runs):
    """FAP 1's four hosts each send at 400 Gb/s to a host on another FAP, over 12 fabric links."""
    (_, r), = runs
    s = summary_of(r)
    ip_bps = sum(f["goodput_bps"] for f in s["flows"]) * MTU / (MTU - 28)
    e = efficiency(MTU)
    # ε_ctl: FAP 1 is no flow's egress here, so no credit leaves it; its links' control is its own
    # FlowStatus cells, whose share of their bytes is measured (credits outrun the fabric here, so
    # its VOQs swing between NORM and OFF at the backoff threshold, a FlowStatus each time).
    fab = s["fabric"]
    eps = fab["control_wire_bytes_made"] / fab["up_link_wire_bytes"]
    closed = min(4 * 400e9, F3_LINKS * float(LINK_BPS) * e * (1 - eps))
    c.write("F3", pd.DataFrame([{"fap_ip_gbps": ip_bps / 1e9, "closed_form_gbps": closed / 1e9, "eps_ctl": eps}]))
    c.claim("c1", statement="a FAP's throughput is min(ports·R, n·r·E(L)·(1 − ε_ctl))", kind="analytic",
            paper_value=f"{closed / 1e9:,.1f} Gb/s ±0.5 % (n = {F3_LINKS}, r = 106.25 Gb/s, E(4,150) = {e:.4f})",
            ours=ip_bps / 1e9, holds=check(("FAP 1's IP rate / closed form", ip_bps / closed, within(0.995, 1.005))),
            rule=f"over [30, 100] µs; ε_ctl = {eps:.4f}, measured: the share of FAP 1's link bytes in its own FlowStatus "
            f"cells ({fab['cells_made']['flow_status']:,} of them; credits for its VOQs leave the egress FAPs); depends on "
            "n = fabric.fap_links, r = fabric.link_rate, the credit-request thresholds")


FAILED = ["fap0.l0", "fap0.l1", "fap0.l2"]


def _fail_runs(g):
    fail = ", ".join(f'{{link = "{link}", at = "50us"}}' for link in FAILED)
    return [Run(PERM, ("duration=150us", "fabric.reach.detect=1us", f"fabric.fail=[{fail}]", "measure.from=60us",
                       "measure.to=150us", "fabric.reach.balanced_input=true"))]


def _by_fap(s):
    from atmsim.toml import tomllib

    text = atmsim.resolve(PERM)
    ends = {f["name"]: (int(f["src"][1:]) // 4, int(f["dst"][1:]) // 4) for f in tomllib.loads(text)["flow"]}
    return {f["name"]: (ends[f["name"]], f["goodput_bps"]) for f in s["flows"]}


@figure("F9", runs=_fail_runs)
def f9(c, runs):
    """Capacity after three of FAP 0's 18 links fail (both directions) at 50 µs, detected after 1 µs, with
    balanced input (FAP 0's ports then grant at 15/18 of their credit rate: docs/fabric.md R9)."""
    (_, r), = runs
    s = summary_of(r)
    flows = _by_fap(s)
    out = sum(g for (src, _), g in flows.values() if src == 0) * MTU / (MTU - 28)
    others = [g * MTU / (MTU - 28) for (src, dst), g in flows.values() if src != 0 and dst != 0]
    into = sum(g for (_, dst), g in flows.values() if dst == 0) * MTU / (MTU - 28)
    e = efficiency(MTU)
    eps = (CTL + H) / (W / e)
    closed = min(4 * 400e9, (LINKS - len(FAILED)) * float(LINK_BPS) * e * (1 - eps))
    c.write("F9", pd.DataFrame([{"fap0_ip_gbps": out / 1e9, "closed_form_gbps": closed / 1e9,
                                 "others_min_gbps": min(others) / 1e9, "others_max_gbps": max(others) / 1e9}]))
    c.claim("c1", statement="after detection the FAP's throughput is min(ports·R, (n − k)·r·E·(1 − ε_ctl)); others unchanged",
            kind="analytic", paper_value=f"{closed / 1e9:,.1f} Gb/s ±1 %; flows touching neither end of FAP 0 at 400 Gb/s ±1 %",
            ours={"fap0_gbps": out / 1e9, "others_min_gbps": min(others) / 1e9},
            holds=check(("FAP 0's IP rate / closed form", out / closed, within(0.99, 1.01)),
                        ("slowest other flow's IP rate / its NIC's", min(others) / 400e9, within(0.99, 1.01))),
            rule="over [60, 150] µs; depends on fabric.reach.detect (1 µs), fabric.reach.balanced_input (on: our reading) "
                 "and the link credit's depth (fabric.llfc)",
            deviation=(f"FAP 0 sends {out / 1e9:,.1f} Gb/s and the slowest flow touching neither end of FAP 0 gets "
                       f"{min(others) / 1e9:,.1f}, with FAP 0's ports granting at {LINKS - len(FAILED)}/{LINKS} of their credit rate "
                       f"({into / 1e9:,.1f} Gb/s reach FAP 0): the elements' buffers still fill to the link credit's "
                       f"bound in bursts ({s['fabric']['llfc_peak_resident_cells']} of "
                       f"{s['fabric']['llfc_bound_cells']} cells at the peak), and link credit, shared by every "
                       "destination of an input link, holds back cells for other FAPs too; DNX's own balanced-input "
                       "rule is not public"))


@figure("F10", runs=_fail_runs)
def f10(c, runs):
    """The cells lost at the failure."""
    (_, r), = runs
    fab = summary_of(r)["fabric"]
    lost = sum(fab["cells_lost"].values())
    parts = fab["cells_lost_at_failure"] + fab["cells_lost_before_detection"] + fab["cells_lost_unreachable"]
    c.claim("c1", statement="lost = cells in the link's pipe and FIFO at t0 + cells sprayed onto it before detection"
            " (+ cells finding no link to their FAP after it, none while every element still reaches every FAP)",
            kind="hard", paper_value="exact (the accounting identity: sent = delivered + dropped + in pipes)",
            ours={"lost": lost, "at_failure": fab["cells_lost_at_failure"], "before_detection": fab["cells_lost_before_detection"],
                  "unreachable": fab["cells_lost_unreachable"],
                  "packets_discarded": fab["packets_discarded"]},
            holds=check(("lost − (at the failure + before detection + unreachable)", lost - parts, within(0, 0)),
                        ("cells lost", lost, at_least(1)), ("cells lost for want of a link", fab["cells_lost_unreachable"], at_most(0))),
            rule="depends on fabric.reach.detect; checked in the fabric's books every run (cells made = received + inside + lost)")


SKEWS = ("0ns", "200ns")


@figure("F11", runs=lambda g: [*(sources_to(0, range(4, 64, 4), f"fabric.link_skew={k}", tag=k) for k in SKEWS), Run(PERM, tag=PERM)])
def f11(c, runs):
    """Reorder depth from link skew in the incast (each source FAP's links carry a fifteenth of 400 Gb/s);
    the depth per stream and at each arrival of these runs and the full-load permutation (reorder.py)."""
    rows = []
    for run, r in runs[:len(SKEWS)]:
        skew_ps = {"0ns": 0, "200ns": 200_000}[run.tag]
        bound = math.ceil(skew_ps * 1e-12 * LINKS * float(LINK_BPS) / (8 * (P + H))) + LINKS
        rows.append({"skew": run.tag, "reorder_depth": summary_of(r)["fabric"]["reorder_depth_max"], "bound": bound})
    df = pd.DataFrame(rows)
    c.write("F11", df)
    # The reorder-depth figure: these runs and the permutation at full load (F5's).
    depth_note = reorder.figure(c, [(_label(run, summary_of(r)), summary_of(r)["fabric"]) for run, r in runs])
    c.claim("c1", statement="reorder depth <= ⌈Δ·n·r / (8·(P + h))⌉ + n cells", kind="analytic",
            paper_value="the bound, exact; <= n with no skew", ours={r.skew: int(r.reorder_depth) for r in df.itertuples()},
            holds=check(("largest depth − bound", int((df.reorder_depth - df.bound).max()), at_most(0))),
            rule="depends on fabric.link_skew, n = fabric.fap_links, r = fabric.link_rate; the fabric not queueing",
            note=depth_note)


def _label(run, s) -> str:
    if run.tag == PERM:
        return f"permutation of {len(s['flows'])} hosts at full load"
    return f"incast of {len(s['flows'])} sources, link skew {run.tag}"
