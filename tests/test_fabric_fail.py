"""Fabric links failing and slowing (`[[fabric.fail]]`, docs/fabric.md R9): the cells lost at a
failure are those waiting for the link or on its wire then, plus those sent onto it until the
failure is detected (F10), every run's books balance with the lost cells and the packets they
doomed, detection stops the losses, and a slowed link loses nothing.
"""


import pytest

import atmsim
from conftest import assert_refused
from atmsim.toml import tomllib

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
        assert fab["cells_lost_unreachable"] == 0, "every element keeps two links to FAP 0"
        assert fab["cells_balanced"] and fab["voq_identity_holds"] and s["accounting"]["balanced"]
        # The packets lost cells held bytes of are discarded; nothing else is lost.
        assert 0 < fab["packets_discarded"] <= fab["packets_in"]
        assert s["accounting"]["cells_dropped"] == fab["packets_discarded"] + fab["voq_drops"]
    # Ten times as long undetected, about ten times the cells sent onto the dead links.
    quick, slow = (failures[d]["fabric"]["cells_lost_before_detection"] for d in ("1us", "10us"))
    assert 5 * quick < slow < 20 * quick, (quick, slow)


def test_an_element_left_without_links_to_a_fap_is_left_out_and_its_losses_counted():
    # Links 0, 6 and 12 of FAP 0 are all its links to element 0: once detected, element 0 no
    # longer reaches FAP 0; cells already on their way to it for FAP 0 are lost there.
    fail = ", ".join(f'{{link = "fap0.l{i}", at = "40us"}}' for i in (0, 6, 12))
    fab = run("duration=100us", "fabric.reach.detect=1us", f"fabric.fail=[{fail}]")["fabric"]
    lost = sum(fab["cells_lost"].values())
    assert lost == fab["cells_lost_at_failure"] + fab["cells_lost_before_detection"] + fab["cells_lost_unreachable"]
    assert fab["cells_balanced"]


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


def test_the_least_loaded_sprayer_routes_around_a_slowed_link():
    # FAP 0's link 0 slowed to 10 Gb/s up: round robin gives it an eighteenth of FAP 0's cells (or
    # more, by the phase of the control cells), so FAP 0's four flows go at about 18 × 10 Gb/s; the
    # least-loaded sprayer feeds it only as it drains. With a deeper egress pause threshold (the
    # late cells complete packets in runs at reassembly) the flows reach their ports' rate.
    slow = ["duration=150us", "measure.from=80us", "measure.to=150us",
            "fabric.fail=[{link = \"fap0.l0\", at = \"20us\", rate = \"10Gbps\", dir = \"up\"}]"]

    def fap0(*sets):
        s = run(*slow, *sets)
        assert s["fabric"]["cells_balanced"] and s["accounting"]["balanced"]
        return sum(f["goodput_bps"] for f in s["flows"][:4])

    rr, ll = fap0(), fap0("fabric.spray=least-loaded")
    deep = fap0("fabric.spray=least-loaded", "fabric.scheduler.egress_stop=96KB")
    assert rr < 18 * 10e9 and ll > 4 * rr, (rr, ll)
    assert deep > 0.98 * 4 * 400e9, deep


def test_balanced_input_slows_the_credits_toward_a_fap_that_lost_links_and_spares_the_others():
    # Three of FAP 0's 18 links fail both ways at 40 µs, detected at 41 µs: with balanced input
    # FAP 0's ports grant at 15/18 of their credit rate, so less piles up toward FAP 0 in the
    # elements, and link credit, shared by every destination, holds back less for other FAPs.
    fail = ", ".join(f'{{link = "fap0.l{i}", at = "40us"}}' for i in range(3))
    sets = ["duration=100us", "measure.from=50us", "measure.to=100us", "fabric.reach.detect=1us", f"fabric.fail=[{fail}]"]
    plain, balanced = run(*sets), run(*sets, "fabric.reach.balanced_input=true")

    def into_fap0_and_slowest_other(s):
        flows = tomllib.loads(atmsim.resolve(PERM))["flow"]
        ends = {f["name"]: (int(f["src"][1:]) // 4, int(f["dst"][1:]) // 4) for f in flows}
        into = sum(f["goodput_bps"] for f in s["flows"] if ends[f["name"]][1] == 0)
        others = min(f["goodput_bps"] for f in s["flows"] if 0 not in ends[f["name"]])
        return into, others

    (into_plain, others_plain), (into_bal, others_bal) = map(into_fap0_and_slowest_other, (plain, balanced))
    assert balanced["fabric"]["cells_balanced"] and balanced["accounting"]["balanced"]
    # Into FAP 0: no more than 15/18 of its four ports' credits (404 Gb/s each) allow.
    assert into_bal <= 15 / 18 * 4 * 404e9
    assert others_bal > others_plain * 1.05, (others_plain, others_bal)


@pytest.mark.parametrize("sets, key", [
    (["fabric.fail=[{link = \"fap99.l0\", at = \"1us\"}]"], "fabric.fail[0].link"),
    (["fabric.fail=[{link = \"fap0.l18\", at = \"1us\"}]"], "fabric.fail[0].link"),
    (["fabric.fail=[{link = \"fap0.l0\", at = \"1us\", dir = \"sideways\"}]"], "fabric.fail[0].dir"),
    (["fabric.fail=[{link = \"fap0.l0\", at = \"5s\"}]"], "fabric.fail[0].at"),
    (["fabric.reach.detect=5us"], "fabric.reach.detect"),
    (["fabric.reassembly_timeout=5us"], "fabric.reassembly_timeout"),
    (["fabric.reach.balanced_input=true"], "fabric.reach.balanced_input"),
    (["fabric.spray=random"], "fabric.spray"),
    (["fabric.reach.balanced_input=true", "fabric.fail=[{link = \"fap0.l0\", at = \"1us\", dir = \"up\"}]"],
     "fabric.reach.balanced_input"),
    (["fabric.reach.balanced_input=true", "fabric.fail=[{link = \"fap0.l0\", at = \"1us\", rate = \"10Gbps\"}]"],
     "fabric.reach.balanced_input"),
    (["fabric.fail=[{link = \"fap0.l0\", at = \"1us\", rate = \"200Gbps\"}]"], "fabric.fail[0].rate"),
    (["fabric.fail=[{link = \"fap0.l0\", at = \"9us\", rate = \"1Gbps\"}, {link = \"fap0.l0\", at = \"2us\"}]"],
     "fabric.fail[0].link"),
    (["fabric.crs.off_to_slow=2KB"], "fabric.crs.off_to_slow"),
    (["fabric.voq.buffer=1MB", "fabric.crs.off_to_norm=1MB"], "fabric.crs.off_to_norm"),  # a VOQ never holds more
    (["fabric.crs.satisfied_backoff=-1KB"], "fabric.crs.satisfied_backoff"),
    (["fabric.fap_links=1", "fabric.fes=1", "fabric.link_skew=10ns"], "fabric.link_skew"),
    (["fabric.faps=256", "fabric.ports_per_fap=128"], "fabric.ports_per_fap"),
])
def test_bad_or_idle_failure_keys_are_refused(sets, key):
    assert_refused(PERM, sets, key)
