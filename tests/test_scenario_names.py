"""Rule 10 (issue 38): a built-in name means the built-in; a file is a path, and when both exist a
note says which was taken. A file in the working folder named like a built-in replaced it (in
`reproduce` too), and `atmsim show NAME > NAME`, the README's idiom without `.toml`, then failed
with "missing field name" (the shell makes NAME, empty, before show reads it)."""
import subprocess
import sys

import pytest

import atmsim
from atmsim.reproduce.harness import Run

BUILTINS = atmsim.list_scenarios()


def builtin_text(name):
    return (atmsim._scenario_dir() / f"{name}.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("shadow", ["", "not = [toml", 'name = "mine"\nnetwork = "packet"\n'])
def test_every_builtin_name_means_the_builtin_whatever_file_shares_its_name(tmp_path, monkeypatch, capsys, shadow):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(atmsim, "_NOTED", set())  # a fresh process's
    for name in BUILTINS:
        (tmp_path / name).write_text(shadow, encoding="utf-8")
        assert atmsim.load_scenario(name) == builtin_text(name), name
        assert Run(name, (), 1, False).job().scenario == builtin_text(name), "a reproduction's runs too"
    err = capsys.readouterr().err
    for name in BUILTINS:
        assert f"atmsim: note: '{name}' is the built-in scenario; the file '{name}' here is not read " \
               f"(give ./{name} to use it)" in err
    assert len(err.splitlines()) == len(BUILTINS), "said once per name"


def test_a_path_reads_the_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = "aron97-topo1-atm"
    mine = builtin_text(name).replace('duration = "10s"', 'duration = "3s"')
    assert mine != builtin_text(name)
    (tmp_path / name).write_text(mine, encoding="utf-8")
    assert atmsim.load_scenario(f"./{name}") == mine
    assert atmsim.load_scenario(str(tmp_path / name)) == mine


def cli(*args, cwd, shell=False):
    cmd = args[0] if shell else [sys.executable, "-m", "atmsim", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, shell=shell)


def test_show_into_a_file_named_like_the_builtin(tmp_path):
    # The README's idiom without .toml: the shell makes the empty file before atmsim reads the name.
    r = cli(f"{sys.executable} -m atmsim show aron97-topo1-atm > aron97-topo1-atm", cwd=tmp_path, shell=True)
    assert r.returncode == 0, r.stderr
    assert r.stderr.startswith("atmsim: note: 'aron97-topo1-atm' is the built-in scenario") and r.stderr.count("\n") == 1
    shown = (tmp_path / "aron97-topo1-atm").read_text(encoding="utf-8")
    assert shown.startswith('name = "aron97-topo1-atm"')
    assert cli("validate", "./aron97-topo1-atm", cwd=tmp_path).stdout == "ok\n", "what show wrote is the scenario"
    assert cli("show", "./aron97-topo1-atm", cwd=tmp_path).stdout == shown


def test_a_name_that_is_no_builtin_is_still_read_as_the_file_it_names(tmp_path):
    (tmp_path / "mine").write_text(builtin_text("aron97-topo1-packet"), encoding="utf-8")
    r = cli("validate", "mine", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "ok\n" and r.stderr == "", r.stderr
