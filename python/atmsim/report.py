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
    t = Table("flow", "delivered B", "segs sent", "retx", "timeouts", "fast rtx", "loss episodes (single/multi/consec)", "done at s")
    for f in s["flows"]:
        done = f["completion_time_s"]
        t.add_row(f["name"], f"{f['bytes_delivered']:,}", str(f["segments_sent"]), str(f["segments_retransmitted"]),
                  str(f["timeouts"]), str(f["fast_retransmits"]),
                  f"{f['loss_episodes']} ({f['single_loss_episodes']}/{f['multiple_loss_episodes']}/{f['consecutive_loss_episodes']})",
                  "-" if done is None else f"{done:.3f}")
    c.print(t)
    p = Table("port", "unit", "limit", "in", "dropped", "peak", "mean", "busy")
    for q in s["ports"]:
        if q["units_dropped"] > 0 or q["name"] == s["bottleneck"]:
            p.add_row(q["name"], q["unit"], str(q["limit"]), f"{q['units_in']:,}", f"{q['units_dropped']:,}",
                      str(q["peak_occupancy"]), f"{q['mean_occupancy']:.1f}", f"{q['busy_fraction']:.3f}")
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
    """The claims of a reproduction, one row each (claim IDs PAPER.FIGURE.cN)."""
    c = Console(stderr=False)
    t = Table("claim", "paper", "ours", "holds")
    t.columns[0].no_wrap = True
    for r in rows:
        t.add_row(r["id"], str(r["paper_value"])[:30], compact(r["ours"]), "[green]yes[/]" if r["holds"] else "[red]no[/]")
    c.print(t)
