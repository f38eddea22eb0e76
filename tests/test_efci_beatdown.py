"""Binary-feedback ABR on a parking lot (validation/efci_beatdown.py, quick):
ERICA gives the long VC its max-min share, EFCI switches beat it down.

Three congested trunks, every link 1 ms, over [1 s, 3 s]. Measured on
26 Nov 2026 (docs/jain96.md "Binary feedback: EFCI switches"): ERICA's long
VC 1.01 of its max-min share and 0.98 of the cross VCs' mean; EFCI's long VC
0.34 of the cross VCs', with CI on 71 % of its backward RM cells against
19 % of theirs. The test fails if ERICA leaves max-min or if EFCI's long VC
is not below the cross VCs for the reason binary feedback gives: more CI.
With relative rate marking too, the same holds with equal round trips
(only the number of trunks differs).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "validation"))

import efci_beatdown  # noqa: E402


def test_erica_gives_the_long_vc_its_max_min_share():
    r = efci_beatdown.beatdown("ERICA", 3, 1.0, 3.0, "1-ms links")
    assert abs(r["long_over_share"] - 1) < 0.05, r
    assert abs(r["long_over_cross"] - 1) < 0.05, r
    assert r["ci_long"] == 0.0 and r["ci_cross"] == 0.0, "ERICA never sets CI"


def test_efci_beats_the_long_vc_down_below_its_share_by_more_ci():
    r = efci_beatdown.beatdown("EFCI", 3, 1.0, 3.0, "1-ms links")
    assert r["long_over_cross"] < 0.8 and r["long_over_share"] < 0.8, r
    assert r["ci_long"] > 1.5 * r["ci_cross"], r


def test_relative_rate_marking_beats_the_long_vc_down_by_hops_alone():
    # Equal round trips, so only the trunks crossed differ: measured 0.31
    # of the cross VCs' rate, CI on 79 % of its backward RM cells against 36 %.
    r = efci_beatdown.beatdown("EFCI + backward CI", 3, 1.0, 3.0, "equal RTT")
    assert r["long_over_cross"] < 0.6, r
    assert r["ci_long"] > 1.5 * r["ci_cross"], r
