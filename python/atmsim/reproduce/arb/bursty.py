"""Bias against bursty traffic (Chang, Huynh & Gray §4.4, Figs. 16-17): four
short TCP-SS connections and a long one (node 5) with an 8-packet window
into a gateway of 5-25 packets, drop tail and random drop; and the same
with ARB senders, which the paper argued for without simulating.

One mark per 50 s period after a 50 s transient: node 5's delivered data
(whole 1000-byte packets) over the bottleneck's capacity in that period,
from runs of 50, 100, ..., 250 s of the same point (deterministic: each is
the prefix of the next)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from atmsim.reproduce.harness import figure

LINE_BPS, DATA_B, PAYLOAD_B = 800e3, 1000, 960
ENDS = (50, 100, 150, 200, 250)
WINDOW_SHARE = 8 * DATA_B * 8 / (2 * (449.3 + 100) + 11.44) * 1e3 / LINE_BPS  # 7.2 %: node 5's window-limited share
D56 = {"fig16": 449.3, "fig17": 453.0}


def _buffers(g):
    return list(range(5, 26, 4)) if g.quick else list(range(5, 26))


def _runs(g, kind="tcp", gateways=("tail", "random-drop"), d56s=(449.3, 453.0)):
    out = []
    for d56 in d56s:
        for gw in gateways:
            for b in _buffers(g):
                o = (f"link.node-5-gateway.delay={round(d56 * 1000)}us", f"router.policy={gw}", f"switch.buffer={b}packets")
                out += [g.run("arb-bursty", kind, o + (f"duration={t}s",), 1, False, {"d56": d56, "gateway": gw, "buffer": b, "end": t})
                        for t in ENDS]
    return out


def _marks(pairs) -> pd.DataFrame:
    rows = []
    by = {}
    for run, s in pairs:
        t = run.tag
        by.setdefault((t["d56"], t["gateway"], t["buffer"]), {})[t["end"]] = (s, run)
    for (d56, gw, b), ends in by.items():
        for t0, t1 in zip(ENDS[:-1], ENDS[1:]):
            s0, s1 = ends[t0][0], ends[t1][0]
            d5 = s1["flows"][4]["bytes_delivered"] - s0["flows"][4]["bytes_delivered"]
            lost = [s1["flows"][i]["segments_lost"] - s0["flows"][i]["segments_lost"] for i in range(5)]
            sent = sum(s1["flows"][i]["segments_sent"] - s0["flows"][i]["segments_sent"] for i in range(5))
            rows.append({"d56": d56, "gateway": gw, "buffer": b, "period_end_s": t1,
                         "share5": d5 / PAYLOAD_B * DATA_B * 8 / (LINE_BPS * (t1 - t0)),
                         "drop_share5": lost[4] / sum(lost) if sum(lost) else float("nan"),
                         "loss_ratio": sum(lost) / sent if sent else 0.0})
    return pd.DataFrame(rows)


def _plot(c, name, df, title):
    import matplotlib.pyplot as plt
    from atmsim.plotting import save

    fig, ax = plt.subplots(figsize=(7, 3.5))
    for gw, g in df.groupby("gateway"):
        ax.plot(g.buffer, 100 * g.share5, "o" if gw == "tail" else "x", ms=4, label=gw)
        m = g.groupby("buffer").share5.mean()
        ax.plot(m.index, 100 * m.values, "--" if gw == "tail" else "-", lw=0.8)
    ax.axhline(100 * WINDOW_SHARE, color="0.5", lw=0.6)
    ax.set_xlabel("gateway buffer (packets)")
    ax.set_ylabel("node 5 throughput (% of 800 kb/s)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    save(fig, c.out / f"{name}.png")


def _biased(df) -> dict:
    small = df[df.buffer < 14]
    return {gw: float((g.share5 < 0.065).mean()) for gw, g in small.groupby("gateway")}


@figure("fig16", runs=lambda g: _runs(g))
def fig16(c, runs):
    """TCP-SS bias against bursty traffic, d56 = 449.3 ms (§4.4, Fig. 16)."""
    df = _marks(runs)
    c.write("fig16", df[df.d56 == D56["fig16"]])
    d = df[df.d56 == D56["fig16"]]
    _plot(c, "fig16", d, "TCP-SS, node 5 with d56 = 449.3 ms")
    b = _biased(d)
    c.claim("fig16", "c1", "TCP-SS is biased against bursty traffic when the buffer is under 14 packets", "shape", "§4.4, Fig. 16", b,
            all(v >= 0.8 for v in b.values()) and len(b) == 2, "buffers < 14: node 5's share < 6.5 % in >= 80 % of marks, both gateways")
    big = {gw: float(g[g.buffer >= 20].share5.mean()) for gw, g in d.groupby("gateway")}
    c.claim("fig16", "c2", "large buffers remove most of the bias", "shape", "§4.4, Fig. 16", big,
            all(v >= 0.7 * WINDOW_SHARE for v in big.values()), "buffers >= 20: node 5's mean share >= 0.7 x 7.2 %, both gateways")


@figure("fig17", runs=lambda g: _runs(g))
def fig17(c, runs):
    """TCP-SS bias against bursty traffic, d56 = 453 ms (§4.4, Fig. 17)."""
    df = _marks(runs)
    d = df[df.d56 == D56["fig17"]]
    c.write("fig17", d)
    _plot(c, "fig17", d, "TCP-SS, node 5 with d56 = 453 ms")
    b = _biased(d)
    c.claim("fig17", "c1", "the bias at small buffers, d56 = 453 ms", "shape", "§4.4, Fig. 17", b,
            all(v >= 0.8 for v in b.values()) and len(b) == 2, "as fig16.c1")
    dt = d[(d.gateway == "tail") & (d.buffer < 14)]
    inb = float(((dt.share5 >= 0.005) & (dt.share5 <= 0.05)).mean())
    mx = float(dt.drop_share5.max())
    c.claim("fig17", "c2", "drop tail: node 5 gets 1-4 % of the bandwidth and up to 100 % of the drops", "value", "1-4%, up to 100% (§4.4)",
            {"in_band": inb, "max_drop_share": mx}, inb >= 0.8 and mx >= 0.8, "buffers < 14: share in [0.5, 5] % in >= 80 % of marks; drop share >= 0.8 in some mark",
            "" if inb >= 0.8 else "the bias is stronger than the paper's at the smallest buffers: node 5 falls below 0.5 % (it times out repeatedly)")
    dr = d[(d.gateway == "random-drop") & (d.buffer < 14)]
    inr = float(((dr.share5 >= 0.005) & (dr.share5 <= 0.06)).mean())
    md = float(dr.drop_share5.mean())
    c.claim("fig17", "c3", "random drop: node 5 gets 1-5 % and around 20 % of the drops", "value", "1-5%, around 20% (§4.4)",
            {"in_band": inr, "mean_drop_share": md}, inr >= 0.8 and 0.1 <= md <= 0.4, "buffers < 14: share in [0.5, 6] % in >= 80 % of marks; mean drop share in [0.1, 0.4]")
    sens = {}
    for gw in ("tail", "random-drop"):
        a = df[(df.gateway == gw) & (df.d56 == D56["fig16"])].groupby("buffer").share5.mean()
        z = df[(df.gateway == gw) & (df.d56 == D56["fig17"])].groupby("buffer").share5.mean()
        sens[gw] = float((a - z).abs().mean())
    c.claim("fig17", "c4", "drop tail is more sensitive to the propagation delay", "shape", "§4.4", sens, sens["tail"] > sens["random-drop"],
            "mean over buffers of |share(449.3) - share(453)|: drop tail > random drop")


@figure("fig16-arb", runs=lambda g: _runs(g, "arb", ("tail",), (449.3,)))
def fig16_arb(c, runs):
    """ARB with the bursty connection (§4.4 last paragraphs; not simulated in the paper)."""
    df = _marks(runs)
    c.write("fig16-arb", df)
    _plot(c, "fig16-arb", df, "ARB senders, node 5 with d56 = 449.3 ms")
    per = df.groupby("buffer").share5.mean()
    lr = float(df.loss_ratio.max())
    ok = lr <= 0.001 and bool(((per - 0.2).abs() <= 0.05).all())
    c.claim("fig16-arb", "c1", "ARB does not have the bias against bursty traffic", "shape", "argued, not simulated (§4.4)",
            {"share5_min": float(per.min()), "share5_max": float(per.max()), "max_loss_ratio": lr}, ok,
            "drops <= 0.1 % of packets sent and node 5's share within 0.2 +- 0.05 at every buffer (equal shares of greedy senders)",
            "" if ok else "equal shares at buffers >= 21; below, five receivers' accumulation thresholds (3 packets each) exceed the "
            "buffer, so it overflows, and node 5, whose NAKs and replies take 1.1 s, recovers slowest")
