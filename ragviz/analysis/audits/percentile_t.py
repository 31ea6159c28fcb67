"""The percentile-t interval the designed audits' bootstraps end with (:mod:`~ragviz.analysis.audits.active_bootstrap`,
:mod:`~ragviz.analysis.audits.stratified_bootstrap`): from every resample's estimate and variance to the interval
shown, as :mod:`ragviz.analysis.estimates.bootstrap_t` does for the uniform design."""

from __future__ import annotations

import numpy as np

from ragviz.analysis.estimates.ppi import Interval
from ragviz.analysis.estimates.small_audit import Bounds

__all__ = ["percentile_t_interval"]


def percentile_t_interval(
    theta: np.ndarray,
    variance: np.ndarray,
    centre: float,
    se: float,
    estimate: float | None,
    alpha: float = 0.05,
    bounds: Bounds | None = None,
) -> Interval | None:
    """The percentile-t interval :math:`[c - t^*_{1-\\alpha/2}\\,se,\\; c - t^*_{\\alpha/2}\\,se]` from a design's
    resampled estimates and variances (index 0: the audit itself, left out), within *bounds* and around the
    *estimate* shown; ``None`` when fewer than 90 % of the resamples have a spread (a near-unanimous audit: keep the
    normal interval)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (theta[1:] - theta[0]) / np.sqrt(variance[1:])
    t = t[np.isfinite(t)]
    if t.size < 0.9 * (theta.size - 1) or estimate is None:
        return None
    low_q, high_q = np.quantile(t, [alpha / 2, 1 - alpha / 2])
    low, high = centre - float(high_q) * se, centre - float(low_q) * se
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return Interval(estimate, min(low, estimate), max(high, estimate))
