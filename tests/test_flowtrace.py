"""flowtrace on hand-made traces: acknowledged bytes, timeout episodes with backoff, the initial overshoot."""
import numpy as np
import pandas as pd
import pytest

from atmsim import flowtrace

MSS = 100


def _traces():
    # flow 0: sends 1, 101 at 0.1 and 201 at 0.2; 201 is dropped at 0.21; ACKs to 101 (0.15) and 201 (0.25);
    # timeouts at 1.0 and 2.0 (backoff) both with snd_una 201, each resending 201; ACK to 301 at 2.1.
    # flow 1: a constant window of 50 bytes from 0.1, nothing lost.
    ev = pd.DataFrame([
        (0.1, 0, "send", 1), (0.1, 0, "send", 101), (0.2, 0, "send", 201), (0.21, 0, "loss", 201),
        (1.0, 0, "timeout", 201), (1.0, 0, "retransmit", 201), (2.0, 0, "timeout", 201), (2.0, 0, "retransmit", 201),
        (0.1, 1, "send", 1),
    ], columns=["t", "flow", "kind", "seq"])
    win = pd.DataFrame([
        (0.1, 0, 200, 200), (0.15, 0, 200, 100), (0.2, 0, 300, 200), (0.25, 0, 300, 100), (1.0, 0, 100, 100),
        (2.0, 0, 100, 100), (2.1, 0, 200, 0), (0.1, 1, 50, 100),
    ], columns=["t", "flow", "cwnd", "unacked"])
    return win, ev


def test_acked_bytes_follow_snd_una():
    win, ev = _traces()
    a = flowtrace.acked_bytes(win, ev, 0, MSS)
    assert a.acked.tolist() == [0, 100, 100, 200, 200, 200, 300]


def test_repeated_timeouts_of_one_una_are_one_episode_with_backoff():
    win, ev = _traces()
    ep = flowtrace.timeout_episodes(flowtrace.acked_bytes(win, ev, 0, MSS), ev, 0, end=3.0)
    assert len(ep) == 1
    e = ep.iloc[0]
    assert (e.una, e.timeouts) == (201, 2)
    assert (e.t_stall, e.t_first, e.t_last, e.t_resume) == (0.25, 1.0, 2.0, 2.1)
    assert e.idle_s == pytest.approx(0.75) and e.backoff_s == pytest.approx(1.0) and e.stall_s == pytest.approx(1.85)


def test_a_stall_that_never_resumes_ends_at_the_run_end():
    win, ev = _traces()
    ep = flowtrace.timeout_episodes(flowtrace.acked_bytes(win[win.t < 2.1], ev, 0, MSS), ev, 0, end=3.0)
    assert ep.iloc[0].t_resume == 3.0


def test_initial_overshoot_counts_originals_lost_before_the_first_recovery():
    win, ev = _traces()
    ov = flowtrace.initial_overshoot(win, ev, 0)
    assert (ov["recovery"], ov["lost"], ov["t_first_loss"], ov["cwnd_at_loss"]) == ("timeout", 1, 0.21, 300)
    # a loss of the retransmission (after it was resent) is not an overshoot loss
    ev2 = pd.concat([ev, pd.DataFrame([(1.01, 0, "loss", 201)], columns=ev.columns)])
    ev2 = ev2[~((ev2.kind == "loss") & (ev2.t == 0.21))]
    assert flowtrace.initial_overshoot(win, ev2, 0)["lost"] == 0
    assert flowtrace.initial_overshoot(win, ev, 1)["lost"] == 0


def test_anatomy_table_and_largest_window():
    win, ev = _traces()
    table, curves, eps = flowtrace.anatomy(win, ev, [{"bytes_delivered": 300}, {"bytes_delivered": 0}], MSS, 3.0, 0.01)
    assert table.timeouts.tolist() == [2, 0] and table.backoffs.tolist() == [1, 0]
    assert table.share.tolist() == [1.0, 0.0]
    assert curves.flow0.iloc[-1] == 300 and np.all(np.diff(curves.flow0) >= 0)
    # flow 0's window (100..300) exceeds flow 1's 50 from 0.1 s on; before 0.1 both are 0 (tie, shared)
    lw = table.largest_window_share
    assert lw.sum() == pytest.approx(1.0) and lw[0] > 0.95


def test_lost_retransmissions_count_only_losses_after_a_resend():
    win, ev = _traces()
    assert flowtrace.lost_retransmissions(ev, 0) == 0  # 201 was lost at 0.21, before its resend at 1.0
    ev2 = pd.concat([ev, pd.DataFrame([(1.01, 0, "loss", 201)], columns=ev.columns)])
    assert flowtrace.lost_retransmissions(ev2, 0) == 1
