"""ragviz.analysis.estimates.ppi against ppi_py (the authors' package) on random inputs, and the cases it leaves undefined."""

from __future__ import annotations

import math

import numpy as np
import ppi_py
import pytest

from ragviz.analysis.estimates import estimate, ppi, small_audit
from ragviz.analysis.estimates import planner as ppi_plan

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
    est = estimate.estimate_mean(truth[audit], judge[audit], judge[rest], 0.05)
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
    assert estimate.effective_sample_size(y, result.variance) == pytest.approx(y.size * classical_var / result.variance)
    # width ratio and gain tell the same story: (classical width / ppi width)^2 * n = n_eff
    classical = ppi.classical_mean_ci(y, 0.05)
    ratio = (classical.half_width / result.half_width) ** 2
    assert estimate.effective_sample_size(y, result.variance) == pytest.approx(y.size * ratio)


def test_undefined_cases():
    one = estimate.estimate_mean([1.0], [1.0], [0.0, 1.0], 0.05)
    assert one.human.estimate == 1.0 and one.human.ci() is None
    assert one.ppi.estimate is None and one.ppi.ci() is None and one.ppi.lam is None
    assert one.gain is None and not one.has_ci
    assert one.judge == pytest.approx(2 / 3)
    none = estimate.estimate_mean([], [], [1.0], 0.05)
    assert none.human.estimate is None and none.ppi.estimate is None and none.judge == 1.0
    # every example audited (N = 0): PPI++ is the people-only interval, lambda 0
    all_audited = estimate.estimate_mean([0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [], 0.05)
    assert all_audited.ppi.lam == 0.0 and all_audited.ppi.ci() == pytest.approx(all_audited.human.ci())
    raw = estimate.estimate_mean([0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [], 0.05, interval="normal", bounds=None)
    assert raw.ppi.ci() == pytest.approx(raw.human.ci())  # ppi_py's: the normal people-only interval
    # a constant judge carries no information: lambda 0, no NaN
    const = estimate.estimate_mean([0.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0] * 5, 0.05)
    assert const.ppi.lam == 0.0 and not math.isnan(const.ppi.estimate)
    # no spread at all: ppi_py's interval has zero width and no gain (0 / 0); the one shown keeps a width
    flat = estimate.estimate_mean([1.0, 1.0], [1.0, 1.0], [1.0, 1.0], 0.05, bounds=None)
    assert flat.ppi.ci() == [1.0, 1.0] and flat.gain is None
    shown = estimate.estimate_mean([1.0, 1.0], [1.0, 1.0], [1.0, 1.0], 0.05)
    assert shown.ppi.low < 0.8 and shown.ppi.high == 1.0 and shown.gain <= 4
    with pytest.raises(ValueError, match="pair up"):
        estimate.estimate_mean([1.0, 0.0], [1.0], [1.0])
    with pytest.raises(ValueError, match="alpha"):
        ppi.classical_mean_ci([1.0, 0.0], 1.5)


def test_json_shape():
    y, yhat, yhat_u = _data(2, 30, 300, "binary")
    d = estimate.estimate_mean(y, yhat, yhat_u, 0.05).as_dict()
    assert set(d) == {"judge", "human", "ppi", "gain", "n_labeled", "more_needed"}
    assert set(d["judge"]) == {"estimate"} and set(d["human"]) == {"estimate", "ci"}
    assert set(d["ppi"]) == {"estimate", "ci", "lambda", "lambda_rule", "interval"} and len(d["ppi"]["ci"]) == 2
    # estimate_mean's default: Student's t around the cross-fitted estimate, the interval that covers from n = 100
    assert d["ppi"]["interval"] == "t" and d["ppi"]["lambda_rule"] == "cross-fitted (5 folds)"
    small = estimate.estimate_mean(y[:6], yhat[:6], yhat_u, 0.05).as_dict()["ppi"]  # too few to cross-fit
    assert small["interval"] in ("bootstrap-t", "normal") and small["lambda_rule"] == "tuned on the audit"
    assert estimate.estimate_mean(y, yhat, yhat_u, 0.05, interval="normal").as_dict()["ppi"]["interval"] == "normal"


# -- the bootstrap-t interval (the default of estimate_mean, the app and `ragviz estimate`) ---------------

MU, SIGMA = -2.0, 1.0  # log-normal audit values: skewness 6.2, the residual Y - lambda Yhat is as skewed


def _skewed(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """People's metric (log-normal, known mean) and a judge on a compressed, shifted, noisy scale."""
    y = rng.lognormal(MU, SIGMA, size)
    return y, 0.7 * y + 0.05 + rng.normal(0.0, 0.05, size)


def test_bootstrap_t_covers_skewed_data_where_the_normal_interval_does_not():
    """400 audits of n = 100 (and N = 1,000 judge-only) from a skewed metric with known mean: the
    bootstrap-t interval covers 95 % +- 2 points (Monte Carlo s.e. 1.1), ppi_py's normal one under 93 %.
    The replicates are columns of one call per 100 (each block its own resamples)."""
    rng = np.random.default_rng(2024)
    target = math.exp(MU + SIGMA**2 / 2)
    covered_boot = covered_normal = 0
    above = below = 0.0
    for block in range(4):
        draws = [(_skewed(rng, 100), _skewed(rng, 1000)[1]) for _ in range(100)]
        y = np.column_stack([d[0][0] for d in draws])
        f = np.column_stack([d[0][1] for d in draws])
        fu = np.column_stack([d[1] for d in draws])
        boot = ppi.bootstrap_t_intervals(y, f, fu, 0.05, seed=block)
        for j, b in enumerate(boot):
            normal = ppi.ppi_mean_ci(y[:, j], f[:, j], fu[:, j], 0.05)
            assert b.method == "bootstrap-t"
            assert (b.estimate, b.lam, b.variance) == (normal.estimate, normal.lam, normal.variance)
            above += b.high - b.estimate
            below += b.estimate - b.low
            covered_boot += b.low <= target <= b.high
            covered_normal += normal.low <= target <= normal.high
    assert 0.93 <= covered_boot / 400 <= 0.97, covered_boot  # 96.2 % with these seeds
    assert covered_normal / 400 < 0.93, covered_normal  # 89.2 %
    assert above > 1.2 * below  # longer on the side of the long tail


def test_bootstrap_t_is_reproducible_by_seed_and_keeps_the_ppi_py_estimate():
    y, yhat, yhat_u = _data(4, 120, 1500, "good")
    first = ppi.ppi_mean_ci(y, yhat, yhat_u, 0.05, method="bootstrap-t", seed=7)
    assert first == ppi.ppi_mean_ci(y, yhat, yhat_u, 0.05, method="bootstrap-t", seed=7)
    other = ppi.ppi_mean_ci(y, yhat, yhat_u, 0.05, method="bootstrap-t", seed=8)
    assert other != first and other.estimate == first.estimate
    assert abs(other.low - first.low) < 0.1 * (first.high - first.low)  # resampling noise, not a new interval
    assert first.estimate == pytest.approx(float(ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u)[0]), abs=TOL)
    normal = ppi.ppi_mean_ci(y, yhat, yhat_u, 0.05)
    assert normal.method == "normal" and first.lam == normal.lam and first.variance == normal.variance
    # the same interval column by column: one call for several metrics resamples the audit once
    both = ppi.bootstrap_t_intervals(
        np.column_stack([y, y]), np.column_stack([yhat, yhat]), np.column_stack([yhat_u, yhat_u]), 0.05, seed=7
    )
    assert both[0].ci() == pytest.approx(first.ci(), abs=1e-12)  # equal up to the matrix product's rounding
    assert (both[1].estimate, both[1].lam) == (first.estimate, first.lam)
    # a fixed lambda stays fixed; bad arguments are named
    assert ppi.ppi_mean_ci(y, yhat, yhat_u, 0.05, lam=0.3, method="bootstrap-t").lam == 0.3
    with pytest.raises(ValueError, match="interval method"):
        ppi.ppi_mean_ci(y, yhat, yhat_u, 0.05, method="percentile")
    with pytest.raises(ValueError, match="resamples"):
        ppi.ppi_mean_ci(y, yhat, yhat_u, 0.05, method="bootstrap-t", resamples=0)


def test_bootstrap_t_memory_does_not_grow_with_resamples_times_n():
    """n = 20,000 audited values and 1,000 resamples: all the counts at once would be 160 MB."""
    import tracemalloc

    rng = np.random.default_rng(3)
    y = rng.random(20_000)
    yhat, yhat_u = y + rng.normal(0, 0.1, y.size), rng.random(50_000)
    tracemalloc.start()
    result = ppi.ppi_mean_ci(y, yhat, yhat_u, 0.05, method="bootstrap-t", resamples=1000)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert result.method == "bootstrap-t" and result.low < y.mean() < result.high
    assert peak < 30e6, peak


def test_bootstrap_t_falls_back_to_normal_where_resamples_degenerate():
    """Two audited pairs: half the resamples repeat one pair (no spread, T infinite): the normal
    interval, and the method says so; with every example audited it is the people-only bootstrap-t."""
    tiny = ppi.ppi_mean_ci([0.0, 1.0], [0.0, 1.0], [1.0, 0.0, 1.0], 0.05, method="bootstrap-t")
    assert tiny.method == "normal"
    assert tiny.ci() == ppi.ppi_mean_ci([0.0, 1.0], [0.0, 1.0], [1.0, 0.0, 1.0], 0.05).ci()
    # 3 hallucinations in 40, the judge sees one: some resamples have almost no spread and the raw
    # bootstrap-t upper end lies near 1e17; it is clipped to the values seen (a rate stays within [0, 1])
    rng = np.random.default_rng(14)
    y = (rng.random(40) < 0.08).astype(float)
    yhat, yhat_u = np.where(rng.random(40) < 0.5, 0.0, y), (rng.random(500) < 0.05).astype(float)
    rare = ppi.ppi_mean_ci(y, yhat, yhat_u, 0.05, method="bootstrap-t")
    assert rare.method == "bootstrap-t" and 0.0 < rare.low < rare.estimate < rare.high == 1.0
    y, yhat, _ = _data(6, 80, 10, "good")
    alone = ppi.ppi_mean_ci(y, yhat, [], 0.05, method="bootstrap-t")
    assert alone.method == "bootstrap-t" and alone.lam == 0.0 and alone.estimate == pytest.approx(y.mean())


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
    plan = ppi_plan.plan_sample_size(truth[pilot], judge[pilot], judge[rest], target, 0.05)
    assert plan.n_ppi is not None and 2 <= plan.n_ppi < plan.n_classical
    # the people-only plan is the textbook formula
    assert plan.n_classical == math.ceil((ppi.z_value(0.05) * truth[pilot].std() / target) ** 2)
    # at the planned size the realised half-width is close to the target (pilot estimates: +-15%)
    width = _simulated_half_width(plan.n_ppi, truth, judge, 0.05, rng, reps=50)
    assert width == pytest.approx(target, rel=0.15)
    # a narrower target needs more, an impossible one returns None
    assert ppi_plan.plan_sample_size(truth[pilot], judge[pilot], judge[rest], 0.007).n_ppi > plan.n_ppi
    # asked for the width it has now, the plan names (about) the audit it has now
    now = ppi.ppi_mean_ci(truth[pilot], judge[pilot], judge[rest], 0.05).half_width
    assert abs(ppi_plan.plan_sample_size(truth[pilot], judge[pilot], judge[rest], now).n_ppi - 200) <= 2
    assert ppi_plan.plan_sample_size(truth[pilot], judge[pilot], judge[rest], 1e-6).n_ppi is None
    assert ppi_plan.plan_sample_size([1.0], [1.0], [1.0], 0.1).n_ppi is None


# -- honest at any size (issue 23): within the range, never collapsed, no figure in words below the minimum --


def _six_of_a_hundred_audit():
    """The issue's case: 6 reviewed members, people and the judge agree on all of them (5 supported, 1 not),
    the judge's adherence over the other 2,890 rows about 0.84."""
    rng = np.random.default_rng(23)
    y = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 0.0])
    return y, y.copy(), (rng.random(2890) < 0.84).astype(float)


@pytest.mark.parametrize("interval", ppi.INTERVAL_METHODS)
def test_a_unanimous_small_audit_does_not_collapse_and_stays_in_range(interval):
    y, yhat, yhat_u = _six_of_a_hundred_audit()
    est = estimate.estimate_mean(y, yhat, yhat_u, 0.05, interval=interval)
    assert est.ppi.lam == 1.0  # the judge agrees on every audited example: fully trusted
    # not the judge's own noise (+-0.013 on 2,890 rows): the disagreements 6 examples cannot rule out
    assert est.ppi.high - est.ppi.low > 0.3
    for low, high in (est.ppi.ci(), est.human.ci()):
        assert 0.0 <= low <= high <= 1.0
    assert est.gain <= y.size + yhat_u.size
    # a 0/1 audit with every value the same: Wilson, not a zero-width interval
    ones = estimate.estimate_mean([1.0] * 10, [1.0] * 10, [1.0] * 50 + [0.0] * 10)
    assert ones.human.ci() == pytest.approx([0.7225, 1.0], abs=1e-4)
    assert ones.ppi.low < 0.85 and ones.ppi.high == 1.0


def test_zero_disagreements_at_n_30_still_leave_a_width_and_a_few_more_give_ppi_py():
    rng = np.random.default_rng(5)
    truth = (rng.random(3000) < 0.8).astype(float)
    y, yhat_u = truth[:30], truth[30:]
    unanimous = ppi.ppi_mean_ci(y, y, yhat_u, 0.05, bounds=small_audit.UNIT)
    raw = ppi.ppi_mean_ci(y, y, yhat_u, 0.05)
    assert raw.high - raw.low < 0.03  # ppi_py: only the judge's noise on 2,970 rows
    assert unanimous.high - unanimous.low > 0.1  # about the rule of three: up to 3 / 30 disagreements
    # five disagreements or more: the plug-in variance stands and the interval is ppi_py's again
    judge = y.copy()
    judge[np.flatnonzero(y == 0)[:5]] = 1.0
    lo, hi = ppi_py.ppi_mean_ci(y, judge, yhat_u, alpha=0.05)
    got = ppi.ppi_mean_ci(y, judge, yhat_u, 0.05, bounds=small_audit.UNIT)
    assert got.ci() == pytest.approx([float(lo[0]), float(hi[0])], abs=TOL)


def test_every_interval_lies_in_the_range_and_the_gain_never_exceeds_the_rows():
    """Small audits of skewed and 0/1 metrics: people-only normal intervals cross 0 or 1 on main."""
    rng = np.random.default_rng(9)
    for rep in range(60):
        n = int(rng.integers(2, 12))
        truth = np.clip(rng.beta(0.4, 3.0, size=n + 40), 0.0, 1.0) if rep % 2 else (rng.random(n + 40) < 0.9) * 1.0
        judge = np.where(rng.random(truth.size) < 0.9, truth, 1.0 - truth)
        for interval in ppi.INTERVAL_METHODS:
            est = estimate.estimate_mean(truth[:n], judge[:n], judge[n:], 0.05, interval=interval)
            for ci in (est.human.ci(), est.ppi.ci()):
                assert 0.0 <= ci[0] <= ci[1] <= 1.0, (rep, interval, ci)
            assert 0.0 <= est.ppi.estimate <= 1.0
            assert est.gain is None or est.gain <= truth.size
    # a metric on 0-5 (Tonic's answer similarity) keeps 0-5
    sim = estimate.estimate_mean([5.0, 4.0, 5.0], [5.0, 5.0, 5.0], [4.0, 5.0], bounds=(0.0, 5.0))
    assert sim.ppi.high <= 5.0 and sim.human.high <= 5.0


def test_below_the_minimum_no_corrected_figure_in_words_and_the_planner_never_under_it():
    from ragviz.analysis.coverage import MIN_AUDITED
    from ragviz.analysis.estimates.report import plain_words, plan_text

    y, yhat, yhat_u = _six_of_a_hundred_audit()
    words = plain_words("adherence", estimate.estimate_mean(y, yhat, yhat_u))
    assert f"too few reviewed to correct yet: {MIN_AUDITED - 6} more needed" in words
    assert "corrected with" not in words and "±" not in words
    plan = ppi_plan.plan_sample_size(y, yhat, yhat_u, 0.02, 0.05, MIN_AUDITED)
    assert plan.n_ppi >= MIN_AUDITED and plan.n_classical >= MIN_AUDITED
    assert f"at least n = {MIN_AUDITED}" in plan_text("adherence", plan, 6)
    # from the minimum on, the figure is said
    big = estimate.estimate_mean(np.tile(y, 17)[:100], np.tile(yhat, 17)[:100], yhat_u)
    assert big.more_needed == 0 and "corrected with 100 reviewed answers" in plain_words("adherence", big)
