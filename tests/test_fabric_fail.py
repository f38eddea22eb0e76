"""Fabric links failing and slowing (`[[fabric.fail]]`, docs/fabric.md R9): the cells lost at a
failure are those waiting for the link or on its wire then, plus those sent onto it until the
failure is detected (F10), every run's books balance with the lost cells and the packets they
doomed, detection stops the losses, and a slowed link loses nothing.
"""

import subprocess
import sys

import pytest

import atmsim

PERM = "fabric-perm"
DOWN = ["duration=100us", "fabric.fail=[{link = \"fap0.l0\", at = \"40us\"}, {link = \"fap0.l1\", at = \"40us\"}]"]


def run(*sets):
    return atmsim.run(PERM, set=list(sets)).summary


@pytest.fixture(scope="module")
def failures():
    return {detect: run(*DOWN, f"fabric.reach.detect={detect}") for detect in ("1us", "10us")}


def test_lost_cells_are_those_of_the_instant_and_those_sent_before_detection(failures):
    for detect, s in failures.items():
        fab = s["fabric"]
        lost = sum(fab["cells_lost"].values())
        assert lost == fab["cells_lost_at_failure"] + fab["cells_lost_before_detection"] > 0, (detect, fab)
        assert fab["cells_balanced"] and fab["voq_identity_holds"] and s["accounting"]["balanced"]
        # Each lost data cell dooms the packets it held bytes of; nothing else is lost.
        assert 0 < fab["packets_discarded"] <= fab["cells_lost"]["data"]
        assert s["accounting"]["cells_dropped"] == fab["packets_discarded"] + fab["voq_drops"]
    # Ten times as long undetected, about ten times the cells sent onto the dead links.
    quick, slow = (failures[d]["fabric"]["cells_lost_before_detection"] for d in ("1us", "10us"))
    assert 5 * quick < slow < 20 * quick, (quick, slow)


def test_once_detected_no_more_cells_are_lost():
    fab_short = run(*DOWN, "fabric.reach.detect=1us")["fabric"]
    fab_long = run(*[d.replace("100us", "150us") for d in DOWN], "fabric.reach.detect=1us")["fabric"]
    assert fab_long["cells_lost"] == fab_short["cells_lost"], (fab_short["cells_lost"], fab_long["cells_lost"])


def test_a_slowed_link_loses_nothing_and_keeps_the_books():
    s = run("duration=100us", "fabric.fail=[{link = \"fap0.l0\", at = \"20us\", rate = \"10Gbps\"}]")
    fab = s["fabric"]
    assert sum(fab["cells_lost"].values()) == 0 and fab["packets_discarded"] == 0
    assert fab["cells_balanced"] and s["accounting"]["balanced"]
    assert fab["up_link_cells_least"] < 0.5 * fab["up_link_cells_most"]


@pytest.mark.parametrize("sets, key", [
    (["fabric.fail=[{link = \"fap99.l0\", at = \"1us\"}]"], "fabric.fail[0].link"),
    (["fabric.fail=[{link = \"fap0.l18\", at = \"1us\"}]"], "fabric.fail[0].link"),
    (["fabric.fail=[{link = \"fap0.l0\", at = \"1us\", dir = \"sideways\"}]"], "fabric.fail[0].dir"),
    (["fabric.fail=[{link = \"fap0.l0\", at = \"5s\"}]"], "fabric.fail[0].at"),
    (["fabric.reach.detect=5us"], "fabric.reach.detect"),
    (["fabric.reassembly_timeout=5us"], "fabric.reassembly_timeout"),
])
def test_bad_or_idle_failure_keys_are_refused(sets, key):
    args = [sys.executable, "-m", "atmsim", "validate", PERM]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True)
    assert p.returncode == 2 and key in p.stderr and len(p.stderr.strip().splitlines()) == 1, p.stderr
