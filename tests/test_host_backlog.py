"""Issue 38, rule 3: nothing bounded what may wait at a host. The long fuzz run (seed 3803, case
25,561) ran fabric-incast with one UDP source at 65,536 Gb/s into its host's 400-Gb/s port and 2^62
bytes to send: valid, 33 s, 3.9 GB resident, about 39 million datagrams waiting at the host. Now a
run in which more than 2^23 cells or packets could wait at a host by its end is refused before it
starts, naming the fastest source's rate (scenario/resolve/backlog.rs), from the API, the CLI and a
sweep alike; what its flows' bytes bound stays valid."""
import pytest

import atmsim

SEED_3803 = ["flow.s56.rate=65536Gbps", "flow.s56.bytes=4611686018427387903B", "flow.s52.kind=udp", "duration=20ms"]


def test_the_fuzzers_case_is_refused_by_the_api_naming_the_rate():
    with pytest.raises(atmsim.ScenarioError) as e:
        atmsim.resolve("fabric-incast", SEED_3803)
    msg = str(e.value)
    assert msg.startswith("flow[s56].rate: the UDP sources of h56 send ") and "waits at the host" in msg, msg


def test_and_by_the_cli_in_one_line_before_any_run(cli, tmp_path):
    args = [a for s in SEED_3803 for a in ("--set", s)]
    r = cli("run", "fabric-incast", *args, "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and r.stderr.startswith("atmsim: error: flow[s56].rate: ") and r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "o").exists()


def test_a_source_bounded_by_its_bytes_or_its_link_still_runs():
    # The same source sending 2 MB (fabric-incast's own), or at its link's rate for the whole run.
    atmsim.resolve("fabric-incast", ["flow.s56.rate=65536Gbps", "flow.s52.kind=udp", "duration=20ms"])
    atmsim.resolve("fabric-incast", ["flow.s56.rate=400Gbps", "flow.s56.bytes=4611686018427387903B", "duration=20ms"])
