"""The audit-size planner for PPI++ (:func:`plan_sample_size`): how many audited examples a target
interval half-width needs, from the variance components of :mod:`ragviz.analysis.estimates.ppi` estimated on
the audit so far. The plan uses the normal interval's width; the bootstrap-t interval the app shows
is 0.2-13 % wider at n = 100-1,000 in ``benchmarks/bench_ppi.py`` (wider the smaller the audit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ragviz.analysis.estimates.ppi import Values, as_vector, z_value

__all__ = ["SamplePlan", "plan_sample_size", "variance_terms"]


@dataclass(frozen=True)
class SamplePlan:
    """Audit sizes for a target interval half-width (see :func:`plan_sample_size`)."""

    half_width: float
    n_ppi: int | None
    n_classical: int | None
    minimum: int = 2  # no answer is below it (the audit a corrected figure needs)


def plan_sample_size(
    y: Values, yhat: Values, yhat_u: Values, half_width: float, alpha: float = 0.05, minimum: int = 2
) -> SamplePlan:
    """The audit size *n'* for a PPI++ interval of at most *half_width*, and for a people-only one.

    Assumption: the variance components estimated from the current audit hold at any size —
    :math:`\\sigma^2_Y`, :math:`\\mathrm{Cov}(Y, \\hat Y)` and :math:`s^2_{\\hat Y}` from the *n*
    audited examples, :math:`\\sigma^2_{\\hat Y}` from the judge on all *M = n + N* examples (all
    plug-in) — and the audit grows by drawing from the same *M* judged examples, so *N' = M - n'*.
    For each *n'* in 2..M the tuned :math:`\\lambda'` and the variance of :func:`ppi_variance` are

    .. math:: \\lambda' = \\operatorname{clip}_{[0,1]}\\frac{\\mathrm{Cov}(Y,\\hat Y)}{(1 + n'/N')\\,\\sigma^2_{\\hat Y}},
              \\qquad \\sigma^2(n') = \\lambda'^2 \\frac{\\sigma^2_{\\hat Y}}{N'}
              + \\frac{\\sigma^2_Y - 2\\lambda' \\mathrm{Cov}(Y,\\hat Y) + \\lambda'^2 s^2_{\\hat Y}}{n'}

    (the second numerator is the audit's own :math:`\\hat\\sigma^2_{Y-\\lambda'\\hat Y}`, so at
    *n' = n* the plan gives back the current interval up to the tuning's ``ddof``).

    and ``n_ppi`` is the smallest *n'* with :math:`z_{1-\\alpha/2}\\,\\sigma(n') \\le` *half_width*
    (``None`` when even auditing all *M* is not enough). ``n_classical`` is
    :math:`\\lceil (z\\,\\sigma_Y / h)^2 \\rceil` (at least 2), the people-only answer. An audit whose
    values do not vary plans 2: the estimate of the spread is then worthless, and so is the plan.
    Needs ``n >= 2``, else both sizes are ``None``. Neither answer is below *minimum* (the app and the
    CLI pass :data:`ragviz.analysis.coverage.MIN_AUDITED`: fewer give no corrected figure).
    """
    if half_width <= 0:
        raise ValueError(f"half_width must be positive, got {half_width}")
    z = z_value(alpha)
    y_arr, f_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(yhat_u)
    if y_arr.size < 2:
        return SamplePlan(half_width, None, None, minimum)
    var_y = float(y_arr.var())
    cov = float(np.mean((y_arr - y_arr.mean()) * (f_arr - f_arr.mean())))
    var_f = float(np.concatenate([f_arr, fu_arr]).var())
    var_f_audit = float(f_arr.var())
    total = y_arr.size + fu_arr.size
    n_classical = max(2, math.ceil((z * z * var_y) / (half_width * half_width) - 1e-12))
    sizes, imputed, rectifier = variance_terms(var_y, cov, var_f, var_f_audit, total)
    variance = imputed + rectifier / sizes
    ok = np.nonzero(z * np.sqrt(np.maximum(variance, 0.0)) <= half_width)[0]
    n_ppi = max(int(sizes[ok[0]]), minimum) if ok.size else None
    return SamplePlan(half_width, n_ppi, max(n_classical, minimum), minimum)


def variance_terms(
    var_y: float, cov: float, var_f: float, var_f_audit: float, total: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every audit size *n'* = 2 … *total* of :func:`plan_sample_size`'s formula: ``(sizes, imputed,
    rectifier)``, the variance at *n'* being ``imputed + rectifier / n'`` (λ' tuned for that size)."""
    sizes = np.arange(2, total + 1, dtype=float)
    rest = total - sizes
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where((rest > 0) & (var_f > 0), cov / ((1.0 + sizes / rest) * var_f), 0.0)
        lam = np.clip(np.nan_to_num(lam), 0.0, 1.0)
        imputed = np.where(rest > 0, lam * lam * var_f / rest, 0.0)
    return sizes, imputed, var_y - 2.0 * lam * cov + lam * lam * var_f_audit
