"""The README and pyproject.toml promise Python >= 3.9 (issue 38: every scenario file failed on 3.9
and 3.10 with "internal error: ModuleNotFoundError: No module named 'tomllib'"). TOML is read
through atmsim/toml.py alone: the standard library's tomllib from 3.11, else tomli, which
pyproject.toml installs on the older versions."""
import importlib
import re
import sys
import types
from pathlib import Path

from atmsim.toml import tomllib

ROOT = Path(__file__).resolve().parent.parent


def test_no_file_imports_tomllib_but_the_one_reader():
    direct = re.compile(r"^\s*(import tomllib|from tomllib import)", re.M)
    offenders = [p.relative_to(ROOT).as_posix() for d in ("python", "tests", "validation", "bench")
                 for p in (ROOT / d).rglob("*.py") if direct.search(p.read_text(encoding="utf-8"))]
    assert offenders == ["python/atmsim/toml.py"]


def test_without_tomllib_the_reader_is_tomli(monkeypatch):
    fake = types.ModuleType("tomli")
    monkeypatch.setitem(sys.modules, "tomllib", None)  # as on Python 3.9 and 3.10: the import fails
    monkeypatch.setitem(sys.modules, "tomli", fake)
    import atmsim.toml

    try:
        assert importlib.reload(atmsim.toml).tomllib is fake
    finally:
        monkeypatch.undo()
        importlib.reload(atmsim.toml)
    assert atmsim.toml.tomllib is tomllib


def test_pyproject_installs_tomli_where_tomllib_is_missing():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["requires-python"] == ">=3.9"
    assert "tomli>=1.1; python_version < '3.11'" in project["dependencies"]
