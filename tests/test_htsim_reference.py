"""The stored htsim results (validation/htsim/htsim_reference.json, made by validation/htsim/run.py at
htsim 841d9e7) are whole, consistent with the matrices stored beside them, and meet the closed forms
of spec fabrics.md §3.2-§3.3. No htsim is needed: this checks the file atmsim's comparisons read.

Tolerances:
* NDP Fig. 21: a sample counts whole 9,000-B packets per 0.1 s, a quantum of 0.00072 Gb/s. The
  sample at 0.2 s is within one quantum of the closed form (spec §3.2) for every flow, at 10 and at
  100 Gb/s; later samples are within two (at 10 Gb/s F->E's at 0.6 s is 1.12 quanta low, at 100 Gb/s
  A->C's at 0.5 s 1.06: arrivals are not evenly spaced over a sampling boundary), and the mean of
  the samples from 0.2 s to 1.0 s within 0.2 quanta.
* EQDS incasts: ±0.5 % of 15·W·8/R_pull and 127·W·8/R_pull (spec §3.3), computed here from the
  rules E1 and E6 rather than copied.
"""
import hashlib
import importlib.util
import os
import statistics

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("htsim_reference_loader", os.path.join(ROOT, "validation", "htsim", "reference.py"))
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)

COMMIT = "841d9e7be46bb968eece766aa4b6c044c7799f67"
QUANTUM_GBPS = 9000 * 8 / 0.1 / 1e9  # one 9,000-B packet per 100-ms sample
NDP_PAYLOAD_LINE_GBPS = 10.0 * 9000 / 9064  # N1: 64 header bytes per 9,000-B packet at 10 Gb/s

# EQDS closed forms (spec §2.2 E1, E6): bytes on the wire of one 2,000,000-B flow, and one receiver's pull
# credit rate at 100 Gb/s (8 quanta of 512 B per pull, one pull per 0.99 frame times of MTU + 38 B).
EQDS_MTU, EQDS_HDR = 4150, 64
EQDS_PKTS = -(-2_000_000 // (EQDS_MTU - EQDS_HDR))
EQDS_WIRE_B = 2_000_000 + EQDS_PKTS * EQDS_HDR
R_PULL_BPS = 8 * 512 * 8 / (0.99 * 8 * (EQDS_MTU + 38) / 100e9)


def test_every_scenario_of_the_spec_is_stored_with_its_command_commit_and_cpu():
    data = ref.load()
    assert data["htsim"]["commit"] == COMMIT
    assert list(data["runs"]) == ref.SCENARIOS
    for name in ref.SCENARIOS:
        run = ref.run(name)
        assert run["htsim_commit"] == COMMIT
        assert run["command"].startswith("taskset -c ") and f"./{run['binary']} " in run["command"]
        assert run["runs"] and all(t["user_cpu_s"] >= 0 and t["wall_s"] > 0 for t in run["runs"])
        assert run["user_cpu_s"] == min(t["user_cpu_s"] for t in run["runs"])
        assert run["outputs"]
    # the long runs cost what spec §3.1 says they cost, to within the machine's variation
    assert ref.user_cpu_s("eqds_perm_1024n_paths1") > ref.user_cpu_s("eqds_perm_1024n_paths128") > 5
    assert ref.user_cpu_s("ndp_failure_perm") > 10 * ref.user_cpu_s("ndp_in_out")


def test_stored_matrices_are_the_ones_run_and_well_formed():
    stored = ref.load()["matrices"]
    for name in ref.EQDS_SCENARIOS:
        assert ref.run(name)["matrix"] in stored
    for name, digest in stored.items():
        with open(os.path.join(ref.MATRICES, name), "rb") as f:
            assert hashlib.sha256(f.read()).hexdigest() == digest, name
        m = ref.read_matrix(name)
        assert m["connections"] == len(m["flows"]) > 0
        for flow in m["flows"]:
            assert 0 <= flow["src"] < m["nodes"] and 0 <= flow["dst"] < m["nodes"] and flow["src"] != flow["dst"]
            assert flow["size"] == 2_000_000 and flow["start"] == 0
    for name in ("perm_16n_16c_2MB.cm", "perm_1024n_1024c_0u_2000000b.cm"):
        m = ref.read_matrix(name)
        nodes = list(range(m["nodes"]))
        assert sorted(f["src"] for f in m["flows"]) == nodes and sorted(f["dst"] for f in m["flows"]) == nodes
    for name, senders in (("incast.cm", 15), ("incast_128.cm", 127)):
        flows = ref.read_matrix(name)["flows"]
        assert len(flows) == len({f["src"] for f in flows}) == senders and len({f["dst"] for f in flows}) == 1


@pytest.mark.parametrize("link_gbps", [10, 100])
def test_ndp_fig21_flows_meet_the_closed_form(link_gbps):
    flows = ref.ndp_in_out_flows(link_gbps)
    assert [(f["src"], f["dst"]) for f in flows] == [(0, 124), (0, 125), (0, 126), (0, 127), (2, 127)]
    scale = link_gbps / 10  # spec §3.2: "At 100 Gb/s: x10"
    a_each, f_to_e = scale * NDP_PAYLOAD_LINE_GBPS / 4, scale * 3 * NDP_PAYLOAD_LINE_GBPS / 4
    assert a_each == pytest.approx(scale * 2.4823, abs=scale * 5e-5) and f_to_e == pytest.approx(scale * 7.4470, abs=scale * 5e-5)
    for flow in flows:
        expected = f_to_e if flow["src"] == 2 else a_each
        assert flow["mean_0_1_to_0_2_gbps"] == flow["rate_at_0_2_gbps"]  # one 100-ms sample
        assert flow["rate_at_0_2_gbps"] == pytest.approx(expected, abs=QUANTUM_GBPS), (flow["src"], flow["dst"])
        late = [r for t, r in flow["samples_gbps"] if t >= 0.2 - 1e-9]
        assert len(late) == 9  # 0.2 ... 1.0 s
        for r in late:
            assert r == pytest.approx(expected, abs=2 * QUANTUM_GBPS), (flow["src"], flow["dst"])
        assert statistics.fmean(late) == pytest.approx(expected, abs=0.2 * QUANTUM_GBPS)
    out = ref.run("ndp_in_out" if link_gbps == 10 else "ndp_in_out_100g")["outputs"]
    assert all(b >= 0.99 for t, b in out["a_uplink_busy_by_sample"] if t >= 0.1 - 1e-9)
    (e_down,) = out["e_downlink_busy_whole_run"].values()
    assert 0.99 <= e_down <= 1.0


@pytest.mark.parametrize("strategy", ["perm", "pull"])
def test_ndp_fig22_has_128_flows_of_one_permutation(strategy):
    out = ref.ndp_failure(strategy)
    pairs = ref.ndp_permutation(strategy)
    assert len(out["flows"]) == len(pairs) == 128
    assert sorted(s for s, _ in pairs) == list(range(128)) and sorted(d for _, d in pairs) == list(range(128))
    assert pairs == ref.ndp_permutation("perm")  # srand(13): both strategies run the same matrix
    rates = sorted(f["rate_at_0_2_gbps"] for f in out["flows"])
    assert all(0 < r <= NDP_PAYLOAD_LINE_GBPS + QUANTUM_GBPS for r in rates)
    summary = out["rate_summary_gbps"]
    assert summary["mean"] == pytest.approx(statistics.fmean(rates))
    assert (summary["min"], summary["p10"], summary["max"]) == (rates[0], rates[12], rates[-1])
    assert len(out["failed_links"]) == 1 and len(out["slow_queues"]) == 1
    # k = 8: 4 hosts per ToR, 16 per pod; 1 path within a ToR, 4 within a pod, 16 between pods
    assert out["sources_with_counts"] == 128
    for f in out["flows"]:
        assert f["paths"] == (1 if f["src"] // 4 == f["dst"] // 4 else 4 if f["src"] // 16 == f["dst"] // 16 else 16)


@pytest.mark.parametrize("name", ref.EQDS_SCENARIOS)
def test_eqds_runs_pass_validate_txt_and_match_their_matrix(name):
    run, out = ref.run(name), ref.eqds(name)
    matrix = ref.read_matrix(run["matrix"])
    assert sorted((f["src"], f["dst"]) for f in out["flows"]) == sorted((f["src"], f["dst"]) for f in matrix["flows"])
    fcts = ref.eqds_fcts_us(name)
    assert out["tail_fct_us"] == fcts[-1] <= run["targets"]["tail_fct_us"]
    assert out["median_fct_us"] == statistics.median(fcts)
    for flow_name, target in run["targets"]["flow_fct_us"].items():
        assert next(f["fct_us"] for f in out["flows"] if f["name"] == flow_name) <= target
    assert out["finished"] == matrix["connections"] and out["passes"]
    # nothing finishes faster than its own bytes at 100 Gb/s
    assert fcts[0] >= EQDS_WIRE_B * 8 / 100e9 * 1e6
    assert all(f["packets"] == EQDS_PKTS for f in out["flows"])


@pytest.mark.parametrize("name,senders,spec_us", [("eqds_incast", 15, 2467.5), ("eqds_incast_128", 127, 20891)])
def test_eqds_incast_tails_meet_the_closed_form(name, senders, spec_us):
    closed = senders * EQDS_WIRE_B * 8 / R_PULL_BPS * 1e6
    assert closed == pytest.approx(spec_us, rel=5e-5)
    assert ref.eqds(name)["tail_fct_us"] == pytest.approx(closed, rel=0.005)


def test_counted_runs_have_events_and_packet_hops_consistent_with_their_traffic():
    for name in ("ndp_in_out", "eqds_incast_128"):
        c = ref.counts(name)
        assert c["events"] > c["packet_hops"] > 0
        assert 0 < ref.cpu_per_packet_hop_ns(name) < 10_000
    # Fig. 21: all five flows cross pods (6 links each way); every delivered data packet was answered
    # by an ACK or NACK over 6 links back (N8), so packet-hops >= 12 x the packets of the samples
    delivered = sum(r for f in ref.ndp_in_out_flows() for _, r in f["samples_gbps"]) * 1e9 * 0.1 / 8 / 9000
    assert ref.counts("ndp_in_out")["packet_hops"] >= 12 * delivered
    # the 0-µs switch-latency pipes of the EQDS fat tree are not links; NDP's old topology has none
    assert ref.counts("ndp_in_out")["switch_pipe"] == 0 < ref.counts("eqds_incast_128")["switch_pipe"]
