"""What every paper's mechanism probes share (`reproduce/*/anatomy.py`): a
paper's `probes(what, extra)` names its probes by label, each with `run()` (the
run a figure declares, so its note quotes the probe's own numbers) and
`measure(summary, traces)`; the same probes run alone from the command line
(`python -m atmsim.reproduce.PAPER.anatomy WHAT [--set overrides]`)."""
from __future__ import annotations

import json
import sys

import atmsim


def runs(probes, what: str) -> list:
    """The runs of `what`'s probes, for a figure to declare."""
    return [p.run() for p in probes(what).values()]


def measure(probes, what: str, pairs) -> dict:
    """`what`'s measures by label, from the (run, (summary, raw traces)) pairs of `runs(probes, what)`."""
    got = {run: res for run, res in pairs}
    out = {}
    for label, p in probes(what).items():
        s, raw = got[p.run()]
        out[label] = p.measure(s, atmsim.trace_frames(raw))
    return out


def main(probes, result, argv=None) -> None:
    """The command line: runs WHAT's probes (`result(probe)` runs one) and prints their measures as JSON."""
    argv = list(sys.argv[1:] if argv is None else argv)
    what, extra = argv[0], tuple(argv[1:])
    res = {label: result(p) for label, p in probes(what, extra).items()}
    print(json.dumps(res, indent=1, default=float))
