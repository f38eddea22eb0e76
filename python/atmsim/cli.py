"""The `atmsim` command line.

Failures are one line on stderr with exit 2 for invalid input, 1 otherwise
(atmsim/cli_errors.py). Inputs are validated before anything is written;
output folders follow the contract of atmsim/outdir.py (checked and locked
before the run, staged inside the folder, an earlier run's files replaced).

The commands that need no tables (list, validate, show, run) import neither
numpy, pandas, matplotlib nor rich's tables before they need them, so they
start fast; `reproduce` knows the papers only through the registry
(atmsim.reproduce).
"""
from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path

import click

import atmsim
from atmsim.cli_errors import Group
from atmsim.errors import InputError
from atmsim.outdir import OutDir
from atmsim.runner import check_workers
from atmsim.seed_range import SEED_MAX
from atmsim.seed_range import seeds as seeds_in_range

CACHE_SUBDIR = "runs"


def _overrides(values) -> list[str]:
    """Checks `--set` syntax here so the message names --set, not a core key."""
    for v in values:
        if "=" not in v or not v.split("=", 1)[0].strip():
            raise InputError(f"--set: '{v}' is not key=value")
    return list(values)


set_option = click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                          help="Override a scenario key (dotted, e.g. switch.buffer=96KB); repeatable.")
seed_option = click.option("--seed", type=click.IntRange(0, SEED_MAX), default=None,
                           help="Seed (default: the scenario's).")


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(atmsim.version(), prog_name="atmsim")
def main():
    """atmsim: cell-accurate TCP over ATM and packet networks."""


@main.command("list")
def list_cmd():
    """List the built-in scenarios, each with its description."""
    import re
    import textwrap

    for name in atmsim.list_scenarios():
        m = re.search(r'^description\s*=\s*"(.*)"\s*$', atmsim.load_scenario(name), re.M)
        click.echo(name)
        if m:
            click.echo(textwrap.fill(m.group(1), width=78, initial_indent="    ", subsequent_indent="    "))


@main.command()
@click.argument("scenario")
@set_option
def validate(scenario, sets):
    """Check a scenario (file or built-in name) without running it."""
    atmsim.resolve(scenario, _overrides(sets))
    click.echo("ok")


@main.command()
@click.argument("scenario")
@set_option
def show(scenario, sets):
    """Print the fully resolved scenario as TOML (defaults filled in)."""
    click.echo(atmsim.resolve(scenario, _overrides(sets)), nl=False)


#: The traces a run may write (trace_<table>.csv): checked for files of the user's before the run.
TRACE_TABLES = ("window", "queue", "events", "port", "rate", "abr", "fabric")


def _write_run(d: Path, summary: dict, traces: dict, fmt: str) -> int:
    """summary.json, the ports table (`ports.csv`/`.parquet`: `tables.ports_frame`) and a file per
    trace (the port log only if a port was logged, `trace.port`); returns the number of traces written."""
    (d / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    from .tables import ports_frame, write

    write(ports_frame(summary), d / "ports", ("csv", "parquet") if fmt == "both" else (fmt,))
    names = [k for k in traces if k != "port" or traces.rows(k)]
    for name in names:  # a table at a time, in chunks of rows: a port log may hold millions
        pq = None
        parquet_file = None
        try:
            for i, frame in enumerate(traces.chunks(name)):
                if fmt in ("csv", "both"):
                    frame.to_csv(d / f"trace_{name}.csv", index=False, header=i == 0, mode="w" if i == 0 else "a")
                if fmt in ("parquet", "both"):
                    import pyarrow as pa
                    import pyarrow.parquet as parquet

                    table = pa.Table.from_pandas(frame, preserve_index=False)
                    if pq is None:  # through a Python file: see atmsim.tables.write
                        parquet_file = open(d / f"trace_{name}.parquet", "wb")
                        pq = parquet.ParquetWriter(parquet_file, table.schema)
                    pq.write_table(table)
        finally:
            if pq is not None:
                pq.close()
            if parquet_file is not None:
                parquet_file.close()
    return len(names)


@main.command()
@click.argument("scenario")
@set_option
@seed_option
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write summary.json and the traces (trace_<table>.csv/.parquet) here.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object on stdout.")
@click.option("--trace", is_flag=True, help="Record traces (always on with --out).")
@click.option("--trace-format", type=click.Choice(["csv", "parquet", "both"]), default="csv", show_default=True,
              help="File format of the traces written with --out.")
@click.option("--pcap", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write pcap files of the ports and hosts of [capture] (default: every host of a flow and the bottleneck) here.")
def run(scenario, sets, seed, out, as_json, trace, trace_format, pcap):
    """Run one scenario and print its summary."""
    sets = _overrides(sets)
    atmsim.resolve(scenario, sets)  # all input errors before any output
    same = out is not None and pcap is not None and os.path.realpath(out) == os.path.realpath(pcap)
    dirs = {}
    if out is not None:
        exts = {"csv": ["csv"], "parquet": ["parquet"], "both": ["csv", "parquet"]}[trace_format]
        writes = ["summary.json", *(f"{t}.{x}" for t in ["ports", *(f"trace_{t}" for t in TRACE_TABLES)] for x in exts)]
        dirs["out"] = OutDir(out, "--out", "run", writes=writes)
    if pcap is not None and not same:
        dirs["pcap"] = OutDir(pcap, "--pcap", "run")  # one command: it replaces an earlier run's files
    from .progress import RunProgress

    with contextlib.ExitStack() as stack:
        for o in dirs.values():  # checked and locked before the run
            stack.enter_context(o)
        # The pcap files are written as the run goes (bounded memory), into the staging folder, which
        # moves into place only when everything is written: a failed or interrupted run leaves nothing.
        captures = stack.enter_context(dirs["out" if same else "pcap"].stage()) if pcap is not None else False
        # Silent unless the run lasts more than a few seconds.
        progress = RunProgress(scenario)
        try:
            result = atmsim.run(scenario, sets, seed=seed, trace=trace or out is not None, capture=captures,
                                progress=progress)
        finally:
            progress.close()
        s = result.summary
        if same:
            n_traces = _write_run(captures, s, result.traces, trace_format)
        elif out is not None:
            with dirs["out"].stage() as d:
                n_traces = _write_run(d, s, result.traces, trace_format)
    if as_json:
        click.echo(json.dumps(s))
    else:
        from .report import print_summary

        print_summary(s)
        if out is not None:
            click.echo(f"wrote {out}/ (summary.json and {n_traces} traces)")
        if pcap is not None:
            click.echo(f"wrote {len(result.captures)} pcap files to {pcap}/")
    if not s["accounting"]["balanced"]:
        click.echo("atmsim: error: accounting: identity violated (a simulator bug)", err=True)
        return 1


def _printable(text: str) -> str:
    """One line as the user wrote its values, control characters escaped: a value holding \\x85 or
    \\u2028 (line breaks to Python and some terminals) split a sweep's one-line-per-point report."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _int_list(text):
    return None if text is None else [int(x) for x in text.split(",") if x.strip()]


def _seed_list(text):
    """`--seeds`: each in the one range of seeds (`seed_range.py`), or one line naming the option."""
    try:
        return None if text is None else seeds_in_range(text, "--seeds")
    except ValueError as e:
        raise InputError(str(e)) from None


class _ReproduceCommand(click.Command):
    """`reproduce --help` ends with every paper and its figures, listed only
    when help is asked for (a paper's module imports numpy and pandas)."""

    def format_epilog(self, ctx, formatter):
        from . import reproduce as registry

        super().format_epilog(ctx, formatter)
        formatter.write_paragraph()
        formatter.write_text("Papers (PAPER) and their figures (--figure ID):")
        with formatter.indentation():
            formatter.write_dl([(n, ", ".join(registry.figures_of(n))) for n in registry.names()]
                               + [("all", "every paper above")])


@main.command(cls=_ReproduceCommand)
@click.argument("paper")
@click.option("--figure", multiple=True, help="Figure ID, repeatable (default: all figures implemented for the paper).")
@click.option("--quick", is_flag=True, help="Reduced grid for tests and CI.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("out"), show_default=True,
              help="Folder for the figures' csv/png, claims.json and index.html (figures accumulate; README: output folders).")
@click.option("--workers", type=click.IntRange(1, 1024), default=None, help="Worker processes (default: CPUs).")
@click.option("--cache/--no-cache", default=True, show_default=True,
              help=f"Keep each run in DIR/{CACHE_SUBDIR}/ so an interrupted reproduction resumes.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: when stderr is a terminal).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run on a dask.distributed cluster: its scheduler's address, or local:N to start one.")
@click.option("--claims-table", is_flag=True,
              help="Print every claim with the paper's value, ours and the verdict (default: one line per figure).")
@click.option("--ks", default=None, hidden=True, help="Testing: comma-separated buffer grid k.")
@click.option("--seeds", default=None, hidden=True, help="Testing: comma-separated seeds.")
@click.option("--duration", default=None, hidden=True, help="Testing: simulated time per bulk run.")
def reproduce(paper, figure, quick, out, workers, cache, progress, scheduler, claims_table, ks, seeds, duration):
    """Reproduce a paper's figures and check its claims (writes csv, png, claims.json, index.html).

    PAPER is a paper's ID or `all`; `--figure ID` reproduces one figure, and
    repeated, several (an unknown ID lists the paper's figures).
    """
    from . import reproduce as registry
    from .reproduce import harness

    papers = registry.select(paper, figure or None)
    if scheduler is None:
        check_workers(workers)
    try:
        ks_list = _int_list(ks)
    except ValueError:
        raise InputError("--ks: expected comma-separated integers") from None
    test = {"ks": ks_list, "seeds": _seed_list(seeds), "duration": duration}
    # Every figure's runs are declared (and every input checked) before any output.
    plans = [harness.plan(p, list(dict.fromkeys(figure)) if figure else None, quick, **test) for p in papers]
    t0 = time.perf_counter()
    cache_dir = Path(out) / CACHE_SUBDIR if cache else None
    rows = []
    from .html_report import PAGE, pages, paper_dirs

    # The names known before the run: every selected figure's table and image, the claims, the
    # provenance and the report pages (also of the papers already in DIR, which the index rewrites).
    rels = ["." if paper != "all" else p.paper.id for p in plans]
    writes = [f"{rel}/{f}.{ext}" for rel, p in zip(rels, plans) for f in p.figures for ext in ("csv", "parquet", "png")]
    writes += [f"{rel}/{n}" for rel in rels for n in ("claims.json", "reproduction.json", PAGE)]
    if os.path.isdir(out):  # False for a name the system refuses: OutDir then says why, naming --out
        writes += [(p / PAGE).relative_to(out) for p in paper_dirs(Path(out))]
    with OutDir(out, "--out", "reproduce", merge=True, writes=[os.path.normpath(w) for w in [PAGE, *writes]]) as o:
        with o.stage() as d:
            for plan in plans:
                rel = plan.paper.id if paper == "all" else "."
                (d / rel).mkdir(exist_ok=True)
                for name in ("claims.json", "reproduction.json"):  # the writers merge into them
                    o.seed(f"{rel}/{name}")
                rows += harness.execute(plan, d / rel, workers=workers, cache_dir=cache_dir, progress=progress,
                                        scheduler=scheduler)
        o.write_after(pages(out))
        index = Path(out) / PAGE
    from .report import print_claims, print_verdicts

    if claims_table:
        print_claims(rows)
    else:
        print_verdicts(rows, index)
    held = sum(r["holds"] for r in rows)
    click.echo(f"{held}/{len(rows)} claims hold; wrote {out}/ in {time.perf_counter() - t0:.1f} s")


@main.command()
@click.argument("scenario")
@click.option("--vary", multiple=True, metavar="KEY=V1,V2,...", help="A grid axis: a scenario key and its values; repeatable.")
@set_option
@click.option("--seeds", default=None, help="Comma-separated seeds (default: the scenario's seed).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("sweep"), show_default=True,
              help="Folder for runs/flows/points (and failures) as csv and Parquet; a rerun replaces them.")
@click.option("--workers", type=click.IntRange(1, 1024), default=None, help="Worker processes (default: CPUs).")
@click.option("--cache/--no-cache", default=True, show_default=True,
              help=f"Keep each run in DIR/{CACHE_SUBDIR}/ so an interrupted sweep resumes.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: when stderr is a terminal).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run on a dask.distributed cluster: its scheduler's address, or local:N to start one.")
def sweep(scenario, vary, sets, seeds, out, workers, cache, progress, scheduler):
    """Run a scenario over a grid of key values x seeds (writes runs.csv, flows.csv, points.csv)."""
    from . import sweep as sw

    if scheduler is None:
        check_workers(workers)
    try:
        grid = sw.parse_vary(vary)
    except ValueError as e:
        raise InputError(str(e)) from None
    seed_list = _seed_list(seeds) or [None]
    try:
        sw.check_size(grid, seed_list)  # points x seeds, before anything is expanded or written
    except ValueError as e:
        raise InputError(str(e)) from None
    fixed = _overrides(sets)
    sw.plan(scenario, grid, fixed, [None])  # an error common to every point fails before any output
    t0 = time.perf_counter()
    from . import tables

    writes = [f"{t}.{ext}" for t in ("runs", "flows", "points", "failures") for ext in ("csv", "parquet")]
    with OutDir(out, "--out", "sweep", writes=writes) as o:  # checked and locked before the first run
        runs, flows, failures = sw.run(scenario, grid, fixed, seed_list, workers=workers,
                                       cache_dir=Path(out) / CACHE_SUBDIR if cache else None, progress=progress,
                                       scheduler=scheduler)
        with o.stage() as d:
            if len(runs):
                pts = sw.medians(runs, list(grid))
                tables.write(runs, d / "runs")
                tables.write(flows, d / "flows")
                tables.write(pts, d / "points")
            if len(failures):
                tables.write(failures, d / "failures")
    import pandas as pd

    if len(runs):
        with pd.option_context("display.width", 160, "display.max_columns", 12):
            click.echo(pts.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    for f in failures.to_dict("records"):
        seed = "" if pd.isna(f["seed"]) else f" seed={int(f['seed'])}"  # no seed: the point itself is invalid
        line = f"atmsim: sweep point {' '.join(f'{k}={f[k]}' for k in grid)}{seed}: {f['reason']}"
        click.echo(_printable(line), err=True)
    failed = f"; {len(failures)} failed (failures.csv)" if len(failures) else ""
    click.echo(f"{len(runs)} runs{failed}; wrote {out}/ in {time.perf_counter() - t0:.1f} s")
    if len(runs) and not runs.balanced.all():
        click.echo("atmsim: error: accounting: identity violated in some run (a simulator bug)", err=True)
        return 1
    if len(failures):
        return 1


@main.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
def plot(directory):
    """Plot a run written by `atmsim run --out DIR` (windows, losses, queues) to DIR/run.png."""
    path = Path(directory) / "summary.json"
    if not path.exists():
        raise InputError(f"directory: {directory} holds no summary.json (write one with `atmsim run SCENARIO --out DIR`)")
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(summary, dict) or not {"flows", "ports", "accounting"} <= summary.keys():
            raise ValueError("it lacks flows, ports or accounting")
    except (OSError, ValueError) as e:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise InputError(f"{path}: not a summary written by `atmsim run --out` ({' '.join(str(e).split())})") from None
    from .outdir import own_files, refuse_foreign
    from .plotting import PNG, plot_run

    refuse_foreign(directory, "run", [PNG], "directory")  # never over a run.png of the user's
    png = plot_run(directory)
    own_files(directory, "run", [png])  # the next run into DIR replaces it with its own
    click.echo(f"wrote {png}")


@main.command()
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
def report(directory):
    """Write DIR/index.html (and a page per paper): each reproduced figure beside the paper's numbers and its claims."""
    from .html_report import PAGE, pages

    if not Path(directory).is_dir():
        raise InputError(f"directory: {directory}: not a directory")
    with OutDir(directory, "directory", "reproduce", merge=True) as o:  # locked: not while a reproduction writes
        try:
            o.write_after(pages(directory))
        except FileNotFoundError as e:
            raise InputError(f"directory: {e}") from None
    click.echo(f"wrote {Path(directory) / PAGE}")


@main.command()
@click.option("--scenario", default="aron97-topo1-atm", show_default=True, help="Scenario to time (file or built-in name).")
@set_option
@click.option("--repeat", type=click.IntRange(1, 100), default=3, show_default=True,
              help="Runs to time; the median is reported.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
def bench(scenario, sets, repeat, as_json):
    """Measure simulator speed on one scenario (wall time of the event loop; median of --repeat runs)."""
    sets = _overrides(sets)
    atmsim.resolve(scenario, sets)
    walls, s = [], None
    for _ in range(repeat):
        s = atmsim.run(scenario, sets).summary
        walls.append(s["wall_s"])
    import resource

    wall = sorted(walls)[len(walls) // 2]
    simulated = s.get("end_time_s", s["duration_s"])
    # ru_maxrss is KiB on Linux, bytes on macOS.
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    rss_mb = rss / 2**20 if sys.platform == "darwin" else rss / 1024
    report = {
        "scenario": s["scenario"],
        "network": s["network"],
        "simulated_s": simulated,
        "wall_s_median": wall,
        "wall_s_all": walls,
        "events": s["events"],
        "unit_hops": s["unit_hops"],
        "events_per_s": s["events"] / wall if wall > 0 else None,
        "events_per_unit_hop": s["events"] / max(1, s["unit_hops"]),
        "unit_hops_per_wall_s": s["unit_hops"] / wall if wall > 0 else None,
        "wall_s_per_simulated_s": wall / simulated if simulated > 0 else None,
        "peak_rss_mb": rss_mb,
    }
    if as_json:
        click.echo(json.dumps(report))
        return
    for k, v in report.items():
        if isinstance(v, list):
            v = ", ".join(f"{x:.4g}" for x in v)
        click.echo(f"{k:24s} {v:,.4g}" if isinstance(v, float) else f"{k:24s} {v}")


#: Where each command is documented (docs/ in the source tree), shown at the end of its --help.
DOCS = {"list": "docs/scenarios.md", "validate": "docs/scenarios.md", "show": "docs/scenarios.md",
        "run": "docs/scenarios.md, docs/metrics.md (summary, traces), docs/captures.md (--pcap)",
        "reproduce": "docs/reproductions.md", "sweep": "docs/scenarios.md (sweeps), README.md",
        "plot": "docs/metrics.md", "report": "docs/reproductions.md", "bench": "docs/performance.md"}
for _name, _doc in DOCS.items():
    main.commands[_name].epilog = f"Docs: {_doc}."
main.epilog = "Docs: README.md and docs/ in the source tree; `atmsim COMMAND --help` for each command."


if __name__ == "__main__":
    main()
