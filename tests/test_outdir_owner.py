"""Rule (issue 38): a command writes only the files it owns, per its output folder's manifest
(atmsim/outdir.py): it refuses, with exit 2 and one line naming the file, to overwrite anything
else at a name it writes (the user's file, link, FIFO or folder, or another command's result), and
it never deletes a file it did not write. Swept over every command that writes into a folder
(run --out, run --pcap, sweep, reproduce, report, plot) and every kind of file already there,
not one example."""
import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from atmsim.outdir import MANIFEST

RUN = ["run", "aron97-topo1-packet", "--set", "duration=100ms", "--json"]
SWEEP = ["sweep", "aron97-topo1-packet", "--vary", "switch.buffer=48KB", "--set", "duration=0.1s", "--workers", "1"]
REPRODUCE = ["reproduce", "morris-kung95", "--figure", "fig6", "--quick", "--workers", "1"]


def cli(*args):
    return subprocess.run([sys.executable, "-m", "atmsim", *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Folders an earlier command wrote, copied (without their manifest) as the user's own folders
    for `report` (a reproduction) and `plot` (a run)."""
    root = tmp_path_factory.mktemp("made")
    for name, args in (("reproduction", REPRODUCE), ("run", RUN)):
        r = cli(*args, "--out", root / name)
        assert r.returncode == 0, r.stderr
    return root


def _copy_of(made, name, drop, out):
    shutil.copytree(made / name, out, ignore=shutil.ignore_patterns(MANIFEST, "runs", *drop))


# Each command: (arguments given the folder, a file it writes there, how to prepare the folder).
COMMANDS = {
    "run --out": (lambda out: [*RUN, "--out", out], "summary.json", None),
    "run --out traces": (lambda out: [*RUN, "--out", out], "trace_window.csv", None),
    "run --pcap": (lambda out: [*RUN, "--pcap", out], "host-S1.pcap", None),  # known only when the run ends
    "sweep": (lambda out: [*SWEEP, "--out", out], "points.csv", None),
    "reproduce claims": (lambda out: [*REPRODUCE, "--out", out], "claims.json", None),
    "reproduce figure": (lambda out: [*REPRODUCE, "--out", out], "fig6.png", None),
    "reproduce report": (lambda out: [*REPRODUCE, "--out", out], "index.html", None),
    "report": (lambda out: ["report", out], "index.html", ("reproduction", ["index.html"])),
    "plot": (lambda out: ["plot", out], "run.png", ("run", ["run.png"])),
}


def folder_for(command, tmp_path, made):
    """The command's arguments, the file it writes, and its folder (empty, or the one it works on)."""
    args, name, prepare = COMMANDS[command]
    out = tmp_path / "out"
    if prepare:
        _copy_of(made, *prepare, out)
    else:
        out.mkdir()
    return args, name, out


def _mine(path):
    path.write_text("mine\n", encoding="utf-8")


def _link(path):
    target = path.parent.parent / f"{path.name}.target"
    target.write_text("mine\n", encoding="utf-8")
    path.symlink_to(target)


def _other_command(path):
    _mine(path)
    (path.parent / MANIFEST).write_text(json.dumps({"complete": True, "commands": {"other": [path.name]}}), encoding="utf-8")


def _older_manifest(path):
    # A manifest of an earlier atmsim (one command per folder) naming another command.
    _mine(path)
    (path.parent / MANIFEST).write_text(json.dumps({"command": "other", "complete": True, "files": [path.name]}), encoding="utf-8")


def _damaged_manifest(path):
    _mine(path)
    (path.parent / MANIFEST).write_text("{", encoding="utf-8")


# Every kind of thing a command may find at a name it writes, none of which it wrote.
FOREIGN = {
    "the user's file": _mine,
    "the user's link": _link,
    "a FIFO": lambda path: os.mkfifo(path),
    "a folder": lambda path: (path.mkdir(), (path / "inside.txt").write_text("mine\n", encoding="utf-8")),
    "another command's file": _other_command,
    "another command's file (older manifest)": _older_manifest,
    "the user's file, manifest damaged": _damaged_manifest,
}


def snapshot(d):
    """Every entry under d (the run cache aside: it is written as runs finish, by design) with its
    kind and, for files and links, content: what must not change."""
    out = {}
    for p in sorted(d.rglob("*")):
        rel = p.relative_to(d).as_posix()
        if rel == "runs" or rel.startswith("runs/"):
            continue
        m = p.lstat().st_mode
        if stat.S_ISLNK(m):
            out[rel] = ("link", os.readlink(p), p.read_text(encoding="utf-8") if p.exists() else None)
        elif stat.S_ISREG(m):
            out[rel] = ("file", p.read_bytes())
        else:
            out[rel] = (stat.S_IFMT(m),)
    return out


@pytest.mark.parametrize("kind", list(FOREIGN))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_command_never_overwrites_a_file_it_did_not_write(tmp_path, made, command, kind):
    args, name, out = folder_for(command, tmp_path, made)
    FOREIGN[kind](out / name)
    before = snapshot(tmp_path)
    r = cli(*args(out))
    assert r.returncode == 2, (r.returncode, r.stdout[-400:], r.stderr)
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("atmsim: error: ") and f"{out / name} exists" in r.stderr, r.stderr
    assert r.stderr.endswith("and is not this command's to overwrite: move it away or choose another folder\n")
    assert snapshot(tmp_path) == before, "nothing written, nothing of the user's touched"


# Files already in the folder at names the command does not write: the user's, and another command's.
BESIDE = {
    "notes.txt": None,
    "runs.csv": "sweep",  # a sweep's tables: `reproduce` into the folder deleted them
    "summary.json": "run",
    "claims.json": "reproduce",
}


@pytest.mark.parametrize("command", ["run --out", "run --pcap", "sweep", "reproduce claims", "report", "plot"])
def test_a_command_never_deletes_a_file_it_did_not_write(tmp_path, made, command):
    args, name, out = folder_for(command, tmp_path, made)
    theirs = {}
    for rel, owner in BESIDE.items():
        if (out / rel).exists() or (owner and command.split()[0] == owner):
            continue  # a name this command writes (or its folder holds): the test above
        (out / rel).write_text(f"{owner or 'user'}\n", encoding="utf-8")
        if owner:
            theirs.setdefault(owner, []).append(rel)
    (out / MANIFEST).write_text(json.dumps({"complete": True, "commands": theirs}), encoding="utf-8")
    kept = {rel: (out / rel).read_text(encoding="utf-8") for rel in BESIDE if (out / rel).exists()}
    for _ in range(2):  # the second time replaces (or merges with) its own first results
        r = cli(*args(out))
        assert r.returncode == 0, r.stderr
        assert {rel: (out / rel).read_text(encoding="utf-8") for rel in kept} == kept
    assert (out / name).exists()
    owners = json.loads((out / MANIFEST).read_text(encoding="utf-8"))["commands"]
    for owner, files in theirs.items():
        assert set(files) <= set(owners[owner]), "the other commands' files stay theirs"


def test_reproduce_into_a_sweeps_folder_keeps_its_tables(tmp_path):
    # The report of the issue: `reproduce --out DIR` into a folder holding a sweep's tables deleted them.
    out = tmp_path / "o"
    assert cli(*SWEEP, "--out", out).returncode == 0
    tables = {p.name: p.read_bytes() for p in out.iterdir() if p.suffix in (".csv", ".parquet")}
    assert {"runs.csv", "flows.csv", "points.csv", "runs.parquet"} <= set(tables)
    r = cli(*REPRODUCE, "--out", out)
    assert r.returncode == 0, r.stderr
    assert {n: (out / n).read_bytes() for n in tables} == tables
    assert cli(*SWEEP, "--out", out).returncode == 0, "the sweep still owns its tables and replaces them"
    assert (out / "claims.json").exists() and (out / "fig6.png").exists(), "and leaves the reproduction's"


def test_a_users_summary_is_neither_overwritten_nor_deleted_later(tmp_path):
    # It was overwritten by `run --out`, listed as the run's, and removed by the next `run --pcap`.
    out = tmp_path / "o"
    out.mkdir()
    (out / "summary.json").write_text("my notes\n", encoding="utf-8")
    r = cli(*RUN, "--out", out)
    assert r.returncode == 2 and f"{out}/summary.json exists, not written by atmsim" in r.stderr, r.stderr
    assert cli(*RUN, "--pcap", out).returncode == 0
    assert (out / "summary.json").read_text(encoding="utf-8") == "my notes\n"


def test_a_foreign_file_found_only_when_results_move_into_place_stops_them_all(tmp_path):
    # A name not known before the run (a figure's extra table): refused at the commit, before any file moves.
    from atmsim.errors import InputError
    from atmsim.outdir import OutDir

    (tmp_path / "extra.csv").write_text("mine\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"{tmp_path}/extra.csv exists, not written by atmsim"):
        with OutDir(tmp_path, command="reproduce", merge=True) as o, o.stage() as d:
            (d / "claims.json").write_text("[]", encoding="utf-8")
            (d / "extra.csv").write_text("theirs\n", encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["extra.csv"]
    assert (tmp_path / "extra.csv").read_text(encoding="utf-8") == "mine\n"
