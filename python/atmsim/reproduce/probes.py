"""What every paper's mechanism probes share (`reproduce/*/anatomy.py`): a
paper's `probes(what, extra)` names its probes by label, each with `run()` (the
run a figure declares, so its note quotes the probe's own numbers) and
`measure(summary, traces)`; the same probes run alone from the command line
(`python -m atmsim.reproduce.PAPER.anatomy WHAT [--set KEY=VALUE ...]`)."""
from __future__ import annotations

import argparse
import json
import warnings

import atmsim
from atmsim.errors import InputError
from atmsim.one_line_args import OneLineParser
from atmsim.console import plain_where_needed


def bind(probes, prog: str):
    """The `runs(what)`, `measure(what, pairs)` and `main(argv)` of a paper's `probes(what, extra=())`;
    `prog` is how the command line is invoked."""

    def runs(what: str) -> list:
        """The runs of `what`'s probes, for a figure to declare."""
        return [p.run() for p in probes(what).values()]

    def measure(what: str, pairs) -> dict:
        """`what`'s measures by label, from the (run, (summary, raw traces)) pairs of `runs(what)`, in
        its order; under another reading of the setup each run's twin stands in its place (readings.py)."""
        pairs = list(pairs)
        labelled = list(probes(what).items())
        got = {run: res for run, res in pairs}
        if not all(p.run() in got for _, p in labelled):
            if len(pairs) != len(labelled):
                raise ValueError(f"{what}: {len(pairs)} runs for {len(labelled)} probes")
            got = {p.run(): res for (_, p), (_, res) in zip(labelled, pairs)}
        out = {}
        for label, p in labelled:
            s, raw = got[p.run()]
            out[label] = p.measure(s, atmsim.trace_frames(raw))
        return out

    def main(argv=None) -> None:
        """The command line: runs WHAT's probes (with any extra overrides, `--set KEY=VALUE` or bare
        KEY=VALUE) and prints their measures as JSON. It keeps the atmsim CLI's contract: a missing
        or unknown WHAT or an invalid override is one line and exit 2, a probe whose measure fails
        on the run the overrides made one line and exit 1, Ctrl-C one line and exit 130; never a
        traceback."""
        plain_where_needed()
        parser = OneLineParser(prog=prog)
        parser.add_argument("what", help="the figure whose probes to run")
        parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                            help="a scenario override applied to every run; repeatable")
        parser.add_argument("overrides", nargs=argparse.ZERO_OR_MORE, default=[], help="more overrides, KEY=VALUE")
        args = parser.parse_args(argv)
        overrides = [*args.sets, *args.overrides]
        for v in overrides:
            if "=" not in v or not v.split("=", 1)[0].strip():
                parser.error(f"--set: '{v}' is not key=value")
        try:
            chosen = probes(args.what, tuple(overrides))  # ValueError: an unknown WHAT
            for p in chosen.values():  # every override checked before the first run
                atmsim.resolve(p.run().scenario, list(p.run().overrides))
        except (ValueError, atmsim.ScenarioError, InputError) as e:
            parser.error(str(e))
        try:
            with warnings.catch_warnings():  # numpy's RuntimeWarnings on an empty series: the result says it
                warnings.simplefilter("ignore", RuntimeWarning)
                res = {label: result(p) for label, p in chosen.items()}
        except (atmsim.ScenarioError, InputError) as e:
            parser.error(str(e))
        except KeyboardInterrupt:
            parser.exit(130, f"{prog}: error: interrupted\n")
        except Exception as e:  # noqa: BLE001 - a measure that finds nothing to measure in the run
            parser.exit(1, f"{prog}: error: {args.what}: the probe cannot measure the run its overrides make "
                           f"({type(e).__name__}: {' '.join(str(e).split())})\n")
        print(json.dumps(res, indent=1, default=float))

    return runs, measure, main


def result(p) -> dict:
    """One probe run alone, in this process."""
    run = p.run()
    r = atmsim.run(run.scenario, run.overrides, run.seed, run.trace)
    return p.measure(r.summary, r.traces)
