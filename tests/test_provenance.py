"""Which commit made a reproduction (atmsim/provenance.py): the source tree's
in a checkout, the one recorded at build time once installed (`pip install .`
writes it through buildtools/atmsim_backend.py; an installed package has no
.git), never the commit of some other repository around an installed copy."""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
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
        (site / "atmsim" / "_build_info.json").write_text(info)
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


def test_the_backend_records_the_commit_for_the_length_of_a_build(tmp_path, monkeypatch):
    b = backend()
    monkeypatch.setattr(b, "INFO", tmp_path / "info.json")
    with b.recorded():
        assert json.loads((tmp_path / "info.json").read_text()) == {"commit": provenance.commit()}
    assert not (tmp_path / "info.json").exists(), "not left in the source tree (git would show it)"
    # Built from an sdist (no .git): the file the sdist carries is kept.
    monkeypatch.setattr(b, "ROOT", tmp_path)
    (tmp_path / "info.json").write_text('{"commit": "kept"}')
    with b.recorded():
        pass
    assert json.loads((tmp_path / "info.json").read_text()) == {"commit": "kept"}
    assert b.source_commit(tmp_path) is None
