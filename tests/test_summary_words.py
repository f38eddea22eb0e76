"""The printed summary of `atmsim run` in the user's words (issue 27): each
number says what it is and its unit; a packet run speaks of packets (the JSON
keys, a contract documented in docs/metrics.md, keep their names)."""
import json
import re

import pytest

import atmsim
from atmsim.report import print_summary


def printed(capsys, scenario, *sets):
    s = atmsim.run(scenario, list(sets)).summary
    print_summary(s)
    return s, capsys.readouterr().out


def test_a_packet_run_speaks_of_packets_and_names_every_number(capsys):
    s, out = printed(capsys, "aron97-topo2-packet", "duration=1s")
    assert s["network"] == "packet" and s["accounting"]["cells_dropped"] > 0  # the JSON keys are unchanged
    a = s["accounting"]
    assert (f"packet loss ratio {s['cell_loss_ratio']:.4%}: {a['cells_dropped']:,} of {a['cells_sent']:,} packets sent"
            in " ".join(out.split()))
    assert f"packets sent {a['cells_sent']:,} = delivered {a['cells_delivered']:,}" in out
    assert "cell" not in out.lower(), "no cells on a packet network"
    assert f"Jain's fairness index {s['fairness']:.3f}" in out
    assert "(packets)" in out, "the ports' arrivals and drops name their unit"
    limits = [f"{q['limit']:,} {q['unit']}" for q in s["ports"] if q["name"] == s["bottleneck"]]
    assert limits == ["192,528 bytes"] and limits[0] in out, "the queue's unit is the limit's"
    for jargon in ("common normaliser", "E =", "done -", "cells_sent", "=True", " TO ", " FR "):
        assert jargon not in out, jargon
    # Nothing above 1 here: no note.
    assert s["effective_throughput"] < 1 and "above 1" not in out


def test_an_atm_run_speaks_of_cells_and_gives_the_packet_networks_maximum(capsys):
    s, out = printed(capsys, "aron97-topo1-atm", "duration=300ms")
    flat = " ".join(out.split())
    assert f"cell loss ratio {s['cell_loss_ratio']:.4%}" in flat
    assert f"{s['effective_throughput_common']:.4f} against the packet network's maximum" in flat
    assert "(cells)" in out and "packet loss" not in out


def test_an_effective_throughput_above_1_says_why_it_may(capsys):
    # arb-twoway loads both directions of its bottleneck: E near 1.8 (docs/metrics.md).
    s, out = printed(capsys, "arb-twoway-short")
    assert s["effective_throughput"] > 1
    flat = " ".join(out.split())
    assert re.search(r"effective throughput 1\.\d{4}: useful data delivered / the most the bottleneck \S+ could carry", flat)
    assert "above 1 is possible" in flat and "both directions" in flat


def test_the_summary_prints_a_ratio_of_nothing_as_such(capsys):
    s = atmsim.run("aron97-topo1-packet", ["duration=1s"]).summary
    s = json.loads(json.dumps(s))
    s["cell_loss_ratio"] = s["fairness"] = None  # JSON null: nothing sent, nothing delivered
    print_summary(s)
    out = " ".join(capsys.readouterr().out.split())
    assert "packet loss ratio n/a" in out and "Jain's fairness index n/a" in out


@pytest.mark.parametrize("done, aborted, word", [(None, False, "not yet"), (None, True, "aborted"), (0.25, False, "0.250 s")])
def test_a_flows_finish_is_a_time_or_a_word(capsys, done, aborted, word):
    s = json.loads(json.dumps(atmsim.run("aron97-topo1-packet", ["duration=100ms"]).summary))
    s["flows"] = s["flows"][:1]
    s["flows"][0].update(completion_time_s=done, aborted=aborted)
    print_summary(s)
    row = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith(s["flows"][0]["name"] + " ")]
    assert len(row) == 1 and row[0].rstrip().endswith(word), row


def test_red_ecn_and_efci_runs_say_what_their_signals_did(capsys):
    # The terminal summary of an ECN or EFCI run said nothing of marks, window reductions or CI, and RED's
    # early, forced and tail drops were one number (issue 38).
    red = ["duration=3s", "router.policy=red", "switch.buffer=100packets"]
    s, out = printed(capsys, "aron97-topo2-packet", *red, "router.red.ecn=true", "tcp.ecn=true")
    flat = " ".join(out.split())
    q = next(q for q in s["ports"] if q["name"] == "R2->R3")
    forced, early = q["red_forced_drops"], q["drops_by_reason"].get("red", 0) - q["red_forced_drops"]
    assert forced > 0 and q["units_marked"] > 0
    assert (f"RED at R2->R3: {early:,} early drops (average queue between min_th and max_th), {forced:,} forced "
            f"(average at or above max_th), {q['drops_by_reason'].get('tail', 0):,} tail (buffer full); "
            f"{q['units_marked']:,} packets marked CE") in flat
    ce, echoes, cuts, cwr = (sum(f[k] for f in s["flows"]) for k in
                             ("ecn_ce_received", "ecn_echoes", "ecn_reductions", "ecn_cwr_sent"))
    assert cuts > 0
    assert (f"ECN: the receivers got {ce:,} CE-marked packets and sent {echoes:,} ACKs with ECE; the senders cut "
            f"their window {cuts:,} times") in flat and f"sent {cwr:,} CWR" in flat
    # Without ECN the summary does not tell early from forced drops: it says so.
    s, out = printed(capsys, "aron97-topo2-packet", *red)
    q = next(q for q in s["ports"] if q["name"] == "R2->R3")
    assert f"RED at R2->R3: {q['drops_by_reason']['red']:,} RED drops (early and forced" in " ".join(out.split())
    assert "ECN:" not in out
    # Binary ABR feedback: the cells marked and the backward RM cells with CI.
    s, out = printed(capsys, "jain96-2src", "duration=1s", "abr.switch=efci", "abr.rif=0.0625", "abr.rdf=0.0625")
    marked = sum(q.get("units_marked") or 0 for q in s["ports"])
    src = s["abr"]["sources"]
    ci, brm = sum(x["brm_with_ci"] for x in src), sum(x["brm_received"] for x in src)
    assert marked > 0 and 0 < ci < brm
    assert (f"EFCI: the switches marked {marked:,} cells (congestion experienced); {ci:,} of {brm:,} backward RM "
            "cells the sources received carried CI") in " ".join(out.split())
    _, out = printed(capsys, "jain96-2src", "duration=0.3s")
    assert "EFCI" not in out and "RED at" not in out


def test_a_fabric_run_shows_fcts_in_us_slowdowns_and_trims_not_tcps_columns(capsys):
    s, out = printed(capsys, "eqds-incast")
    flat = " ".join(out.split())
    assert all(f["kind"] == "eqds" for f in s["flows"])
    assert "fast re-" not in out and "loss episodes" not in out, "TCP's columns say nothing of an EQDS flow"
    assert f"{s['end_time_s'] * 1e6:,.1f} µs simulated" in flat, "a 2.5-ms run in µs, not as 0.002 s"
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip().startswith("Eqds_")}
    assert len(rows) == len(s["flows"])
    for f in s["flows"]:
        row = rows[f["name"]]
        assert row[2] == f"{f['completion_time_s'] * 1e6:,.1f}" and row[3] == f"{f['fct_slowdown']:.3f}"
        assert row[4:9] == [f"{f['segments_sent']:,}", f"{f['segments_retransmitted']:,}", f"{f['eqds']['trimmed']:,}",
                            f"{f['eqds']['nacks']:,}", f"{f['eqds']['pulls']:,}"]
    (c,) = s["fct_slowdown"]
    assert f"{c['class']}: {c['flows']:,} flows, p50 {c['p50']:.3f}, p99 {c['p99']:.3f}" in flat


def test_an_ndp_run_with_a_measure_window_shows_goodput_per_flow(capsys):
    s, out = printed(capsys, "ndp-in-out", "duration=0.2s")
    rows = {line.split()[0]: line.split() for line in out.splitlines() if re.match(r"\s*[AF]-[B-E]\s", line)}
    assert {f["name"]: rows[f["name"]][-1] for f in s["flows"]} == {f["name"]: f"{f['goodput_bps'] / 1e9:.4f}" for f in s["flows"]}
    assert "not yet" in out and "FCT slowdown" not in out, "unbounded flows never complete: no slowdown line"
