"""The centred active estimator against references written apart from it (issue 36 item 8), and its cross-fitted λ
(item 5): the identity θ̂ = Ȳ_H + λ(f̄_M − f̄_H), equality to uniform PPI++ (``ppi_py``) when every chance is equal,
its variance against an independently written linearisation, and the cross-fit's reduction to the tuned estimate
when every fold tunes the same λ."""

from __future__ import annotations

import numpy as np
import ppi_py
import pytest

from ragviz.analysis.audits import active_crossfit
from ragviz.analysis.audits.active import ipw_lambda, ipw_ppi_ci
from ragviz.analysis.audits.active_crossfit import crossfit_ipw_mean, crossfitted_active


def _audit(seed: int, m: int = 1500, equal: bool = False):
    rng = np.random.default_rng(seed)
    truth = (rng.random(m) < rng.uniform(0.3, 0.9)).astype(float) + rng.normal(0, 0.1, m)
    judge = np.clip(truth + rng.normal(0.05, 0.3, m), 0, 1)
    pi = np.full(m, 0.1) if equal else rng.uniform(0.03, 0.4, m)
    audited = rng.random(m) < pi
    return truth[audited], judge[audited], pi[audited], judge[~audited]


@pytest.mark.parametrize("seed", range(6))
def test_the_estimate_is_the_hajek_mean_plus_lambda_times_the_judges_gap(seed):
    y, f, pi, fu = _audit(seed)
    est = ipw_ppi_ci(y, f, pi, fu)
    w = 1 / pi
    y_h, f_h, f_m = w @ y / w.sum(), w @ f / w.sum(), np.concatenate([f, fu]).mean()
    assert est.theta == pytest.approx(y_h + est.lam * (f_m - f_h), abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_with_equal_chances_it_is_uniform_ppi_plus_plus(seed):
    # with pi = n/M for all, Ȳ_H and f̄_H are the audit's means and f̄_M - f̄_n = (N/M)(f̄_u - f̄_n): the estimate at
    # λ is ppi_py's PPI++ at λ·N/M (N: the examples not audited)
    y, f, _, fu = _audit(seed, equal=True)
    pi = np.full(y.size, y.size / (y.size + fu.size))
    for lam in (0.0, 0.4, 1.0):
        ours = ipw_ppi_ci(y, f, pi, fu, lam=lam).theta
        theirs = np.ravel(ppi_py.ppi_mean_pointestimate(y, f, fu, lam=lam * fu.size / (y.size + fu.size)))[0]
        assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_its_variance_is_the_linearised_one_written_apart(seed):
    # θ̂ = Ȳ_H + λ(f̄_M − f̄_H) linearised around the Hájek means: example i's influence value is
    # λ(f_i − f̄_H) + ξ_i/π_i ((y_i − Ȳ_H) − λ(f_i − f̄_H)), and the variance is their sample variance over M
    y, f, pi, fu = _audit(seed)
    est = ipw_ppi_ci(y, f, pi, fu)
    lam = est.lam
    y_h = sum(v / p for v, p in zip(y, pi)) / sum(1 / p for p in pi)
    f_h = sum(v / p for v, p in zip(f, pi)) / sum(1 / p for p in pi)
    influence = [lam * (fi - f_h) + ((yi - y_h) - lam * (fi - f_h)) / p for yi, fi, p in zip(y, f, pi)]
    influence += [lam * (fi - f_h) for fi in fu]
    m = len(influence)
    mean = sum(influence) / m
    assert est.variance == pytest.approx(sum((v - mean) ** 2 for v in influence) / (m - 1) / m, rel=1e-10)


def test_the_cross_fit_is_the_tuned_estimate_when_every_fold_tunes_the_same_lambda(monkeypatch):
    y, f, pi, fu = _audit(11)
    real = ipw_ppi_ci
    monkeypatch.setattr(active_crossfit, "ipw_lambda", lambda *args, **kwargs: 0.37)
    estimate, lam_bar = crossfit_ipw_mean(y, f, pi, fu)
    assert lam_bar == pytest.approx(0.37, abs=1e-12)
    assert estimate == pytest.approx(real(y, f, pi, fu, lam=0.37).theta, abs=1e-12)


def test_each_folds_lambda_is_tuned_without_its_own_examples(monkeypatch):
    # the tuning of fold k never sees fold k's examples: every call gets the audit and the rest minus one fold
    y, f, pi, fu = _audit(12)
    seen = []

    def spy(y_k, f_k, pi_k, fu_k, clip=True):
        seen.append((y_k.size, fu_k.size))
        # the tuning alone is ipw_ppi_ci's λ, to the last bit
        assert ipw_lambda(y_k, f_k, pi_k, fu_k, clip) == ipw_ppi_ci(y_k, f_k, pi_k, fu_k, bounds=(0, 1)).lam
        return ipw_lambda(y_k, f_k, pi_k, fu_k, clip)

    monkeypatch.setattr(active_crossfit, "ipw_lambda", spy)
    crossfit_ipw_mean(y, f, pi, fu, folds=5)
    assert len(seen) == 5
    assert sum(a for a, _ in seen) == 4 * y.size and sum(b for _, b in seen) == 4 * fu.size


def test_the_shown_interval_moves_to_the_cross_fitted_estimate_and_keeps_its_width():
    y, f, pi, fu = _audit(13)
    tuned = ipw_ppi_ci(y, f, pi, fu, bounds=(0.0, 1.0))
    moved, done = crossfitted_active(tuned, y, f, pi, fu, (0.0, 1.0))
    assert done and moved.theta == pytest.approx(crossfit_ipw_mean(y, f, pi, fu)[0], abs=1e-15)
    assert moved.interval.high - moved.interval.low == pytest.approx(
        tuned.interval.high - tuned.interval.low, abs=1e-12
    )
    assert moved.interval.low <= moved.interval.estimate <= moved.interval.high
    small = ipw_ppi_ci(y[:8], f[:8], pi[:8], fu, bounds=(0.0, 1.0))
    assert crossfitted_active(small, y[:8], f[:8], pi[:8], fu, (0.0, 1.0)) == (small, False)  # too few: tuned


@pytest.mark.parametrize("seed", range(3))
def test_the_t_interval_counts_what_the_audit_fitted_and_the_audited_labels_tails(monkeypatch, seed):
    # every fold tuning λ = 0.37, the out-of-fold rectified labels are the linearised influence values written apart:
    # the t's variance is their sample variance over M times n/(n - 3) (both Hájek means and λ fitted on the n
    # audited), and its degrees of freedom the fewer of the M values' and the n audited ones' (issue 36 item 8)
    from scipy.special import stdtrit

    from ragviz.analysis.estimates.student_t import kurtosis_df

    y, f, pi, fu = _audit(20 + seed, m=800)
    tuned = ipw_ppi_ci(y, f, pi, fu)
    monkeypatch.setattr(active_crossfit, "ipw_lambda", lambda *args, **kwargs: 0.37)
    est, done = crossfitted_active(tuned, y, f, pi, fu, None, 0.05)
    w = 1 / pi
    y_h, f_h = w @ y / w.sum(), w @ f / w.sum()
    audited = 0.37 * (f - f_h) + ((y - y_h) - 0.37 * (f - f_h)) / pi
    influence = np.concatenate([audited, 0.37 * (fu - f_h)])
    n, m = y.size, influence.size
    assert done and est.variance == pytest.approx(np.var(influence, ddof=1) / m * n / (n - 3), rel=1e-10)
    df = min(kurtosis_df(influence), kurtosis_df(audited))
    half = float(stdtrit(df, 0.975)) * np.sqrt(est.variance)
    assert est.interval.high - est.interval.low == pytest.approx(2 * half, rel=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_an_audit_drawn_from_the_confidence_alone_counts_its_t_over_kishs_effective_size(monkeypatch, seed):
    # unequal chances (no pilot): the same variance, the degrees of freedom times (Σw)²/Σw² / n, w = 1/π, written
    # apart with scipy.stats.t; equal chances leave the interval as it was
    from scipy import stats

    from ragviz.analysis.estimates.student_t import kurtosis_df

    monkeypatch.setattr(active_crossfit, "ipw_lambda", lambda *args, **kwargs: 0.37)
    y, f, pi, fu = _audit(30 + seed, m=800)
    tuned = ipw_ppi_ci(y, f, pi, fu)
    plain, _ = crossfitted_active(tuned, y, f, pi, fu, None, 0.05)
    est, done = crossfitted_active(tuned, y, f, pi, fu, None, 0.05, unequal=True)
    w = 1 / pi
    y_h, f_h = w @ y / w.sum(), w @ f / w.sum()
    audited = 0.37 * (f - f_h) + ((y - y_h) - 0.37 * (f - f_h)) / pi
    df = min(kurtosis_df(np.concatenate([audited, 0.37 * (fu - f_h)])), kurtosis_df(audited))
    n_eff = sum(w) ** 2 / sum(w * w)
    assert done and n_eff < 0.9 * y.size and est.variance == plain.variance and est.theta == plain.theta
    half = stats.t.ppf(0.975, df * n_eff / y.size) * np.sqrt(est.variance)
    assert est.interval.high - est.interval.low == pytest.approx(2 * half, rel=1e-9)
    assert est.interval.high - est.interval.low > plain.interval.high - plain.interval.low
    y, f, pi, fu = _audit(30 + seed, m=800, equal=True)
    tuned = ipw_ppi_ci(y, f, pi, fu)
    kish = crossfitted_active(tuned, y, f, pi, fu, None, 0.05, unequal=True)[0].interval
    plain_equal = crossfitted_active(tuned, y, f, pi, fu, None, 0.05)[0].interval
    assert (kish.low, kish.high) == pytest.approx((plain_equal.low, plain_equal.high), rel=1e-12)
