"""The fluid buffer model (Fig. 6's calculation) and port-log helpers."""
from fractions import Fraction as F

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from atmsim import fluid, portlog


def test_one_packet_into_an_empty_buffer_peaks_at_two_thirds():
    r = fluid.buffer_curve([0])
    assert max(q for _, q in r.points) == F(2, 3)
    assert r.points[-1] == (F(1), F(0))  # drained after one packet time


def test_the_papers_figure_six_case():
    # Steady state with one packet standing, then packet i right behind the one of t = 2.
    starts = [-2, F(-5, 3), -1, 0, 1, 2, F(7, 3), 3, 4, 5]
    tail = fluid.buffer_curve(starts, cap=F(2))
    ppd = fluid.buffer_curve(starts, cap=F(2), ppd=True)
    assert tail.lost[6:8] == [F(1, 3), F(1, 3)] and sum(tail.lost) == F(2, 3)
    assert ppd.lost[6:8] == [F(1, 2), F(1, 4)] and sum(ppd.lost) == F(3, 4)


@settings(max_examples=200, deadline=None)
@given(gaps=st.lists(st.fractions(min_value=F(1, 3), max_value=3, max_denominator=12), min_size=1, max_size=12),
       cap=st.fractions(min_value=F(1, 2), max_value=4, max_denominator=6), ppd=st.booleans())
def test_fluid_conserves_content_and_respects_the_cap(gaps, cap, ppd):
    starts = [F(0)]
    for g in gaps:
        starts.append(starts[-1] + g)
    r = fluid.buffer_curve(starts, cap=cap, ppd=ppd)
    assert all(0 <= q <= cap for _, q in r.points)
    assert all(0 <= x <= 1 for x in r.lost)
    busy = sum(t1 - t0 for (t0, q0), (t1, q1) in zip(r.points, r.points[1:]) if q0 > 0 or q1 > 0)
    assert len(starts) - sum(r.lost) == busy  # what was admitted has left at rate 1
    assert r.points[-1][1] == 0


def test_occupancy_drains_before_it_admits_at_equal_times():
    log = pd.DataFrame({"t": [0.0, 1.0, 1.0, 1.0, 2.0], "vc": 0, "frame": 0, "eom": False,
                        "change": ["arrive", "arrive", "drop", "depart", "depart"]})
    occ = portlog.occupancy(log)
    assert occ.change.tolist() == ["arrive", "depart", "drop", "arrive", "depart"]
    assert occ.q.tolist() == [1, 0, 0, 1, 0]
    assert portlog.value_at(occ, [0.5, 1.0, 3.0]).tolist() == [1, 1, 0]


def test_extrema_ignore_jitter_smaller_than_the_swing():
    q = [0, 1, 0, 1, 5, 9, 8, 9, 4, 2, 3, 2, 7, 6]
    occ = pd.DataFrame({"t": range(len(q)), "q": q})
    peaks, troughs = portlog.extrema(occ, min_swing=3)
    assert peaks.tolist() == [5] and troughs.tolist() == [9]


def test_episodes_split_at_gaps():
    import numpy as np

    ep = portlog.episodes(np.array([0.0, 0.001, 0.002, 0.5, 0.5001, 2.0]), gap=0.0032)
    assert [e.tolist() for e in ep] == [[0, 1, 2], [3, 4], [5]]
