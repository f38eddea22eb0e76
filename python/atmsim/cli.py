"""The `atmsim` command line (DESIGN.md contract).

Exit codes: 0 success, 2 invalid input (one line on stderr naming the key
and the problem), 1 anything else. Outputs are written to a temporary
directory beside the target and moved into place only when complete, so a
failed command leaves no half-written output.
"""
from __future__ import annotations

import contextlib
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import click

import atmsim
from atmsim import ScenarioError


class InputError(Exception):
    """Invalid input found by the Python layer: 'key: problem'."""


def fail(msg: str, code: int = 2):
    click.echo(f"atmsim: error: {msg}", err=True)
    sys.exit(code)


class Group(click.Group):
    def main(self, *args, **kwargs):
        kwargs["standalone_mode"] = False
        try:
            rv = super().main(*args, **kwargs)
        except click.exceptions.Exit as e:
            sys.exit(e.exit_code)
        except click.exceptions.Abort:
            fail("aborted", 1)
        except click.UsageError as e:
            # One line, no usage block.
            fail(e.format_message().replace("\n", " "))
        except (ScenarioError, InputError) as e:
            fail(str(e))
        except BrokenPipeError:
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


def _overrides(values) -> list[str]:
    for v in values:
        if "=" not in v or not v.split("=", 1)[0].strip():
            raise InputError(f"--set: '{v}' is not key=value")
    return list(values)


@contextlib.contextmanager
def atomic_dir(target: Path):
    """Yields a temporary directory; on success its files land in `target`."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        if target.exists():
            for f in target.iterdir():
                if f.is_file():
                    shutil.copy2(f, tmp / f.name)
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if target.exists():
        for f in tmp.iterdir():
            f.replace(target / f.name)
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        tmp.rename(target)


set_option = click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a scenario key.")


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(atmsim.version(), prog_name="atmsim")
def main():
    """atmsim: cell-accurate TCP over ATM and packet networks."""


@main.command("list")
def list_cmd():
    """List the built-in scenarios."""
    for name in atmsim.list_scenarios():
        click.echo(name)


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


@main.command()
@click.argument("scenario")
@set_option
@click.option("--seed", type=int, default=None, help="Seed (default: the scenario's).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, help="Write summary.json and traces here.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--trace", is_flag=True, help="Record traces (written with --out).")
def run(scenario, sets, seed, out, as_json, trace):
    """Run one scenario and print its summary."""
    sets = _overrides(sets)
    atmsim.resolve(scenario, sets)  # all input errors before any output
    result = atmsim.run(scenario, sets, seed=seed, trace=trace or out is not None)
    s = result.summary
    if out is not None:
        with atomic_dir(out) as d:
            (d / "summary.json").write_text(json.dumps(s, indent=1) + "\n")
            for name, frame in result.traces.items():
                frame.to_csv(d / f"trace_{name}.csv", index=False)
    if as_json:
        click.echo(json.dumps(s))
        return
    from .report import print_summary

    print_summary(s)
    if not s["accounting"]["balanced"]:
        click.echo("atmsim: accounting identity violated (a bug): see the accounting table", err=True)
        return 1


@main.command()
@click.argument("paper")
@click.option("--figure", default=None, help="Figure ID (default: all of the paper's figures).")
@click.option("--quick", is_flag=True, help="Reduced grid for tests and CI.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("out"), show_default=True)
@click.option("--workers", type=click.IntRange(1, 256), default=None, help="Worker processes (default: CPUs).")
def reproduce(paper, figure, quick, out, workers):
    """Reproduce a paper's figures and check its claims (writes csv, png, claims.json)."""
    from .reproduce import PAPERS, figures_of

    if paper != "all" and paper not in PAPERS:
        raise InputError(f"paper: unknown paper '{paper}' (implemented: {', '.join(sorted(PAPERS))}, all)")
    papers = sorted(PAPERS) if paper == "all" else [paper]
    if figure is not None and (paper == "all" or figure not in figures_of(paper)):
        raise InputError(f"--figure: paper {paper} has no figure '{figure}' (implemented: {', '.join(figures_of(papers[0]))})")
    t0 = time.perf_counter()
    rows = []
    with atomic_dir(out) as d:
        for p in papers:
            sub = d / p if paper == "all" else d
            sub.mkdir(exist_ok=True)
            rows += PAPERS[p].reproduce([figure] if figure else figures_of(p), quick=quick, out=sub, workers=workers)
    from .report import print_claims

    print_claims(rows)
    click.echo(f"wrote {out}/ in {time.perf_counter() - t0:.1f} s")


@main.command()
@click.option("--scenario", default="aron97-topo1-atm", show_default=True)
@set_option
@click.option("--repeat", type=click.IntRange(1, 100), default=3, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def bench(scenario, sets, repeat, as_json):
    """Measure simulator speed on one scenario (wall time of the event loop)."""
    sets = _overrides(sets)
    atmsim.resolve(scenario, sets)
    walls, s = [], None
    for _ in range(repeat):
        s = atmsim.run(scenario, sets).summary
        walls.append(s["wall_s"])
    wall = sorted(walls)[len(walls) // 2]
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    report = {
        "scenario": s["scenario"],
        "simulated_s": s["end_time_s"],
        "wall_s_median": wall,
        "wall_s_all": walls,
        "events": s["events"],
        "unit_hops": s["unit_hops"],
        "events_per_s": s["events"] / wall,
        "events_per_unit_hop": s["events"] / max(1, s["unit_hops"]),
        "unit_hops_per_wall_s": s["unit_hops"] / wall,
        "wall_s_per_simulated_s": wall / s["end_time_s"],
        "peak_rss_mb": rss_mb,
    }
    if as_json:
        click.echo(json.dumps(report))
        return
    for k, v in report.items():
        click.echo(f"{k:24s} {v:,.4g}" if isinstance(v, float) else f"{k:24s} {v}")


if __name__ == "__main__":
    main()
