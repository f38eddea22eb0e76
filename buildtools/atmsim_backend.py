"""The build backend of `pip install .` (pyproject.toml, PEP 517 `backend-path`):
maturin's, with the git commit of the source tree added to what it builds as
atmsim/_build_info.json, so the wheel carries it. An installed atmsim has no
.git to ask at run time, so without it a reproduction's provenance said
"commit unknown" (atmsim/provenance.py reads the file).

Nothing of atmsim's is written into the source tree (issue 38: `pip install`
from a read-only checkout failed when the file was written there for the
length of the build), and cargo builds outside it when it cannot write its
target/ there (`target_dir`): the file is added to the archive maturin made, in the folder pip
gave for it - the wheel (its RECORD updated) or the sdist (beside the
package's sources, so a wheel built from the sdist, which has no .git, packs
it as a source file). An editable install runs from the work tree and asks
git itself.
"""
from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib.util
import io
import json
import os
import tarfile
import tempfile
import zipfile
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
PROVENANCE = ROOT / "python" / "atmsim" / "provenance.py"
#: Where the recorded commit lands in the installed package (atmsim/provenance.py BUILD_INFO).
INFO = "atmsim/_build_info.json"


def source_commit(root: Path = ROOT) -> str | None:
    """The commit of the git work tree at `root`, as atmsim/provenance.py asks git for it (that file
    is loaded by its path: no atmsim is built yet)."""
    spec = importlib.util.spec_from_file_location("_atmsim_provenance", PROVENANCE)
    provenance = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(provenance)
    return provenance.tree_commit(root)


def target_dir(root: Path = ROOT):
    """Where cargo (through maturin) builds: ROOT/target if it can be written, else - a read-only
    checkout - a folder of the temporary directory named after the checkout, so that a second build
    of it reuses the first's compiled crates; None to leave the choice to cargo (CARGO_TARGET_DIR
    already set, or ROOT/target writable)."""
    if os.environ.get("CARGO_TARGET_DIR"):
        return None
    target = root / "target"
    probe = target / f".atmsim-probe-{os.getpid()}"
    try:
        target.mkdir(exist_ok=True)
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.unlink(probe)
        return None
    except OSError:
        tag = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:12]
        return Path(tempfile.gettempdir()) / f"atmsim-cargo-target-{tag}"


@contextlib.contextmanager
def cargo_target():
    """CARGO_TARGET_DIR set to `target_dir()` for the length of a build, when it says so."""
    where = target_dir(ROOT)
    if where is None:
        yield
        return
    os.environ["CARGO_TARGET_DIR"] = str(where)
    try:
        yield
    finally:
        del os.environ["CARGO_TARGET_DIR"]


def _info(commit: str) -> bytes:
    return (json.dumps({"commit": commit}) + "\n").encode()


def add_to_wheel(wheel: Path, commit: str) -> None:
    """Adds INFO to a built wheel and its RECORD (path, sha256, size: PEP 376/427), in place."""
    data = _info(commit)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    tmp = wheel.with_name(wheel.name + ".tmp")
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            body = src.read(item)
            if item.filename == INFO:
                continue  # one of its own (a wheel built from an sdist that carries it): ours replaces it
            if item.filename.endswith(".dist-info/RECORD"):
                lines = [ln for ln in body.decode().splitlines() if ln and not ln.startswith(INFO + ",")]
                body = ("\n".join([*lines, f"{INFO},sha256={digest},{len(data)}"]) + "\n").encode()
            dst.writestr(item, body)
        dst.writestr(zipfile.ZipInfo(INFO, date_time=(1980, 1, 1, 0, 0, 0)), data)
    os.replace(tmp, wheel)


def add_to_sdist(sdist: Path, commit: str) -> None:
    """Adds INFO to a built sdist (a .tar.gz) beside the package's sources (TOP/python/atmsim/), in place."""
    data = _info(commit)
    tmp = sdist.with_name(sdist.name + ".tmp")
    with tarfile.open(sdist, "r:gz") as src, tarfile.open(tmp, "w:gz", format=tarfile.PAX_FORMAT) as dst:
        members = src.getmembers()
        init = next(m.name for m in members if m.name.endswith("python/atmsim/__init__.py"))
        name = init[: -len("__init__.py")] + "_build_info.json"
        for m in members:
            if m.name != name:
                dst.addfile(m, src.extractfile(m) if m.isfile() else None)
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(data), 0o644
        dst.addfile(info, io.BytesIO(data))
    os.replace(tmp, sdist)


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

    with cargo_target():
        return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    import maturin

    with cargo_target():
        return maturin.prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    import maturin

    with cargo_target():
        name = maturin.build_wheel(wheel_directory, config_settings, metadata_directory)
    commit = source_commit(ROOT)
    if commit is not None:  # built from an sdist (no .git): the file it carries is in the wheel already
        add_to_wheel(Path(wheel_directory) / name, commit)
    return name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    import maturin

    with cargo_target():
        return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    import maturin

    with cargo_target():
        name = maturin.build_sdist(sdist_directory, config_settings)
    commit = source_commit(ROOT)
    if commit is not None:
        add_to_sdist(Path(sdist_directory) / name, commit)
    return name
