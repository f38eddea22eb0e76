"""Issue 38, rules 5 and 8, swept over every command that takes a path or prints:
any path the operating system accepts works (spaces, non-UTF-8 bytes, long
names) or is refused before any run in one line; output works in any locale
and encoding (`LANG=C` without Python's UTF-8 coercion, an ASCII stdout)."""
import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Folder names the system accepts: a space, bytes that are not UTF-8, letters outside ASCII, and a
#: 200-byte component (NAME_MAX is 255).
NAMES = {"space": b"with space", "non-utf8": b"bad\xff\xfe name", "unicode": "r\u00e9sultats \u00b5s".encode(),
         "long": b"n" * 200}


def atmsim(*args, cwd, env=None):
    argv = [os.fsencode(sys.executable), b"-m", b"atmsim", *(a if isinstance(a, bytes) else str(a).encode() for a in args)]
    return subprocess.run(argv, cwd=cwd, capture_output=True, env=env)


def ok(r):
    assert r.returncode == 0, (r.returncode, r.stderr.decode(errors="replace"))
    return r


@pytest.mark.parametrize("name", NAMES, ids=list(NAMES))
def test_every_command_works_in_a_folder_the_system_accepts(tmp_path, name):
    top = os.path.join(os.fsencode(tmp_path), NAMES[name])
    os.mkdir(top)
    join = lambda *p: os.path.join(top, *(x.encode() for x in p))  # noqa: E731
    scen = join("my scenario.toml")
    with open(scen, "wb") as f:
        f.write(ok(atmsim("show", "eqds-one", cwd=tmp_path)).stdout)
    ok(atmsim("validate", scen, cwd=tmp_path))
    ok(atmsim("run", scen, "--out", join("run out"), "--pcap", join("pcap out"), "--trace-format", "both", cwd=tmp_path))
    assert os.path.isfile(join("run out", "summary.json")) and os.path.isfile(join("run out", "trace_window.parquet"))
    assert any(n.endswith(b".pcap") for n in os.listdir(join("pcap out")))
    ok(atmsim("plot", join("run out"), cwd=tmp_path))
    assert os.path.isfile(join("run out", "run.png"))
    ok(atmsim("sweep", scen, "--vary", "eqds.paths=8,16", "--workers", "1", "--out", join("sweep out"), cwd=tmp_path))
    assert os.path.isfile(join("sweep out", "runs.parquet"))
    ok(atmsim("reproduce", "eqds22", "--quick", "--out", join("repro out"), cwd=tmp_path))
    ok(atmsim("report", join("repro out"), cwd=tmp_path))
    assert os.path.isfile(join("repro out", "index.html"))
    import atmsim.tables as tables

    assert set(tables.read(os.fsdecode(join("sweep out")))) >= {"runs", "flows", "points"}


@pytest.mark.parametrize("option", ["run --out", "run --pcap", "sweep --out", "reproduce --out"])
def test_a_name_the_system_refuses_is_one_line_before_any_run(tmp_path, option):
    command, flag = option.split()
    too_long = b"n" * 300  # beyond NAME_MAX
    what = {"run": ["eqds-one"], "sweep": ["eqds-one", "--vary", "eqds.paths=8,16"], "reproduce": ["eqds22", "--quick"]}
    r = atmsim(command, *what[command], flag, too_long, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    err = r.stderr.decode()
    assert err.count("\n") == 1 and err.startswith(f"atmsim: error: {flag}: ") and "too long" in err, err
    assert os.listdir(tmp_path) == []


#: Environments whose stdout cannot encode UTF-8: the C locale with Python's coercion to UTF-8 turned
#: off (the locale of a minimal container), and an ASCII stdout declared outright.
ASCII_ENVS = {
    "LANG=C": {"LANG": "C", "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
    "PYTHONIOENCODING=ascii": {"PYTHONIOENCODING": "ascii"},
}
COMMANDS = {
    "list": ["list"],
    "show": ["show", "ndp-in-out"],
    "validate": ["validate", "eqds-incast"],
    "run": ["run", "eqds-one"],
    "run-atm": ["run", "aron97-topo1-atm", "--set", "duration=100ms"],
    "run-json": ["run", "eqds-one", "--json"],
    "sweep": ["sweep", "eqds-one", "--vary", "eqds.paths=8,16", "--workers", "1", "--out", "sweep"],
    "reproduce": ["reproduce", "eqds22", "--quick", "--out", "repro"],
    "help": ["reproduce", "--help"],
}


@pytest.mark.parametrize("command", COMMANDS, ids=list(COMMANDS))
@pytest.mark.parametrize("locale", ASCII_ENVS, ids=list(ASCII_ENVS))
def test_every_command_prints_in_an_ascii_locale(tmp_path, command, locale):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "PYTHONIOENCODING", "PYTHONUTF8"))}
    env.update(ASCII_ENVS[locale])
    r = ok(atmsim(*COMMANDS[command], cwd=tmp_path, env=env))
    r.stdout.decode("ascii")  # every sign spelt in ASCII (atmsim.console), nothing lost to an encoding error
    assert r.stdout.strip(), "printed nothing"
    if command == "run":
        assert re.search(rb"\d+\.\d+ us|->", r.stdout), r.stdout[:400]
    if command == "run-json":
        json.loads(r.stdout)


@pytest.mark.parametrize("locale", ASCII_ENVS, ids=list(ASCII_ENVS))
def test_an_input_error_is_one_line_in_an_ascii_locale(tmp_path, locale):
    env = {**os.environ, **ASCII_ENVS[locale]}
    r = atmsim("run", "ndp-in-out", "--set", "ndp.mss=1", "--set", "duration=10ms", cwd=tmp_path, env=env)
    assert r.returncode == 2 and r.stderr.count(b"\n") == 1 and b"internal error" not in r.stderr, r.stderr


def test_console_spells_every_non_ascii_sign_atmsim_prints():
    # Every non-ASCII character in a string literal of the package is either in the ASCII spelling
    # table or outside printed text; here: those in the modules that print (the CLI, the summary
    # words, the report tables), which must all be spelt.
    from atmsim.console import ASCII_SPELLING

    unspelt = {}
    for f in ["cli.py", "claims.py", "report.py", "sweep.py", "progress.py"]:
        for node in ast.walk(ast.parse((ROOT / "python" / "atmsim" / f).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                for c in node.value:
                    if ord(c) > 127 and c not in ASCII_SPELLING:
                        unspelt.setdefault(c, f)
    for f in (ROOT / "python" / "atmsim" / "scenarios").glob("*.toml"):  # descriptions: `atmsim list`
        for c in f.read_text(encoding="utf-8"):
            if ord(c) > 127 and c not in ASCII_SPELLING:
                unspelt.setdefault(c, f.name)
    assert not unspelt, f"non-ASCII signs printed without an ASCII spelling in atmsim.console: {unspelt}"


def test_every_python_file_names_its_encoding():
    # open()/read_text()/write_text() without an encoding use the locale's: under LANG=C a UTF-8
    # scenario fails to read. ruff's PLW1514 checks open(); this checks the pathlib calls it misses.
    bare = []
    for f in [*ROOT.glob("python/**/*.py"), *ROOT.glob("validation/**/*.py"), *ROOT.glob("bench/**/*.py")]:
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("read_text", "write_text")
                    and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "formatter")  # click's help
                    and not any(k.arg == "encoding" for k in node.keywords)):
                bare.append(f"{f.relative_to(ROOT)}:{node.lineno}")
    assert not bare, f"read_text/write_text without encoding=: {bare}"
