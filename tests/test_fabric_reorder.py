"""The reorder-depth table helpers of `atmsim.reproduce.fabric.reorder` (F11's figure, C1's and C2's
columns), on hand-made histograms: the quantile is the bin where the cumulative arrivals cross it, and a
bin above 63 cells (only an upper end) is never reported above the run's largest depth."""
import math

from atmsim.reproduce.fabric import reorder


def fab(bins, most):
    return {"reorder_depth_at_arrival": bins, "reorder_depth_max": most}


def test_quantiles_cross_the_cumulative_arrivals():
    # 90 arrivals in order, 9 at depth 3, 1 at depth 7: p50 = 0, p99 = 3, p99.9 = 7.
    q = reorder.quantiles(fab([[0, 0, 90], [3, 3, 9], [7, 7, 1]], 7))
    assert (q["reorder_depth_p50"], q["reorder_depth_p99"], q["reorder_depth_p99.9"]) == (0, 3, 7)


def test_a_bound_bin_is_clipped_at_the_largest_depth():
    # Half the arrivals in the bin [16384, 32767] with a largest depth of 20000: the bin's end is only a bound.
    q = reorder.quantiles(fab([[0, 0, 50], [16384, 32767, 50]], 20000))
    assert q["reorder_depth_p50"] == 0 and q["reorder_depth_p99"] == 20000


def test_no_fabric_or_no_data_cells_gives_nan():
    for f in (None, fab([], 0)):
        assert all(math.isnan(v) for v in reorder.quantiles(f).values())
