"""A subset's mean below MIN_EXAMPLES has no interval and says so; from it on, the expanded percentile interval
(wider than the plain percentile one by Hesterberg's factor), kept in [0, 1]."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from ragviz.analysis.coverage import MIN_EXAMPLES
from ragviz.analysis.dashboard.aggregates import subset_mean_state, subset_means
from ragviz.analysis.stats import bootstrap_mean_ci, bootstrap_mean_cis
from tests.analysis.test_scale import _bootstrap_whole_matrix


def test_below_the_minimum_a_mean_has_no_interval_and_says_too_few():
    values = [0.1, 0.5, 0.9, 0.3, 0.7]
    ci = bootstrap_mean_ci(values)
    assert (ci.n, ci.low, ci.high) == (5, None, None)
    assert ci.mean == np.mean(values)
    assert ci.too_few == f"too few examples to say (5 of {MIN_EXAMPLES})"
    at = bootstrap_mean_ci(np.linspace(0, 1, MIN_EXAMPLES).tolist())
    assert at.too_few is None and at.low is not None and at.low < at.mean < at.high


def test_the_interval_is_the_percentile_one_widened_by_hesterbergs_factor():
    rng = np.random.default_rng(3)
    for n in (MIN_EXAMPLES, 30, 100):
        values = rng.beta(2, 5, n)
        ci = bootstrap_mean_ci(values.tolist(), minimum=0)
        low, high = _bootstrap_whole_matrix(values.tolist(), expanded=False)
        grow = math.sqrt(n / (n - 1)) * sps.t.ppf(0.975, n - 1) / sps.norm.ppf(0.975)
        mean = values.mean()
        assert ci.low == mean - grow * (mean - low) and ci.high == mean + grow * (high - mean)
        assert ci.high - ci.low > (high - low) * 1.01  # wider than the plain percentile interval at these n


def test_an_interval_of_values_in_0_1_stays_in_0_1():
    values = [1.0] * 19 + [0.5] * 1 + [1.0] * 5  # not all 0 / 1: the expanded bootstrap, clipped at 1
    ci = bootstrap_mean_ci(values)
    assert ci.low is not None and 0.0 <= ci.low and ci.high == 1.0


def test_all_equal_values_from_the_minimum_on_still_have_no_interval_and_no_too_few():
    ci = bootstrap_mean_cis([[0.5] * 25])[0]
    assert (ci.low, ci.high, ci.too_few) == (None, None, None)


def _wilson_reference(values, level=0.95):
    """The Wilson score interval of a share, written out, at Hesterberg's expanded quantile sqrt(n/(n-1)) t_(n-1)."""
    from scipy import stats as sps

    n, p = len(values), sum(values) / len(values)
    z = (n / (n - 1)) ** 0.5 * sps.t.ppf(0.5 + level / 2, n - 1)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.mark.parametrize("ones", [25, 24, 13, 0])
def test_values_all_0_or_1_get_the_wilson_interval_even_when_all_are_equal(ones):
    values = [1.0] * ones + [0.0] * (25 - ones)
    ci = bootstrap_mean_ci(values)
    low, high = _wilson_reference(values)
    assert ci.low == pytest.approx(low, abs=1e-12) and ci.high == pytest.approx(high, abs=1e-12)
    assert ci.high - ci.low > 0.05 and ci.too_few is None  # 25 of 25 adherent: an interval, not a point


def test_subset_means_carry_the_too_few_words_through_updates():
    records = [{"dataset": "big", "relevance": (k % 7) / 7} for k in range(30)]
    records += [{"dataset": "small", "relevance": (k % 3) / 3} for k in range(5)]
    state = subset_mean_state(records, ["relevance"])
    rows = {r["dataset"]: r for r in state.rows}
    assert rows["small"]["too_few"] == f"too few examples to say (5 of {MIN_EXAMPLES})" and rows["small"]["low"] is None
    assert rows["big"]["too_few"] is None and rows["big"]["low"] is not None
    assert rows["ALL"]["too_few"] is None and rows["ALL"]["n"] == 35
    changed = state.updated({31: [1.0]}).rows
    assert changed == subset_means(
        [*records[:31], {"dataset": "small", "relevance": 1.0}, *records[32:]], ["relevance"]
    )
    assert next(r for r in changed if r["dataset"] == "small")["too_few"] is not None
