"""The active design's PPI++ with a cross-fitted :math:`\\lambda` (issue 36 item 5, as
:mod:`ragviz.analysis.estimates.crossfit` does for a uniform audit).

The centred IPW PPI++ estimate of :func:`ragviz.analysis.audits.active.ipw_ppi_ci` is

.. math:: \\hat\\theta = \\bar Y_H + \\lambda\\,(\\bar{\\hat Y}_M - \\bar{\\hat Y}_H)

(:math:`\\bar Y_H`, :math:`\\bar{\\hat Y}_H`: the audit's Hájek means; :math:`\\bar{\\hat Y}_M`: the judge's mean over
all *M* examples), with :math:`\\lambda` tuned on the same audit it weights. With the centred values
:math:`\\tilde Y = Y - \\bar Y_H`, :math:`\\tilde f = \\hat Y - \\bar{\\hat Y}_H` it is
:math:`\\bar Y_H + \\frac1M \\sum_i \\lambda\\,\\tilde f_i (1 - \\xi_i/\\pi_i)`. Cross-fitted, the *M* examples (audited
or not) are cut into *K* folds (a seeded random order), so each fold is itself a Poisson sample of the same design,
and the examples of fold *k* are weighted by the :math:`\\lambda_{-k}` tuned, by the same rule, on the other folds:

.. math:: \\hat\\theta_{cf} = \\bar Y_H + \\frac1M \\sum_k \\lambda_{-k} \\sum_{i \\in k} \\tilde f_i\\,(1 - \\xi_i/\\pi_i)

With every :math:`\\lambda_{-k}` equal to :math:`\\lambda` it is :math:`\\hat\\theta`. Fold *k*'s own examples did not
choose its :math:`\\lambda_{-k}`, which removes the bias of tuning on the audit (``benchmarks/bench_lambda.py
--design active``). Leaving out only audited examples would not do: the other folds' chances would then overstate
how much of the rest was audited and the tuning would shrink :math:`\\lambda` (to about half with two folds). The
interval keeps the tuned estimate's shape and width and is moved to the cross-fitted estimate, as the uniform one
is. Audits of fewer than :data:`MIN_CROSSFIT` examples, and those whose tuned :math:`\\lambda` is 0, keep the tuned
estimate.
"""

from __future__ import annotations

import numpy as np

from ragviz.analysis.audits.active import ActiveEstimate, hajek_mean, ipw_ppi_ci
from ragviz.analysis.estimates.crossfit import FOLDS, fold_of
from ragviz.analysis.estimates.ppi import Interval
from ragviz.analysis.estimates.small_audit import Bounds

__all__ = ["MIN_CROSSFIT", "crossfit_ipw_mean", "crossfitted_active"]

MIN_CROSSFIT = 2 * FOLDS  # audited examples a cross-fit needs: two per fold


def crossfit_ipw_mean(
    y: np.ndarray, f: np.ndarray, pi: np.ndarray, fu: np.ndarray, folds: int = FOLDS, seed: int = 0, clip: bool = True
) -> tuple[float, float]:
    """``(estimate, mean lambda)``: :math:`\\hat\\theta_{cf}` of the module docstring over the audited ``(y, f)`` with
    their inclusion probabilities *pi* and the judge's values *fu* on the examples not audited; each
    :math:`\\lambda_{-k}` is :func:`~ragviz.analysis.audits.active.ipw_ppi_ci`'s tuning (clipped to [0, 1] with
    *clip*, as it clips with bounds). The mean lambda weights each fold by its examples.

    >>> rng = np.random.default_rng(1); t = (rng.random(3000) < 0.7) * 1.0
    >>> f = np.where(rng.random(3000) < 0.85, t, 1 - t); pi = rng.uniform(0.02, 0.1, 3000); a = rng.random(3000) < pi
    >>> est, lam = crossfit_ipw_mean(t[a], f[a], pi[a], f[~a])
    >>> round(est, 3), round(lam, 3), round(ipw_ppi_ci(t[a], f[a], pi[a], f[~a], bounds=(0, 1)).theta, 3)
    (0.716, 0.59, 0.715)
    """
    n, total = y.size, y.size + fu.size
    which = fold_of(total, folds, seed)
    audited, rest = which[:n], which[n:]
    f_tilde = np.concatenate([f, fu]) - hajek_mean(f, pi)
    weight = np.concatenate([1.0 - 1.0 / pi, np.ones(fu.size)])
    bounds = (0.0, 1.0) if clip else None
    correction = lam_bar = 0.0
    for k in range(folds):
        keep = audited != k
        lam = ipw_ppi_ci(y[keep], f[keep], pi[keep], fu[rest != k], bounds=bounds).lam
        inside = which == k
        correction += lam * float(f_tilde[inside] @ weight[inside])
        lam_bar += lam * float(inside.sum()) / total
    return hajek_mean(y, pi) + correction / total, lam_bar


def crossfitted_active(
    tuned: ActiveEstimate, y: np.ndarray, f: np.ndarray, pi: np.ndarray, fu: np.ndarray, bounds: Bounds | None
) -> tuple[ActiveEstimate, bool]:
    """*tuned* (λ tuned on the audit, its interval normal or bootstrap-t) moved to the cross-fitted estimate, and
    whether it was (``False``: fewer than :data:`MIN_CROSSFIT` audited examples, λ 0 or no interval)."""
    shown = tuned.interval
    if y.size < MIN_CROSSFIT or not tuned.lam or shown.low is None or shown.high is None or not fu.size:
        return tuned, False
    estimate, lam_bar = crossfit_ipw_mean(y, f, pi, fu, clip=bounds is not None)
    shift = estimate - tuned.theta
    lo, hi = bounds if bounds is not None else (-np.inf, np.inf)
    centre = min(hi, max(lo, estimate))
    interval = Interval(centre, max(lo, min(shown.low + shift, centre)), min(hi, max(shown.high + shift, centre)))
    return ActiveEstimate(interval, tuned.variance, lam_bar, estimate), True
