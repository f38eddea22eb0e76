"""Rule 4 (issue 38), swept over every kind of file atmsim reads and every kind of damage: a scenario, a
connection matrix (.cm), an output folder's manifest, a sweep's cache entry, a reproduction's claims and
provenance (reproduction.json), and a table (a run's trace, a sweep's runs.csv), each emptied, cut in
half, overwritten with binary bytes, with JSON of another shape (a list, a string, an object of other
keys), or replaced by a folder. The command that reads it says so in one line naming the file and exits
2, never a traceback, and touches no file of the user's; a damaged cache entry alone is not an error: the
sweep says so in one line and runs that point again (tests/test_sweep.py), unless it is a folder, which
no result can replace. Found by this sweep: a folder in a cache entry's place was "running that point
again" and then "run cache: DIR/runs: cannot be written (Is a directory)", exit 1; an empty
scenario said "scenario: missing field `name`"; a reproduction.json of another shape ({"a": 1}) was
reported as a reproduction with nothing in it; a trace cut short was plotted as if whole."""
import shutil

import pytest

import atmsim
from conftest import run_cli

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
DAMAGES = {"empty": b"", "half": None, "binary": b"\x00\xff\xfe\x80 not text", "list": b"[1, 2]",
           "string": b'"just text"', "other-object": b'{"a": 1}', "folder": None}


def damage(path, how):
    original = path.read_bytes()
    if how == "folder":
        path.unlink()
        path.mkdir()
    else:
        path.write_bytes(original[: len(original) // 2] if how == "half" else DAMAGES[how])


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A run's, a reproduction's and a sweep's output folders, made once; each test damages a copy."""
    base = tmp_path_factory.mktemp("made")
    run_cli("run", "aron97-topo1-packet", "--set", "duration=200ms", "--out", str(base / "run"), check=True)
    run_cli("reproduce", "morris-kung95", "--figure", "fig6", "--out", str(base / "mk"), check=True)
    run_cli("sweep", "aron97-topo1-packet", "--vary", "switch.buffer=48KB,96KB", "--set", "duration=0.2s",
            "--workers", "1", "--out", str(base / "sweep"), check=True)
    (base / "s.toml").write_text(run_cli("show", "aron97-topo1-packet", check=True).stdout, encoding="utf-8")
    shutil.copy(ROOT / "validation" / "htsim" / "matrices" / "one.cm", base / "m.cm")
    return base


#: kind: (the file under the made folders, the command reading it ({d}: the copy), what its line says, in
#: fragments).
KINDS = {
    "scenario": ("s.toml", ["validate", "{d}/s.toml"], ("scenario: ", "'{d}/s.toml'")),
    "matrix": ("m.cm", ["validate", "eqds-one", "--set", "workload.matrix={d}/m.cm"], ("workload.matrix: '{d}/m.cm'",)),
    "manifest": ("run/.atmsim-manifest.json", ["run", "aron97-topo1-packet", "--set", "duration=200ms", "--out",
                                              "{d}/run"], ("{d}/run/summary.json", "not in .atmsim-manifest.json")),
    "claims": ("mk/claims.json", ["report", "{d}/mk"], ("{d}/mk/claims.json: malformed claims.json",)),
    "provenance": ("mk/reproduction.json", ["report", "{d}/mk"], ("{d}/mk/reproduction.json: malformed",)),
    "table": ("run/trace_window.csv", ["plot", "{d}/run"], ("{d}/run/trace_window.csv: not a trace written by",)),
}


@pytest.mark.parametrize("how", sorted(DAMAGES))
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_damaged_file_is_one_line_naming_it(folders, tmp_path, kind, how):
    rel, args, says = KINDS[kind]
    d = tmp_path / "copy"
    shutil.copytree(folders, d)
    damage(d / rel, how)
    before = {p: p.read_bytes() for p in d.rglob("*") if p.is_file() and p != d / rel}
    r = run_cli(*[a.format(d=d) for a in args])
    if kind == "scenario" and how == "empty":
        says = ("name: missing",)  # an empty file is valid TOML without a name
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    assert all(part.format(d=d) in r.stderr for part in says), r.stderr
    after = {p: p.read_bytes() for p in d.rglob("*") if p.is_file() and p != d / rel}
    assert after == before, "a file was changed or removed"


@pytest.mark.parametrize("how", sorted(DAMAGES))
def test_a_damaged_cache_entry_is_run_again_in_one_line(folders, tmp_path, how):
    d = tmp_path / "copy"
    shutil.copytree(folders / "sweep", d)
    before = (d / "runs.csv").read_bytes()
    entry = sorted((d / "runs").glob("*.json"))[0]
    damage(entry, how)
    r = run_cli("sweep", "aron97-topo1-packet", "--vary", "switch.buffer=48KB,96KB", "--set", "duration=0.2s",
                "--workers", "1", "--out", str(d))
    lines = r.stderr.strip().splitlines()
    if how == "folder":  # no result can replace it, and it is not ours to remove
        assert r.returncode == 2 and lines == [f"atmsim: error: run cache: {entry}: is a folder, not a cached run; "
                                               "move it away, or run with --no-cache"], r.stderr
        return
    assert r.returncode == 0 and len(lines) == 1 and lines[0].startswith(f"atmsim: cache: {entry}: "), r.stderr
    assert (d / "runs.csv").read_bytes() == before


@pytest.mark.parametrize("how", sorted(DAMAGES))
def test_a_damaged_sweep_table_is_named_by_the_api(folders, tmp_path, how):
    d = tmp_path / "copy"
    shutil.copytree(folders / "sweep", d)
    damage(d / "runs.csv", how)
    try:
        tables = atmsim.read(d)
    except (ValueError, OSError, atmsim.ScenarioError) as e:
        assert "runs.csv" in str(e) and "\n" not in str(e), e
        return
    # What it read back is whole: every point of the sweep, no row cut short.
    runs = tables["runs"]
    assert len(runs) == 2 and not runs.isna().any(axis=None), runs
