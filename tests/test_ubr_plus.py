"""Selective Drop and Fair Buffer Allocation on ATM switch ports (validation/ubr_plus.py; docs/atm.md,
"UBR+: Selective Drop and Fair Buffer Allocation").

What is checked: the scenario keys; that a refused frame goes whole; that with a Z no VC can reach the
per-VC test never fires, so SD and FBA are exactly PPD (the same state machine after admission); and,
on the 15-source configuration at one buffer, the ordering the comparison reports (docs/atm.md's
table: per-VC accounting fairer and more efficient than EPD at the same threshold)."""
import os
import sys

import pytest

import atmsim
from atmsim import ScenarioError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "validation"))
import ubr_plus  # noqa: E402

SMALL = ["switch.buffer=96KB", "atm.encapsulation=aal5-llc", "duration=3s"]


def bottleneck(s: dict) -> dict:
    return next(p for p in s["ports"] if p["name"] == s["bottleneck"])


@pytest.mark.parametrize("policy,reason", [("selective-drop", "selective_drop"), ("fba", "fba")])
def test_a_refused_frame_goes_whole(policy, reason):
    sets = ["switch.buffer=192KB", "atm.encapsulation=aal5-llc", "duration=3s", f"switch.policy={policy}"]
    s = atmsim.run("aron97-topo1-atm", sets).summary
    drops = bottleneck(s)["drops_by_reason"]
    refused = drops.get(reason, 0) / atmsim.model_facts("aron97-topo1-atm", sets)["segment_cells"]
    tail = drops.get("tail", 0)
    # A frame refused whole leaves nothing to reassemble. Only a cell lost to a full buffer (`tail`)
    # damages its frame, and the next one too when it is an EOM (PPD then discards that frame but
    # its EOM): at most two damaged frames a tail drop. Had the policy refused first cells alone,
    # every refusal would reach a receiver as a damaged frame, and there are more refusals than that.
    assert refused > 2 * tail + 10, drops
    assert s["frames_discarded_at_reassembly"] <= 2 * tail, (s["frames_discarded_at_reassembly"], drops)


@pytest.mark.parametrize("policy", ["selective-drop", "fba"])
def test_with_no_vc_ever_above_its_bound_the_policy_is_ppd(policy):
    ppd = atmsim.run("aron97-topo1-atm", SMALL + ["switch.policy=ppd"]).summary
    never = atmsim.run("aron97-topo1-atm", SMALL + [f"switch.policy={policy}", "switch.fair_share.z=1e12"]).summary
    assert [f["bytes_delivered"] for f in never["flows"]] == [f["bytes_delivered"] for f in ppd["flows"]]
    assert bottleneck(never)["units_dropped"] == bottleneck(ppd)["units_dropped"] > 0


def test_bad_parameters_name_their_key():
    for bad, key in [("switch.fair_share.r=0", "switch.fair_share.r"), ("switch.fair_share.z=-1", "switch.fair_share.z"),
                     ("switch.queueing=per-vc", "switch.policy")]:
        with pytest.raises(ScenarioError, match=key.replace(".", r"\.")):
            atmsim.run("aron97-topo1-atm", ["switch.policy=fba", bad])


def test_fifteen_sources_per_vc_accounting_beats_epd():
    epd, sd, fba = (ubr_plus.measure(15, 12000, [f"switch.policy={p}"], 10.0, 1) for p in ("epd", "selective-drop", "fba"))
    assert sd["efficiency"] > epd["efficiency"] + 0.1 and fba["efficiency"] > epd["efficiency"] + 0.1
    assert sd["fairness"] > epd["fairness"] and fba["fairness"] > epd["fairness"]
