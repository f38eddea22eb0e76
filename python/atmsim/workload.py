"""The Python side of `[workload] matrix` (docs/fabrics.md, "Traffic matrices").

The core reads the matrix file itself, relative to the working folder. Two things only the Python
layer knows are done here:

- a scenario *file* names its matrix relative to its own folder, as a user expects of a file next to
  it: `rebase` writes that path out as an absolute one before the text goes anywhere (workers,
  the run cache, `atmsim show`), so the run does not depend on the folder atmsim was started in;
- the run cache keys a run by its resolved scenario text, which names the matrix but does not hold
  it: `matrix_digest` is the hash of the file's contents, which the cache key includes, so an edited
  matrix never returns a stale cached run.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Optional

from ._core import ScenarioError

# `matrix = "..."` (or `workload.matrix = ...`) on a line of its own, with a basic or literal string.
_ASSIGNMENT = re.compile(r'^(?P<head>[ \t]*(?:workload\.)?matrix[ \t]*=[ \t]*)(?P<value>"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\')',
                         re.M)


def _matrix(data: dict) -> Optional[str]:
    w = data.get("workload")
    m = w.get("matrix") if isinstance(w, dict) else None
    return m if isinstance(m, str) else None


def rebase(text: str, scenario_path: str) -> str:
    """`text` (read from `scenario_path`) with a relative `workload.matrix` made absolute against
    the scenario file's folder; unchanged without one. Refused (ScenarioError, one line) when the
    assignment cannot be rewritten safely (written inline in a table) or the path is not UTF-8."""
    from .toml import tomllib

    data = tomllib.loads(text)
    rel = _matrix(data)
    if rel is None or os.path.isabs(rel):
        return text
    folder = os.path.dirname(os.path.abspath(scenario_path))
    absolute = os.path.normpath(os.path.join(folder, rel))
    try:
        absolute.encode("utf-8")
    except UnicodeEncodeError:
        raise ScenarioError(f"workload.matrix: the matrix path in '{scenario_path}' is not UTF-8 once made absolute "
                            f"({absolute!r}); give workload.matrix as an absolute path") from None
    # A TOML basic string: JSON's escapes (\" \\ \n \t \uXXXX) are TOML's too.
    quoted = json.dumps(absolute, ensure_ascii=False)
    matches = [m for m in _ASSIGNMENT.finditer(text)]
    candidates = [m for m in matches if tomllib.loads(f"v = {m['value']}")["v"] == rel]
    if len(candidates) == 1:
        m = candidates[0]
        new = text[:m.start("value")] + quoted + text[m.end("value"):]
        expected = dict(data, workload=dict(data["workload"], matrix=absolute))
        if tomllib.loads(new) == expected:
            return new
    raise ScenarioError(f"workload.matrix: '{scenario_path}' names its matrix '{rel}' relative to its folder in a way "
                        "atmsim cannot rewrite: write it as `matrix = \"...\"` on its own line under [workload], "
                        "or give an absolute path")


def matrix_digest(resolved: str) -> Optional[str]:
    """sha256 of the matrix file a resolved scenario names (None without one), read as the core
    reads it (relative to the working folder)."""
    from .toml import tomllib

    # A text without both words names no workload.matrix (the core writes its resolved keys bare; boston97's
    # resolved text has a `matrix` of its own, its dispersal's): parsing every run's resolved TOML to learn that
    # (Python's tomllib) was a quarter of a profiled second boston97 run from its run cache.
    if "matrix" not in resolved or "workload" not in resolved:
        return None
    path = _matrix(tomllib.loads(resolved))
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest() if hasattr(hashlib, "file_digest") \
                else hashlib.sha256(f.read()).hexdigest()
    except OSError as e:
        raise ScenarioError(f"workload.matrix: '{path}': cannot be read ({e.strerror or e})") from None
