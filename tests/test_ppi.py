"""ragviz.analysis.ppi against ppi_py (the authors' package) on random inputs, and the cases it leaves undefined."""

from __future__ import annotations

import math

import numpy as np
import ppi_py
import pytest

from ragviz.analysis import ppi

TOL = 1e-9


def _data(seed: int, n: int, big_n: int, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Audited truth y, the judge on them, the judge on the rest; *kind* shapes how good the judge is."""
    rng = np.random.default_rng(seed)
    truth = rng.beta(2, 3, size=n + big_n)
    if kind == "good":  # noisy and biased: lambda strictly inside (0, 1)
        judge = truth + 0.1 + rng.normal(0, 0.2, size=truth.size)
    elif kind == "compressed":  # a judge on a squeezed scale: cov / var > 1, lambda clips to 1
        judge = 0.2 * truth + rng.normal(0, 0.005, size=truth.size)
    elif kind == "inverted":  # anti-correlated: lambda clips to 0
        judge = 1.0 - truth + rng.normal(0, 0.05, size=truth.size)
    elif kind == "binary":  # 0/1 metric (adherence) with flips
        truth = (truth > 0.3).astype(float)
        flip = rng.random(truth.size) < 0.15
        judge = np.where(flip, 1.0 - truth, truth)
    else:
        raise ValueError(kind)
    return truth[:n], judge[:n], judge[n:]


CASES = [
    (seed, n, big_n, kind, alpha)
    for seed, (n, big_n) in enumerate([(10, 50), (50, 500), (200, 2000), (1000, 300), (37, 4000)])
    for kind in ("good", "compressed", "inverted", "binary")
    for alpha in (0.05, 0.1, 0.01)
]


@pytest.mark.parametrize(("seed", "n", "big_n", "kind", "alpha"), CASES)
def test_ppi_mean_ci_equals_ppi_py(seed, n, big_n, kind, alpha):
    y, yhat, yhat_u = _data(seed, n, big_n, kind)
    ours = ppi.ppi_mean_ci(y, yhat, yhat_u, alpha)
    lo, hi = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=alpha)
    point = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u)
    assert ours.estimate == pytest.approx(float(np.squeeze(point)), abs=TOL)
    assert ours.low == pytest.approx(float(np.squeeze(lo)), abs=TOL)
    assert ours.high == pytest.approx(float(np.squeeze(hi)), abs=TOL)
    classical = ppi.classical_mean_ci(y, alpha)
    c_lo, c_hi = ppi_py.classical_mean_ci(y, alpha=alpha)
    assert (classical.low, classical.high) == (pytest.approx(c_lo, abs=TOL), pytest.approx(c_hi, abs=TOL))
    assert classical.estimate == pytest.approx(y.mean(), abs=TOL)


@pytest.mark.parametrize(("kind", "expected"), [("compressed", 1.0), ("inverted", 0.0)])
def test_lambda_clips_at_both_ends_and_matches_ppi_py_there(kind, expected):
    y, yhat, yhat_u = _data(3, 200, 2000, kind)
    lam = ppi.power_tuning(y, yhat, yhat_u)
    assert lam == expected
    # ppi_py with lam fixed at the clip value gives the same interval as its own tuning
    fixed = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=expected)
    tuned = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.05)
    assert np.allclose(fixed, tuned, atol=TOL)
    if expected == 0.0:  # lambda = 0 is the people-only interval
        ours = ppi.ppi_mean_ci(y, yhat, yhat_u, 0.05)
        classical = ppi.classical_mean_ci(y, 0.05)
        assert (ours.low, ours.high) == (pytest.approx(classical.low), pytest.approx(classical.high))


def test_lambda_strictly_inside_for_a_useful_judge():
    y, yhat, yhat_u = _data(1, 300, 3000, "good")
    assert 0.0 < ppi.power_tuning(y, yhat, yhat_u) < 1.0


def test_fixed_lambda_matches_ppi_py():
    y, yhat, yhat_u = _data(5, 80, 800, "good")
    for lam in (0.0, 0.3, 1.0):
        ours = ppi.ppi_mean_ci(y, yhat, yhat_u, 0.1, lam=lam)
        lo, hi = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=0.1, lam=lam)
        assert (ours.low, ours.high) == (pytest.approx(float(lo[0]), abs=TOL), pytest.approx(float(hi[0]), abs=TOL))
        assert ours.estimate == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)[0]))


def test_a_planted_bias_is_corrected_by_ppi_and_not_by_the_judge():
    """The judge misses 60% of hallucinations: its adherence mean is far too high; PPI++ is not."""
    rng = np.random.default_rng(42)
    total, n = 20000, 400
    truth = (rng.random(total) < 0.7).astype(float)  # 30% of answers hallucinate
    judge = np.where((truth == 0) & (rng.random(total) < 0.6), 1.0, truth)
    audit = rng.choice(total, size=n, replace=False)
    rest = np.setdiff1d(np.arange(total), audit)
    est = ppi.estimate_mean(truth[audit], judge[audit], judge[rest], 0.05)
    true_mean = truth.mean()
    assert est.judge - true_mean > 0.15  # the judge alone: 0.88 vs 0.70
    assert est.ppi.low <= true_mean <= est.ppi.high
    assert abs(est.ppi.estimate - true_mean) < 0.05
    assert est.ppi.high - est.ppi.low < est.human.high - est.human.low  # and narrower than people alone
    assert est.gain > n


def test_effective_sample_size_is_n_times_the_variance_ratio():
    y, yhat, yhat_u = _data(7, 120, 1200, "good")
    result = ppi.ppi_mean_ci(y, yhat, yhat_u, 0.05)
    classical_var = y.var() / y.size
    assert ppi.effective_sample_size(y, result.variance) == pytest.approx(y.size * classical_var / result.variance)
    # width ratio and gain tell the same story: (classical width / ppi width)^2 * n = n_eff
    classical = ppi.classical_mean_ci(y, 0.05)
    ratio = (classical.half_width / result.half_width) ** 2
    assert ppi.effective_sample_size(y, result.variance) == pytest.approx(y.size * ratio)


def test_undefined_cases():
    one = ppi.estimate_mean([1.0], [1.0], [0.0, 1.0], 0.05)
    assert one.human.estimate == 1.0 and one.human.ci() is None
    assert one.ppi.estimate is None and one.ppi.ci() is None and one.ppi.lam is None
    assert one.gain is None and not one.has_ci
    assert one.judge == pytest.approx(2 / 3)
    none = ppi.estimate_mean([], [], [1.0], 0.05)
    assert none.human.estimate is None and none.ppi.estimate is None and none.judge == 1.0
    # every example audited (N = 0): PPI++ is the people-only interval, lambda 0
    all_audited = ppi.estimate_mean([0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [], 0.05)
    assert all_audited.ppi.lam == 0.0 and all_audited.ppi.ci() == pytest.approx(all_audited.human.ci())
    # a constant judge carries no information: lambda 0, no NaN
    const = ppi.estimate_mean([0.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0] * 5, 0.05)
    assert const.ppi.lam == 0.0 and not math.isnan(const.ppi.estimate)
    # no spread at all: a zero-width interval and no gain (0 / 0)
    flat = ppi.estimate_mean([1.0, 1.0], [1.0, 1.0], [1.0, 1.0], 0.05)
    assert flat.ppi.ci() == [1.0, 1.0] and flat.gain is None
    with pytest.raises(ValueError, match="pair up"):
        ppi.estimate_mean([1.0, 0.0], [1.0], [1.0])
    with pytest.raises(ValueError, match="alpha"):
        ppi.classical_mean_ci([1.0, 0.0], 1.5)


def test_json_shape():
    y, yhat, yhat_u = _data(2, 30, 300, "binary")
    d = ppi.estimate_mean(y, yhat, yhat_u, 0.05).as_dict()
    assert set(d) == {"judge", "human", "ppi", "gain"}
    assert set(d["judge"]) == {"estimate"} and set(d["human"]) == {"estimate", "ci"}
    assert set(d["ppi"]) == {"estimate", "ci", "lambda"} and len(d["ppi"]["ci"]) == 2


def _simulated_half_width(plan_n, truth, judge, alpha, rng, reps=400):
    widths = []
    for _ in range(reps):
        idx = rng.permutation(truth.size)
        a, r = idx[:plan_n], idx[plan_n:]
        widths.append(ppi.ppi_mean_ci(truth[a], judge[a], judge[r], alpha).half_width)
    return float(np.mean(widths))


def test_sample_size_planner_reaches_the_target_width():
    rng = np.random.default_rng(11)
    total = 5000
    truth = rng.beta(2, 3, size=total)
    judge = truth + 0.1 + rng.normal(0, 0.1, size=total)
    pilot = rng.choice(total, size=200, replace=False)
    rest = np.setdiff1d(np.arange(total), pilot)
    target = 0.01
    plan = ppi.plan_sample_size(truth[pilot], judge[pilot], judge[rest], target, 0.05)
    assert plan.n_ppi is not None and 2 <= plan.n_ppi < plan.n_classical
    # the people-only plan is the textbook formula
    assert plan.n_classical == math.ceil((ppi.z_value(0.05) * truth[pilot].std() / target) ** 2)
    # at the planned size the realised half-width is close to the target (pilot estimates: +-15%)
    width = _simulated_half_width(plan.n_ppi, truth, judge, 0.05, rng, reps=50)
    assert width == pytest.approx(target, rel=0.15)
    # a narrower target needs more, an impossible one returns None
    assert ppi.plan_sample_size(truth[pilot], judge[pilot], judge[rest], 0.007).n_ppi > plan.n_ppi
    # asked for the width it has now, the plan names (about) the audit it has now
    now = ppi.ppi_mean_ci(truth[pilot], judge[pilot], judge[rest], 0.05).half_width
    assert abs(ppi.plan_sample_size(truth[pilot], judge[pilot], judge[rest], now).n_ppi - 200) <= 2
    assert ppi.plan_sample_size(truth[pilot], judge[pilot], judge[rest], 1e-6).n_ppi is None
    assert ppi.plan_sample_size([1.0], [1.0], [1.0], 0.1).n_ppi is None
