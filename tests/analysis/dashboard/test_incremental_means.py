"""Issue 11: after one override the Dashboard's means update by that example's contribution.

Subset means of at least ``LARGE_SAMPLE`` values take the Poisson bootstrap, whose resample sums
a changed row leaves and re-enters in O(B); smaller samples keep today's index draws (the shards'
intervals are unchanged: test_dashboard_columns / test_scale). Updated == recomputed from scratch."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ragviz.analysis import poisson_bootstrap, stats
from ragviz.analysis.dashboard.aggregates import subset_mean_state, subset_means
from ragviz.metrics.trace import TRACE_METRICS


def _records(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    scores = {m: rng.random(n) for m in TRACE_METRICS}
    scores["adherence"] = (rng.random(n) < 0.8).astype(float)
    scores["relevance"][rng.random(n) < 0.1] = np.nan
    subsets = np.array(["big_a", "big_b", "tiny"])[np.minimum(rng.integers(0, 2, n), 1) + (rng.random(n) < 0.02)]
    return pd.DataFrame({"dataset": subsets, **scores})


def _close(a, b):
    assert [(r["dataset"], r["metric"], r["n"]) for r in a] == [(r["dataset"], r["metric"], r["n"]) for r in b]
    for x, y in zip(a, b):
        for key in ("mean", "low", "high"):
            assert x[key] == pytest.approx(y[key], abs=1e-12)


def test_updating_changed_rows_equals_recomputing():
    records = _records(3 * stats.LARGE_SAMPLE)
    state = subset_mean_state(records)
    assert state.sums is not None  # big subsets and ALL take the Poisson path, "tiny" the index draws
    changes = {}
    for r in (5, 17, 4000, 29_999):
        row = records.loc[r, list(TRACE_METRICS)].to_numpy(float).copy()
        row[0] = np.nan if r == 17 else 1 - (0 if np.isnan(row[0]) else row[0])  # null <-> value too
        row[3] = 1.0 - row[3]
        changes[r] = row
    updated = state.updated(changes)
    changed = records.copy()
    for r, row in changes.items():
        changed.loc[r, list(TRACE_METRICS)] = row
    _close(updated.rows, subset_means(changed))
    assert state.updated({}) is state
    # changing back gives the first intervals again
    back = updated.updated({r: records.loc[r, list(TRACE_METRICS)].to_numpy(float) for r in changes})
    _close(back.rows, state.rows)


def test_a_rows_poisson_weights_depend_on_its_position_only():
    whole = poisson_bootstrap.poisson_weights(0, 1000, 50)
    assert (poisson_bootstrap.poisson_weights(700, 701, 50)[0] == whole[700]).all()
    assert (poisson_bootstrap.poisson_weights(250, 260, 50) == whole[250:260]).all()
    assert abs(whole.mean() - 1) < 0.02 and abs(whole.var() - 1) < 0.05


def test_small_samples_keep_the_index_draws():
    records = _records(2000)
    state = subset_mean_state(records)
    assert state.sums is None
    big = records[records["dataset"] == "big_a"]["faithfulness" if "faithfulness" in records else "utilization"]
    ci = stats.bootstrap_mean_ci(big.dropna().to_numpy(), n_resamples=1000)
    row = next(r for r in state.rows if r["dataset"] == "big_a" and r["metric"] == "utilization")
    assert (row["low"], row["high"]) == (ci.low, ci.high)
