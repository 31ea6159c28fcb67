"""The stratified design's PPI++ with a cross-fitted :math:`\\lambda` (issue 36 item 5, as
:mod:`ragviz.analysis.estimates.crossfit` does for a uniform audit), and the interval shown for it. The audited
examples are cut into *K* seeded folds and example *i* of stratum *h* is weighted with the :math:`\\lambda_{-k(i)}`
tuned, by :func:`~ragviz.analysis.audits.stratified.stratified_ppi_ci`'s rule, on the other folds:

.. math:: \\hat\\theta_{cf} = \\sum_h w_h \\frac1{n_h} \\sum_{i \\in h} R_i, \\qquad
          R_i = Y_i - \\lambda_{-k(i)}(\\hat Y_i - \\bar{\\hat Y}^u_h)

(a stratum audited in full: its exact mean). Its interval (:func:`shown_stratified`, the one function the app, the
CLI and the report call): Student's t from the out-of-fold residuals :math:`R_i` (:func:`crossfit_stratified`); or,
asked for, the tuned λ's bootstrap-t or normal interval moved to the cross-fitted estimate (:func:`crossfitted_stratified`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ragviz.analysis.audits.stratified import StratifiedEstimate, pooled_lambda, stratified_ppi_ci
from ragviz.analysis.audits.stratified_bootstrap import stratified_bootstrap_t
from ragviz.analysis.estimates.crossfit import FOLDS, fold_of
from ragviz.analysis.estimates.ppi import BOOTSTRAP_T, NORMAL, Interval
from ragviz.analysis.estimates.small_audit import Bounds, floored
from ragviz.analysis.estimates.student_t import STUDENT_T, kurtosis_df, t_interval

__all__ = [
    "MIN_CROSSFIT",
    "StratifiedCrossFit",
    "crossfit_stratified",
    "crossfit_stratified_mean",
    "crossfitted_stratified",
    "shown_stratified",
]

MIN_CROSSFIT = 2 * FOLDS  # audited examples a cross-fit needs: two per fold


def _fold_lambdas(y: np.ndarray, f: np.ndarray, fu: np.ndarray, folds: int) -> np.ndarray:
    """Each audited example's :math:`\\lambda_{-k(i)}`: the pooled λ tuned without its fold."""
    n = y.size
    k = max(2, min(folds, n // 2))
    which = fold_of(n, k)
    lams = np.empty(n)
    for j in range(k):
        inside = which == j
        lams[inside] = pooled_lambda(y[~inside], f[~inside], fu)
    return lams


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
    lams = _fold_lambdas(y, f, fu, folds)
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


@dataclass(frozen=True)
class StratifiedCrossFit:
    """A cross-fitted stratified PPI++ estimate, the mean λ, the variance of its Student's t and its degrees of
    freedom (:func:`crossfit_stratified`)."""

    estimate: float
    lam: float
    variance: float
    df: float


def crossfit_stratified(
    y: np.ndarray, f: np.ndarray, keys: np.ndarray, fu: np.ndarray, keys_u: np.ndarray, folds: int = FOLDS
) -> StratifiedCrossFit:
    r""":func:`crossfit_stratified_mean` with the variance and degrees of freedom of its Student's t (issue 36).

    The variance is the stratified one of the out-of-fold residuals :math:`R_i` (module docstring) plus each
    stratum's judge-only term,

    .. math:: \hat\sigma^2 = \sum_h w_h^2 \Big(\frac{s^2_{R,h}}{n_h} + \bar\lambda_h^2 \frac{s^2_{\hat Y^u_h}}{N^u_h}\Big)

    (sample variances, ``ddof = 1``: each stratum's mean is fitted on its own :math:`n_h` examples, HC1's count per
    stratum; λ is not counted, as in the uniform t, since no residual's own example tuned its λ;
    :math:`\bar\lambda_h` the mean λ over the stratum's audited examples; a stratum audited in full: 0). Its degrees
    of freedom: the fewer of :func:`~ragviz.analysis.estimates.student_t.kurtosis_df` of the residuals centred in
    their strata (the uniform t's moment match, the strata pooled) and Welch–Satterthwaite's over the strata,
    :math:`(\sum_h a_h)^2 / \sum_h a_h^2/(n_h - 1)` with :math:`a_h = w_h^2 s^2_{R,h}/n_h` (a stratum of two or three
    audited examples has one or two degrees of freedom whatever its tails). The judge-only terms get the audit's, as in
    the uniform t. Needs two audited examples in every stratum not audited in full and *fu* not empty.
    """
    lams = _fold_lambdas(y, f, fu, folds)
    total = y.size + fu.size
    variance = 0.0
    centred, parts = [], []
    for h in sorted({*keys.tolist(), *keys_u.tolist()}):
        in_l, in_u = keys == h, keys_u == h
        if not in_u.any():  # audited in full: its mean is exact
            continue
        weight = (int(in_l.sum()) + int(in_u.sum())) / total
        fu_h = fu[in_u]
        residual = y[in_l] - lams[in_l] * (f[in_l] - float(fu_h.mean()))
        own = weight * weight * float(np.var(residual, ddof=1)) / residual.size
        lam_h = float(lams[in_l].mean())
        judge = weight * weight * lam_h * lam_h * float(np.var(fu_h, ddof=1)) / fu_h.size if fu_h.size > 1 else 0.0
        variance += own + judge
        centred.append(residual - residual.mean())
        parts.append((own, residual.size))
    df = kurtosis_df(np.concatenate(centred))
    spread = sum(a * a / (size - 1) for a, size in parts)
    if spread > 0.0:
        df = min(df, max(1.0, sum(a for a, _ in parts) ** 2 / spread))
    return StratifiedCrossFit(_mean(y, f, keys, fu, keys_u, lams), float(lams.mean()), variance, df)


def _crossfits(tuned: StratifiedEstimate, y: np.ndarray, fu: np.ndarray, bounds: Bounds | None) -> bool:
    shown = tuned.interval
    lam = float(sum(tuned.weights[h] * tuned.lams[h] for h in tuned.lams))
    return bool(y.size >= MIN_CROSSFIT and bounds is not None and lam and fu.size and shown.low is not None)


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
    if not _crossfits(tuned, y, fu, bounds) or bounds is None or shown.low is None or shown.high is None:
        return tuned, None
    lam = float(sum(tuned.weights[h] * tuned.lams[h] for h in tuned.lams))
    estimate, lam_bar = crossfit_stratified_mean(y, f, keys, fu, keys_u)
    shift = estimate - _mean(y, f, keys, fu, keys_u, np.full(y.size, lam))
    lo, hi = bounds
    centre = min(hi, max(lo, estimate))
    interval = Interval(centre, max(lo, min(shown.low + shift, centre)), min(hi, max(shown.high + shift, centre)))
    return StratifiedEstimate(interval, tuned.variance, tuned.lams, tuned.weights), lam_bar


def shown_stratified(
    y: np.ndarray,
    f: np.ndarray,
    keys: np.ndarray,
    fu: np.ndarray,
    keys_u: np.ndarray,
    bounds: Bounds | None,
    alpha: float = 0.05,
    method: str = STUDENT_T,
) -> tuple[StratifiedEstimate, str, float | None]:
    """The stratified audit's estimate as shown, the interval's method and the mean cross-fitted λ (``None``: λ tuned
    on the audit). ``t``: Student's t around the cross-fitted estimate (:func:`crossfit_stratified`; where people and
    the judge barely disagree never narrower than the tuned interval's floor), or the bootstrap-t where the audit
    cannot cross-fit (fewer than :data:`MIN_CROSSFIT` audited, λ 0); ``bootstrap-t`` / ``normal``: the tuned λ's
    interval moved to the cross-fitted estimate (:func:`crossfitted_stratified`). Raises
    :class:`~ragviz.analysis.audits.stratified.StratumError` for a stratum with fewer than two audited examples."""
    tuned = stratified_ppi_ci(y, f, keys, fu, keys_u, alpha, bounds)
    if method == STUDENT_T and _crossfits(tuned, y, fu, bounds):
        fit = crossfit_stratified(y, f, keys, fu, keys_u)
        variance = fit.variance
        if bounds is not None and floored(y, f, fit.lam):
            variance = max(variance, tuned.variance)
        interval = t_interval(fit.estimate, variance, fit.df, alpha, bounds)
        return StratifiedEstimate(interval, variance, tuned.lams, tuned.weights), STUDENT_T, fit.lam
    used = NORMAL
    if method in (BOOTSTRAP_T, STUDENT_T) and bounds is not None:
        tuned, used = stratified_bootstrap_t(y, f, keys, fu, keys_u, bounds, alpha)
    moved, lam_cf = crossfitted_stratified(tuned, y, f, keys, fu, keys_u, bounds)
    return moved, used, lam_cf
