"""pcap captures written as the run goes (issue 38): bounded memory, files identical to those built in
memory, capped in bytes (`capture.max_bytes`) on every path (the CLI, `atmsim.run(capture=True)` and
`capture=DIR`), and nothing half-written when a run does not end (the cap, a full disk)."""
import json
import subprocess
import sys

import pytest

import atmsim
from atmsim.captures import STAGING_PREFIX

PACKET = ["duration=0.5s", 'capture.ports=["R1->R2"]', 'capture.hosts=["S1", "D1"]']


def test_files_written_into_a_folder_are_the_bytes_kept_in_memory(tmp_path):
    on_disk = atmsim.run("aron97-topo1-packet", set=PACKET, seed=2, capture=tmp_path / "caps")
    in_memory = atmsim.run("aron97-topo1-packet", set=PACKET, seed=2, capture=True)
    assert set(on_disk.captures) == set(in_memory.captures) == {"port-R1-R2.pcap", "host-S1.pcap", "host-D1.pcap"}
    for name, path in on_disk.captures.items():
        assert path == tmp_path / "caps" / name and path.read_bytes() == in_memory.captures[name]
        assert len(path.read_bytes()) > 10_000
    assert sorted(p.name for p in (tmp_path / "caps").iterdir()) == sorted(on_disk.captures), "no staging folder left"
    # write_captures copies either kind.
    for r, d in ((on_disk, tmp_path / "copy1"), (in_memory, tmp_path / "copy2")):
        r.write_captures(d)
        assert {p.name: p.read_bytes() for p in d.iterdir()} == in_memory.captures


def _peak_rss_kb(args):
    """Peak resident memory of `atmsim ARGS` in a process of its own (kB)."""
    prog = ("import resource, subprocess, sys\n"
            f"subprocess.run([sys.executable, '-m', 'atmsim', *{args!r}], check=True, stdout=subprocess.DEVNULL)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    return int(subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, check=True).stdout)


def test_a_long_capture_takes_no_more_memory_than_a_short_one(tmp_path):
    # Built in memory at the end, jain96-5src's default capture peaked at 1.26 GB for 60 s (741 MB of
    # files). Written as the run goes, the peak does not grow with the files: 20 s write ~240 MB, 5 s ~44.
    peaks = {}
    for seconds in (5, 20):
        out = tmp_path / f"p{seconds}"
        peaks[seconds] = _peak_rss_kb(["run", "jain96-5src", "--set", f"duration={seconds}s", "--pcap", str(out)])
        size = sum(p.stat().st_size for p in out.glob("*.pcap"))
        assert size > seconds * 8_000_000, (seconds, size)
    assert peaks[20] < peaks[5] + 30_000, peaks


def test_the_cli_stops_at_the_cap_and_leaves_the_earlier_files(cli, tmp_path):
    pcap = tmp_path / "pcap"
    cli("run", "aron97-topo1-packet", "--set", "duration=0.2s", "--pcap", str(pcap), check=True)
    before = {p.name: p.read_bytes() for p in pcap.iterdir()}
    r = cli("run", "aron97-topo1-packet", "--set", "duration=5s", "--set", "capture.max_bytes=100KB",
            "--set", 'capture.hosts=["S1"]', "--pcap", str(pcap))
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith("atmsim: error: capture.max_bytes: the pcap files reached their cap (100000 bytes) at ")
    assert {p.name: p.read_bytes() for p in pcap.iterdir()} == before, "the earlier run's files, untouched"


def test_the_api_holds_the_cap_in_memory_and_on_disk(tmp_path):
    sets = ["duration=5s", "capture.max_bytes=100KB", 'capture.hosts=["S1"]']
    for capture in (True, tmp_path / "caps"):
        with pytest.raises(atmsim.ScenarioError, match=r"^capture.max_bytes: the pcap files reached their cap"):
            atmsim.run("aron97-topo1-packet", set=sets, capture=capture)
    assert list((tmp_path / "caps").iterdir()) == [], "no half-written file, no staging folder"
    # Under the cap, the same run's files hold at most the cap.
    r = atmsim.run("aron97-topo1-packet", set=["duration=0.5s", "capture.max_bytes=100KB", 'capture.hosts=["S1"]'],
                   capture=True)
    assert 0 < sum(len(b) for b in r.captures.values()) <= 100_000


def test_a_full_disk_during_the_run_is_one_line_naming_the_file(cli, tmp_path, mount):
    full = mount("full", "size=64k")
    (full / "mine.txt").write_text("kept", encoding="utf-8")
    r = cli("run", "aron97-topo1-packet", "--set", "duration=5s", "--set", 'capture.hosts=["S1"]', "--pcap", str(full))
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert f"--pcap: cannot write {full}/host-S1.pcap: No space left on device" in r.stderr, r.stderr
    assert sorted(p.name for p in full.iterdir()) == ["mine.txt"], "no staging folder, no lock, no half file"
    with pytest.raises(OSError, match="No space left on device") as e:
        atmsim.run("aron97-topo1-packet", set=["duration=5s", 'capture.hosts=["S1"]'], capture=full)
    assert e.value.filename == str(full / "host-S1.pcap")
    assert not any(p.name.startswith(STAGING_PREFIX) for p in full.iterdir())


def test_the_summary_counts_what_the_streamed_files_hold(cli, tmp_path):
    r = cli("run", "aron97-topo1-atm", "--set", "duration=0.3s", "--pcap", str(tmp_path / "p"), "--json", check=True)
    files = json.loads(r.stdout)["capture"]["files"]
    for f in files:
        data = (tmp_path / "p" / f["name"]).read_bytes()
        n, off = 0, 24
        while off < len(data):
            off += 16 + int.from_bytes(data[off + 8:off + 12], "little")
            n += 1
        assert n == f["packets"] > 0 and off == len(data), f["name"]
