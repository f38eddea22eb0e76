"""The command-line contract of every script the repository ships (`validation/`, `bench/`, the
paper probes), as of the `atmsim` command (README, issue 38 rule 6): bad arguments are one line on
stderr, "PROG: error: PROBLEM", and exit 2; no usage block, no traceback; `--help` prints the usage.

Standard library only, so that a script run by another interpreter (ns-3's, for
bench/ns3/aron97_topo1_packet.py and dctcp_ns3.py) can load this file by its path without the
package."""
from __future__ import annotations

import argparse


class OneLineParser(argparse.ArgumentParser):
    """argparse, with every error one line and exit 2 (argparse prints the usage block first), and no
    option taken by a prefix (`--work` for `--workers`): as `atmsim`'s options, a name is never guessed
    (issue 38, rule 9)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {' '.join(str(message).split())}\n")
