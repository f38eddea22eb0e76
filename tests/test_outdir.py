"""The output-folder contract (atmsim.outdir, issue 27): a command's result is
complete where the user asked or absent with one line; never mixed with an
older run's files, never left in a staging folder."""
import errno
import json
import os
import stat
import subprocess
import sys
import threading

import pytest

from atmsim.errors import InputError, OutputError
from atmsim.outdir import LOCK, MANIFEST, STAGING, OutDir

TINY = ["run", "aron97-topo1-packet", "--set", "duration=100ms"]


def cli_with(preexec, *args):
    return subprocess.run([sys.executable, "-m", "atmsim", *args], capture_output=True, text=True, preexec_fn=preexec)


def one_error_line(r, code=2):
    assert r.returncode == code, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("atmsim: error: "), r.stderr
    assert "Traceback" not in r.stderr
    return r.stderr.strip()


def no_staging(d):
    return not any(p.name.startswith(STAGING) for p in d.rglob("*"))


@pytest.mark.parametrize("exists", [False, True])
def test_no_rename_ever_leaves_the_target_folder(tmp_path, monkeypatch, exists):
    # `--out` naming a mount point: staging beside it and renaming across gave "Invalid cross-device link".
    # Here every rename whose source is not inside the target fails as it would across devices.
    target = tmp_path / "mnt"
    if exists:
        target.mkdir()
    real = os.replace

    def replace(src, dst, **kw):
        if not os.path.abspath(src).startswith(str(target) + os.sep):
            raise OSError(errno.EXDEV, "Invalid cross-device link", str(src))
        return real(src, dst, **kw)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "rename", replace)
    with OutDir(target) as o, o.stage() as d:
        assert d.parent == target
        (d / "summary.json").write_text("{}", encoding="utf-8")
        (d / "sub").mkdir()
        (d / "sub" / "a.csv").write_text("x\n1\n", encoding="utf-8")
    assert sorted(p.name for p in target.iterdir()) == [MANIFEST, "sub", "summary.json"]
    assert no_staging(target)


def test_an_existing_folder_is_not_copied_and_a_fifo_in_it_is_left_alone(tmp_path):
    # `--out .` copied the working folder (100 -> 200 MB); a FIFO in it failed with a list of tuples.
    target = tmp_path / "work"
    target.mkdir()
    (target / "big.bin").write_bytes(b"\0" * 100_000)
    os.mkfifo(target / "pipe")
    ino = (target / "big.bin").stat().st_ino
    with OutDir(target) as o, o.stage() as d:
        assert list(d.iterdir()) == [], "nothing of the user's is copied into the staging folder"
        (d / "summary.json").write_text("{}", encoding="utf-8")
    assert (target / "big.bin").stat().st_ino == ino
    assert stat.S_ISFIFO((target / "pipe").lstat().st_mode)
    assert json.loads((target / MANIFEST).read_text(encoding="utf-8"))["commands"] == {"run": ["summary.json"]}


def test_cli_run_into_a_folder_holding_a_fifo(cli, tmp_path):
    os.mkfifo(tmp_path / "pipe")
    r = cli(*TINY, "--out", str(tmp_path), "--json")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "summary.json").exists() and stat.S_ISFIFO((tmp_path / "pipe").lstat().st_mode)


def test_a_rerun_replaces_the_earlier_runs_files_and_keeps_the_users(cli, tmp_path):
    # A csv rerun into a parquet run's folder kept the old Parquet traces, and atmsim.read returned them.
    import atmsim

    out = tmp_path / "r"
    cli(*TINY, "--out", str(out), "--trace-format", "parquet", "--json", check=True)
    (out / "mine.csv").write_text("a\n1\n", encoding="utf-8")
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    assert (out / "trace_window.parquet").exists()
    cli(*TINY, "--out", str(out), "--json", check=True)
    assert not list(out.glob("*.parquet")), "the earlier run's Parquet files are gone"
    assert (out / "mine.csv").read_text(encoding="utf-8") == "a\n1\n" and (out / "notes.txt").read_text(encoding="utf-8") == "mine"
    tables = atmsim.read(out)
    assert set(tables) == {"mine", "ports", "trace_events", "trace_queue", "trace_window"}
    files = json.loads((out / MANIFEST).read_text(encoding="utf-8"))["commands"]["run"]
    assert "mine.csv" not in files and "summary.json" in files


def test_a_sweep_rerun_drops_the_earlier_failures_table(tmp_path):
    with OutDir(tmp_path, command="sweep") as o, o.stage() as d:
        for n in ("runs.csv", "failures.csv"):
            (d / n).write_text("x\n", encoding="utf-8")
    with OutDir(tmp_path, command="sweep") as o, o.stage() as d:
        (d / "runs.csv").write_text("y\n", encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["runs.csv"]


def test_a_reproduction_merges_with_the_earlier_one(tmp_path):
    with OutDir(tmp_path, command="reproduce", merge=True) as o, o.stage() as d:
        (d / "fig3.csv").write_text("x\n", encoding="utf-8")
        (d / "claims.json").write_text("[1]", encoding="utf-8")
    with OutDir(tmp_path, command="reproduce", merge=True) as o, o.stage() as d:
        o.seed("claims.json")
        assert (d / "claims.json").read_text(encoding="utf-8") == "[1]"
        (d / "claims.json").write_text("[1, 2]", encoding="utf-8")
        (d / "fig4.csv").write_text("y\n", encoding="utf-8")
    assert json.loads((tmp_path / MANIFEST).read_text(encoding="utf-8"))["commands"]["reproduce"] == ["claims.json", "fig3.csv", "fig4.csv"]
    assert (tmp_path / "claims.json").read_text(encoding="utf-8") == "[1, 2]"


@pytest.mark.parametrize("kind", ["loop", "dangling", "file"])
def test_a_bad_out_path_is_refused_before_the_run(cli, tmp_path, kind):
    out = tmp_path / "o"
    if kind == "loop":
        os.symlink(out, out)
    elif kind == "dangling":
        os.symlink(tmp_path / "nowhere", out)
    else:
        out.write_text("", encoding="utf-8")
    line = one_error_line(cli(*TINY, "--out", str(out), "--json"))
    assert line.startswith("atmsim: error: --out: ") and str(out) in line, line
    assert os.path.lexists(out) and not (tmp_path / "nowhere").exists()


def test_out_naming_a_mount_point(cli, tmp_path, mount):
    # Staged beside the target, on the parent's device: "Invalid cross-device link" moving files into place.
    mnt = mount("mnt")
    assert os.stat(mnt).st_dev != os.stat(tmp_path).st_dev
    for args, wrote in ((["--out", str(mnt)], "summary.json"), (["--pcap", str(mnt)], "port-R1-R2.pcap")):
        r = cli(*TINY, *args, "--json")
        assert r.returncode == 0, r.stderr
        assert (mnt / wrote).exists()
        assert no_staging(mnt) and sorted(p.name for p in tmp_path.iterdir()) == ["mnt"]
    assert not (mnt / "summary.json").exists(), "the pcap run replaced the earlier run's files"


@pytest.mark.parametrize("command", [TINY, ["sweep", "aron97-topo1-packet", "--vary", "switch.buffer=48KB",
                                            "--set", "duration=0.1s"]])
def test_a_read_only_folder_is_refused_before_the_run(cli, tmp_path, mount, command):
    if os.getuid() == 0:
        ro = mount("ro", "ro,size=1m")  # root writes through permission bits: a read-only file system
    else:
        ro = tmp_path / "ro"
        ro.mkdir()
        ro.chmod(0o555)
    r = cli(*command, "--out", str(ro))
    line = one_error_line(r)
    assert line.startswith(f"atmsim: error: --out: {ro}: cannot be written"), line
    assert list(ro.iterdir()) == []


def test_a_full_disk_in_the_cli_is_one_line_naming_the_file(cli, tmp_path, mount):
    full = mount("full", "size=12k")  # summary.json alone is ~15 KB: ENOSPC while writing
    (full / "mine.txt").write_text("kept", encoding="utf-8")
    r = cli(*TINY, "--out", str(full), "--json")
    line = one_error_line(r, code=1)
    assert f"--out: cannot write {full}/summary.json: No space left on device" in line, line
    assert sorted(p.name for p in full.iterdir()) == ["mine.txt"], "no staging folder, no lock, no half file"


def test_a_full_disk_is_one_line_naming_the_file_and_leaves_no_staging(tmp_path):
    out = tmp_path / "new"
    with pytest.raises(OutputError, match=r"--out: cannot write .*new/trace_window.csv: No space left on device"):
        with OutDir(out) as o, o.stage() as d:
            (d / "summary.json").write_text("{}", encoding="utf-8")
            raise OSError(errno.ENOSPC, "No space left on device", str(d / "trace_window.csv"))
    assert not out.exists(), "a folder this command made is removed again"
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "summary.json").write_text("old", encoding="utf-8")
    with pytest.raises(OutputError):
        with OutDir(tmp_path / "old") as o, o.stage() as d:
            (d / "summary.json").write_text("new", encoding="utf-8")
            raise OSError(errno.ENOSPC, "No space left on device")
    assert sorted(p.name for p in (tmp_path / "old").iterdir()) == ["summary.json"]
    assert (tmp_path / "old" / "summary.json").read_text(encoding="utf-8") == "old"


def test_a_write_that_fails_in_the_cli_is_one_line_exit_1(tmp_path):
    # A real failing write: files may not grow past 4 KB (summary.json is ~15 KB); EFBIG like ENOSPC.
    import resource

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    out = tmp_path / "r"
    line = one_error_line(cli_with(small_files, *TINY, "--out", str(out), "--json"), code=1)
    assert f"--out: cannot write {out}/summary.json: File too large" in line, line  # the file being written
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_second_command_into_a_locked_folder_is_refused(cli, tmp_path):
    # Two sweeps into one folder overwrote each other silently.
    out = tmp_path / "s"
    with OutDir(out, command="sweep"):
        assert (out / LOCK).read_text(encoding="utf-8").strip() == str(os.getpid())
        r = cli("sweep", "aron97-topo1-packet", "--vary", "switch.buffer=48KB", "--set", "duration=0.1s",
                "--out", str(out))
        line = one_error_line(r)
        assert line.startswith(f"atmsim: error: --out: {out}: is in use by another atmsim command (pid {os.getpid()})")
        with pytest.raises(InputError, match="in use"):
            OutDir(out).__enter__()
    assert not (out / LOCK).exists(), "the lock file goes with the command"
    with OutDir(out) as o, o.stage() as d:  # free again
        (d / "x").write_text("", encoding="utf-8")


def test_a_lock_whose_holder_has_not_written_its_pid_yet_is_refused_in_one_line(tmp_path):
    # The holder locks the file, then writes its pid: a command between the two read an empty
    # file and died with "internal error: IndexError" (found by tests/fuzz_long.py).
    import fcntl

    out = tmp_path / "s"
    out.mkdir()
    fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        r = subprocess.run([sys.executable, "-m", "atmsim", *TINY, "--out", str(out)], capture_output=True, text=True)
        line = one_error_line(r)
        assert line == (f"atmsim: error: --out: {out}: is in use by another atmsim command; "
                        "wait for it or choose another folder"), line
    finally:
        os.close(fd)


def test_the_lock_holds_across_threads_of_one_process(tmp_path):
    entered = []

    def second():
        try:
            with OutDir(tmp_path):
                entered.append(True)
        except InputError:
            entered.append(False)

    with OutDir(tmp_path):
        t = threading.Thread(target=second)
        t.start()
        t.join()
    assert entered == [False]


@pytest.mark.parametrize("umask", [0o022, 0o027])
def test_every_output_folder_gets_the_same_mode_as_mkdir(tmp_path, umask):
    # `run --out` and `--pcap` folders were 0700 (made by mkdtemp), sweep and reproduce folders 0755.
    def with_umask():
        os.umask(umask)

    run, pcap, sweep = tmp_path / "run", tmp_path / "pcap", tmp_path / "sweep"
    assert cli_with(with_umask, *TINY, "--out", str(run), "--pcap", str(pcap), "--json").returncode == 0
    assert cli_with(with_umask, "sweep", "aron97-topo1-packet", "--vary", "switch.buffer=48KB",
                    "--set", "duration=0.1s", "--out", str(sweep)).returncode == 0
    for d in (run, pcap, sweep, sweep / "runs"):
        assert stat.S_IMODE(d.stat().st_mode) == 0o777 & ~umask, d


def test_run_out_and_pcap_may_name_one_folder(cli, tmp_path):
    cli(*TINY, "--out", str(tmp_path / "both"), "--pcap", str(tmp_path / "both"), "--json", check=True)
    names = {p.name for p in (tmp_path / "both").iterdir()}
    assert "summary.json" in names and any(n.endswith(".pcap") for n in names)


def test_stale_staging_of_a_killed_command_is_removed(tmp_path):
    (tmp_path / f"{STAGING}999999").mkdir()
    (tmp_path / f"{STAGING}999999" / "half.csv").write_text("x", encoding="utf-8")
    with OutDir(tmp_path) as o, o.stage() as d:
        (d / "summary.json").write_text("{}", encoding="utf-8")
    assert no_staging(tmp_path)


def test_read_refuses_a_folder_left_mid_commit(tmp_path):
    import atmsim

    (tmp_path / "runs.csv").write_text("a\n1\n", encoding="utf-8")
    (tmp_path / MANIFEST).write_text(json.dumps({"command": "sweep", "complete": False, "files": ["runs.csv"]}), encoding="utf-8")
    with pytest.raises(InputError, match="stopped while moving its results"):
        atmsim.read(tmp_path)


def test_report_takes_no_staging_folder_for_a_paper(tmp_path):
    # `atmsim report DIR` while a reproduction stages into DIR: its staging folder holds a claims.json.
    from atmsim.html_report import paper_dirs

    for d in ("aron97", f"{STAGING}4242"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "claims.json").write_text("[]", encoding="utf-8")
    assert paper_dirs(tmp_path) == [tmp_path / "aron97"]


@pytest.mark.parametrize("command", [["sweep", "aron97-topo1-packet", "--vary", "switch.buffer=48KB,64KB",
                                      "--set", "duration=0.1s", "--workers", "1"],
                                     ["reproduce", "morris-kung95", "--figure", "fig6", "--quick", "--workers", "1"]])
@pytest.mark.parametrize("cache", ["file", "read-only"])
def test_an_unwritable_run_cache_is_one_line_naming_it_before_any_run(cli, tmp_path, mount, command, cache):
    # Found only after the first run, and named by a hidden temporary file (.<hash>.json.<pid>.tmp).
    out = tmp_path / "o"
    out.mkdir()
    if cache == "file":
        (out / "runs").write_text("mine\n", encoding="utf-8")
    else:
        mount("o/runs", "ro,size=1m")
    r = cli(*command, "--out", str(out))
    line = one_error_line(r)
    assert line.startswith(f"atmsim: error: run cache: {out}/runs: cannot be written ("), line
    assert line.endswith("make it writable, or run with --no-cache"), line
    assert "simulating" not in r.stderr and r.stdout == "", "before any run"
    assert sorted(p.name for p in out.iterdir()) == ["runs"], "nothing else written"


def test_run_jobs_checks_its_cache_before_the_first_job(tmp_path, monkeypatch):
    from atmsim import load_scenario, runner

    ran = []
    monkeypatch.setattr(runner, "_run_one", lambda job: ran.append(job))
    (tmp_path / "runs").write_text("", encoding="utf-8")
    job = runner.Job(load_scenario("aron97-topo1-packet"), ("duration=100ms",))
    with pytest.raises(InputError, match=f"^run cache: {tmp_path}/runs: cannot be written \\(exists and is not a directory\\)"):
        runner.run_jobs([job], workers=1, cache_dir=tmp_path / "runs")
    assert ran == []
