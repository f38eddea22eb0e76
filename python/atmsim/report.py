"""Human-readable output: run summaries and claim tables (rich)."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from .claims import KNIFE_EDGE_MARGIN

#: How the console and the report mark a row whose `knife_edge` is true (claims.knife_edge).
KNIFE = "on a knife edge"


#: Why E may exceed 1 (docs/metrics.md, "E is not a physical bound").
E_ABOVE_1 = ("(above 1 is possible: the maximum counts full TCP segments in one direction of the bottleneck; "
             "flows may load both directions, or send datagrams larger than a segment; docs/metrics.md)")


#: The transports whose flows the fabric table shows (receiver-driven, trimmed rather than dropped).
FABRIC_KINDS = ("ndp", "eqds")


def span(seconds: float) -> str:
    """A span of simulated time in the unit that shows it: a 2.5-ms EQDS incast as "2,471.4 µs",
    not "0.002 s"."""
    if seconds >= 1:
        return f"{seconds:,.3f} s"
    if seconds >= 0.01:
        return f"{seconds * 1e3:,.3f} ms"
    return f"{seconds * 1e6:,.1f} µs"


def _ratio(x, fmt: str) -> str:
    return "n/a (nothing to divide by)" if x is None else format(x, fmt)


def summary_lines(s: dict) -> list[str]:
    """The head of a run's summary in words: what each number is and its unit. Packet runs say
    packets where the JSON keys (a contract: docs/metrics.md) say cells."""
    unit = "cells" if s["network"] == "atm" else "packets"
    end = s.get("end_time_s", s["duration_s"])
    e = s["effective_throughput"]
    lines = [f"{s['scenario']}, seed {s['seed']}, {'ATM' if s['network'] == 'atm' else 'packet'} network: "
             f"{span(end)} simulated ({s['events']:,} events in {s['wall_s']:.3f} s of wall time)",
             f"effective throughput {_ratio(e, '.4f')}: useful data delivered / the most the bottleneck "
             f"{s['bottleneck']} could carry in full TCP segments in {span(s['duration_s'])}"]
    if s["network"] == "atm" and s.get("effective_throughput_common") is not None:
        lines.append(f"  {s['effective_throughput_common']:.4f} against the packet network's maximum "
                     "(the same line without the cell tax)")
    if e is not None and e > 1:
        lines.append(f"  {E_ABOVE_1}")
    # Over the flows that started: a workload's flow whose trigger never fired is no share (docs/metrics.md).
    unstarted = s.get("flows_not_started", 0)
    n = len(s["flows"]) - unstarted
    over = f"the {n} flows that started' useful bytes ({unstarted} never did)" if unstarted else "the flows' useful bytes"
    lines.append(f"Jain's fairness index {_ratio(s['fairness'], '.3f')} over {over} "
                 f"(1: equal shares{f'; 1/{n}: one flow gets all' if n > 1 else ''})")
    a = s["accounting"]
    lines.append(f"{unit[:-1]} loss ratio {_ratio(s['cell_loss_ratio'], '.4%')}: {a['cells_dropped']:,} of "
                 f"{a['cells_sent']:,} {unit} sent (data and ACKs, retransmissions included) dropped in queues")
    return lines


def flow_extra_lines(s: dict) -> list[str]:
    """What only some TCP-family flows report: goodput over the [measure] window (NDP and EQDS flows show
    it in their own table)."""
    return [f"{f['name']}: goodput {f['goodput_bps'] / 1e9:.5f} Gb/s over the measure window"
            for f in s["flows"] if f.get("kind") not in FABRIC_KINDS and f.get("goodput_bps") is not None]


def slowdown_lines(s: dict) -> list[str]:
    """The run's FCT slowdown percentiles by flow size (completed NDP and EQDS flows; docs/metrics.md)."""
    classes = s.get("fct_slowdown") or []
    if not classes:
        return []
    return ["FCT slowdown (FCT / the unloaded ideal; nearest rank) by flow size: "
            + "; ".join(f"{c['class']}: {c['flows']:,} flows, p50 {c['p50']:.3f}, p99 {c['p99']:.3f}, "
                        f"p99.9 {c['p999']:.3f}" for c in classes)]


def fabric_table(flows: list[dict]):
    """NDP's and EQDS's flows: what a fabric study reads (FCT in µs, slowdown, trims, NACKs, PULLs)
    rather than TCP's windows and loss episodes."""
    from rich import box

    goodput = any(f.get("goodput_bps") is not None for f in flows)
    kinds = len({f["kind"] for f in flows}) > 1
    cols = ["flow", *(["kind"] if kinds else []), "deli-\nvered\n(MB)", "FCT\n(µs)", "slow-\ndown", "sent", "re-\nsent",
            "trims", "NACKs", "PULLs", *(["good-\nput\n(Gb/s)"] if goodput else [])]
    t = Table(*cols, title="flows", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, caption_justify="left",
              caption="sent, resent: data packets; FCT: from the flow's start to its last byte acknowledged; slowdown: "
                      "FCT over the unloaded ideal; trims: its packets cut to headers by switches (each NACKed)"
                      + ("; goodput over the measure window" if goodput else ""))
    t.columns[0].no_wrap = True
    for col in t.columns[1:]:
        col.justify, col.no_wrap = "right", True
    for f in flows:
        x = f.get(f["kind"]) or {}
        done, slow = f["completion_time_s"], f.get("fct_slowdown")
        t.add_row(f["name"], *([f["kind"]] if kinds else []), f"{f['bytes_delivered'] / 1e6:.3f}",
                  ("aborted" if f.get("aborted") else "not yet") if done is None else f"{done * 1e6:,.1f}",
                  "-" if slow is None else f"{slow:.3f}", f"{f['segments_sent']:,}", f"{f['segments_retransmitted']:,}",
                  f"{x.get('trimmed', 0):,}", f"{x.get('nacks', 0):,}", f"{x.get('pulls', 0):,}",
                  *([f"{f['goodput_bps'] / 1e9:.4f}" if f.get("goodput_bps") is not None else "-"] if goodput else []))
    return t


def _n(x: int, one: str, many: str) -> str:
    return f"{x:,} {one if x == 1 else many}"


def mechanism_lines(s: dict) -> list[str]:
    """What the run's congestion signals did, in words: RED's drops split by cause, ECN's marks and the
    senders' window reductions, EFCI's marks and the congestion indications (CI) its sources received
    (docs/metrics.md). Nothing for a run without them."""
    lines = []
    for q in s["ports"]:
        by = q.get("drops_by_reason", {})
        if "red" not in by and "red_forced_drops" not in q:
            continue
        forced = q.get("red_forced_drops")
        red, tail = by.get("red", 0), by.get("tail", 0)
        if not (red or tail or q.get("units_marked") or q["name"] == s["bottleneck"]):
            continue  # as the ports table: the bottleneck and the ports that dropped
        split = (f"{_n(red - forced, 'early drop', 'early drops')} (average queue between min_th and max_th), "
                 f"{forced:,} forced (average at or above max_th)" if forced is not None else
                 f"{_n(red, 'RED drop', 'RED drops')} (early and forced: told apart only with router.red.ecn)")
        lines.append(f"RED at {q['name']}: {split}, {tail:,} tail (buffer full)"
                     + (f"; {_n(q['units_marked'], 'packet', 'packets')} marked CE instead of an early drop"
                        if q.get("units_marked") is not None else ""))
    flows = [f for f in s["flows"] if "ecn_reductions" in f]
    if flows:
        total = {k: sum(f[k] for f in flows) for k in ("ecn_ce_received", "ecn_echoes", "ecn_reductions", "ecn_cwr_sent")}
        lines.append(f"ECN: the receivers got {_n(total['ecn_ce_received'], 'CE-marked packet', 'CE-marked packets')} "
                     f"and sent {_n(total['ecn_echoes'], 'ACK', 'ACKs')} with ECE; the senders cut their window "
                     f"{_n(total['ecn_reductions'], 'time', 'times')} (at most once a window) and sent "
                     f"{_n(total['ecn_cwr_sent'], 'CWR', 'CWRs')}")
    abr = s.get("abr") or {}
    if abr.get("switch") == "efci":
        marked = sum(q.get("units_marked") or 0 for q in s["ports"])
        src = abr.get("sources", [])
        brm, ci = sum(x["brm_received"] for x in src), sum(x.get("brm_with_ci", 0) for x in src)
        lines.append(f"EFCI: the switches marked {_n(marked, 'cell', 'cells')} (congestion experienced); "
                     f"{ci:,} of {_n(brm, 'backward RM cell', 'backward RM cells')} the sources received carried "
                     f"CI (a rate cut each)")
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
    fabric = [f for f in s["flows"] if f.get("kind") in FABRIC_KINDS]
    if fabric:
        c.print(fabric_table(fabric))
    tcp = [f for f in s["flows"] if f.get("kind") not in FABRIC_KINDS]
    t = Table("flow", "delivered\n(MB)", "segments\nsent", "retrans-\nmitted", "time-\nouts", "fast re-\ntransmits",
              "loss\nepisodes", "finished", title="flows", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, caption_justify="left",
              caption="delivered: useful bytes, MB = 10^6 B; segments: TCP's (a UDP flow's: datagrams); loss episodes: "
                      "all (single loss/multiple losses/consecutive); finished: when the last byte arrived")
    t.columns[0].no_wrap = True
    for col in t.columns[1:]:
        col.justify, col.no_wrap = "right", True
    for f in tcp:
        done = f["completion_time_s"]
        t.add_row(f["name"], f"{f['bytes_delivered'] / 1e6:.3f}", f"{f['segments_sent']:,}",
                  f"{f['segments_retransmitted']:,}", f"{f['timeouts']:,}", f"{f['fast_retransmits']:,}",
                  f"{f['loss_episodes']} ({f['single_loss_episodes']}/{f['multiple_loss_episodes']}/{f['consecutive_loss_episodes']})",
                  ("aborted" if f.get("aborted") else "not yet") if done is None else f"{done:.3f} s")
    if tcp:
        c.print(t)
    for line in flow_extra_lines(s) + slowdown_lines(s):
        c.print(line, highlight=False)
    # occupancy.percentiles: each watched port's time-weighted percentiles, in units.
    pct = any("occupancy_units_p50" in q for q in s["ports"])
    extra = ["percentiles\n50/90/99/99.9"] if pct else []
    p = Table("port", "limit", f"arrived\n({unit})", f"dropped\n({unit})", "peak\nqueue", "mean\nqueue", *extra, "busy",
              title="ports (the bottleneck and those that dropped)", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, caption_justify="left",
              caption="queues in the limit's unit, the unit in transmission included; busy: share of the time the line sent"
                      + (f"; percentiles: the most {unit} held for 50, 90, 99, 99.9 % of the time" if pct else ""))
    p.columns[0].no_wrap = True
    for col in p.columns[1:]:
        col.justify, col.no_wrap = "right", True
    for q in s["ports"]:
        if q["units_dropped"] > 0 or q["name"] == s["bottleneck"]:
            u = q["unit"]
            cells = ["/".join(str(q[f"occupancy_units_{k}"]) for k in ("p50", "p90", "p99", "p999"))
                     if "occupancy_units_p50" in q else "-"] if pct else []
            p.add_row(q["name"], f"none ({u})" if q["limit"] is None else f"{q['limit']:,} {u}", f"{q['units_in']:,}",
                      f"{q['units_dropped']:,}", f"{q['peak_occupancy']:,}", f"{q['mean_occupancy']:,.1f}", *cells,
                      f"{q['busy_fraction']:.1%}")
    c.print(p)
    for line in mechanism_lines(s) + accounting_lines(s):
        c.print(line, highlight=False)


#: A number's unit by the end of its name in a claim's `ours` (the reproductions' naming: `total_mbps`,
#: `rtt_ms`, `clr_pct`, ...), longest first; "bytes" are written in KB/MB/GB (K = 1000, as the papers).
_KEY_UNITS = (("_KB_per_s", "KB/s"), ("_cells_per_s", "cells/s"), ("_MBps", "MB/s"), ("_Mbps", "Mb/s"), ("_mbps", "Mb/s"),
              ("_percent", "%"), ("_pct", "%"), ("_bytes", "bytes"), ("_packets", "packets"),
              ("_ms", "ms"), ("_us", "µs"), ("_MB", "MB"), ("_KB", "KB"), ("_kB", "kB"), ("_s", "s"))

#: A single number's unit by what the claim's rule says it measured (its test's name).
_NAME_UNITS = ((r"\bbytes$", "bytes"), (r"\(MB/s\)", "MB/s"), (r"\(Mb/s\)", "Mb/s"), (r"\(cells\)", "cells"),
               (r"\(packets\b", "packets"), (r"\(KiB\b", "KiB"), (r"\(s\)|, s$", "s"), (r"\(%\)", "%"))


def _unit_of_key(key: str):
    return next((u for end, u in _KEY_UNITS if key.endswith(end)), None)


def _unit_of_rule(rule: str):
    """The unit of a claim's single tested number, from the name its rule gives it (`claims.check` writes
    "NAME BAND"); None for several tests or a name without one."""
    import re

    tested = (rule or "").rsplit(": ", 1)[-1]
    if " and " in tested:
        return None
    name = re.sub(r" (<=|>=|<|>|in [\[(]).*$", "", tested)
    return next((u for pattern, u in _NAME_UNITS if re.search(pattern, name)), None)


def _with_unit(x: float, unit, digits: int) -> str:
    if unit == "bytes":
        for scale, prefix in ((1e9, "GB"), (1e6, "MB"), (1e3, "KB")):
            if abs(x) >= scale:
                return f"{x / scale:.3g} {prefix}"
        return f"{x:.3g} B"
    text = f"{x:.{digits}g}" if isinstance(x, float) else str(x)
    return f"{text} {unit}" if unit else text


def compact(v, width: int = 60, unit=None) -> str:
    """A claim's `ours` on one short line: numbers to 3 significant digits (4 in a dict), nested dicts as
    a.b=v, each number with its unit where its name gives one (`_KEY_UNITS`; `unit` for a bare number)."""
    def flat(x, prefix="", key=""):
        if isinstance(x, dict):
            for k, y in x.items():
                yield from flat(y, f"{prefix}{k}.", str(k))
        elif isinstance(x, (int, float)) and not isinstance(x, bool):
            if prefix:
                yield f"{prefix[:-1]}=" + _with_unit(x, _unit_of_key(key), 4)
            else:
                yield _with_unit(x, unit, 3)
        else:
            yield f"{prefix[:-1]}={x}" if prefix else str(x)

    text = ", ".join(flat(v))
    return text if len(text) <= width else text[: width - 1] + "…"


def ours_text(row: dict, width: int = 60) -> str:
    """A claims row's `ours` as the report and the console show it: with units (`compact`), a bare
    number's from its rule ("484 KB" against "<= 560 KB", not 4.84e+05)."""
    return compact(row["ours"], width, _unit_of_rule(row.get("rule", "")))


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
        verdict = ("[green]held[/]" if r["holds"] else "[yellow]deviates[/]") + (f"\n[red]{KNIFE}[/]" if r.get("knife_edge") else "")
        ours = ours_text(r, 10_000)
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
        edge = [r["id"] for r in rs if r.get("knife_edge")]
        tail = (f"; deviates: {', '.join(off)}" if off else "") + (f"; {KNIFE}: {', '.join(edge)}" if edge else "")
        print(f"{f'{paper} {fig}':{width}s}  {held}/{len(rs)} held{tail}")
    if any(r.get("knife_edge") for r in rows):
        print(f"{KNIFE}: the value lies within {KNIFE_EDGE_MARGIN:.0%} of its threshold (|margin| <= {KNIFE_EDGE_MARGIN:g}); "
              "the verdict would flip with a small change")
    print(f"each claim with its values and reasons: {page} (or --claims-table)")
