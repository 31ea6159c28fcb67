"""Inverse-probability-weighted PPI++ for an active audit, where each example was audited with its own known
probability (T. Zrnic, E. J. Candès, "Active statistical inference", ICML 2024; K. Gligorić et al., "Can unconfident
LLM annotations be used for confident conclusions?", NAACL 2025): the estimate and its interval
(:func:`ipw_ppi_ci`, whose docstring gives the estimator), people's alone, and audits drawn in batches combined.

An inclusion probability of 0 on an audited example (or outside (0, 1]) is refused with :class:`ProbabilityError`:
its weight would be infinite and the interval silently wrong.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragviz.analysis.estimates.ppi import Interval, as_vector, z_value
from ragviz.analysis.estimates.small_audit import Bounds, floored, rectifier_variance
from ragviz.errors import BadInput

__all__ = [
    "ActiveEstimate",
    "Batch",
    "ProbabilityError",
    "batches_ppi_ci",
    "combined_ipw_ppi_ci",
    "combine_batch_estimates",
    "combined_people_ci",
    "hajek_mean",
    "hajek_spread",
    "ipw_lambda",
    "ipw_people_ci",
    "ipw_ppi_ci",
]


class ProbabilityError(BadInput, ValueError):
    """Inclusion probabilities an IPW estimate cannot use, in one line that says what to do."""


@dataclass(frozen=True)
class ActiveEstimate:
    """The IPW PPI++ estimate: its interval, :math:`\\lambda`, variance and the rectified labels' count."""

    interval: Interval
    variance: float
    lam: float
    theta: float = math.nan  # the estimate before it is clipped to the metric's range


def _clip(value: float, bounds: Bounds | None) -> float:
    return value if bounds is None else min(max(value, bounds[0]), bounds[1])


def _check(pi: np.ndarray, n: int) -> None:
    if pi.size != n:
        raise ValueError(f"{n} audited values but {pi.size} inclusion probabilities: they must pair up")
    bad = np.flatnonzero(~np.isfinite(pi) | (pi <= 0.0) | (pi > 1.0))
    if bad.size:
        raise ProbabilityError(
            f"audited example {int(bad[0]) + 1} has inclusion probability {float(pi[bad[0]])!r}: every audited example needs "
            "one in (0, 1] — an active sample's floor keeps them above 0; redraw the sample with a floor"
        )


def _interval(theta: float, variance: float, alpha: float, bounds: Bounds | None) -> Interval:
    half = z_value(alpha) * math.sqrt(max(variance, 0.0))
    shown = _clip(theta, bounds)
    return Interval(shown, min(_clip(theta - half, bounds), shown), max(_clip(theta + half, bounds), shown))


def _floor(y: np.ndarray, f: np.ndarray, pi: np.ndarray, lam: float, total: int, bounds: Bounds | None) -> float:
    if bounds is None or not floored(y, f, lam):
        return 0.0
    return rectifier_variance(y, f, lam, bounds) * float(np.sum(1.0 / pi**2)) / total**2


def hajek_mean(values: np.ndarray, pi: np.ndarray) -> float:
    """The audit's design-weighted (Hájek) mean :math:`\\sum v_i/\\pi_i / \\sum 1/\\pi_i`.

    >>> hajek_mean(np.array([1.0, 0.0]), np.array([0.5, 1.0]))
    0.6666666666666666
    """
    w = 1.0 / pi
    return float(w @ values / w.sum())


def ipw_ppi_ci(
    y: np.ndarray | list[float],
    yhat: np.ndarray | list[float],
    pi: np.ndarray | list[float],
    yhat_u: np.ndarray | list[float],
    alpha: float = 0.05,
    bounds: Bounds | None = None,
    lam: float | None = None,
    centred: bool = True,
) -> ActiveEstimate:
    """IPW PPI++ over the audited ``(y, yhat)`` with their inclusion probabilities *pi* and the judge's values
    *yhat_u* on the examples not audited. *lam* ``None``: power-tuned. *centred* ``False``: glide-py's
    ``ASIMeanEstimator`` as it is.

    Every one of the *M* examples has the judge's value :math:`\\hat Y_i`; example *i* was audited
    (:math:`\\xi_i = 1`) with the known probability :math:`\\pi_i > 0`. Each example's *rectified label*

    .. math:: R_i = \\lambda \\hat Y_i + \\frac{\\xi_i}{\\pi_i}\\,(Y_i - \\lambda \\hat Y_i)

    has mean :math:`\\theta` whatever :math:`\\lambda` (the weights undo the unequal chances), so
    :math:`\\hat\\theta = \\bar R` with variance :math:`s^2_R / M` (``ddof = 1``) and the normal interval
    :math:`\\hat\\theta \\pm z_{1-\\alpha/2}\\, s_R/\\sqrt M`. Power tuning picks
    :math:`\\lambda = \\widehat{\\mathrm{Cov}}(a, b) / \\widehat{\\mathrm{Var}}(a)` with :math:`a_i = \\hat Y_i(\\xi_i/\\pi_i - 1)`,
    :math:`b_i = Y_i \\xi_i / \\pi_i` (minimises :math:`s^2_R`). That is ``glide-py`` 0.11's ``ASIMeanEstimator``
    (``centred=False``).

    *Centred* (the default): the same estimator over the audit's Hájek-centred values :math:`Y_i - \\bar Y_H` and
    :math:`\\hat Y_i - \\bar{\\hat Y}_H` (:math:`\\bar Y_H = \\sum_{\\text{audited}} Y_i/\\pi_i \\,/ \\sum_{\\text{audited}}
    1/\\pi_i`), with :math:`\\bar Y_H` added back. Uncentred, every audited row's weight :math:`1/\\pi_i` multiplies
    :math:`Y_i - \\lambda\\hat Y_i`, which carries the judge's whole bias and the metric's level; a judge biased by
    *b* pays about :math:`b^2/\\pi` per audited row, so an active audit came out wider than a uniform one of the same
    size even when its probabilities were unrelated to the errors (``BENCHMARKS.md``, "Active design on
    completeness"). Centred, only each row's departure from the audit's weighted mean is weighted, and the tuned
    :math:`\\lambda` is the design-weighted regression slope of people's values on the judge's. The estimate is the
    difference (GREG) estimator :math:`\\lambda \\bar{\\hat Y} + \\bar Y_H - \\lambda \\bar{\\hat Y}_H + \\frac1M
    \\sum_i \\xi_i (r_i - \\bar r_H)/\\pi_i` with :math:`r = Y - \\lambda\\hat Y` (whose last term is 0): consistent for
    :math:`\\theta` (the Hájek ratio's bias is of order :math:`1/n`); the tests hold it to ``ASIMeanEstimator`` on the
    centred values to 1e-9 and ``benchmarks/bench_designs.py`` measures its coverage. With *bounds* the estimate and
    interval stay in the metric's range, the tuned :math:`\\lambda` is clipped to [0, 1] as ``ppi_py`` clips it (what
    the app shows as how far the correction trusts the judge), and an audit whose rectifier barely varies gets at least
    the floored variance of
    :func:`ragviz.analysis.estimates.small_audit.rectifier_variance`, weighted as the design weights it:
    :math:`\\sigma^2_{\\text{floor}} \\sum_{i \\text{ audited}} \\pi_i^{-2} / M^2` (for a uniform design
    :math:`\\sigma^2_{\\text{floor}}/n`).
    """
    y_arr, f_arr, p_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(pi), as_vector(yhat_u)
    _check(p_arr, y_arr.size)
    if y_arr.size < 2:
        raise ProbabilityError("an IPW interval needs at least two audited examples")
    shift_y, f_all, xi_over_pi, y_all = _centred(y_arr, f_arr, p_arr, fu_arr, centred)
    if lam is None:
        lam = _tuned(f_all, xi_over_pi, y_all, bounds is not None)
    rectified = lam * f_all + xi_over_pi * (y_all - lam * f_all)
    total = rectified.size
    variance = float(np.var(rectified, ddof=1)) / total
    variance = max(variance, _floor(y_arr, f_arr, p_arr, lam, total, bounds))
    theta = shift_y + float(rectified.mean())
    return ActiveEstimate(_interval(theta, variance, alpha, bounds), variance, lam, theta)


def _centred(
    y: np.ndarray, f: np.ndarray, pi: np.ndarray, fu: np.ndarray, centred: bool
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    shift_y = hajek_mean(y, pi) if centred else 0.0
    shift_f = hajek_mean(f, pi) if centred else 0.0
    f_all = np.concatenate([f, fu]) - shift_f
    xi_over_pi = np.concatenate([1.0 / pi, np.zeros(fu.size)])
    return shift_y, f_all, xi_over_pi, np.concatenate([y - shift_y, np.zeros(fu.size)])


def _tuned(f_all: np.ndarray, xi_over_pi: np.ndarray, y_all: np.ndarray, clip: bool) -> float:
    a, b = f_all * (xi_over_pi - 1.0), y_all * xi_over_pi
    var_a = float(np.var(a, ddof=1))
    lam = float(np.cov(a, b, ddof=1)[0, 1] / var_a) if var_a > 0 else 0.0
    # as ppi_py and the stratified design: 0 = people only, 1 = the judge trusted fully
    return min(max(lam, 0.0), 1.0) if clip else lam


def ipw_lambda(y: np.ndarray, f: np.ndarray, pi: np.ndarray, fu: np.ndarray, clip: bool = True) -> float:
    """The power-tuned λ of :func:`ipw_ppi_ci` (centred; clipped to [0, 1] with *clip*, as with bounds) alone."""
    _, f_all, xi_over_pi, y_all = _centred(as_vector(y), as_vector(f), as_vector(pi), as_vector(fu), True)
    return _tuned(f_all, xi_over_pi, y_all, clip)


def ipw_people_ci(
    y: np.ndarray | list[float],
    pi: np.ndarray | list[float],
    total: int,
    alpha: float = 0.05,
    bounds: Bounds | None = None,
    centred: bool = True,
) -> tuple[Interval, float]:
    """People only under the design: the Hájek mean :math:`\\bar Y_H` (*centred*; ``False``: the Horvitz–Thompson
    mean :math:`\\frac1M\\sum_i \\xi_i Y_i/\\pi_i`, ``glide-py``'s ``IPWClassicalMeanEstimator``) with variance
    :math:`s^2/M` of the *M* weighted (centred) values; with *bounds* floored as :func:`ipw_ppi_ci`. Returns the
    interval and its variance."""
    y_arr, p_arr = as_vector(y), as_vector(pi)
    _check(p_arr, y_arr.size)
    shift = hajek_mean(y_arr, p_arr) if centred else 0.0
    weighted = np.concatenate([(y_arr - shift) / p_arr, np.zeros(total - y_arr.size)])
    variance = max(float(np.var(weighted, ddof=1)) / total, _floor(y_arr, y_arr, p_arr, 0.0, total, bounds))
    return _interval(shift + float(weighted.mean()), variance, alpha, bounds), variance


Batch = tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray
]  # audited y, their judge values, their pi; others' judge values


def hajek_spread(y: np.ndarray, pi: np.ndarray) -> float:
    """People's variance over the examples from one batch: the Hájek-weighted spread around :func:`hajek_mean`."""
    w = 1.0 / pi
    return float(w @ (y - hajek_mean(y, pi)) ** 2 / w.sum())


def combine_batch_estimates(
    thetas: Sequence[Any], variances: Sequence[Any], spreads: Sequence[Any], reviewed: Sequence[int], rows: int
) -> tuple[Any, Any]:
    """The combined estimate and variance of :func:`combined_ipw_ppi_ci` from each batch's estimate, variance,
    people's spread (:func:`hajek_spread`) and reviewed count over *rows* examples: the batches weighted by their
    reviews, the shared part (the pooled spread / *rows*) counted once. Each per-batch value may be a number or an
    array (one per bootstrap resample, :mod:`ragviz.analysis.audits.active_bootstrap`); the result is alike."""
    weights = np.asarray(reviewed, dtype=float) / float(sum(reviewed))
    shared = sum(w * s for w, s in zip(weights, spreads)) / rows
    theta = sum(w * t for w, t in zip(weights, thetas))
    own = [np.maximum(v - shared, 0.01 * v) for v in variances]
    return theta, shared + sum(w * w * o for w, o in zip(weights, own))


def _combine(thetas: Sequence[float], variances: Sequence[float], batches: Sequence[Batch]) -> tuple[float, float]:
    spreads = [hajek_spread(y, pi) for y, _, pi, _ in batches]
    rows = batches[0][0].size + batches[0][3].size
    theta, variance = combine_batch_estimates(thetas, variances, spreads, [b[0].size for b in batches], rows)
    return float(theta), float(variance)


def combined_ipw_ppi_ci(batches: Sequence[Batch], alpha: float = 0.05, bounds: Bounds | None = None) -> ActiveEstimate:
    """One estimate from audits drawn one after another over the same *M* examples, each with chances fixed before it
    was drawn (a pilot, then an active sample calibrated on it): each batch's centred IPW PPI++
    :math:`\\hat\\theta_b` (:func:`ipw_ppi_ci`) with variance :math:`V_b`, combined as

    .. math:: \\hat\\theta = \\sum_b w_b \\hat\\theta_b, \\quad w_b = n_b / \\textstyle\\sum_k n_k, \\quad
              D_b = V_b - V_0, \\qquad \\hat\\sigma^2 = V_0 + \\sum_b w_b^2 D_b

    where :math:`V_0 = s^2_Y / M` is the part every batch shares (which *M* examples there are; people's Hájek
    variance pooled over the batches) and :math:`D_b` the part its own draw adds (at least 1 % of :math:`V_b`);
    :math:`n_b` is batch *b*'s reviewed count. Weights from the estimated variances instead (inverse-variance) would
    narrow it a little more but favour a batch whose variance came out low by chance: with a pilot of 40 they
    covered 90.9 % against 93.3 % for these in ``tests/analysis/audits/test_audit_calibration.py``'s setting.
    Given the earlier batches a batch's estimate is unbiased whatever its chances, so the draws' errors are
    uncorrelated and the design parts add with the squared weights. An example in two batches counts in both, with
    each batch's chance. The returned :math:`\\lambda` is the weighted mean of the batches'."""
    parts = [ipw_ppi_ci(y, f, pi, fu, alpha, bounds) for y, f, pi, fu in batches]
    theta, variance = _combine([p.theta for p in parts], [p.variance for p in parts], batches)
    sizes = np.array([b[0].size for b in batches], dtype=float)
    lam = float(sizes @ np.array([p.lam for p in parts]) / sizes.sum())
    return ActiveEstimate(_interval(theta, variance, alpha, bounds), variance, lam, theta)


def batches_ppi_ci(batches: Sequence[Batch], alpha: float = 0.05, bounds: Bounds | None = None) -> ActiveEstimate:
    """The active estimate of an audit in one batch (:func:`ipw_ppi_ci`) or several (:func:`combined_ipw_ppi_ci`)."""
    if len(batches) == 1:
        return ipw_ppi_ci(*batches[0], alpha, bounds)
    return combined_ipw_ppi_ci(batches, alpha, bounds)


def combined_people_ci(
    batches: Sequence[Batch], alpha: float = 0.05, bounds: Bounds | None = None
) -> tuple[Interval, float]:
    """People only over the same batches (:func:`ipw_people_ci` each, combined as :func:`combined_ipw_ppi_ci`)."""
    parts = [ipw_people_ci(y, pi, y.size + fu.size, alpha, bounds) for y, _, pi, fu in batches]
    thetas = [hajek_mean(y, pi) for y, _, pi, _ in batches]  # each batch's people-only estimate
    theta, variance = _combine(thetas, [v for _, v in parts], batches)
    return _interval(theta, variance, alpha, bounds), variance
