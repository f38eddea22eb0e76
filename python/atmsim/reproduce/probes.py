"""What every paper's mechanism probes share (`reproduce/*/anatomy.py`): a
paper's `probes(what, extra)` names its probes by label, each with `run()` (the
run a figure declares, so its note quotes the probe's own numbers) and
`measure(summary, traces)`; the same probes run alone from the command line
(`python -m atmsim.reproduce.PAPER.anatomy WHAT [--set overrides]`)."""
from __future__ import annotations

import argparse
import json

import atmsim


class _OneLineParser(argparse.ArgumentParser):
    """Bad input is one line on stderr and exit 2, as everywhere in atmsim."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


def bind(probes, prog: str):
    """The `runs(what)`, `measure(what, pairs)` and `main(argv)` of a paper's `probes(what, extra=())`;
    `prog` is how the command line is invoked."""

    def runs(what: str) -> list:
        """The runs of `what`'s probes, for a figure to declare."""
        return [p.run() for p in probes(what).values()]

    def measure(what: str, pairs) -> dict:
        """`what`'s measures by label, from the (run, (summary, raw traces)) pairs of `runs(what)`."""
        got = {run: res for run, res in pairs}
        out = {}
        for label, p in probes(what).items():
            s, raw = got[p.run()]
            out[label] = p.measure(s, atmsim.trace_frames(raw))
        return out

    def main(argv=None) -> None:
        """The command line: runs WHAT's probes (with any extra overrides) and prints their measures as JSON.
        A missing or unknown WHAT, or an invalid override, is one line and exit 2."""
        parser = _OneLineParser(prog=prog)
        parser.add_argument("what", help="the figure whose probes to run")
        parser.add_argument("overrides", nargs=argparse.ZERO_OR_MORE, default=[], help="extra scenario overrides, key=value")
        args = parser.parse_args(argv)
        try:
            chosen = probes(args.what, tuple(args.overrides))
            res = {label: result(p) for label, p in chosen.items()}
        except (ValueError, atmsim.ScenarioError) as e:
            parser.error(str(e))
        print(json.dumps(res, indent=1, default=float))

    return runs, measure, main


def result(p) -> dict:
    """One probe run alone, in this process."""
    run = p.run()
    r = atmsim.run(run.scenario, run.overrides, run.seed, run.trace)
    return p.measure(r.summary, r.traces)
