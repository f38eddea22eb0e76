"""What produced a reproduction: the atmsim version, the compiled core's hash,
the git commit of the source tree when there is one, and per figure the
scenarios its runs used (base scenario text, overrides, seeds). `reproduce`
writes it as `reproduction.json` beside claims.json; the HTML report shows it.
"""
from __future__ import annotations

import contextlib
import json
import re
import subprocess
from pathlib import Path
from typing import Optional

FILE = "reproduction.json"
#: The commit `pip install .` recorded beside this file (buildtools/atmsim_backend.py adds it to the wheel).
BUILD_INFO = "_build_info.json"


def tree_commit(root: Path) -> Optional[str]:
    """The commit of the git work tree whose top is `root` (12 hex digits, `+dirty` with uncommitted
    changes to tracked files), or None if `root` is not the top of a work tree or git is missing.
    Standard library only: the build backend (buildtools/atmsim_backend.py) loads this file by its
    path, before any atmsim is built."""
    def git(*args):
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=30)

    try:
        top = git("rev-parse", "--show-toplevel")
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != Path(root).resolve():
            return None
        head = git("rev-parse", "--short=12", "HEAD")
        if head.returncode != 0:
            return None
        dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+dirty" if dirty else "")


def commit() -> str:
    """The git commit atmsim was built from: the source tree's when it runs from one (a checkout,
    `pip install -e`), else the one recorded at build time, by the core (`_core.commit()`, if the
    core has it) or by `pip install .` (BUILD_INFO, written by buildtools/atmsim_backend.py);
    "unknown" if none (a wheel built without either)."""
    src = Path(__file__).resolve().parent
    # Only the package of a work tree (TOP/python/atmsim), not one installed inside some other
    # repository (a virtualenv in a project's folder).
    found = tree_commit(src.parent.parent) if src.parent.name == "python" else None
    if found:
        return found
    from atmsim import _core

    built = getattr(_core, "commit", None)
    if callable(built):
        with contextlib.suppress(Exception):
            if isinstance(built(), str) and built().strip():
                return built().strip()
    with contextlib.suppress(OSError, ValueError, AttributeError):
        found = json.loads((src / BUILD_INFO).read_text(encoding="utf-8")).get("commit")
    return found if isinstance(found, str) and found.strip() else "unknown"


def _name(spec, text: str) -> str:
    name = getattr(spec, "scenario", None)
    if isinstance(name, str) and "/" not in name and not name.endswith(".toml"):
        return name
    m = re.search(r'^name\s*=\s*"([^"]*)"', text, re.M)
    return m.group(1) if m else "scenario"


def figure_runs(specs) -> tuple[dict, dict]:
    """({base scenario name: its TOML text}, {name: [{"set": [...], "seeds": [...]}, ...]}) of one figure's runs."""
    texts, variants = {}, {}
    for spec in specs:
        job = spec.job()
        name = _name(spec, job.scenario)
        texts.setdefault(name, job.scenario)
        by_set = variants.setdefault(name, {})
        seeds = by_set.setdefault(tuple(job.overrides), [])
        if job.seed not in seeds:
            seeds.append(job.seed)
    return texts, {n: [{"set": list(k), "seeds": v} for k, v in d.items()] for n, d in variants.items()}


def record(out: Path, paper: str, quick: bool, figures: dict) -> None:
    """Merges the figures' runs ({figure ID: its specs}) into out/reproduction.json."""
    from atmsim import version
    from atmsim.runner import core_fingerprint

    path = Path(out) / FILE
    old = load(out)  # a damaged one is replaced
    scenarios, figs = dict(old.get("scenarios", {})), dict(old.get("figures", {}))
    made = {"atmsim_version": version(), "atmsim_core": core_fingerprint(), "commit": commit(), "quick": bool(quick)}
    for fig, specs in figures.items():
        texts, variants = figure_runs(specs)
        scenarios.update(texts)
        # Each figure keeps the run that made it: a folder may hold figures of a quick and a full run, or of
        # two commits (the paper-level fields say only which run came last).
        figs[fig] = {"runs": len(list(specs)), "scenarios": variants, **made}
    data = {"paper": paper, **made, "figures": dict(sorted(figs.items())), "scenarios": dict(sorted(scenarios.items()))}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


#: What says which run made a figure (per figure since issue 38; a file written before holds them per paper only).
MADE_BY = ("atmsim_version", "commit", "atmsim_core", "quick")


def made_by(meta: dict, figure: str) -> dict:
    """Which run made `figure`: its own entry's MADE_BY fields, else the paper's (an older file)."""
    fig = meta.get("figures", {}).get(figure, {})
    return {k: fig.get(k, meta.get(k)) for k in MADE_BY}


def load(directory: Path, strict: bool = False) -> dict:
    """The reproduction.json of a paper's directory ({} if absent). One that
    cannot be read or has the wrong shape is {} too, or with strict=True an
    InputError naming it (the HTML report says so rather than print a traceback)."""
    path = Path(directory) / FILE
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"a JSON {type(data).__name__}, expected an object")
        # Every reproduction.json atmsim wrote names its paper and figures: an object without them is
        # another file, not one to report as a reproduction with nothing in it.
        for k, kind in (("paper", str), ("figures", dict)):
            if not isinstance(data.get(k), kind):
                raise ValueError(f"no '{k}' {'name' if kind is str else 'object'}: not written by atmsim reproduce")
        for k in ("figures", "scenarios"):
            if not isinstance(data.get(k, {}), dict):
                raise ValueError(f"'{k}' is not an object")
        if not all(isinstance(v, dict) for v in data.get("figures", {}).values()):
            raise ValueError("a figure's entry is not an object")
    except (OSError, ValueError) as e:
        if not strict:
            return {}
        from atmsim.errors import InputError

        raise InputError(f"{path}: malformed {FILE} ({' '.join(str(e).split())})") from None
    return data
