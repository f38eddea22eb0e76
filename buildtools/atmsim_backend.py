"""The build backend of `pip install .` (pyproject.toml, PEP 517 `backend-path`):
maturin's, with the git commit of the source tree written to
python/atmsim/_build_info.json for the length of the build, so the wheel
carries it. An installed atmsim has no .git to ask at run time, so without it
a reproduction's provenance said "commit unknown" (atmsim/provenance.py reads
the file).

Building from an sdist (no .git) keeps the file the sdist carries.
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
INFO = ROOT / "python" / "atmsim" / "_build_info.json"
PROVENANCE = ROOT / "python" / "atmsim" / "provenance.py"


def source_commit(root: Path = ROOT) -> str | None:
    """The commit of the git work tree at `root`, as atmsim/provenance.py asks git for it (that file
    is loaded by its path: no atmsim is built yet)."""
    spec = importlib.util.spec_from_file_location("_atmsim_provenance", PROVENANCE)
    provenance = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(provenance)
    return provenance.tree_commit(root)


def record() -> bool:
    """Writes INFO if the source tree knows its commit; True if it did."""
    commit = source_commit(ROOT)
    if commit is None:
        return False
    INFO.write_text(json.dumps({"commit": commit}) + "\n")
    return True


@contextlib.contextmanager
def recorded():
    """INFO for the length of a build, removed after it if written here: maturin packs only files git
    does not ignore, so INFO cannot be in .gitignore, and it must not linger in the tree as an
    untracked file. Built from an sdist (no .git), the sdist's INFO stays."""
    wrote = record()
    try:
        yield
    finally:
        if wrote:
            INFO.unlink(missing_ok=True)


# maturin is imported by each hook, not at the top: the build environment
# has it, and the tests read `source_commit` and `recorded` without it.

def get_requires_for_build_wheel(config_settings=None):
    import maturin

    return maturin.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_editable(config_settings=None):
    import maturin

    return maturin.get_requires_for_build_editable(config_settings)


def get_requires_for_build_sdist(config_settings=None):
    import maturin

    return maturin.get_requires_for_build_sdist(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    import maturin

    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    import maturin

    return maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    import maturin

    with recorded():
        return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    import maturin

    with recorded():
        return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    import maturin

    with recorded():
        return maturin.build_sdist(sdist_directory, config_settings)
