"""Traffic classes in the scheduled fabric (`fabric.tcs`, a flow's `tc`; docs/fabric.md R4): a VOQ
per (source FAP, port, class), and an egress scheduler that serves its highest `strict` classes in
strict priority and shares the rest by weighted round robin. Two sources on different FAPs, each at
400 Gb/s, into one 400-Gb/s port: what each gets is the scheduler's rule, measured at the host. A
class's data cells cross the fabric at its cell priority (`fabric.class_priorities`), which decides
where its cells meet another class's in a full fabric.
"""

import subprocess
import sys

import pytest

import atmsim
from conftest import assert_refused

INCAST = "fabric-incast"
TWO = ('flow=[{name = "a", kind = "udp", src = "h4", dst = "h0", rate = "400Gbps", datagram = "4122B"}, '
       '{name = "b", kind = "udp", src = "h8", dst = "h0", rate = "400Gbps", datagram = "4122B", tc = 1}]')


def rates(*sets, flows=TWO):
    s = atmsim.run(INCAST, set=[flows, "duration=100us", "measure.from=30us", "measure.to=100us", *sets]).summary
    assert s["accounting"]["balanced"] and s["fabric"]["cells_balanced"] and s["fabric"]["voq_identity_holds"]
    return [f["goodput_bps"] / 1e9 for f in s["flows"]]


def test_a_strict_class_takes_the_port_and_weights_share_it():
    equal = rates("fabric.tcs=2")
    strict = rates("fabric.tcs=2", "fabric.scheduler.strict=1")
    three_to_one = rates("fabric.tcs=2", "fabric.scheduler.weights=[3,1]")
    one_to_three = rates("fabric.tcs=2", "fabric.scheduler.weights=[1,3]")
    line = sum(equal)
    assert line > 380 and abs(equal[0] - equal[1]) < 0.01 * line, equal
    # Class 1 strict: it has the port, class 0 waits.
    assert strict[1] > 0.97 * line and strict[0] < 0.01 * line, strict
    # 3:1 either way round, within a credit's worth over the window.
    for (lo, hi) in (three_to_one[::-1], one_to_three):
        assert hi / lo == pytest.approx(3, rel=0.03), (three_to_one, one_to_three)


#: Two sources on one FAP (h4, h5 on FAP 1) to ports on two other FAPs, over 6 of its links: 800 Gb/s
#: offered into about 590 of fabric (6 x 106.25 Gb/s less the cell tax), so its links' queues decide.
APART = ('flow=[{name = "lo", kind = "udp", src = "h4", dst = "h0", rate = "400Gbps", datagram = "4122B"}, '
         '{name = "hi", kind = "udp", src = "h5", dst = "h8", rate = "400Gbps", datagram = "4122B", tc = 1}]')


def test_a_class_at_a_higher_cell_priority_crosses_a_full_fabric_first():
    """Both classes have their own egress port, so the schedulers grant both in full; at the
    fabric-limited FAP's links the cells meet. At one priority the links' FIFOs share them equally;
    with class 1's data at cell priority 2 and class 0's at 0, class 1 has its whole rate and class
    0 what is left, the FAP's total unchanged (the books balance either way)."""
    base = ["fabric.fap_links=6", "fabric.tcs=2"]
    alike = rates(*base, flows=APART)
    first = rates(*base, "fabric.class_priorities=[0,2]", flows=APART)
    fabric = sum(alike)
    assert 500 < fabric < 700 and abs(alike[0] - alike[1]) < 0.01 * fabric, alike
    assert first[1] > 0.98 * 400 * 4122 / 4150 and first[0] == pytest.approx(fabric - first[1], rel=0.02), (alike, first)


@pytest.mark.parametrize("sets, key", [
    (["fabric.tcs=9"], "fabric.tcs"),
    (["fabric.scheduler.strict=1"], "fabric.scheduler.strict"),
    (["fabric.scheduler.weights=[1]"], "fabric.scheduler.weights"),
    (["fabric.tcs=2", "fabric.scheduler.strict=3"], "fabric.scheduler.strict"),
    (["fabric.tcs=3", "fabric.scheduler.strict=1", "fabric.scheduler.weights=[1,2,3]"], "fabric.scheduler.weights"),
    (["fabric.tcs=2", "fabric.scheduler.weights=[1,0]"], "fabric.scheduler.weights"),
    ([TWO], "flow[b].tc"),
    (["fabric.tcs=2"], "fabric.tcs"),
    (["fabric.class_priorities=[2]"], "fabric.class_priorities"),
    ([TWO, "fabric.tcs=2", "fabric.class_priorities=[1,1]"], "fabric.class_priorities"),
    ([TWO, "fabric.tcs=2", "fabric.class_priorities=[0,3]"], "fabric.class_priorities"),
    ([TWO, "fabric.tcs=2", "fabric.class_priorities=[0,1,2]"], "fabric.class_priorities"),
])
def test_class_keys_that_are_wrong_or_do_nothing_are_refused(sets, key):
    assert_refused(INCAST, sets, key)


def test_a_class_outside_a_fabric_is_refused():
    p = subprocess.run([sys.executable, "-m", "atmsim", "validate", "aron97-topo1-packet", "--set", "flow.f1.tc=1"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "tc" in p.stderr and "fabric" in p.stderr, p.stderr
