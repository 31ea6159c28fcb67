"""Small or nearly unanimous audits (issue 23): when the rectifier's plug-in variance says little.

:func:`rectifier_variance` floors the variance of the PPI++ rectifier where people and the judge disagree on
fewer than :data:`FEW` audited examples (:func:`floored`); :mod:`ragviz.analysis.estimates.ppi` uses it for
every interval it shows within a metric's range (*bounds*).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["Bounds", "FEW", "PSEUDO_PER_CORNER", "UNIT", "Values", "barely_varies", "floored", "rectifier_variance"]


Values = Sequence[float] | np.ndarray


def _vector(values: Values) -> np.ndarray:
    return np.asarray(values, dtype=float).reshape(-1)


Bounds = tuple[float, float]
PSEUDO_PER_CORNER = 0.5  # Agresti & Min (2005): half an example in each cell of the (person, judge) table
UNIT: Bounds = (0.0, 1.0)


FEW = 5  # fewer values off the most common one than this: the usual n p >= 5 rule for a normal approximation


def barely_varies(values: Values) -> bool:
    """Fewer than :data:`FEW` of *values* differ from the most common one (a rare 0/1 outcome in a small
    audit, or a judge that people agree with almost everywhere): the plug-in variance then says little.

    >>> barely_varies([0.0, 0.0, 0.0, 1.0]), barely_varies([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    (True, False)
    """
    arr = np.round(_vector(values), 12)
    if arr.size == 0:
        return True
    _, counts = np.unique(arr, return_counts=True)
    return bool(arr.size - counts.max() < FEW)


def floored(y: Values, yhat: Values, lam: float) -> bool:
    """Whether :func:`rectifier_variance` with bounds floors the variance: the rectifier barely varies —
    people and the judge disagree on fewer than :data:`FEW` audited examples, or, at :math:`\\lambda = 0`
    (the rectifier is people's values), those values barely vary."""
    return barely_varies(_vector(y) - _vector(yhat) if lam > 0 else _vector(y))


def rectifier_variance(y: Values, yhat: Values, lam: float, bounds: Bounds | None = None) -> float:
    """The plug-in variance of the rectifier :math:`Y - \\lambda \\hat Y` over the audit; with *bounds*
    ``(lo, hi)``, where the rectifier barely varies (:func:`floored`), never below a floor: the variance of *n* examples all at the audit's mean rectifier plus
    :data:`PSEUDO_PER_CORNER` of a pseudo-example at each of the four corners
    :math:`(Y, \\hat Y) \\in \\{lo, hi\\}^2` (about :math:`(1+\\lambda^2)/(n+2)`).

    Why: where people and the judge agree on every audited example the plug-in variance is 0 and the
    interval would shrink to the judge's own noise, whatever the audit's size. The pseudo-examples are the
    disagreements a small audit cannot rule out (for a 0/1 metric and :math:`\\lambda = 1` that is Agresti
    and Min's interval for a difference of matched proportions, the paired analogue of Wilson's). With
    :data:`FEW` disagreements or more the plug-in variance stands, so the interval is ``ppi_py``'s. With :math:`\\lambda = 0` it is the people-only variance, floored by one
    pseudo-example at each end of the range.

    >>> rectifier_variance([1.0, 1.0, 1.0], [1.0, 1.0, 1.0], 1.0)
    0.0
    >>> round(rectifier_variance([1.0, 1.0, 1.0], [1.0, 1.0, 1.0], 1.0, UNIT), 6)
    0.2
    """
    residual = _vector(y) - lam * _vector(yhat)
    if bounds is None or not floored(y, yhat, lam):
        return float(np.var(residual))
    lo, hi = bounds
    corners = np.array([lo - lam * lo, lo - lam * hi, hi - lam * lo, hi - lam * hi])
    n, mean = residual.size, float(residual.mean())
    weight = n + 4 * PSEUDO_PER_CORNER
    centre = (n * mean + PSEUDO_PER_CORNER * float(corners.sum())) / weight
    floor = (n * (mean - centre) ** 2 + PSEUDO_PER_CORNER * float(((corners - centre) ** 2).sum())) / weight
    return max(float(np.var(residual)), floor)
