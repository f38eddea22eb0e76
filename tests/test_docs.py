"""The documentation is checked like code: every repository path it names
exists, every scenario key it names is a key of the schema, and every
built-in scenario, registered paper and scenario section is documented."""
import os
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

import atmsim
from atmsim import reproduce

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "ARCHITECTURE.md", ROOT / "README.md"]
TICKED = re.compile(r"`([^`\s]+)`")
PATHLIKE = re.compile(r"[\w./-]+\.(rs|py|md|toml|tcl|sh|c|cc)|[\w.-]+(/[\w.-]+)+/")
# Named in the docs but not ours: 4.4BSD-Lite's TCP sources and ns-2's Vegas, which the models
# cite; and places a run writes (DIR and out/ stand for the user's --out).
EXTERNAL = re.compile(r"(sys/netinet/)?tcp_(input|output|timer|subr)\.c|(tcp/)?tcp-vegas\.cc|DIR/.*|out/.*")
# Dotted names that are not scenario keys: Wireshark's fields (docs/captures.md) and claim IDs.
NOT_KEYS = re.compile(r"tcp\.(analysis|flags)\..*|ip\.dsfield\..*|atm\.(aal|vci|vpi)|\w+\.fig[\w-]*\..*")
SECTIONS = ("atm", "ip", "tcp", "switch", "router", "credit", "host", "report", "trace", "arb", "abr", "boston", "capture",
            "workload")
KEYLIKE = re.compile(rf"(?:{'|'.join(SECTIONS)})(\.[a-z][a-z0-9_]*)+")


def ticked(doc: Path):
    for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
        for t in TICKED.findall(line):
            yield n, t.rstrip(".,;:")


@lru_cache(maxsize=None)
def repository_paths() -> frozenset:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    out = set(files)
    for f in files:
        out.update(str(p) for p in Path(f).parents if str(p) != ".")
    return frozenset(out)


def names_a_file(t: str) -> bool:
    """`t` is a repository path, or a path's tail (`recovery/sack.rs`, as the docs write them beside
    the module they are in)."""
    t = t.rstrip("/")
    return any(p == t or p.endswith("/" + t) for p in repository_paths())


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_path_the_docs_name_exists(doc):
    missing = [f"{doc.name}:{n}: {t}" for n, t in ticked(doc)
               if PATHLIKE.fullmatch(t) and not EXTERNAL.fullmatch(t) and not names_a_file(t)]
    assert not missing, missing


def _unknown_key(key: str) -> bool:
    """True if no built-in scenario accepts `key` as a key (whatever its value's type)."""
    for name in atmsim.list_scenarios():
        try:
            atmsim.resolve(name, [f"{key}=0"])
            return False
        except atmsim.ScenarioError as e:
            if "unknown field" not in str(e) and "unknown key" not in str(e):
                return False
    return True


@lru_cache(maxsize=None)
def summary_fields() -> frozenset:
    """Fields of a run's summary (`summary.rs`), which the docs name as `abr.erica_variant` and the like."""
    return frozenset(re.findall(r"pub (\w+):", (ROOT / "crates/atmsim-core/src/summary.rs").read_text(encoding="utf-8")))


def test_every_scenario_key_the_docs_name_exists():
    keys = {(doc.name, n, t) for doc in DOCS for n, t in ticked(doc)
            if KEYLIKE.fullmatch(t) and not PATHLIKE.fullmatch(t) and not NOT_KEYS.fullmatch(t)
            and t.rsplit(".", 1)[1] not in summary_fields()}
    by_key = {}
    for where in sorted(keys):
        by_key.setdefault(where[2], where)
    missing = [f"{d}:{n}: {k}" for k, (d, n, _) in sorted(by_key.items()) if _unknown_key(k)]
    assert not missing, missing


def test_every_built_in_scenario_paper_and_section_is_documented():
    scenarios_md = (ROOT / "docs/scenarios.md").read_text(encoding="utf-8")
    reproductions_md = (ROOT / "docs/reproductions.md").read_text(encoding="utf-8")
    undocumented = [n for n in atmsim.list_scenarios() if f"`{n}`" not in scenarios_md]
    assert not undocumented, f"built-in scenarios missing from docs/scenarios.md: {undocumented}"
    papers = [p for p in reproduce.names() if f"`{p}`" not in reproductions_md]
    assert not papers, f"papers missing from docs/reproductions.md: {papers}"
    tables = set()
    for n in atmsim.list_scenarios():
        tables.update(re.findall(r"^\[+([a-z_.]+)\]+$", atmsim.resolve(n), re.M))
    tables.update(("arb", "boston", "abr.loss"))  # sections no built-in writes out in full
    absent = sorted(t for t in tables if f"[{t}]" not in scenarios_md and f"[[{t}]]" not in scenarios_md
                    and f"`{t}." not in scenarios_md)
    assert not absent, f"scenario sections missing from docs/scenarios.md: {absent}"


def test_every_option_has_help_and_every_command_names_its_docs():
    import click

    from atmsim.cli import main

    for name, cmd in main.commands.items():
        bare = [p.opts[0] for p in cmd.params if isinstance(p, click.Option) and not p.hidden and not p.help]
        assert not bare, f"{name}: options without help: {bare}"
        with click.Context(cmd, info_name=name) as ctx:
            text = cmd.get_help(ctx)
        named = re.findall(r"(docs/[\w.-]+\.md|README\.md)", text[text.index("Docs: "):])
        assert named and all((ROOT / p).exists() for p in named), (name, named)


def test_the_readmes_python_example_runs_as_a_script_without_rerunning_in_its_workers(tmp_path):
    # Spawned workers re-import the main script (as __mp_main__): the example ran its traced
    # simulation again in every worker, outside its `if __name__ == "__main__":` guard.
    block = re.search(r"From Python:\n\n```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S).group(1)
    log = tmp_path / "log"
    # Records each import of the script and each atmsim.run call, by process; two workers for the three jobs.
    prologue = (f"import os\nos.cpu_count = lambda: 2\nopen({str(log)!r}, 'a').write(f'import {{__name__}} {{os.getpid()}}\\n')\n"
                "import atmsim as _a\n_run = _a.run\n"
                f"def _logged(*a, **k):\n    open({str(log)!r}, 'a').write(f'run {{os.getpid()}}\\n')\n    return _run(*a, **k)\n"
                "_a.run = _logged\n")
    script = tmp_path / "example.py"
    script.write_text(prologue + block.replace("duration=2s", "duration=200ms"), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert p.returncode == 0, p.stderr
    lines = log.read_text(encoding="utf-8").split()
    main_pid = lines[lines.index("__main__") + 1]
    workers = {lines[i + 1] for i, w in enumerate(lines) if w == "__mp_main__"}
    assert workers and main_pid not in workers, "the example's jobs ran in spawned workers"
    runs = [lines[i + 1] for i, w in enumerate(lines) if w == "run"]
    assert runs == [main_pid], "the traced run ran once, in the main process"
    assert len(re.findall(r"\d\.\d+", p.stdout.splitlines()[-1])) == 3, p.stdout


def test_the_readmes_test_line_says_how_long_and_names_each_test_as_it_runs():
    # Issue 38 ("first contact"): the README's test line gave no duration (about 19 minutes on 2 cores) and
    # pytest stayed silent for about 4 of them.
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if "pip install" in x and "python -m pytest" in x)
    assert re.search(r"python -m pytest -v\b", line), line
    after = text.split(line, 1)[1][:400]
    assert re.search(r"The tests take about \d+ minutes on \d+ cores", after), after


def test_ci_runs_exactly_the_readmes_test_command():
    # CI (`.ci/run`) must run what the README tells a new user to run, so that a green CI vouches for it:
    # its last line is the README's test line without the comment (the apt installs before it only add
    # the programs some tests drive).
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(x for x in readme.splitlines() if "pip install" in x and "python -m pytest" in x)
    command = line.split("  #", 1)[0].strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1].strip() == command, (ci[-1], command)
