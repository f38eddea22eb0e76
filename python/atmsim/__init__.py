"""atmsim: a fast, cell-accurate simulator of TCP over ATM and packet networks.

The Python API is a thin layer over the Rust core (`atmsim._core`):

    import atmsim
    r = atmsim.run("aron97-topo1-atm", set=["switch.buffer=96KB"], seed=2, trace=True)
    r.effective_throughput, r.flows (pandas), r.traces["window"] (pandas, numpy columns)

numpy and pandas are imported when a table is first asked for, so that
`import atmsim` (and the CLI's list, validate, show and run) starts fast.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

from . import _core
from ._core import ScenarioError

# The core's exception is made as `_core.PyScenarioError`, a name pickle cannot find again, so an
# invalid scenario in a `reproduce` or sweep worker reached the user as "PicklingError". Named where
# it is exported, it crosses a process boundary as itself and its one line.
ScenarioError.__module__, ScenarioError.__name__, ScenarioError.__qualname__ = "atmsim", "ScenarioError", "ScenarioError"

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["ScenarioError", "Result", "list_scenarios", "load_scenario", "model_facts", "resolve", "run", "trace_frames",
           "version"]


def version() -> str:
    return _core.version()


def _scenario_dir() -> Path:
    # The package's own data directory (cheaper to find than through importlib.resources).
    return Path(__file__).with_name("scenarios")


def list_scenarios() -> list[str]:
    """Names of the built-in scenarios (TOML files shipped with the package)."""
    return sorted(p.name[:-5] for p in _scenario_dir().iterdir() if p.name.endswith(".toml"))


MAX_SCENARIO_BYTES = 16 * 2**20


def load_scenario(name_or_path: str) -> str:
    """TOML text of a .toml file or of a built-in scenario name (TOML text itself, with a line
    break, is taken as it is).

    A built-in name means the built-in, even where a file of that name is in the working folder
    (`atmsim show NAME > NAME` makes one, empty while the command runs): that file is a path, so
    `./NAME` reads it, and a note on stderr says so once. Any other name that is an existing file,
    ends in .toml or contains a path separator is read as a file; anything else must be a
    built-in. Errors are ScenarioError with one line "scenario: ...", so the CLI exits 2.
    """
    if "\n" in str(name_or_path):  # TOML text itself (no file or built-in name holds a line break)
        _check_toml(name_or_path, "<text>")
        return name_or_path
    path = Path(name_or_path)
    builtin = _builtin(str(name_or_path))
    if builtin is not None:
        if path.exists():
            _note_shadowed(str(name_or_path))
        return builtin.read_text(encoding="utf-8")
    if path.is_file() or path.suffix == ".toml" or os.sep in str(name_or_path) or "/" in str(name_or_path):
        try:
            # At most one byte more than a scenario may have: a device such as /dev/zero or
            # /dev/urandom given as a scenario is refused, not read until memory runs out.
            with open(path, "rb") as f:
                data = f.read(MAX_SCENARIO_BYTES + 1)
            if len(data) > MAX_SCENARIO_BYTES:
                raise ScenarioError(f"scenario: '{name_or_path}' is larger than {MAX_SCENARIO_BYTES // 2**20} MiB "
                                    "(a scenario is a TOML file of a few KB)")
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ScenarioError(f"scenario: '{name_or_path}' is not UTF-8 text (a scenario is a TOML file)") from None
        except OSError as e:
            why = getattr(e, "strerror", None) or str(e)
            raise ScenarioError(f"scenario: cannot read '{name_or_path}': {why}") from None
        _check_toml(text, name_or_path)
        from .workload import rebase

        # A matrix named relative to the scenario file is found beside it, wherever atmsim runs.
        return rebase(text, str(name_or_path))
    raise ScenarioError(
        f"scenario: unknown scenario '{name_or_path}' (not a file; built-ins: {', '.join(list_scenarios())})"
    )


def _builtin(name: str) -> Optional[Path]:
    """The file of the built-in scenario `name` (a bare name: no folder, no .toml), or None."""
    if not name or "/" in name or os.sep in name or name.endswith(".toml") or name in (".", ".."):
        return None
    p = _scenario_dir() / f"{name}.toml"
    return p if p.is_file() else None


_NOTED: set = set()


def _note_shadowed(name: str) -> None:
    """Says once per name, on stderr, that a file named like a built-in is not the scenario run."""
    if name not in _NOTED:
        _NOTED.add(name)
        print(f"atmsim: note: '{name}' is the built-in scenario; the file '{name}' here is not read "
              f"(give ./{name} to use it)", file=sys.stderr, flush=True)


def _check_toml(text: str, name: str) -> None:
    """A TOML syntax error as one line with its line and column (the core's message has neither):
    raised only when the core rejects the text as TOML too, so both parsers agree on what is valid."""
    import re
    from atmsim.toml import tomllib

    try:
        tomllib.loads(text)
        return
    except tomllib.TOMLDecodeError as e:
        m = re.fullmatch(r"(.*) \(at (line \d+, column \d+|end of document)\)", str(e), re.S)
        where, why = (m[2], m[1]) if m else ("", str(e))
        why = why.replace("'\\n'", "end of line")
    try:
        _core.resolve(text, [])
    except ScenarioError as core:
        if "invalid TOML" not in str(core):
            return  # another problem: the core's own line says it
        at = f" at {where}" if where else ""
        raise ScenarioError(f"scenario: '{name}' is not valid TOML{at}: {why[0].lower()}{why[1:]}") from None


def _sets(set) -> list:
    """Overrides as a list: one "key=value" string is one override, not its characters."""
    return [set] if isinstance(set, str) else list(set)


def read(directory) -> dict:
    """The tables of a sweep, run or reproduction folder as pandas DataFrames, by name."""
    from .tables import read as _read

    return _read(directory)


def resolve(scenario: str, set: Iterable[str] = ()) -> str:
    """The fully resolved scenario (defaults filled in) as TOML text."""
    return _core.resolve(load_scenario(scenario), _sets(set))


def registry() -> list:
    """Every registered mechanism (drop policies, TCP variants): its name, the key that selects it,
    its networks, one line of docs, its docs page, its keys (type, unit, default, range, docs), the
    counters it adds to the summary and its golden variations, as the core declares them."""
    return json.loads(_core.registry())


def model_facts(scenario: str, set: Iterable[str] = ()) -> dict:
    """What the core derives from a scenario without running it: network,
    encapsulation, duration_s, mss, header_bytes, segment_ip_bytes,
    segment_cells (AAL5 cells of a full segment), segment_wire_bytes,
    cell_bytes, cell_payload, bottleneck (port name), ports ({name: rate_bits,
    rate_ps (exact: bits per ps picoseconds), rate_bps}) and u_max_bytes (the
    summary's U_max for the scenario's duration)."""
    return _core.model_facts(load_scenario(scenario), _sets(set))


@dataclass
class Result:
    """One run: the summary, tables of flows and ports, and traces."""

    summary: dict
    traces: dict = field(default_factory=dict)
    #: pcap files by name: bytes (capture=True), or the files written (capture=DIR).
    captures: dict = field(default_factory=dict)

    @property
    def effective_throughput(self) -> float:
        return self.summary["effective_throughput"]

    @property
    def accounting(self) -> dict:
        return self.summary["accounting"]

    @property
    def flows(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.summary["flows"])

    @property
    def ports(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.summary["ports"])

    def trace_array(self, table: str, column: str) -> np.ndarray:
        """One trace column as a numpy array (e.g. ("window", "cwnd"))."""
        if not self.traces:
            raise ValueError("this run recorded no traces: run it with trace=True")
        if table not in self.traces:
            raise ValueError(f"no trace '{table}' (traces: {', '.join(self.traces)})")
        if column not in self.traces[table]:
            raise ValueError(f"trace '{table}' has no column '{column}' (columns: {', '.join(self.traces[table].columns)})")
        return self.traces[table][column].to_numpy()

    def write_captures(self, directory) -> list:
        """Writes the pcap files of a run with captures into `directory`; returns their paths."""
        from .captures import write

        return write(self.captures, directory)

    def to_arrow(self):
        import pyarrow as pa

        # Nested per-flow lists (episode sizes, AFR state times) stay in .summary;
        # the Arrow table is the flat per-flow record.
        flat = self.flows.drop(columns=["loss_episode_sizes", "afr_time_in_states_s"], errors="ignore")
        return pa.Table.from_pandas(flat, preserve_index=False)


def trace_frames(raw: dict) -> dict:
    """A run's traces from the core (columns, flows, ports and VCs as
    indices, and their names under "names"; `trace_columns`) as pandas DataFrames of numpy
    columns that name them as the summary does: `flow` (window, events,
    rate, abr) is the flow's name, the queue trace's `port` the port's
    ("S->B"), and the port log's VC is its `flow` and `direction` ("data" or
    "reply"; flow "vbr" for the ABR background). A mapping of table names to
    DataFrames, each made when first read (a reader of the window trace
    never pays for a port log of millions of rows)."""
    from .trace_columns import TraceFrames

    return TraceFrames(raw)


def run(scenario: str, set: Iterable[str] = (), seed: Optional[int] = None, trace: bool = False,
        capture=False, progress=None) -> Result:
    """Run a built-in scenario name, a TOML file or TOML text; raises ScenarioError on bad input.

    capture=True records the ports and hosts of the scenario's [capture] (by
    default every host of a flow and the bottleneck port) as pcap files in
    `Result.captures`, as bytes (docs/captures.md); capture=DIR (a path)
    writes them into DIR as the run goes, in bounded memory, and
    `Result.captures` holds their paths; either way the files together hold
    at most `capture.max_bytes`. The summary gains a `capture` block.
    `progress(simulated_s, duration_s)`, if given, is called every 2^20
    events (about a tenth of a second) while the run lasts; its exception
    stops the run, as Ctrl-C and SIGTERM do, captured or not."""
    from .runner import check_seed

    check_seed(seed)
    text = load_scenario(scenario)
    if capture is True:
        from .captures import run_in_memory

        summary_json, traces, files = run_in_memory(text, _sets(set), seed, trace, progress)
    elif capture is not False and capture is not None:
        from .captures import run_into

        summary_json, traces, files = run_into(capture, text, _sets(set), seed, trace, progress)
    else:
        (summary_json, traces), files = _core.run(text, _sets(set), seed, trace, progress), {}
    return Result(json.loads(summary_json), trace_frames(traces) if trace else {}, files)
