"""One metric's corrected difference in words (:func:`verdict`): "B is better on adherence by 4 points (1 to 7)",
"no difference we can see on adherence (B − A: +1 point, -2 to 4)"; below the minimum audit the same "too few"
words as every other estimate (:func:`ragviz.analysis.estimates.report.too_few_text`). Higher is better on every
TRACe metric.
"""

from __future__ import annotations

from ragviz.analysis.estimates.estimate import MetricEstimate
from ragviz.analysis.estimates.report import too_few_text

__all__ = ["points", "verdict"]


def points(value: float) -> str:
    """A difference of two [0, 1] means in percentage points, rounded to whole points.

    >>> points(0.0412), points(-0.004)
    ('4', '0')
    """
    shown = round(100 * value)
    return str(shown if shown != 0 else 0)


def _unit(value: float) -> str:
    return "point" if abs(round(100 * value)) == 1 else "points"


def verdict(name: str, m: MetricEstimate, a: str, b: str) -> str:
    """One metric's comparison in words: which system is better and by how much with the interval, "no
    difference we can see" when the interval holds 0, or the too-few words below the minimum audit.

    >>> from ragviz.analysis.estimates.estimate import estimate_mean
    >>> y = [0.0] * 60 + [1.0] * 40 + [-1.0] * 20 + [0.0] * 80
    >>> verdict("adherence", estimate_mean(y, y, [], bounds=(-1.0, 1.0)), "gpt", "claude")
    'claude is better on adherence by 10 points (2 to 18)'
    >>> verdict("adherence", estimate_mean([0.0] * 200, [0.0] * 200, [], bounds=(-1.0, 1.0)), "gpt", "claude")
    'no difference we can see on adherence (claude − gpt: 0 points, -1 to 1)'
    """
    ppi = m.ppi
    if m.more_needed or ppi.estimate is None or ppi.low is None or ppi.high is None:
        return f"{name}: {too_few_text(m.n_labeled).replace('audited examples', 'audited questions')}"
    est, low, high = ppi.estimate, ppi.low, ppi.high
    if low > 0:
        return f"{b} is better on {name} by {points(est)} {_unit(est)} ({points(low)} to {points(high)})"
    if high < 0:
        return f"{a} is better on {name} by {points(-est)} {_unit(est)} ({points(-high)} to {points(-low)})"
    return (
        f"no difference we can see on {name} ({b} − {a}: {'+' if round(100 * est) > 0 else ''}{points(est)} "
        f"{_unit(est)}, {points(low)} to {points(high)})"
    )
