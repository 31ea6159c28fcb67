"""One metric's estimates together (:func:`estimate_mean`): judge-only, people-only and PPI++ means with their
intervals within the metric's range, and the effective sample size (:func:`effective_sample_size`), over
:mod:`ragviz.analysis.estimates.ppi`'s functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ragviz.analysis.coverage import more_needed
from ragviz.analysis.estimates.crossfit import FOLDS, crossfit_ppi, crossfit_ppi_mean
from ragviz.analysis.estimates.ppi import (
    BOOTSTRAP_T,
    NORMAL,
    Interval,
    PPIInterval,
    Values,
    as_vector,
    judge_mean,
    people_mean_ci,
    ppi_mean,
    ppi_mean_ci,
)
from ragviz.analysis.estimates.small_audit import UNIT, Bounds, floored, rectifier_variance
from ragviz.analysis.estimates.student_t import STUDENT_T, t_interval

__all__ = ["DEFAULT_INTERVAL", "MetricEstimate", "TUNED", "effective_sample_size", "estimate_mean"]

TUNED = "tuned on the audit"
#: what the app and ``ragviz estimate`` show: Student's t around the cross-fitted estimate (the bootstrap-t where the
#: audit is too small to cross-fit or the judge is ignored); BENCHMARKS.md, "Coverage from n = 100"
DEFAULT_INTERVAL = STUDENT_T


def effective_sample_size(
    y: Values, variance: float | None, total: int | None = None, bounds: Bounds | None = None
) -> float | None:
    """How many people-labelled examples the judge-assisted estimate is worth at this *n*.

    .. math:: n_{\\mathrm{eff}} = n \\cdot \\frac{\\hat\\sigma^2_Y / n}{\\hat\\sigma^2_{\\hat\\lambda}}
              = \\frac{\\hat\\sigma^2_Y}{\\hat\\sigma^2_{\\hat\\lambda}}

    the audit size a people-only mean would need for an interval as narrow as the PPI++ one
    (*variance* is :attr:`PPIInterval.variance`). ``n_eff - n`` examples are what the judge adds;
    ``n_eff ≈ n`` means the judge adds nothing (:math:`\\hat\\lambda \\approx 0`). ``None`` when
    *variance* is ``None`` or 0 (no spread to compare: the ratio is undefined).

    With *bounds* the people-only variance is :func:`rectifier_variance` at :math:`\\lambda = 0` (as the
    corrected one has its pseudo-examples, so the two compare like for like); with *total* (all examples,
    audited or not) the answer is at most *total*: no estimate is worth more people-labelled examples than
    there are examples.

    >>> effective_sample_size([0.0, 1.0, 0.0, 1.0], 0.03125)
    8.0
    >>> effective_sample_size([0.0, 1.0, 0.0, 1.0], 0.03125, total=6)
    6.0
    """
    if variance is None or variance <= 0.0:
        return None
    arr = as_vector(y)
    people = rectifier_variance(arr, arr, 0.0, bounds)
    worth = people / variance
    return worth if total is None else float(min(worth, total))


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
    design: dict[str, Any] | None = None  # a designed sample's figures (ragviz.analysis.audits.design_estimate)
    lam_rule: str = (
        TUNED  # how lambda was chosen: TUNED on the audit, or cross-fitted (ragviz.analysis.estimates.crossfit)
    )

    @property
    def has_ci(self) -> bool:
        return self.ppi.low is not None

    @property
    def more_needed(self) -> int:
        """Audited examples still needed before the corrected figure is said in words
        (:data:`ragviz.analysis.coverage.MIN_AUDITED`; 0 when there are enough)."""
        return more_needed(self.n_labeled)

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of ``ragviz estimate``: ``judge``, ``human``, ``ppi`` and ``gain``; ``ppi.interval``
        names the interval's method (``None`` without an interval); ``more_needed`` the audited examples
        still needed for a corrected figure (0: enough)."""
        return {
            "judge": {"estimate": self.judge},
            "human": {"estimate": self.human.estimate, "ci": self.human.ci()},
            "ppi": {
                "estimate": self.ppi.estimate,
                "ci": self.ppi.ci(),
                "lambda": self.ppi.lam,
                "lambda_rule": self.lam_rule,
                "interval": self.ppi.method,
            },
            "gain": self.gain,
            "n_labeled": self.n_labeled,
            "more_needed": self.more_needed,
            **({"design": self.design} if self.design is not None else {}),
        }


def estimate_mean(
    y: Values,
    yhat: Values,
    yhat_u: Values,
    alpha: float = 0.05,
    excluded: tuple[int, int] = (0, 0),
    interval: str = DEFAULT_INTERVAL,
    bounds: Bounds | None = UNIT,
    crossfit: int = FOLDS,
) -> MetricEstimate:
    """Judge-only mean, people-only mean and interval, PPI++ estimate and interval, and the gain
    (:func:`effective_sample_size`) for one metric; *excluded* = (audited, unaudited) examples the
    caller left out because the metric was undefined there. *interval* is the PPI++ interval's
    method (:func:`ppi_mean_ci`; default the bootstrap-t, seed 0, so the same data give the same
    interval). *bounds* is the metric's range (default [0, 1]): every interval lies in it and none collapses
    (:func:`people_mean_ci`, :func:`rectifier_variance`), and the gain is at most the number of examples;
    ``bounds=None`` gives ``ppi_py``'s intervals (the normal people-only one, the unclipped PPI++ one).

    With *bounds* and *crossfit* folds (default :data:`ragviz.analysis.estimates.crossfit.FOLDS`; 0: off) the
    estimate is the cross-fitted one (:func:`crossfit_ppi_mean`: λ tuned on the audit biased the estimate by up to
    0.28 of its SE at n = 30 and 0.18 at n = 100, ``benchmarks/bench_lambda.py``) and the interval the tuned one's
    moved by the difference; :attr:`MetricEstimate.lam_rule` says which.

    >>> e = estimate_mean([1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0] * 8)
    >>> e.judge, e.human.estimate, e.ppi.estimate, e.ppi.lam
    (1.0, 0.75, 0.75, 0.0)
    """
    y_arr, f_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(yhat_u)
    if y_arr.size != f_arr.size:
        raise ValueError(f"y has {y_arr.size} values but yhat has {f_arr.size}: they must pair up")
    t = interval == STUDENT_T
    ppi = ppi_mean_ci(y_arr, f_arr, fu_arr, alpha, method=NORMAL if t else interval, bounds=bounds)
    rule = TUNED
    fits = bounds is not None and crossfit > 1 and ppi.lam and ppi.low is not None and y_arr.size >= 2 * crossfit
    if t and not fits:  # too small to cross-fit, or the judge ignored: the bootstrap-t
        ppi = ppi_mean_ci(y_arr, f_arr, fu_arr, alpha, method=BOOTSTRAP_T, bounds=bounds)
    if fits and bounds is not None:
        ppi, rule = _crossfitted(ppi, y_arr, f_arr, fu_arr, crossfit, bounds, alpha if t else None)
    return MetricEstimate(
        n_labeled=int(y_arr.size),
        n_unlabeled=int(fu_arr.size),
        judge=judge_mean(f_arr, fu_arr),
        human=people_mean_ci(y_arr, alpha, bounds),
        ppi=ppi,
        gain=effective_sample_size(y_arr, ppi.variance, int(y_arr.size + fu_arr.size), bounds),
        excluded_labeled=excluded[0],
        excluded_unlabeled=excluded[1],
        lam_rule=rule,
    )


def _crossfitted(
    ppi: PPIInterval, y: np.ndarray, f: np.ndarray, fu: np.ndarray, folds: int, bounds: Bounds, t: float | None = None
) -> tuple[PPIInterval, str]:
    """*ppi* (λ tuned on the audit) moved to the cross-fitted estimate, its interval's shape kept; with *t* (alpha)
    Student's t interval of the cross-fitted estimate instead (:mod:`ragviz.analysis.estimates.student_t`)."""
    assert ppi.lam is not None and ppi.low is not None and ppi.high is not None
    if t is not None:
        fit = crossfit_ppi(y, f, fu, folds)
        variance = fit.variance
        if floored(y, f, fit.lam):  # a few disagreements: never narrower than the floor the tuned one has
            variance = max(variance, rectifier_variance(y, f, fit.lam, bounds) / y.size)
        iv = t_interval(fit.estimate, variance, fit.df, t, bounds)
        return PPIInterval(iv.estimate, iv.low, iv.high, fit.lam, variance, STUDENT_T), f"cross-fitted ({folds} folds)"
    estimate, lam_bar = crossfit_ppi_mean(y, f, fu, folds)
    shift = estimate - ppi_mean(y, f, fu, ppi.lam)
    lo, hi = bounds
    shown = min(hi, max(lo, estimate))
    low, high = max(lo, min(ppi.low + shift, shown)), min(hi, max(ppi.high + shift, shown))
    return PPIInterval(shown, low, high, lam_bar, ppi.variance, ppi.method), f"cross-fitted ({folds} folds)"
