"""The active design's inclusion probabilities calibrated on a pilot: how much the judge's confidence says about
where people will disagree with it, learnt from an earlier sample people reviewed.

Drawn from the confidence alone, an active audit trusts it blindly: where the confidence is unrelated to the
judge's errors, the unequal chances only add variance (a floor of 0.5 leaves an audit up to 16 % wider than a
uniform one in ``benchmarks/bench_designs.py``'s simulation). The optimal chances are proportional to each
example's expected spread of people's value around the judge's (Zrnic & Candès 2024). A pilot estimates that
spread per TRACe metric *j* as a line in the judge's doubt :math:`u = 1 - c_j`:

.. math:: E[r_j^2 \\mid c] = a_j + b_j\\,(1 - c_j), \\qquad r_j = (Y_j - \\hat Y_j) - \\overline{(Y_j - \\hat Y_j)},

least squares over the pilot's reviewed members, :math:`b_j \\ge 0` (a confidence that predicts nothing gives
:math:`b_j = 0`, hence equal chances) and :math:`a_j \\ge 0`. One sample serves every metric, so each metric's
expected squared spread is divided by its mean over all examples and the example's spread is the root of their
average: :math:`s_i = \\sqrt{\\frac1J \\sum_j (a_j + b_j u_{ij}) / \\overline{(a_j + b_j u_j)}}` (the chances that
minimise the sum of the metrics' variances relative to a uniform audit's). A metric whose pilot residuals are all
0 is left out; with none left every example gets the same spread. The draw stays valid whatever the pilot says:
the chances are fixed before it, and the estimate weights each member by the inverse of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["MIN_PILOT", "Calibration", "CalibrationError", "calibrate", "calibrated_spread"]

MIN_PILOT = 10  # reviewed pilot members a calibration needs (a line through fewer says little)


class CalibrationError(ValueError):
    """A pilot a calibration cannot be made from, in one line that says what to do."""


@dataclass(frozen=True)
class Calibration:
    """Per metric the line :math:`(a_j, b_j)` of the module docstring, and how many reviewed pilot members made it."""

    terms: dict[str, tuple[float, float]]
    n_pilot: int

    def to_params(self) -> dict[str, Any]:
        return {"terms": {m: [a, b] for m, (a, b) in self.terms.items()}, "n_pilot": self.n_pilot}

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Calibration:
        terms = {str(m): (float(v[0]), float(v[1])) for m, v in params["terms"].items()}
        return cls(terms, int(params["n_pilot"]))


def _line(residual: np.ndarray, doubt: np.ndarray) -> tuple[float, float]:
    squared = residual**2
    if np.ptp(doubt) == 0:
        return float(squared.mean()), 0.0
    slope, intercept = np.polyfit(doubt, squared, 1)
    slope = max(float(slope), 0.0)
    intercept = float(squared.mean() - slope * doubt.mean()) if slope == 0.0 else float(intercept)
    return max(intercept, 0.0), slope


def calibrate(pilot: Mapping[str, tuple[Sequence[float], Sequence[float], Sequence[float]]]) -> Calibration:
    """The :class:`Calibration` from the pilot's reviewed members: per metric ``(people, judge, confidence)``.

    >>> c = calibrate({"adherence": ([1, 1, 0, 1, 0, 1, 1, 1, 0, 1], [1] * 10, [1, 1, .2, 1, .3, 1, 1, 1, .2, 1])})
    >>> a, b = c.terms["adherence"]; round(a, 3), round(b, 3)
    (0.091, 0.519)
    """
    terms = {}
    counts = []
    for metric, (y, f, c) in pilot.items():
        people, judge, confidence = (np.asarray(v, dtype=float) for v in (y, f, c))
        counts.append(people.size)
        if people.size < MIN_PILOT:
            raise CalibrationError(
                f"the pilot has {people.size} reviewed members with {metric!r} on both sides; calibrating the "
                f"judge's confidence needs at least {MIN_PILOT}: review more of it, or draw without a pilot"
            )
        residual = (people - judge) - float(np.mean(people - judge))
        terms[metric] = _line(residual, 1.0 - confidence)
    if not terms:
        raise CalibrationError("the pilot has no metric to calibrate on: review some of its members first")
    return Calibration(terms, min(counts))


def calibrated_spread(calibration: Calibration, confidence: Mapping[str, np.ndarray]) -> np.ndarray:
    """Every example's spread :math:`s_i` (module docstring) from its confidence per metric (*confidence*: metric
    -> one value per example, in the same order for every metric).

    >>> cal = Calibration({"adherence": (0.01, 0.99)}, 20)
    >>> calibrated_spread(cal, {"adherence": np.array([1.0, 0.0])}).round(3).tolist()
    [0.141, 1.407]
    """
    total: np.ndarray | None = None
    used = 0
    for metric, (a, b) in calibration.terms.items():
        expected = a + b * (1.0 - np.asarray(confidence[metric], dtype=float))
        mean = float(expected.mean())
        if mean <= 0:
            continue
        total = expected / mean if total is None else total + expected / mean
        used += 1
    size = len(next(iter(confidence.values())))
    return np.ones(size) if total is None else np.sqrt(total / used)
