"""A three-stage scheduled cell fabric (docs/fabric.md "Three stages"): FAP -> FE1 -> FE2 -> FE3 -> FAP.

On 8 FAPs in 2 groups of 4 (3 FE13s each, 6 links from every FAP to each), 6 FE2s with 4 links to
every FE13: one packet's zero-load latency is F12's closed form with four fabric hops instead of
two, to the picosecond; a 16-host permutation at full load keeps its books, loses no cell, keeps
every link within its link credit and serves every egress port at its line rate; after a FAP's
links from one FE3 fail, the FE2s leave that FE3 out for the FAP and nothing more is lost; the
keys of the shape are refused where they do nothing or disagree.
"""

import pytest

from test_fabric import CTL, D_LINK, D_PORT, H, LINK_BPS, P, PORT_BPS, tx
from test_fabric import run as fabric_run
from test_fabric import test_bad_fabric_keys_are_refused_naming_the_key as refused_naming

SHAPE = """[fabric]
faps = 8
ports_per_fap = {ports}
fes = 3
fap_links = 18
stages = 3
group_faps = 4
fe2s = 6
fe2_links = 4
{more}"""

def run(tmp_path, duration, flows, ports=1, more=""):
    """`test_fabric`'s scenario on this shape, its one flow replaced by `flows`."""
    shape = SHAPE.format(ports=ports, more=more)
    return fabric_run(tmp_path, 4122, 'rate = "1Gbps"', extra=shape, set=[f"duration={duration}", f"flow=[{flows}]"]).summary


def books_balance(s):
    fab = s["fabric"]
    lost = sum(fab["cells_lost"].values())
    return (
        s["accounting"]["balanced"]
        and fab["cells_balanced"]
        and fab["voq_identity_holds"]
        and lost == fab["cells_lost_at_failure"] + fab["cells_lost_before_detection"] + fab["cells_lost_unreachable"]
        and fab["llfc_peak_resident_cells"] <= fab["llfc_bound_cells"]
    )


@pytest.mark.parametrize("length", [1500, 4150])
def test_zero_load_latency_is_f12_with_four_fabric_hops(tmp_path, length):
    # h4 is on FAP 4 (group 1), h0 on FAP 0 (group 0): every cell crosses an FE2.
    flow = f'{{ name = "f", kind = "udp", src = "h4", dst = "h0", datagram = "{length - 28}B", send_at = ["0s"], bytes = "{length - 28}B" }}'
    s = run(tmp_path, "2ms", flow)
    fct = s["flows"][0]["completion_time_s"]
    largest_cell = min(length, P) + H
    expected = (
        2 * (tx(length, PORT_BPS) + D_PORT)  # host to FAP, FAP to host, store and forward
        + 8 * (tx(CTL + H, LINK_BPS) + D_LINK)  # FlowStatus there, Credit back: four hops each
        + 4 * (tx(largest_cell, LINK_BPS) + D_LINK)  # the cells cross in parallel, one per link at every hop
    )
    assert round(fct * 1e12) == expected, (fct, expected)
    assert books_balance(s)


#: 16 hosts (2 per FAP), each to a host in the other group, so that every cell crosses an FE2.
DST = [8 + h * 3 % 8 if h < 8 else (h - 8) * 5 % 8 for h in range(16)]
PERMUTATION = ", ".join(
    f'{{ name = "p{h}", kind = "udp", src = "h{h}", dst = "h{d}", rate = "400Gbps", datagram = "4122B" }}' for h, d in enumerate(DST)
)


def test_the_permutation_is_one():
    assert sorted(DST) == list(range(16)) and all((h // 8) != (d // 8) for h, d in enumerate(DST))


def test_a_permutation_reaches_its_line_rate_and_loses_nothing(tmp_path):
    s = run(tmp_path, "150us", PERMUTATION, ports=2)
    fab = s["fabric"]
    assert books_balance(s) and fab["llfc_peak_resident_cells"] > 0
    assert sum(fab["cells_lost"].values()) == 0 and fab["voq_drops"] == 0 and fab["packets_discarded"] == 0
    busy = [p["busy_fraction"] for p in s["ports"] if p["name"].startswith("fabric->")]
    assert min(busy) >= 0.9, busy
    delivered = [f["bytes_delivered"] for f in s["flows"]]
    assert min(delivered) >= 0.97 * max(delivered), delivered


def test_after_a_fap_loses_its_links_from_one_fe3_nothing_more_is_lost(tmp_path):
    """FAP 0's links 0, 3, ..., 15 all come from FE13 0 of group 0: down at 20 us, detected at 22 us.
    Cells already past the FE2s toward FE3 0 are lost; from then on the FE2s leave FE3 0 out for
    FAP 0, so a run twice as long loses no more, and the flows into FAP 0 go on."""
    fails = "".join(f'[[fabric.fail]]\nlink = "fap0.l{i}"\nat = "20us"\ndir = "down"\n' for i in range(0, 18, 3))
    more = '[fabric.reach]\ndetect = "2us"\n' + fails
    short, long = (run(tmp_path, d, PERMUTATION, ports=2, more=more) for d in ("40us", "80us"))
    for s in (short, long):
        assert books_balance(s)
    assert short["fabric"]["cells_lost_at_failure"] > 0
    assert long["fabric"]["cells_lost"] == short["fabric"]["cells_lost"], (short["fabric"]["cells_lost"], long["fabric"]["cells_lost"])
    into_fap0 = [f"p{h}" for h, d in enumerate(DST) if d < 2]
    for name in into_fap0:
        before = next(f["bytes_delivered"] for f in short["flows"] if f["name"] == name)
        after = next(f["bytes_delivered"] for f in long["flows"] if f["name"] == name)
        # 40 us more at 400 Gb/s is 2 MB; at least nine tenths of it arrives.
        assert after - before >= 0.9 * 400e9 / 8 * 40e-6, (name, before, after)


def _delivered(s, name):
    return next(f["bytes_delivered"] for f in s["flows"] if f["name"] == name)


def test_a_whole_fe2_that_fails_is_left_out_once_detected(tmp_path):
    """Every link of FE2 0, both ways (6 FE13s x 4 links), down at 20 us, detected at 22 us: the
    cells on them or sent onto them before detection are lost, none after (a run twice as long
    loses no more), and with one FE2 of six gone every flow goes on at 0.9 of its rate or more (the
    spine's five sixths of 24 links a FE13 still carry its FAPs' 2 x 400 Gb/s)."""
    fails = "".join(f'[[fabric.fail]]\nlink = "fe{e}.fe2_0.l{k}"\nat = "20us"\n' for e in range(6) for k in range(4))
    more = '[fabric.reach]\ndetect = "2us"\n' + fails
    short, long = (run(tmp_path, d, PERMUTATION, ports=2, more=more) for d in ("40us", "80us"))
    for s in (short, long):
        assert books_balance(s)
    assert short["fabric"]["cells_lost_at_failure"] > 0 and short["fabric"]["cells_lost_before_detection"] > 0
    assert long["fabric"]["cells_lost"] == short["fabric"]["cells_lost"]
    for h in range(16):
        gained = _delivered(long, f"p{h}") - _delivered(short, f"p{h}")
        assert gained >= 0.9 * 400e9 / 8 * 40e-6, (h, gained)


def test_a_device_named_whole_fails_as_all_its_links(tmp_path):
    """`link = "fe2_0"` is FE2 0's 24 link directions listed one by one: the same run, to the cell."""
    detect = '[fabric.reach]\ndetect = "2us"\n'
    listed = "".join(f'[[fabric.fail]]\nlink = "fe{e}.fe2_0.l{k}"\nat = "20us"\n' for e in range(6) for k in range(4))
    whole = '[[fabric.fail]]\nlink = "fe2_0"\nat = "20us"\n'
    a, b = (run(tmp_path, "30us", PERMUTATION, ports=2, more=detect + fails) for fails in (listed, whole))
    assert a["fabric"] == b["fabric"] and a["flows"] == b["flows"] and sum(a["fabric"]["cells_lost"].values()) > 0


@pytest.mark.parametrize("dir", ["up", "down"])
def test_one_inner_link_that_fails_is_left_out_once_detected(tmp_path, dir):
    """FE13 1's first link with FE2 2, up (FE1 -> FE2) or down (FE2 -> FE3), down at 20 us,
    detected at 22 us: losses stop at detection and the flows go on."""
    more = f'[fabric.reach]\ndetect = "2us"\n[[fabric.fail]]\nlink = "fe1.fe2_2.l0"\nat = "20us"\ndir = "{dir}"\n'
    short, long = (run(tmp_path, d, PERMUTATION, ports=2, more=more) for d in ("40us", "80us"))
    assert books_balance(short) and books_balance(long)
    assert sum(short["fabric"]["cells_lost"].values()) > 0
    assert long["fabric"]["cells_lost"] == short["fabric"]["cells_lost"]
    assert min(_delivered(long, f"p{h}") - _delivered(short, f"p{h}") for h in range(16)) >= 0.9 * 400e9 / 8 * 40e-6


@pytest.mark.parametrize("sets, key", [
    (["fabric.stages=2"], "fabric.stages"),
    (["fabric.fe2s=4"], "fabric.fe2s"),
    (["fabric.group_faps=4"], "fabric.group_faps"),
    (["fabric.stages=3", "fabric.fe2s=4", "fabric.group_faps=5"], "fabric.group_faps"),
    (["fabric.stages=3", "fabric.group_faps=4"], "fabric.fe2s"),
    (["fabric.stages=3", "fabric.group_faps=4", "fabric.fe2s=4", "fabric.fe2_links=0"], "fabric.fe2_links"),
])
def test_bad_stage_keys_are_refused_naming_the_key(sets, key):
    refused_naming(sets, key)


THREE = ["fabric.stages=3", "fabric.group_faps=4", "fabric.fe2s=4", "fabric.fe2_links=2"]


@pytest.mark.parametrize("sets, key", [
    # An FE2 link in one stage, or past the shape (fabric-incast's 16 FAPs in 4 groups: FE13s 0-23,
    # FE2s 0-3, links 0-1).
    (['fabric.fail=[{link = "fe0.fe2_0.l0", at = "1us"}]'], "fabric.fail[0].link"),
    ([*THREE, 'fabric.fail=[{link = "fe0.fe2_4.l0", at = "1us"}]'], "fabric.fail[0].link"),
    ([*THREE, 'fabric.fail=[{link = "fe0.fe2_0.l2", at = "1us"}]'], "fabric.fail[0].link"),
    ([*THREE, 'fabric.fail=[{link = "fe24.fe2_0.l0", at = "1us"}]'], "fabric.fail[0].link"),
    ([*THREE, 'fabric.fail=[{link = "fe0.fe2_0.l0", at = "1us", dir = "sideways"}]'], "fabric.fail[0].dir"),
    ([*THREE, 'fabric.fail=[{link = "fe2_0", at = "1us", dir = "up"}]'], "fabric.fail[0].dir"),
    (['fabric.fail=[{link = "fe2_0", at = "1us"}]'], "fabric.fail[0].link"),
    ([*THREE, 'fabric.fail=[{link = "fe2_0", at = "1us"}, {link = "fe0.fe2_0.l1", at = "2us"}]'], "fabric.fail[1].link"),
    # Balanced input acts on a FAP's links from the fabric, which an FE2 link is not.
    ([*THREE, 'fabric.fail=[{link = "fe0.fe2_0.l0", at = "1us"}]', "fabric.reach.balanced_input=true"], "fabric.reach.balanced_input"),
])
def test_bad_inner_link_failures_are_refused_naming_the_key(sets, key):
    refused_naming(sets, key)
