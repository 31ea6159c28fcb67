"""The interval shown for a cross-fitted estimate (issue 36 item 1): Student's t around it, with the standard error
of its own out-of-fold residuals and the degrees of freedom their kurtosis gives (:func:`kurtosis_df`).

Why: λ tuned on the audit minimises the variance estimated on that audit, so that variance is too small (by about
15 % at n = 100 on utilization, ``benchmarks/bench_design_target.py``); residuals whose λ their own example did not
choose are not. A skewed or rare-error metric's variance estimate is itself noisy, which the t's tails take in
(Satterthwaite's moment match: :math:`\\nu = 2n/(\\hat\\kappa - 1)`). It covered 95.0–95.2 % at n = 100 on every
TRACe metric where the bootstrap-t moved to the cross-fitted estimate covered 91.7–95.0 % (BENCHMARKS.md).
"""

from __future__ import annotations

import math

import numpy as np

from ragviz.analysis.estimates.ppi import Interval
from ragviz.analysis.estimates.small_audit import Bounds

__all__ = ["STUDENT_T", "kurtosis_df", "t_interval"]

STUDENT_T = "t"  # the interval method's name (ragviz.analysis.estimates.ppi.INTERVAL_METHODS)


def kurtosis_df(values: np.ndarray) -> float:
    """The degrees of freedom of the plug-in variance of *values*' mean: :math:`2n/(\\hat\\kappa - 1)` with
    :math:`\\hat\\kappa = m_4/m_2^2` (the variance of :math:`s^2` is :math:`\\sigma^4(\\kappa - 1)/n`, a scaled
    :math:`\\chi^2_\\nu` has :math:`2\\sigma^4/\\nu`). A PPI++ variance's judge-only term, nearly exact, is given
    the audit's degrees of freedom too: the smaller of the parts', Satterthwaite's conservative bound. At least 1;
    normal values give about *n*, a 0/1 value seen 8 times in 100 about 21.

    >>> round(kurtosis_df(np.array([0.0] * 92 + [1.0] * 8)), 1)
    20.9
    """
    centred = values - values.mean()
    m2 = float(np.mean(centred**2))
    if m2 <= 0.0:
        return 1.0
    excess = max(float(np.mean(centred**4)) / (m2 * m2) - 1.0, 1e-12)
    return max(1.0, 2.0 * values.size / excess)


def t_interval(estimate: float, variance: float, df: float, alpha: float, bounds: Bounds | None) -> Interval:
    """:math:`\\hat\\theta \\pm t_{\\nu, 1-\\alpha/2}\\,\\hat\\sigma`, within *bounds* and around the estimate shown."""
    # scipy.stats.t.ppf's own function, imported here: no scipy on a page's first run (issue 38), and not the
    # whole of scipy.stats (~0.6 s of every report)
    from scipy.special import stdtrit

    half = float(stdtrit(df, 1.0 - alpha / 2.0)) * math.sqrt(max(variance, 0.0))
    lo, hi = bounds if bounds is not None else (-math.inf, math.inf)
    shown = min(hi, max(lo, estimate))
    return Interval(shown, max(lo, min(estimate - half, shown)), min(hi, max(estimate + half, shown)))
