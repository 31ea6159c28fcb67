"""Prediction-powered inference (PPI++) for the mean of one per-example metric.

The judge labels every example, people label a uniformly random *audit* sample of them. With

* ``y``      — the metric from people's labels on the *n* audited examples (:math:`Y_i`),
* ``yhat``   — the judge's metric on the same *n* examples (:math:`\\hat Y_i`),
* ``yhat_u`` — the judge's metric on the *N* examples without people's labels (:math:`\\hat Y^u_j`),

the judge-only mean is biased by whatever the judge gets wrong, the people-only mean is unbiased
but wide, and the prediction-powered estimate uses the judge on all examples and the audit to
remove its bias. Power tuning chooses how much to trust the judge (:math:`\\lambda`, 0 = ignore it,
1 = plain PPI), so the interval is never wider than the people-only one by more than estimation noise.

The estimates and intervals equal ``ppi_py`` 0.2.3's (``classical_mean_ci``, ``ppi_mean_pointestimate``,
``ppi_mean_ci`` with ``lam=None``; ``tests/analysis/test_ppi.py`` compares them on random inputs), except in
the degenerate cases ``ppi_py`` leaves as NaN or an error, named in each docstring; the effective
sample size and the planner (:mod:`ragviz.analysis.estimates.planner`) are derived from the same variance. Variances are
the plug-in ones (divide by the count, ``ddof=0``), as ``ppi_py`` uses for its intervals.

That normal interval (:func:`ppi_mean_ci`'s default) covers only 91-93 % at n = 100 for skewed
metrics (``benchmarks/bench_ppi.py``): the residual :math:`Y - \\lambda \\hat Y` is skewed and
:math:`\\lambda` is tuned on the same audit. :func:`bootstrap_t_intervals` (``method="bootstrap-t"``)
keeps the estimate and studentizes a bootstrap that re-tunes :math:`\\lambda` in every resample; it
covers 93-97 % at n = 50, 100, 300 and 1,000 there, and is what :func:`estimate_mean`, the app and
``ragviz estimate`` show (:data:`DEFAULT_INTERVAL`).

Undefined cases: no audited example gives no estimate; one audited example gives point estimates
but no interval (a variance needs two), so :attr:`MetricEstimate.has_ci` is false — say so rather
than print a zero-width interval.

References: A. N. Angelopoulos, S. Bates, C. Fannjiang, M. I. Jordan, T. Zrnic, "Prediction-powered
inference", Science 382 (2023); A. N. Angelopoulos, J. C. Duchi, T. Zrnic, "PPI++: Efficient
prediction-powered inference", arXiv:2311.01453 (2023).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from ragviz.analysis.estimates.bootstrap_t import RESAMPLES, studentized_quantiles

__all__ = [
    "BOOTSTRAP_T",
    "DEFAULT_INTERVAL",
    "INTERVAL_METHODS",
    "Interval",
    "MetricEstimate",
    "NORMAL",
    "PPIInterval",
    "Values",
    "as_vector",
    "bootstrap_t_intervals",
    "classical_mean_ci",
    "effective_sample_size",
    "estimate_mean",
    "judge_mean",
    "power_tuning",
    "ppi_mean",
    "ppi_mean_ci",
    "ppi_variance",
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


def ppi_variance(y: Values, yhat: Values, yhat_u: Values, lam: float) -> float:
    """The estimated variance of :func:`ppi_mean` (``ppi_py.ppi_mean_ci``'s, squared standard error).

    .. math:: \\hat\\sigma^2_\\lambda = \\lambda^2\\,\\frac{\\hat\\sigma^2_{\\hat Y^u}}{N}
              + \\frac{\\hat\\sigma^2_{Y - \\lambda \\hat Y}}{n}

    with plug-in variances (divide by the count). ``N = 0`` leaves the first term out.
    """
    y_arr, f_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(yhat_u)
    imputed = lam * lam * float(fu_arr.var()) / fu_arr.size if fu_arr.size else 0.0
    return imputed + float(np.var(y_arr - lam * f_arr)) / y_arr.size


NORMAL = "normal"
BOOTSTRAP_T = "bootstrap-t"
INTERVAL_METHODS = (NORMAL, BOOTSTRAP_T)
DEFAULT_INTERVAL = BOOTSTRAP_T  # what the app and ``ragviz estimate`` show (BENCHMARKS.md: it covers from n = 100)


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
        return bootstrap_t_intervals(y_arr[:, None], f_arr[:, None], fu_arr[:, None], alpha, lam, resamples, seed)[0]
    lam = power_tuning(y_arr, f_arr, fu_arr) if lam is None else float(lam)
    estimate = ppi_mean(y_arr, f_arr, fu_arr, lam)
    variance = ppi_variance(y_arr, f_arr, fu_arr, lam)
    half = z * math.sqrt(variance)
    return PPIInterval(estimate, estimate - half, estimate + half, lam, variance, NORMAL)


def bootstrap_t_intervals(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_u: np.ndarray,
    alpha: float = 0.05,
    lam: float | None = None,
    resamples: int = RESAMPLES,
    seed: int = 0,
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
    """
    y_arr, f_arr, fu_arr = (np.asarray(a, dtype=float) for a in (y, yhat, yhat_u))
    if y_arr.shape[0] < 2:
        return [PPIInterval(None, None, None) for _ in range(y_arr.shape[1])]
    low_q, high_q = studentized_quantiles(y_arr, f_arr, fu_arr, alpha, lam, resamples, seed)
    out = []
    for j in range(y_arr.shape[1]):
        y_j, f_j, fu_j = y_arr[:, j], f_arr[:, j], fu_arr[:, j]
        normal = ppi_mean_ci(y_j, f_j, fu_j, alpha, power_tuning(y_j, f_j, fu_j) if lam is None else lam)
        if np.isfinite(low_q[j]) and np.isfinite(high_q[j]) and normal.estimate is not None:
            se, est = math.sqrt(normal.variance or 0.0), normal.estimate
            seen = np.concatenate([y_j, f_j, fu_j])  # a mean lies within the values it averages
            low = max(est - float(high_q[j]) * se, min(float(seen.min()), est))
            high = min(est - float(low_q[j]) * se, max(float(seen.max()), est))
            normal = PPIInterval(est, low, high, normal.lam, normal.variance, BOOTSTRAP_T)
        out.append(normal)
    return out


def effective_sample_size(y: Values, variance: float | None) -> float | None:
    """How many people-labelled examples the judge-assisted estimate is worth at this *n*.

    .. math:: n_{\\mathrm{eff}} = n \\cdot \\frac{\\hat\\sigma^2_Y / n}{\\hat\\sigma^2_{\\hat\\lambda}}
              = \\frac{\\hat\\sigma^2_Y}{\\hat\\sigma^2_{\\hat\\lambda}}

    the audit size a people-only mean would need for an interval as narrow as the PPI++ one
    (*variance* is :attr:`PPIInterval.variance`). ``n_eff - n`` examples are what the judge adds;
    ``n_eff ≈ n`` means the judge adds nothing (:math:`\\hat\\lambda \\approx 0`). ``None`` when
    *variance* is ``None`` or 0 (no spread to compare: the ratio is undefined).

    >>> effective_sample_size([0.0, 1.0, 0.0, 1.0], 0.03125)
    8.0
    """
    if variance is None or variance <= 0.0:
        return None
    return float(as_vector(y).var()) / variance


@dataclass(frozen=True)
class MetricEstimate:
    """Everything :func:`estimate_mean` says about one metric (one group of examples).

    ``n_labeled`` / ``n_unlabeled`` count the examples used; ``excluded_labeled`` /
    ``excluded_unlabeled`` the examples left out because the metric is undefined (``None``) there
    (audited: on either side; unaudited: the judge's) — set by the caller that dropped them."""

    n_labeled: int
    n_unlabeled: int
    judge: float | None
    human: Interval
    ppi: PPIInterval
    gain: float | None
    excluded_labeled: int = 0
    excluded_unlabeled: int = 0

    @property
    def has_ci(self) -> bool:
        return self.ppi.low is not None

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of ``ragviz estimate``: ``judge``, ``human``, ``ppi`` and ``gain``; ``ppi.interval``
        names the interval's method (``None`` without an interval)."""
        return {
            "judge": {"estimate": self.judge},
            "human": {"estimate": self.human.estimate, "ci": self.human.ci()},
            "ppi": {
                "estimate": self.ppi.estimate,
                "ci": self.ppi.ci(),
                "lambda": self.ppi.lam,
                "interval": self.ppi.method,
            },
            "gain": self.gain,
        }


def estimate_mean(
    y: Values,
    yhat: Values,
    yhat_u: Values,
    alpha: float = 0.05,
    excluded: tuple[int, int] = (0, 0),
    interval: str = DEFAULT_INTERVAL,
) -> MetricEstimate:
    """Judge-only mean, people-only mean and interval, PPI++ estimate and interval, and the gain
    (:func:`effective_sample_size`) for one metric; *excluded* = (audited, unaudited) examples the
    caller left out because the metric was undefined there. *interval* is the PPI++ interval's
    method (:func:`ppi_mean_ci`; default the bootstrap-t, seed 0, so the same data give the same
    interval); the people-only interval is always the normal one (``ppi_py.classical_mean_ci``).

    >>> e = estimate_mean([1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0] * 8)
    >>> e.judge, e.human.estimate, e.ppi.estimate, e.ppi.lam
    (1.0, 0.75, 0.75, 0.0)
    """
    y_arr, f_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(yhat_u)
    if y_arr.size != f_arr.size:
        raise ValueError(f"y has {y_arr.size} values but yhat has {f_arr.size}: they must pair up")
    ppi = ppi_mean_ci(y_arr, f_arr, fu_arr, alpha, method=interval)
    return MetricEstimate(
        n_labeled=int(y_arr.size),
        n_unlabeled=int(fu_arr.size),
        judge=judge_mean(f_arr, fu_arr),
        human=classical_mean_ci(y_arr, alpha),
        ppi=ppi,
        gain=effective_sample_size(y_arr, ppi.variance),
        excluded_labeled=excluded[0],
        excluded_unlabeled=excluded[1],
    )
