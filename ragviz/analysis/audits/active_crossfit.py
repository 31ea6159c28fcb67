"""The active design's PPI++ with a cross-fitted :math:`\\lambda` (issue 36 item 5, as
:mod:`ragviz.analysis.estimates.crossfit` does for a uniform audit). The centred IPW PPI++ estimate of
:func:`ragviz.analysis.audits.active.ipw_ppi_ci` is :math:`\\bar Y_H + \\frac1M \\sum_i \\lambda\\,\\tilde f_i (1 - \\xi_i/\\pi_i)`
(:math:`\\tilde f = \\hat Y - \\bar{\\hat Y}_H`, Hájek-centred). Cross-fitted, the *M* examples (audited or not, so
each fold is itself a Poisson sample of the design; cutting only the audited ones shrank λ to about half) are cut into
*K* seeded folds and fold *k* is weighted by the :math:`\\lambda_{-k}` tuned on the other folds:
:math:`\\hat\\theta_{cf} = \\bar Y_H + \\frac1M \\sum_k \\lambda_{-k} \\sum_{i \\in k} \\tilde f_i\\,(1 - \\xi_i/\\pi_i)`.
Its interval (:func:`crossfitted_active`): the tuned one moved to it, or Student's t from the out-of-fold rectified
labels (:mod:`ragviz.analysis.estimates.student_t`; :data:`FITTED`); drawn from the confidence alone, its degrees of
freedom counted over Kish's effective size (:func:`kish_size`). Audits of fewer than :data:`MIN_CROSSFIT`
examples, and those whose tuned λ is 0, keep the tuned estimate.
"""

from __future__ import annotations

import numpy as np

from ragviz.analysis.audits.active import ActiveEstimate, hajek_mean, ipw_lambda
from ragviz.analysis.estimates.crossfit import FOLDS, fold_of
from ragviz.analysis.estimates.ppi import Interval
from ragviz.analysis.estimates.small_audit import Bounds, floored
from ragviz.analysis.estimates.student_t import kurtosis_df, t_interval

__all__ = ["FITTED", "MIN_CROSSFIT", "crossfit_ipw_mean", "crossfitted_active", "kish_size"]

MIN_CROSSFIT = 2 * FOLDS  # audited examples a cross-fit needs: two per fold
#: what the audit itself fits (the Hájek means of people's and the judge's values, and λ): the t's variance is
#: counted n/(n - FITTED) times the rectified labels', as HC1 counts its parameters
FITTED = 3


def crossfit_ipw_mean(
    y: np.ndarray, f: np.ndarray, pi: np.ndarray, fu: np.ndarray, folds: int = FOLDS, seed: int = 0, clip: bool = True
) -> tuple[float, float]:
    """``(estimate, mean lambda)``: :math:`\\hat\\theta_{cf}` of the module docstring over the audited ``(y, f)`` with
    their inclusion probabilities *pi* and the judge's values *fu* on the examples not audited; each
    :math:`\\lambda_{-k}` is :func:`~ragviz.analysis.audits.active.ipw_ppi_ci`'s tuning (clipped to [0, 1] with
    *clip*, as it clips with bounds). The mean lambda weights each fold by its examples.

    >>> from ragviz.analysis.audits.active import ipw_ppi_ci
    >>> rng = np.random.default_rng(1); t = (rng.random(3000) < 0.7) * 1.0
    >>> f = np.where(rng.random(3000) < 0.85, t, 1 - t); pi = rng.uniform(0.02, 0.1, 3000); a = rng.random(3000) < pi
    >>> est, lam = crossfit_ipw_mean(t[a], f[a], pi[a], f[~a])
    >>> round(est, 3), round(lam, 3), round(ipw_ppi_ci(t[a], f[a], pi[a], f[~a], bounds=(0, 1)).theta, 3)
    (0.716, 0.59, 0.715)
    """
    estimate, lam_bar, _ = _rectified(y, f, pi, fu, folds, seed, clip)
    return estimate, lam_bar


def _rectified(
    y: np.ndarray, f: np.ndarray, pi: np.ndarray, fu: np.ndarray, folds: int, seed: int, clip: bool
) -> tuple[float, float, np.ndarray]:
    """The estimate, the mean λ and every example's out-of-fold rectified label
    :math:`\\lambda_{-k}\\tilde f_i + \\xi_i(\\tilde Y_i - \\lambda_{-k}\\tilde f_i)/\\pi_i` (their mean is the correction)."""
    n, total = y.size, y.size + fu.size
    which = fold_of(total, folds, seed)
    audited, rest = which[:n], which[n:]
    f_tilde = np.concatenate([f, fu]) - hajek_mean(f, pi)
    y_tilde = np.concatenate([(y - hajek_mean(y, pi)) / pi, np.zeros(fu.size)])
    weight = np.concatenate([1.0 - 1.0 / pi, np.ones(fu.size)])
    lams = np.empty(total)
    for k in range(folds):
        keep = audited != k
        lams[which == k] = ipw_lambda(y[keep], f[keep], pi[keep], fu[rest != k], clip)
    rectified = lams * f_tilde * weight + y_tilde
    return hajek_mean(y, pi) + float(rectified.mean()), float(lams.mean()), rectified


def kish_size(pi: np.ndarray) -> float:
    """Kish's effective size :math:`(\\sum w)^2/\\sum w^2` of an audit whose examples are weighted
    :math:`w = 1/\\pi` (*pi*: their inclusion probabilities): *n* for equal chances, fewer the more they vary.

    >>> kish_size(np.array([0.1, 0.1, 0.1, 0.1])), round(kish_size(np.array([0.1, 0.1, 0.2, 0.2])), 2)
    (4.0, 3.6)
    """
    w = 1.0 / pi
    return float(w.sum() ** 2 / (w * w).sum())


def crossfitted_active(
    tuned: ActiveEstimate,
    y: np.ndarray,
    f: np.ndarray,
    pi: np.ndarray,
    fu: np.ndarray,
    bounds: Bounds | None,
    t: float | None = None,
    unequal: bool = False,
) -> tuple[ActiveEstimate, bool]:
    """*tuned* (λ tuned on the audit, its interval normal or bootstrap-t) moved to the cross-fitted estimate, and
    whether it was (``False``: fewer than :data:`MIN_CROSSFIT` audited examples, λ 0 or no interval). With *t*
    (alpha): Student's t interval of the cross-fitted estimate instead, its variance :math:`s^2_R/M \\cdot n/(n - 3)` of
    the out-of-fold rectified labels *R* (module docstring; never below the tuned one's floor where people and the judge
    barely disagree) and its degrees of freedom from their kurtosis, over all *M* or the *n* audited, the fewer. With
    *unequal* (an audit drawn from the judge's confidence alone, no pilot) those degrees of freedom are counted over
    the audit's :func:`kish_size` rather than *n* (times :math:`n_{eff}/n`): unequal chances make the estimate's error
    follow its own standard error (an audit missing the rare large, unlikely rows reads low and narrow), which
    the wider tails take in; the calibrated design's interval is unchanged (BENCHMARKS.md)."""
    shown = tuned.interval
    if y.size < MIN_CROSSFIT or not tuned.lam or shown.low is None or shown.high is None or not fu.size:
        return tuned, False
    estimate, lam_bar, rectified = _rectified(y, f, pi, fu, FOLDS, 0, bounds is not None)
    if t is not None:
        variance = float(np.var(rectified, ddof=1)) / rectified.size * y.size / (y.size - FITTED)
        if bounds is not None and floored(y, f, lam_bar):
            variance = max(variance, tuned.variance)
        df = min(kurtosis_df(rectified), kurtosis_df(rectified[: y.size]))  # _rectified puts the audited first
        if unequal:
            df = max(1.0, df * kish_size(pi) / y.size)
        iv = t_interval(estimate, variance, df, t, bounds)
        return ActiveEstimate(iv, variance, lam_bar, estimate), True
    shift = estimate - tuned.theta
    lo, hi = bounds if bounds is not None else (-np.inf, np.inf)
    centre = min(hi, max(lo, estimate))
    interval = Interval(centre, max(lo, min(shown.low + shift, centre)), min(hi, max(shown.high + shift, centre)))
    return ActiveEstimate(interval, tuned.variance, lam_bar, estimate), True
