"""Prediction-powered inference (PPI++) for the mean of one per-example metric: the judge's metric on every example
(``yhat`` on the *n* audited, ``yhat_u`` on the others) corrected by people's (``y``) on a uniformly random audit.

Estimates and intervals equal ``ppi_py`` 0.2.3's (``classical_mean_ci``, ``ppi_mean_pointestimate``, ``ppi_mean_ci``
with ``lam=None``; tests/analysis/estimates/test_ppi.py) except where ``ppi_py`` gives NaN or an error, and except
with *bounds* (a small or unanimous audit's honest width, :func:`ppi_mean_ci`); the app shows Student's t around the
cross-fitted estimate (:mod:`ragviz.analysis.estimates.student_t`), else the bootstrap-t (:func:`bootstrap_t_intervals`).
What each interval means for a reader: docs/concepts/intervals.md. References: A. N. Angelopoulos, S. Bates,
C. Fannjiang, M. I. Jordan, T. Zrnic, "Prediction-powered inference", Science 382 (2023); A. N. Angelopoulos,
J. C. Duchi, T. Zrnic, "PPI++: Efficient prediction-powered inference", arXiv:2311.01453 (2023).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ragviz.analysis.estimates.bootstrap_t import RESAMPLES, studentized_quantiles
from ragviz.analysis.estimates.small_audit import UNIT, Bounds, floored, rectifier_variance

__all__ = [
    "BOOTSTRAP_T",
    "INTERVAL_METHODS",
    "Interval",
    "NORMAL",
    "PPIInterval",
    "Values",
    "as_vector",
    "bootstrap_t_intervals",
    "classical_mean_ci",
    "judge_mean",
    "people_mean_ci",
    "power_tuning",
    "ppi_mean",
    "ppi_mean_ci",
    "ppi_variance",
    "two_valued",
    "wilson_interval",
    "z_value",
]


Values = Sequence[float] | np.ndarray


def z_value(alpha: float) -> float:
    """The two-sided normal quantile :math:`z_{1-\\alpha/2}` (1.959964 for ``alpha = 0.05``).

    >>> round(z_value(0.05), 6)
    1.959964
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie strictly between 0 and 1, got {alpha}")
    return NormalDist().inv_cdf(1.0 - alpha / 2.0)


def as_vector(values: Values) -> np.ndarray:
    return np.asarray(values, dtype=float).reshape(-1)


def _clip(value: float, bounds: Bounds | None) -> float:
    return value if bounds is None else min(max(value, bounds[0]), bounds[1])


def judge_mean(yhat: Values, yhat_u: Values) -> float | None:
    """The judge alone: the mean of its metric over all *n + N* examples.

    .. math:: \\bar{\\hat Y}_{\\mathrm{all}} = \\frac{1}{n+N}\\Big(\\sum_{i=1}^n \\hat Y_i + \\sum_{j=1}^N \\hat Y^u_j\\Big)

    Biased by the judge's errors and without a valid interval. ``None`` with no example.

    >>> judge_mean([1.0, 0.0], [1.0, 1.0])
    0.75
    """
    both = np.concatenate([as_vector(yhat), as_vector(yhat_u)])
    return float(both.mean()) if both.size else None


@dataclass(frozen=True)
class Interval:
    """A point estimate with its two-sided (1 - alpha) interval; ``low``/``high`` are ``None`` when
    there is no interval (fewer than two audited examples)."""

    estimate: float | None
    low: float | None
    high: float | None

    @property
    def half_width(self) -> float | None:
        return None if self.low is None or self.high is None else (self.high - self.low) / 2.0

    def ci(self) -> list[float] | None:
        return None if self.low is None or self.high is None else [self.low, self.high]


def classical_mean_ci(y: Values, alpha: float = 0.05) -> Interval:
    """People only: the mean of the audit with its normal (CLT) interval, as ``ppi_py.classical_mean_ci``.

    .. math:: \\bar Y \\pm z_{1-\\alpha/2}\\, \\hat\\sigma_Y / \\sqrt n, \\qquad
              \\hat\\sigma_Y^2 = \\frac1n \\sum_i (Y_i - \\bar Y)^2

    ``n = 0``: no estimate; ``n = 1``: the value, no interval.

    >>> classical_mean_ci([0.0, 1.0, 1.0, 1.0], 0.05).estimate
    0.75
    """
    z = z_value(alpha)
    arr = as_vector(y)
    if arr.size == 0:
        return Interval(None, None, None)
    mean = float(arr.mean())
    if arr.size < 2:
        return Interval(mean, None, None)
    half = z * float(arr.std()) / math.sqrt(arr.size)
    return Interval(mean, mean - half, mean + half)


def wilson_interval(y: Values, alpha: float = 0.05, bounds: Bounds = UNIT) -> Interval:
    """The Wilson score interval for the mean of a two-valued metric (every value ``lo`` or ``hi``):

    .. math:: \\frac{\\hat p + z^2/2n}{1 + z^2/n} \\pm \\frac{z}{1 + z^2/n}
              \\sqrt{\\frac{\\hat p(1-\\hat p)}{n} + \\frac{z^2}{4n^2}}

    on the share :math:`\\hat p` of ``hi`` values, mapped back to ``[lo, hi]``. It stays inside the range
    and keeps a width where every audited value is the same (6 of 6 supported: 0.61 - 1).
    E. B. Wilson, "Probable inference...", JASA 22 (1927).

    >>> w = wilson_interval([1.0] * 6)
    >>> round(w.low, 3), w.high
    (0.61, 1.0)
    """
    arr = as_vector(y)
    if arr.size == 0:
        return Interval(None, None, None)
    lo, hi = bounds
    mean = float(arr.mean())
    if arr.size < 2:
        return Interval(mean, None, None)
    z, n = z_value(alpha), arr.size
    p = (mean - lo) / (hi - lo)
    shrink = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / shrink
    half = z / shrink * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n))
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return Interval(mean, min(lo + low * (hi - lo), mean), max(lo + high * (hi - lo), mean))


def two_valued(y: Values, bounds: Bounds) -> bool:
    """Every value is one end of *bounds* (a 0/1 metric such as adherence)."""
    arr = as_vector(y)
    return bool(np.all((arr == bounds[0]) | (arr == bounds[1])))


def people_mean_ci(y: Values, alpha: float = 0.05, bounds: Bounds | None = UNIT) -> Interval:
    """People only, within the metric's range *bounds*: the Wilson interval (:func:`wilson_interval`) for a
    two-valued metric, else the normal one with :func:`rectifier_variance` at :math:`\\lambda = 0` (one
    pseudo-example at each end of the range), clipped to the range. ``bounds=None``:
    :func:`classical_mean_ci` (``ppi_py``'s).

    >>> i = people_mean_ci([0.9, 1.0, 1.0, 1.0])
    >>> i.high
    1.0
    """
    arr = as_vector(y)
    if bounds is None or arr.size < 2:
        return classical_mean_ci(arr, alpha)
    if two_valued(arr, bounds):
        return wilson_interval(arr, alpha, bounds)
    mean = float(arr.mean())
    half = z_value(alpha) * math.sqrt(rectifier_variance(arr, arr, 0.0, bounds) / arr.size)
    return Interval(mean, _clip(mean - half, bounds), _clip(mean + half, bounds))


def power_tuning(y: Values, yhat: Values, yhat_u: Values) -> float:
    """PPI++'s data-driven :math:`\\hat\\lambda` for a mean, clipped to [0, 1] (``ppi_py``'s ``_calc_lam_glm``).

    .. math:: \\hat\\lambda = \\operatorname{clip}_{[0,1]}\\left(
              \\frac{\\widehat{\\mathrm{Cov}}(Y, \\hat Y)}{(1 + n/N)\\, \\widehat{\\mathrm{Var}}(\\hat Y)}\\right)

    :math:`\\widehat{\\mathrm{Cov}}` is the plug-in covariance on the audit (divide by *n*),
    :math:`\\widehat{\\mathrm{Var}}` the sample variance (divide by *n + N - 1*) of the judge's
    metric over all *n + N* examples. This minimises the estimated variance of
    :func:`ppi_mean` (PPI++, eq. (6) for the mean). A judge that never agrees with people beyond
    chance gets 0 (the estimate is then the people-only mean); a judge on a compressed scale may hit 1.

    Degenerate cases (``ppi_py`` gives NaN or fails): ``N = 0`` (every example audited: nothing to
    impute) and a constant judge (variance 0: any lambda gives the same estimate) return 0.
    ``n < 2`` returns 0 too (no covariance can be estimated).

    A perfect judge on 4 audited and 100 other examples: 0.25 / (1.04 * 0.25 * 104 / 103).

    >>> round(power_tuning([0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 1.0] * 50), 6)
    0.952293
    """
    y_arr, f_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(yhat_u)
    n, big_n = y_arr.size, fu_arr.size
    if n < 2 or big_n == 0:
        return 0.0
    cov = float(np.mean((y_arr - y_arr.mean()) * (f_arr - f_arr.mean())))
    var_f = float(np.var(np.concatenate([f_arr, fu_arr]), ddof=1))
    if var_f <= 0.0:
        return 0.0
    return float(np.clip(cov / ((1.0 + n / big_n) * var_f), 0.0, 1.0))


def ppi_mean(y: Values, yhat: Values, yhat_u: Values, lam: float) -> float:
    """The prediction-powered estimate of the mean for a given :math:`\\lambda`.

    .. math:: \\hat\\theta_\\lambda = \\lambda\\, \\frac1N \\sum_j \\hat Y^u_j
              + \\frac1n \\sum_i \\big(Y_i - \\lambda \\hat Y_i\\big)

    The second term is the *rectifier*: the judge's average error on the audit corrects its mean on
    the rest. ``lam = 0`` is the people-only mean, ``lam = 1`` plain PPI. With ``N = 0`` the first
    term is left out (so only ``lam = 0`` is meaningful). Needs ``n >= 1``.

    >>> ppi_mean([1.0, 0.0], [1.0, 1.0], [1.0, 1.0, 0.0, 1.0], 1.0)
    0.25
    """
    y_arr, f_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(yhat_u)
    if y_arr.size == 0:
        raise ValueError("the prediction-powered estimate needs at least one audited example")
    imputed = lam * float(fu_arr.mean()) if fu_arr.size else 0.0
    return imputed + float(np.mean(y_arr - lam * f_arr))


def ppi_variance(y: Values, yhat: Values, yhat_u: Values, lam: float, bounds: Bounds | None = None) -> float:
    """The estimated variance of :func:`ppi_mean` (``ppi_py.ppi_mean_ci``'s, squared standard error).

    .. math:: \\hat\\sigma^2_\\lambda = \\lambda^2\\,\\frac{\\hat\\sigma^2_{\\hat Y^u}}{N}
              + \\frac{\\hat\\sigma^2_{Y - \\lambda \\hat Y}}{n}

    with plug-in variances (divide by the count). ``N = 0`` leaves the first term out. With *bounds* the
    rectifier's variance has the pseudo-examples of :func:`rectifier_variance` (never 0).
    """
    y_arr, f_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(yhat_u)
    imputed = lam * lam * float(fu_arr.var()) / fu_arr.size if fu_arr.size else 0.0
    return imputed + rectifier_variance(y_arr, f_arr, lam, bounds) / y_arr.size


NORMAL = "normal"
BOOTSTRAP_T = "bootstrap-t"
INTERVAL_METHODS = (NORMAL, BOOTSTRAP_T)


@dataclass(frozen=True)
class PPIInterval(Interval):
    """A PPI++ estimate: the interval, the :math:`\\lambda` used, the estimate's variance and the
    interval's method (:data:`NORMAL` or :data:`BOOTSTRAP_T`; ``None`` without an interval)."""

    lam: float | None = None
    variance: float | None = None
    method: str | None = None


def ppi_mean_ci(
    y: Values,
    yhat: Values,
    yhat_u: Values,
    alpha: float = 0.05,
    lam: float | None = None,
    method: str = NORMAL,
    resamples: int = RESAMPLES,
    seed: int = 0,
    bounds: Bounds | None = None,
) -> PPIInterval:
    """The PPI++ estimate and its (1 - alpha) interval; ``method="normal"`` (the default) is
    ``ppi_py.ppi_mean_ci(..., lam=None)``:

    .. math:: \\hat\\theta_{\\hat\\lambda} \\pm z_{1-\\alpha/2}\\, \\hat\\sigma_{\\hat\\lambda}

    with :math:`\\hat\\lambda` from :func:`power_tuning` (or the given *lam*), the estimate from
    :func:`ppi_mean` and the variance from :func:`ppi_variance`. ``method="bootstrap-t"`` keeps the
    estimate and replaces the normal quantiles by bootstrap ones (:func:`bootstrap_t_intervals`, with
    *resamples* and *seed*): it covers 93-97 % from n = 50 on where the normal one covers 90-93 % at
    n = 100 for skewed metrics (``benchmarks/bench_ppi.py``). ``n = 0``: nothing; ``n = 1``: no
    interval and no power tuning (everything ``None``: one audited example cannot say how good the
    judge is).

    *bounds* ``(lo, hi)``, the metric's range: the estimate and the interval are clipped to it and the
    rectifier's variance never vanishes (:func:`rectifier_variance`); ``None`` (the default) is ``ppi_py``'s.
    """
    if method not in INTERVAL_METHODS:
        raise ValueError(f"unknown interval method {method!r}; expected one of {', '.join(INTERVAL_METHODS)}")
    z = z_value(alpha)
    y_arr, f_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(yhat_u)
    if y_arr.size != f_arr.size:
        raise ValueError(f"y has {y_arr.size} values but yhat has {f_arr.size}: they must pair up")
    if y_arr.size < 2:
        return PPIInterval(None, None, None)
    if method == BOOTSTRAP_T:
        return bootstrap_t_intervals(
            y_arr[:, None], f_arr[:, None], fu_arr[:, None], alpha, lam, resamples, seed, bounds
        )[0]
    lam = power_tuning(y_arr, f_arr, fu_arr) if lam is None else float(lam)
    estimate = ppi_mean(y_arr, f_arr, fu_arr, lam)
    variance = ppi_variance(y_arr, f_arr, fu_arr, lam, bounds)
    if bounds is not None and lam == 0.0:  # the judge is ignored: the people-only interval (Wilson for 0/1)
        people = people_mean_ci(y_arr, alpha, bounds)
        return PPIInterval(people.estimate, people.low, people.high, lam, variance, NORMAL)
    half = z * math.sqrt(variance)
    low, high = _clip(estimate - half, bounds), _clip(estimate + half, bounds)
    return PPIInterval(_clip(estimate, bounds), low, high, lam, variance, NORMAL)


def bootstrap_t_intervals(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_u: np.ndarray,
    alpha: float = 0.05,
    lam: float | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
    bounds: Bounds | None = None,
) -> list[PPIInterval]:
    """PPI++ with a percentile-t (studentized) bootstrap interval, one per column (metric) of the
    ``(n, k)`` audit arrays *y* / *yhat* and the ``(N, k)`` array *yhat_u*:

    .. math:: \\Big[\\hat\\theta - t^*_{1-\\alpha/2}\\,\\hat\\sigma,\\;
              \\hat\\theta - t^*_{\\alpha/2}\\,\\hat\\sigma\\Big]

    :math:`\\hat\\theta`, :math:`\\hat\\sigma^2` and :math:`\\hat\\lambda` as in the normal interval
    (:func:`ppi_mean`, :func:`ppi_variance`, :func:`power_tuning` or the given *lam*), the
    quantiles :math:`t^*_q` of the studentized estimate over *resamples* bootstrap resamples that
    re-tune :math:`\\lambda` (:func:`ragviz.analysis.estimates.bootstrap_t.studentized_quantiles`, seeded by
    *seed*), clipped to the range of the values seen (*y*, *yhat*, *yhat_u* and the estimate): with
    few audited examples of a rare 0/1 outcome a resample can have almost no spread and stretch the
    interval far past [0, 1]. Where a quantile is infinite (resamples without any spread: tiny or
    nearly constant audits) that column gets the normal interval and :attr:`PPIInterval.method` says
    so. ``n < 2``: no interval.

    With *bounds* (the metric's range) the estimate and the interval are clipped to the range instead of
    the values seen, and a column whose rectifier barely varies (:func:`floored`: fewer than :data:`FEW`
    disagreements) gets the normal interval with the floored variance of :func:`rectifier_variance`: resampling
    an audit without disagreements never shows one, so its bootstrap-t interval would shrink to a point.
    """
    y_arr, f_arr, fu_arr = (np.asarray(a, dtype=float) for a in (y, yhat, yhat_u))
    if y_arr.shape[0] < 2:
        return [PPIInterval(None, None, None) for _ in range(y_arr.shape[1])]
    low_q, high_q = studentized_quantiles(y_arr, f_arr, fu_arr, alpha, lam, resamples, seed)
    out = []
    for j in range(y_arr.shape[1]):
        y_j, f_j, fu_j = y_arr[:, j], f_arr[:, j], fu_arr[:, j]
        tuned = power_tuning(y_j, f_j, fu_j) if lam is None else lam
        normal = ppi_mean_ci(y_j, f_j, fu_j, alpha, tuned, bounds=bounds)
        usable = np.isfinite(low_q[j]) and np.isfinite(high_q[j]) and normal.estimate is not None
        if usable and not (bounds is not None and floored(y_j, f_j, tuned)):
            se, est = math.sqrt(normal.variance or 0.0), ppi_mean(y_j, f_j, fu_j, tuned)
            if bounds is None:
                seen = np.concatenate([y_j, f_j, fu_j])  # a mean lies within the values it averages
                floor, ceiling = min(float(seen.min()), est), max(float(seen.max()), est)
            else:
                floor, ceiling = bounds
            low = max(est - float(high_q[j]) * se, floor)
            high = min(est - float(low_q[j]) * se, ceiling)
            shown = _clip(est, bounds)
            normal = PPIInterval(shown, min(low, shown), max(high, shown), normal.lam, normal.variance, BOOTSTRAP_T)
        out.append(normal)
    return out
