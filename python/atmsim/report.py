"""Human-readable output: run summaries and claim tables (rich)."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table


#: Why E may exceed 1 (docs/metrics.md, "E is not a physical bound").
E_ABOVE_1 = ("(above 1 is possible: the maximum counts full TCP segments in one direction of the bottleneck; "
             "flows may load both directions, or send datagrams larger than a segment; docs/metrics.md)")


def _ratio(x, fmt: str) -> str:
    return "n/a (nothing to divide by)" if x is None else format(x, fmt)


def summary_lines(s: dict) -> list[str]:
    """The head of a run's summary in words: what each number is and its unit. Packet runs say
    packets where the JSON keys (a contract: docs/metrics.md) say cells."""
    unit = "cells" if s["network"] == "atm" else "packets"
    end = s.get("end_time_s", s["duration_s"])
    e = s["effective_throughput"]
    lines = [f"{s['scenario']}, seed {s['seed']}, {'ATM' if s['network'] == 'atm' else 'packet'} network: "
             f"{end:.3f} s simulated ({s['events']:,} events in {s['wall_s']:.3f} s of wall time)",
             f"effective throughput {_ratio(e, '.4f')}: useful data delivered / the most the bottleneck "
             f"{s['bottleneck']} could carry in full TCP segments in {s['duration_s']:g} s"]
    if s["network"] == "atm" and s.get("effective_throughput_common") is not None:
        lines.append(f"  {s['effective_throughput_common']:.4f} against the packet network's maximum "
                     "(the same line without the cell tax)")
    if e is not None and e > 1:
        lines.append(f"  {E_ABOVE_1}")
    n = len(s["flows"])
    lines.append(f"Jain's fairness index {_ratio(s['fairness'], '.3f')} over the flows' useful bytes "
                 f"(1: equal shares{f'; 1/{n}: one flow gets all' if n > 1 else ''})")
    a = s["accounting"]
    lines.append(f"{unit[:-1]} loss ratio {_ratio(s['cell_loss_ratio'], '.4%')}: {a['cells_dropped']:,} of "
                 f"{a['cells_sent']:,} {unit} sent (data and ACKs, retransmissions included) dropped in queues")
    return lines


def flow_extra_lines(s: dict) -> list[str]:
    """What only some flows report: goodput over the [measure] window, and NDP's and EQDS's trims, NACKs and pulls."""
    lines = []
    for f in s["flows"]:
        parts = []
        if f.get("goodput_bps") is not None:
            parts.append(f"goodput {f['goodput_bps'] / 1e9:.5f} Gb/s over the measure window")
        if f.get("ndp"):
            n = f["ndp"]
            parts.append(f"NDP: {n['trimmed']:,} trimmed headers NACKed, {n['acks']:,} ACKs, {n['nacks']:,} NACKs and "
                         f"{n['pulls']:,} PULLs back at the sender")
        if f.get("eqds"):
            e = f["eqds"]
            parts.append(f"EQDS: {e['trimmed']:,} trimmed headers NACKed, {e['acks']:,} ACKs, {e['nacks']:,} NACKs and "
                         f"{e['pulls']:,} PULLs back at the sender, {e['rts']:,} RTSs sent")
        if parts:
            lines.append(f"{f['name']}: " + "; ".join(parts))
    return lines


def accounting_lines(s: dict) -> list[str]:
    """The accounting identity in words, with its terms (docs/metrics.md)."""
    a = s["accounting"]
    unit = "cells" if s["network"] == "atm" else "packets"
    terms = [("delivered in order", "bytes_delivered"), ("held out of order", "bytes_held_out_of_order"),
             ("duplicates", "bytes_duplicate"), ("dropped in queues", "bytes_dropped_in_queues"),
             ("discarded at reassembly", "bytes_discarded_at_reassembly"),
             ("trimmed by switches", "bytes_trimmed"), ("in flight", "bytes_in_flight")]
    return [f"payload bytes sent {a['bytes_sent']:,} = " + " + ".join(f"{w} {a[k]:,}" for w, k in terms if k in a),
            f"{unit} sent {a['cells_sent']:,} = delivered {a['cells_delivered']:,} + dropped {a['cells_dropped']:,} "
            f"+ in flight {a['cells_in_flight']:,}",
            "accounting: " + ("balanced (both identities hold, every queue stayed within its limit, no line carried more "
                              "than it could)" if a["balanced"] else
                              "NOT balanced (a simulator bug: see the terms under accounting in --json)")]


def print_summary(s: dict) -> None:
    """A run's summary for a person: the head in words, a table of flows, a table of ports (each number
    with its unit), the accounting identity."""
    from rich import box

    c = Console()
    for line in summary_lines(s):
        c.print(line, highlight=False)
    unit = "cells" if s["network"] == "atm" else "packets"
    t = Table("flow", "delivered\n(MB)", "segments\nsent", "retrans-\nmitted", "time-\nouts", "fast re-\ntransmits",
              "loss\nepisodes", "finished", title="flows", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, caption_justify="left",
              caption="delivered: useful bytes, MB = 10^6 B; segments: TCP's (a UDP flow's: datagrams); loss episodes: "
                      "all (single loss/multiple losses/consecutive); finished: when the last byte arrived")
    t.columns[0].no_wrap = True
    for col in t.columns[1:]:
        col.justify, col.no_wrap = "right", True
    for f in s["flows"]:
        done = f["completion_time_s"]
        t.add_row(f["name"], f"{f['bytes_delivered'] / 1e6:.3f}", f"{f['segments_sent']:,}",
                  f"{f['segments_retransmitted']:,}", f"{f['timeouts']:,}", f"{f['fast_retransmits']:,}",
                  f"{f['loss_episodes']} ({f['single_loss_episodes']}/{f['multiple_loss_episodes']}/{f['consecutive_loss_episodes']})",
                  ("aborted" if f.get("aborted") else "not yet") if done is None else f"{done:.3f} s")
    c.print(t)
    for line in flow_extra_lines(s):
        c.print(line, highlight=False)
    p = Table("port", "limit", f"arrived\n({unit})", f"dropped\n({unit})", "peak\nqueue", "mean\nqueue", "busy",
              title="ports (the bottleneck and those that dropped)", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, caption_justify="left",
              caption="queues in the limit's unit, the unit in transmission included; busy: share of the time the line sent")
    p.columns[0].no_wrap = True
    for col in p.columns[1:]:
        col.justify, col.no_wrap = "right", True
    for q in s["ports"]:
        if q["units_dropped"] > 0 or q["name"] == s["bottleneck"]:
            u = q["unit"]
            p.add_row(q["name"], f"none ({u})" if q["limit"] is None else f"{q['limit']:,} {u}", f"{q['units_in']:,}",
                      f"{q['units_dropped']:,}", f"{q['peak_occupancy']:,}", f"{q['mean_occupancy']:,.1f}",
                      f"{q['busy_fraction']:.1%}")
    c.print(p)
    for line in accounting_lines(s):
        c.print(line, highlight=False)


def compact(v, width: int = 60) -> str:
    """A claim's `ours` on one short line: numbers to 3 significant digits, nested dicts as a.b=v."""
    def flat(x, prefix=""):
        if isinstance(x, dict):
            for k, y in x.items():
                yield from flat(y, f"{prefix}{k}.")
        elif isinstance(x, float):
            yield f"{prefix[:-1]}={x:.4g}" if prefix else f"{x:.3g}"
        else:
            yield f"{prefix[:-1]}={x}" if prefix else str(x)

    text = ", ".join(flat(v))
    return text if len(text) <= width else text[: width - 1] + "…"


def print_claims(rows: list[dict]) -> None:
    """The claims of a reproduction, one row each (claim IDs PAPER.FIGURE.cN):
    held, or deviates with its one-line reason. A deviation is a finding the
    reproduction reports, not a failure of the run."""
    from .claim_order import in_paper_order

    c = Console(stderr=False)
    t = Table("claim", "paper", "ours", "verdict")
    t.columns[0].no_wrap = True
    for col in t.columns[1:3]:
        col.overflow = "fold"  # a long name or number is folded onto the next line, never cut with "…"
    for r in in_paper_order(rows):
        verdict = "[green]held[/]" if r["holds"] else "[yellow]deviates[/]"
        ours = compact(r["ours"], 10_000)
        if not r["holds"] and r.get("note"):
            ours += f"\n[dim]{r['note']}[/]"
        t.add_row(r["id"], str(r["paper_value"]), ours, verdict)
    c.print(t)
    if not all(r["holds"] for r in rows):
        c.print("[dim]A deviation is a measured finding, with its reason in the row's note "
                "(claims.json, index.html); it does not make the run fail.[/]")


def print_verdicts(rows: list[dict], page) -> None:
    """A reproduction's claims in short: one line per figure (paper, figure, held/total, the IDs of
    the claims that deviate), then where the full table is. Plain lines, no table to wrap."""
    from .claim_order import in_paper_order

    figures: dict = {}
    for r in in_paper_order(rows):
        figures.setdefault((r["paper"], r["figure"]), []).append(r)
    width = max((len(f"{p} {f}") for p, f in figures), default=0)
    for (paper, fig), rs in figures.items():
        held = sum(bool(r["holds"]) for r in rs)
        off = [r["id"] for r in rs if not r["holds"]]
        tail = f"; deviates: {', '.join(off)}" if off else ""
        print(f"{f'{paper} {fig}':{width}s}  {held}/{len(rs)} held{tail}")
    print(f"each claim with its values and reasons: {page} (or --claims-table)")
