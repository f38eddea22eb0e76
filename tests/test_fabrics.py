"""Fat trees, trimming ports and NDP from the CLI and the API (docs/fabrics.md): Fig. 21's closed form
on a short run, and every bad key of the fabric scenarios refused with exit 2 and one line naming it."""
import json

import pytest

import atmsim

A_FLOW_GBPS = 10 * 9000 / 9064 / 4  # A's uplink's payload rate over its four flows (N1, N6)


def test_fig21s_shares_hold_on_a_short_run():
    # 20 ms, rates over [10 ms, 20 ms]: one 9,000-B packet is 0.0072 Gb/s of it.
    s = atmsim.run("ndp-in-out", ["duration=20ms", "measure.from=10ms", "measure.to=20ms"]).summary
    rate = {f["name"]: f["goodput_bps"] / 1e9 for f in s["flows"]}
    quantum = 9000 * 8 / 0.01 / 1e9
    for n in ("A-B", "A-C", "A-D", "A-E"):
        assert abs(rate[n] - A_FLOW_GBPS) <= 2 * quantum, (n, rate[n])
    assert abs(rate["F-E"] - 3 * A_FLOW_GBPS) <= 2 * quantum, rate["F-E"]
    a = s["accounting"]
    assert a["balanced"] and a["bytes_trimmed"] > 0
    # The identity with the trimmed term, restated.
    assert a["bytes_sent"] == sum(a[k] for k in ("bytes_delivered", "bytes_held_out_of_order", "bytes_duplicate",
                                                 "bytes_dropped_in_queues", "bytes_discarded_at_reassembly",
                                                 "bytes_trimmed", "bytes_in_flight"))
    trims = sum(p.get("trimmed", 0) for p in s["ports"])
    assert trims == sum(f["ndp"]["trimmed"] for f in s["flows"]) + sum(p.get("header_queue", 0) for p in s["ports"])


@pytest.mark.parametrize("setting, key", [
    ("topology.k=7", "topology.k"),
    ("topology.tiers=4", "topology.tiers"),
    ("topology.host_count=1000", "topology.host_count"),
    ("switch.buffer=8packets", "switch.buffer"),
    ("network=atm", "router.policy"),
    ("flow.A-B.window=64KB", "flow[A-B].kind"),
    ("ndp.mss=70000", "ndp.mss"),
    ("ndp.pull_rate=0", "ndp.pull_rate"),
    ('ndp.paths="spray"', "ndp.paths"),
    ('router.trim_service="fast"', "router.trim_service"),
    ("measure.to=0.3s", "measure.to"),
    ("measure.from=5s", "measure.from"),  # past the run's end: measure.from's, not measure.to's
    ("duration=10ms", "measure.from"),
    ('topology.port_rate=[{port="x->y", rate="1Gbps"}]', "topology.port_rate[0].port"),
])
def test_a_bad_fabric_key_is_one_line_naming_it(cli, setting, key):
    r = cli("run", "ndp-in-out", "--set", setting, "--json")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"atmsim: error: {key}:"), r.stderr


def test_fattree_keys_on_an_explicit_topology_are_refused(cli):
    r = cli("run", "aron97-topo1-packet", "--set", "topology.k=8", "--json")
    assert r.returncode == 2 and "topology.k: does nothing here" in r.stderr, r.stderr


def test_show_of_a_fabric_scenario_runs_as_the_scenario(cli, tmp_path):
    shown = cli("show", "ndp-in-out", check=True).stdout
    assert 'kind = "fattree"' in shown and 'policy = "trim"' in shown
    path = tmp_path / "again.toml"
    path.write_text(shown, encoding="utf-8")
    sets = ["--set", "duration=5ms", "--set", "measure.from=1ms", "--set", "measure.to=5ms"]
    a = json.loads(cli("run", "ndp-in-out", *sets, "--json", check=True).stdout)
    b = json.loads(cli("run", str(path), *sets, "--json", check=True).stdout)
    for s in (a, b):
        s.pop("wall_s")
    assert a == b
