"""Stratified PPI++: the prediction-powered mean of a stratified audit (A. Fisch et al., "Stratified
prediction-powered inference for effective hybrid evaluation of language models", NeurIPS 2024): PPI++ within each
stratum, combined by the strata's sizes (:func:`stratified_ppi_ci`, whose docstring gives the estimator), and
people's stratified mean alone.

A stratum with fewer than two audited examples has no variance: :class:`StratumError` names it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ragviz.analysis.estimates.ppi import Interval, as_vector, z_value
from ragviz.analysis.estimates.small_audit import FEW, Bounds, floored, rectifier_variance
from ragviz.errors import BadInput

PSEUDO_AUDITED = FEW  # pseudo-examples at the whole audit's spread added to each stratum's (bounds given)

__all__ = [
    "PSEUDO_AUDITED",
    "pooled_lambda",
    "StratifiedEstimate",
    "StratumError",
    "stratified_people_ci",
    "stratified_ppi_ci",
    "stratum_arrays",
]


class StratumError(BadInput, ValueError):
    """A stratum the estimate cannot use, in one line naming it and what to do."""


@dataclass(frozen=True)
class StratifiedEstimate:
    """The stratified estimate: its interval, each stratum's :math:`\\lambda_k` and weight, its variance."""

    interval: Interval
    variance: float
    lams: dict[str, float]
    weights: dict[str, float]


def _clip(value: float, bounds: Bounds | None) -> float:
    return value if bounds is None else min(max(value, bounds[0]), bounds[1])


def stratum_arrays(
    y: np.ndarray, f: np.ndarray, g: np.ndarray, fu: np.ndarray, gu: np.ndarray
) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """Per stratum, in name order: its name, audited values, their judge values and the judge-only values."""
    names = sorted({*map(str, g.tolist()), *map(str, gu.tolist())})
    out = []
    for h in names:
        in_l, in_u = g == h, gu == h
        out.append((h, y[in_l], f[in_l], fu[in_u]))
    return out


def pooled_lambda(y: np.ndarray, f: np.ndarray, fu: np.ndarray) -> float:
    var_all = float(np.var(np.concatenate([f, fu]), ddof=1))
    if fu.size == 0 or var_all <= 0.0:
        return 0.0
    cov = float(np.cov(y, f, ddof=1)[0, 1])
    return min(max(cov / ((1.0 + y.size / fu.size) * var_all), 0.0), 1.0)


def _too_few(per: list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]) -> None:
    short = [(h, yk.size) for h, yk, _, _ in per if yk.size < 2]
    if short:
        named = ", ".join(f"{h} ({k} audited)" for h, k in short)
        raise StratumError(
            f"stratum {named}: a stratum needs at least two audited examples for its variance — review more of "
            "the sample there (the Review queue walks it in draw order), or estimate with the uniform design"
        )


def stratified_ppi_ci(
    y: np.ndarray | list[float],
    yhat: np.ndarray | list[float],
    strata: np.ndarray | list[str],
    yhat_u: np.ndarray | list[float],
    strata_u: np.ndarray | list[str],
    alpha: float = 0.05,
    bounds: Bounds | None = None,
) -> StratifiedEstimate:
    r"""Stratified PPI++ over the audited ``(y, yhat)`` with their *strata* and the judge-only *yhat_u* with
    theirs. ``bounds=None``: ``glide-py``'s ``StratifiedPPIMeanEstimator``.

    Within stratum *k* (:math:`N_k` examples, :math:`n_k` audited) PPI++ runs on its own, with its own power tuning

    .. math:: \\lambda_k = \\frac{\\widehat{\\mathrm{Cov}}(Y, \\hat Y)}{(1 + n_k/N^u_k)\\, \\widehat{\\mathrm{Var}}(\\hat Y)}, \\qquad
              \\hat\\theta_k = \\lambda_k \\bar{\\hat Y}^u_k + \\overline{(Y - \\lambda_k \\hat Y)}_k, \\qquad
              \\hat\\sigma^2_k = \\frac{s^2_{Y - \\lambda_k \\hat Y}}{n_k} + \\frac{s^2_{\\lambda_k \\hat Y^u}}{N^u_k}

    (sample variances, ``ddof = 1``; :math:`\\lambda_k` not clipped), and the strata combine by their weights
    :math:`w_k = N_k / N`: :math:`\\hat\\theta = \\sum_k w_k \\hat\\theta_k`, :math:`\\hat\\sigma^2 = \\sum_k w_k^2 \\hat\\sigma^2_k`,
    the interval :math:`\\hat\\theta \\pm z_{1-\\alpha/2}\\hat\\sigma` (normal). Without *bounds* this is ``glide-py``
    0.11's ``StratifiedPPIMeanEstimator`` (``tests/analysis/audits/test_audit_designs_reference.py``: equal to 1e-9 on random
    inputs). With *bounds* (the metric's range, as the app shows it) the estimate and the interval stay in the range, an
    audit whose rectifier barely varies gets the floored variance of
    :func:`ragviz.analysis.estimates.small_audit.rectifier_variance` (so a unanimous audit never shrinks the interval
    to nothing) — the floor is taken over the whole audit, as the uniform design's, each stratum's rectifier variance
    is shrunk toward the whole audit's by :data:`PSEUDO_AUDITED` pseudo-examples (a stratum of 14 audited examples with
    no disagreement does not make the judge perfect there: without it adherence covered 78-88 % in
    ``benchmarks/bench_designs.py``), :math:`\lambda` is tuned once on the whole
    audit and clipped to [0, 1] as ``ppi_py`` does (a stratum's own tuning on a dozen examples biased adherence), a stratum whose judge values do not vary gets :math:`\\lambda_k = 0` (``glide-py`` refuses it) and a
    stratum audited in full contributes its exact mean.
    """
    y_arr, f_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(yhat_u)
    g, gu = np.asarray(strata).astype(str), np.asarray(strata_u).astype(str)
    if y_arr.size != f_arr.size or g.size != y_arr.size or gu.size != fu_arr.size:
        raise ValueError("y, yhat and strata (and yhat_u and strata_u) must pair up")
    per = stratum_arrays(y_arr, f_arr, g, fu_arr, gu)
    _too_few(per)
    total = y_arr.size + fu_arr.size
    theta = variance = 0.0
    lams, weights = {}, {}
    for h, yk, fk, fuk in per:
        n_k, nu_k = yk.size, fuk.size
        w = (n_k + nu_k) / total
        var_all = float(np.var(np.concatenate([fk, fuk]), ddof=1))
        if nu_k == 0 or var_all <= 0.0:
            lam = 0.0
        else:
            cov = float(np.cov(yk, fk, ddof=1)[0, 1])
            lam = cov / ((1.0 + n_k / nu_k) * var_all)
            if bounds is not None:  # a stratum of a few audited examples overfits its own lambda: tune on the audit
                lam = pooled_lambda(y_arr, f_arr, fu_arr)
        mean_k = float(np.mean(yk) - lam * np.mean(fk)) + (lam * float(np.mean(fuk)) if nu_k else 0.0)
        rect = float(np.var(yk - lam * fk, ddof=1))
        if bounds is not None:  # a few audited examples of a rare error: shrink toward the whole audit's spread
            pooled = float(np.var(y_arr - lam * f_arr, ddof=1))
            rect = (n_k * rect + PSEUDO_AUDITED * pooled) / (n_k + PSEUDO_AUDITED)
        var_k = rect / n_k + (float(np.var(lam * fuk, ddof=1)) / nu_k if nu_k > 1 else 0.0)
        if bounds is not None and nu_k == 0:
            var_k = 0.0  # audited in full: its mean is exact
        theta += w * mean_k
        variance += w * w * var_k
        lams[h], weights[h] = lam, w
    if bounds is not None and floored(y_arr, f_arr, 1.0):  # the audit as a whole barely disagrees: the uniform floor
        variance = max(variance, rectifier_variance(y_arr, f_arr, 1.0, bounds) / y_arr.size)
    half = z_value(alpha) * math.sqrt(variance)
    shown = _clip(theta, bounds)
    low, high = _clip(theta - half, bounds), _clip(theta + half, bounds)
    return StratifiedEstimate(Interval(shown, min(low, shown), max(high, shown)), variance, lams, weights)


def stratified_people_ci(
    y: np.ndarray | list[float],
    strata: np.ndarray | list[str],
    weights: dict[str, float],
    alpha: float = 0.05,
    bounds: Bounds | None = None,
) -> tuple[Interval, float]:
    """People only, stratified: :math:`\\sum_k w_k \\bar Y_k` with variance :math:`\\sum_k w_k^2 s^2_k / n_k`
    (``glide-py``'s ``StratifiedClassicalMeanEstimator`` with the population weights); with *bounds* each
    stratum's variance is floored as the corrected one's (:func:`rectifier_variance` at :math:`\\lambda = 0`).
    Returns the interval and its variance."""
    y_arr, g = as_vector(y), np.asarray(strata).astype(str)
    theta = variance = 0.0
    for h, w in weights.items():
        yk = y_arr[g == h]
        if yk.size < 2:
            raise StratumError(f"stratum {h} has {yk.size} audited examples: a stratum needs at least two")
        var = float(np.var(yk, ddof=1))
        theta += w * float(yk.mean())
        variance += w * w * var / yk.size
    if bounds is not None and floored(y_arr, y_arr, 0.0):
        variance = max(variance, rectifier_variance(y_arr, y_arr, 0.0, bounds) / y_arr.size)
    half = z_value(alpha) * math.sqrt(variance)
    shown = _clip(theta, bounds)
    return Interval(shown, min(_clip(theta - half, bounds), shown), max(_clip(theta + half, bounds), shown)), variance
