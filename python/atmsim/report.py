"""Human-readable output: run summaries and claim tables (rich)."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table


def print_summary(s: dict) -> None:
    c = Console()
    c.print(f"[bold]{s['scenario']}[/] seed {s['seed']} ({s['network']}), {s.get('end_time_s', s['duration_s']):.3f} s simulated, "
            f"{s['events']:,} events in {s['wall_s']:.3f} s")
    c.print(f"effective throughput {s['effective_throughput']:.4f} (common normaliser {s['effective_throughput_common']:.4f}), "
            f"fairness {s['fairness']:.3f}, bottleneck {s['bottleneck']}, cell loss ratio {s['cell_loss_ratio']:.4%}")
    t = Table("flow", "delivered", "sent", "retx", "TO", "FR", "loss episodes", "done", title="flows",
              caption="sent/retx: segments; TO: timeouts; FR: fast retransmits; episodes: single/multiple/consecutive")
    for col in t.columns[1:]:
        col.justify, col.no_wrap = "right", True
    for f in s["flows"]:
        done = f["completion_time_s"]
        t.add_row(f["name"], f"{f['bytes_delivered'] / 1e6:.3f} MB", str(f["segments_sent"]), str(f["segments_retransmitted"]),
                  str(f["timeouts"]), str(f["fast_retransmits"]),
                  f"{f['loss_episodes']} ({f['single_loss_episodes']}/{f['multiple_loss_episodes']}/{f['consecutive_loss_episodes']})",
                  "-" if done is None else f"{done:.3f} s")
    c.print(t)
    p = Table("port", "limit", "in", "dropped", "peak", "mean", "busy", title="ports (bottleneck and those that dropped)")
    for col in p.columns[1:]:
        col.justify, col.no_wrap = "right", True
    for q in s["ports"]:
        if q["units_dropped"] > 0 or q["name"] == s["bottleneck"]:
            u = q["unit"]
            p.add_row(q["name"], "-" if q["limit"] is None else f"{q['limit']:,} {u}", f"{q['units_in']:,}", f"{q['units_dropped']:,}",
                      f"{q['peak_occupancy']:,}", f"{q['mean_occupancy']:,.1f}", f"{q['busy_fraction']:.1%}")
    c.print(p)
    a = s["accounting"]
    c.print("accounting: " + ", ".join(f"{k}={v}" for k, v in a.items()))


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
