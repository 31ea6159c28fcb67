"""Intervals over few examples: Hesterberg's expanded quantile (:func:`expanded_z`) and the Wilson score interval of a
share (:func:`wilson_bounds`), shared by the subset means (:mod:`ragviz.analysis.stats`) and the judge-vs-people
figures (:mod:`ragviz.analysis.figure_intervals`)."""

from __future__ import annotations

import functools
import math
from statistics import NormalDist

__all__ = ["expanded_z", "wilson_bounds"]


@functools.lru_cache(maxsize=1024)
def expanded_z(n: int, level: float = 0.95) -> float:
    """The normal quantile an interval over *n* examples is widened to: ``sqrt(n / (n - 1))`` times Student's *t*
    on ``n - 1`` degrees of freedom (Hesterberg's expanded percentile interval, 2015: a percentile bootstrap or
    a normal interval over few examples is too narrow by about that much); infinite below 3 examples.

    >>> round(expanded_z(30), 3), round(expanded_z(10_000), 3)
    (2.08, 1.96)
    """
    if n < 3:
        return math.inf
    # scipy.stats.t.ppf's own function (the same values), not the whole of scipy.stats: ~0.5 s of every report
    from scipy.special import stdtrit

    return math.sqrt(n / (n - 1)) * float(stdtrit(n - 1, 0.5 + level / 2))


def wilson_bounds(p: float, n_eff: float, level: float = 0.95, z: float | None = None) -> tuple[float, float]:
    """The Wilson score interval of a share *p* observed over *n_eff* (effective) decisions (quantile *z*, by
    default the normal one of *level*).

    >>> [round(b, 4) for b in wilson_bounds(1.0, 30)]
    [0.8865, 1.0]
    """
    z = NormalDist().inv_cdf(0.5 + level / 2) if z is None else z
    centre = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z * math.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff * n_eff)) / (1 + z * z / n_eff)
    return max(0.0, centre - half), min(1.0, centre + half)
