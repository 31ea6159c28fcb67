"""The stratified design's PPI++ with a cross-fitted :math:`\\lambda` (issue 36 item 5, as
:mod:`ragviz.analysis.estimates.crossfit` does for a uniform audit). With bounds, :func:`~ragviz.analysis.audits.stratified.stratified_ppi_ci`
tunes one λ on the whole audit; cross-fitted, the audited examples are cut into *K* seeded folds and example *i* of
stratum *h* is weighted with the :math:`\\lambda_{-k(i)}` tuned, by the same rule, on the other folds:

.. math:: \\hat\\theta_{cf} = \\sum_h w_h \\frac1{n_h} \\sum_{i \\in h} \\Big(Y_i - \\lambda_{-k(i)}(\\hat Y_i - \\bar{\\hat Y}^u_h)\\Big)

(a stratum audited in full: its exact mean). With every :math:`\\lambda_{-k}` equal it is the tuned estimate. The
interval is the tuned one's moved to it (:func:`crossfitted_stratified`); ``benchmarks/bench_lambda.py --design
stratified`` measures the bias either way.
"""

from __future__ import annotations

import numpy as np

from ragviz.analysis.audits.stratified import StratifiedEstimate, pooled_lambda
from ragviz.analysis.estimates.crossfit import FOLDS, fold_of
from ragviz.analysis.estimates.ppi import Interval
from ragviz.analysis.estimates.small_audit import Bounds

__all__ = ["MIN_CROSSFIT", "crossfit_stratified_mean", "crossfitted_stratified"]

MIN_CROSSFIT = 2 * FOLDS  # audited examples a cross-fit needs: two per fold


def crossfit_stratified_mean(
    y: np.ndarray, f: np.ndarray, keys: np.ndarray, fu: np.ndarray, keys_u: np.ndarray, folds: int = FOLDS
) -> tuple[float, float]:
    """``(estimate, mean lambda)``: :math:`\\hat\\theta_{cf}` of the module docstring, the strata weighted by their
    sizes (audited and not).

    >>> y = np.array([1.0, 0.0] * 10); g = np.array(["a", "b"] * 10)
    >>> est, lam = crossfit_stratified_mean(y, y, g, np.array([1.0, 0.0] * 30), np.array(["a", "b"] * 30))
    >>> round(est, 6), round(lam, 3)
    (0.5, 0.826)
    """
    n = y.size
    k = max(2, min(folds, n // 2))
    which = fold_of(n, k)
    lams = np.empty(n)
    for j in range(k):
        inside = which == j
        lams[inside] = pooled_lambda(y[~inside], f[~inside], fu)
    return _mean(y, f, keys, fu, keys_u, lams), float(lams.mean())


def _mean(
    y: np.ndarray, f: np.ndarray, keys: np.ndarray, fu: np.ndarray, keys_u: np.ndarray, lams: np.ndarray
) -> float:
    total = y.size + fu.size
    estimate = 0.0
    for h in sorted({*keys.tolist(), *keys_u.tolist()}):
        in_l, in_u = keys == h, keys_u == h
        weight = (int(in_l.sum()) + int(in_u.sum())) / total
        if not in_u.any():
            estimate += weight * float(y[in_l].mean())
            continue
        estimate += weight * float(np.mean(y[in_l] - lams[in_l] * (f[in_l] - float(fu[in_u].mean()))))
    return estimate


def crossfitted_stratified(
    tuned: StratifiedEstimate,
    y: np.ndarray,
    f: np.ndarray,
    keys: np.ndarray,
    fu: np.ndarray,
    keys_u: np.ndarray,
    bounds: Bounds | None,
) -> tuple[StratifiedEstimate, float | None]:
    """*tuned* (one λ tuned on the audit, bounds given) moved to the cross-fitted estimate, and the mean λ (``None``:
    not cross-fitted: fewer than :data:`MIN_CROSSFIT` audited examples, no bounds, λ 0 or nothing unaudited)."""
    shown = tuned.interval
    lam = float(sum(tuned.weights[h] * tuned.lams[h] for h in tuned.lams))
    if y.size < MIN_CROSSFIT or bounds is None or not lam or not fu.size or shown.low is None or shown.high is None:
        return tuned, None
    estimate, lam_bar = crossfit_stratified_mean(y, f, keys, fu, keys_u)
    shift = estimate - _mean(y, f, keys, fu, keys_u, np.full(y.size, lam))
    lo, hi = bounds
    centre = min(hi, max(lo, estimate))
    interval = Interval(centre, max(lo, min(shown.low + shift, centre)), min(hi, max(shown.high + shift, centre)))
    return StratifiedEstimate(interval, tuned.variance, tuned.lams, tuned.weights), lam_bar
