"""Which commit made a reproduction (atmsim/provenance.py): the source tree's
in a checkout, the one recorded at build time once installed (`pip install .`
writes it through buildtools/atmsim_backend.py; an installed package has no
.git), never the commit of some other repository around an installed copy."""
import base64
import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest

from atmsim import provenance

ROOT = Path(__file__).resolve().parent.parent


def backend():
    spec = importlib.util.spec_from_file_location("atmsim_backend", ROOT / "buildtools" / "atmsim_backend.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def test_a_checkout_reports_its_commit_and_the_backend_records_the_same():
    head = git("rev-parse", "--short=12", "HEAD", cwd=ROOT)
    got = provenance.commit()
    assert got.split("+")[0] == head and got in (head, head + "+dirty")
    assert backend().source_commit(ROOT) == got


def installed_copy(tmp_path, info=None):
    """The package as `pip install --target` lays it out: no .git beside it."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "python" / "atmsim", site / "atmsim",
                    ignore=shutil.ignore_patterns("__pycache__", "_build_info.json"))
    if info is not None:
        (site / "atmsim" / "_build_info.json").write_text(info, encoding="utf-8")
    return site


def commit_of(site, prologue=""):
    code = prologue + "from atmsim import provenance; print(provenance.commit())"
    p = subprocess.run([sys.executable, "-c", code], cwd=site, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(site)})
    assert p.returncode == 0, p.stderr
    return p.stdout.strip()


def test_an_installed_copy_reports_the_commit_recorded_at_build_time(tmp_path):
    # `pip install .` from a clone: the report said "commit unknown".
    site = installed_copy(tmp_path, json.dumps({"commit": "0123456789ab"}))
    assert commit_of(site) == "0123456789ab"


@pytest.mark.parametrize("info", [None, "{", "[]", '{"commit": ""}', '{"commit": 5}'])
def test_an_installed_copy_without_a_recorded_commit_says_unknown(tmp_path, info):
    assert commit_of(installed_copy(tmp_path, info)) == "unknown"


def test_an_installed_copy_inside_another_repository_does_not_take_its_commit(tmp_path):
    # A virtualenv inside a user's project: git answered with the project's commit.
    site = installed_copy(tmp_path)
    git("init", "-q", cwd=tmp_path)
    git("-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "--allow-empty", "-m", "x", cwd=tmp_path)
    assert commit_of(site) == "unknown"


def test_a_core_that_knows_its_commit_is_asked_when_no_source_tree_is_there(tmp_path):
    # The core may carry the commit compiled in (a build.rs emitting it): provenance asks `_core.commit()`.
    site = installed_copy(tmp_path, json.dumps({"commit": "from-the-file"}))
    assert commit_of(site, "from atmsim import _core; _core.commit = lambda: 'abcdef123456'\n") == "abcdef123456"


class FakeMaturin:
    """maturin's PEP 517 hooks as far as the backend sees them: an archive written into the folder
    pip gives, its name returned (a real build compiles the core: minutes)."""

    target = []  # CARGO_TARGET_DIR as each build saw it

    @staticmethod
    def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
        FakeMaturin.target.append(os.environ.get("CARGO_TARGET_DIR"))
        name = "atmsim-0.1.0-cp39-abi3-linux_x86_64.whl"
        with zipfile.ZipFile(Path(wheel_directory) / name, "w") as z:
            z.writestr("atmsim/__init__.py", "")
            z.writestr("atmsim-0.1.0.dist-info/RECORD", "atmsim/__init__.py,sha256=x,0\natmsim-0.1.0.dist-info/RECORD,,\n")
        return name

    @staticmethod
    def build_sdist(sdist_directory, config_settings=None):
        name = "atmsim-0.1.0.tar.gz"
        with tarfile.open(Path(sdist_directory) / name, "w:gz") as t:
            for member in ("atmsim-0.1.0/PKG-INFO", "atmsim-0.1.0/python/atmsim/__init__.py"):
                t.addfile(tarfile.TarInfo(member), io.BytesIO(b""))
        return name


@pytest.fixture
def read_only_checkout(tmp_path, monkeypatch):
    """A git work tree holding the backend and provenance.py, mounted read-only (a read-only checkout;
    skipped where bind mounts are not allowed), with the backend loaded from it and maturin faked."""
    src = tmp_path / "src"
    for rel in ("buildtools/atmsim_backend.py", "python/atmsim/provenance.py"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, src / rel)
    git("init", "-q", cwd=src)
    git("add", ".", cwd=src)
    git("-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "-m", "x", cwd=src)
    r = subprocess.run(["mount", "--bind", "-o", "ro", str(src), str(src)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot bind-mount read-only here ({r.stderr.strip()})")
    try:
        assert subprocess.run(["touch", str(src / "x")], capture_output=True).returncode != 0, "read-only"
        spec = importlib.util.spec_from_file_location("atmsim_backend_ro", src / "buildtools" / "atmsim_backend.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        monkeypatch.setitem(sys.modules, "maturin", FakeMaturin)
        yield mod, git("rev-parse", "--short=12", "HEAD", cwd=src)
    finally:
        subprocess.run(["umount", str(src)], capture_output=True)


def test_a_wheel_from_a_read_only_checkout_carries_its_commit(tmp_path, read_only_checkout):
    # `pip install` from a read-only checkout failed: the backend wrote the file into the source tree.
    b, commit = read_only_checkout
    out = tmp_path / "wheels"
    out.mkdir()
    name = b.build_wheel(str(out))
    with zipfile.ZipFile(out / name) as z:
        data = z.read("atmsim/_build_info.json")
        record = z.read("atmsim-0.1.0.dist-info/RECORD").decode().splitlines()
    assert json.loads(data) == {"commit": commit}
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    assert f"atmsim/_build_info.json,sha256={digest},{len(data)}" in record, "pip checks RECORD"
    assert "atmsim/__init__.py,sha256=x,0" in record
    assert sorted(p.name for p in out.iterdir()) == [name], "no temporary file left"


def test_cargo_builds_outside_a_read_only_checkout(tmp_path, read_only_checkout, monkeypatch):
    # maturin itself failed next: "failed to create directory `SRC/target/wheels`: Read-only file system".
    b, _ = read_only_checkout
    monkeypatch.delenv("CARGO_TARGET_DIR", raising=False)
    FakeMaturin.target.clear()
    b.build_wheel(str(tmp_path))
    assert FakeMaturin.target == [str(b.target_dir(b.ROOT))] and "CARGO_TARGET_DIR" not in os.environ
    assert b.target_dir(b.ROOT).parent == Path(tempfile.gettempdir())
    assert b.target_dir(tmp_path) is None and (tmp_path / "target").is_dir(), "a writable tree builds in its target/"
    monkeypatch.setenv("CARGO_TARGET_DIR", "/elsewhere")
    assert b.target_dir(b.ROOT) is None, "the user's choice stands"


def test_an_sdist_from_a_read_only_checkout_carries_its_commit(tmp_path, read_only_checkout):
    b, commit = read_only_checkout
    name = b.build_sdist(str(tmp_path))
    with tarfile.open(tmp_path / name) as t:
        assert json.loads(t.extractfile("atmsim-0.1.0/python/atmsim/_build_info.json").read()) == {"commit": commit}
        assert "atmsim-0.1.0/PKG-INFO" in t.getnames()


def test_a_wheel_built_from_an_sdist_keeps_the_file_the_sdist_carries(tmp_path, monkeypatch):
    # No .git: the commit is unknown to the backend, and the sdist's own file (packed by maturin) stays.
    b = backend()
    monkeypatch.setattr(b, "ROOT", tmp_path)
    monkeypatch.setitem(sys.modules, "maturin", FakeMaturin)
    assert b.source_commit(tmp_path) is None
    name = b.build_wheel(str(tmp_path))
    with zipfile.ZipFile(tmp_path / name) as z:
        assert "atmsim/_build_info.json" not in z.namelist()
