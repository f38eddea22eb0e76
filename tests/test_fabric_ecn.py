"""ECN at the VOQs (`fabric.voq.ecn_above`, docs/fabric.md "ECN at the VOQs"): DCTCP senders over
the scheduled fabric, the C1 comparison's 15 -> 1 incast (2 MB each, 4 FAPs of 4 ports). The fabric
holds the backlog in its VOQs, where no switch port marks: without marking the VOQ toward h0 holds
nearly the senders' whole windows; with DCTCP's rule at the VOQ at K = 12 packets the senders cut
and the VOQ stays within a few K, the flows complete about as soon, every byte accounted."""
import pytest

import atmsim
from atmsim.reproduce.fabric import compare
from conftest import assert_refused

BASE, FABRIC_SETS = compare.FABRIC
K = 12 * 4150  # bytes: the tree's DCTCP threshold, 12 packets of 4,150 B


def incast(*extra):
    sets = [*FABRIC_SETS, "duration=5ms", *compare.TCP, compare.flow_list("incast 15 -> 1", "tcp"), *extra]
    return atmsim.run(BASE, sets, seed=1).summary


@pytest.fixture(scope="module")
def runs():
    return incast(), incast(f"fabric.voq.ecn_above={K}B")


def test_marking_at_the_voq_holds_its_backlog_near_k(runs):
    plain, marked = runs
    for s in runs:
        assert s["accounting"]["balanced"] and s["fabric"]["cells_balanced"]
        assert all(f.get("completion_time_s") for f in s["flows"]), "every flow completes"
        assert sum(f["segments_retransmitted"] for f in s["flows"]) == 0
    assert "voq_marks" not in plain["fabric"], "no count where nothing marks"
    assert sum(f.get("ecn_reductions", 0) for f in plain["flows"]) == 0
    fab = marked["fabric"]
    assert fab["voq_marks"] > 0 and sum(f["ecn_reductions"] for f in marked["flows"]) > 0
    # The senders' windows (up to 4 MiB) filled the VOQ without marking; with it the backlog stays
    # within a few K (a VOQ fills between credits even when every sender is at its floor).
    assert plain["fabric"]["voq_peak_bytes"] > 20 * K
    assert fab["voq_peak_bytes"] < 6 * K
    tail = [max(f["completion_time_s"] for f in s["flows"]) for s in runs]
    assert tail[1] == pytest.approx(tail[0], rel=0.05)


def test_every_mark_reaches_a_dctcp_receiver(runs):
    _, marked = runs
    ce = sum(f["ecn_ce_received"] for f in marked["flows"])
    assert ce == marked["fabric"]["voq_marks"], "the fabric drops nothing, so every CE arrives"


@pytest.mark.parametrize("sets, key", [
    (["fabric.voq.ecn_above=50KB"], "fabric.voq.ecn_above"),  # UDP flows: nothing is ECN-capable
    ([*compare.TCP, "fabric.voq.ecn_above=0B"], "fabric.voq.ecn_above"),
    ([*compare.TCP, "fabric.voq.ecn_above=64MB"], "fabric.voq.ecn_above"),
    ([*compare.TCP, "fabric.voq.ecn_above=lots"], "fabric.voq.ecn_above"),
])
def test_marking_that_could_mark_nothing_or_everything_is_refused(sets, key):
    kind = "tcp" if any(s.startswith("tcp.") for s in sets) else "udp"
    sets = [*sets, compare.flow_list("incast 15 -> 1", kind)]
    assert_refused(BASE, [*FABRIC_SETS, *sets], key)
