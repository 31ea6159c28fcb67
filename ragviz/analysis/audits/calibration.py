"""The active design's inclusion probabilities calibrated on a pilot: how much the judge's confidence (and its own
value) say about where people will disagree with it, learnt from an earlier sample people reviewed.

Drawn from the confidence alone, an active audit trusts it blindly: where the confidence is unrelated to the
judge's errors, the unequal chances only add variance (a floor of 0.5 left an audit 4–8 % wider than a uniform one
in ``benchmarks/bench_designs.py``'s simulation). The optimal chances are proportional to each example's expected
spread of people's value around the judge's (Zrnic & Candès 2024): :func:`calibrate` fits it on the pilot,
:func:`calibrated_spread` gives every example's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragviz.analysis.estimates.crossfit import fold_of
from ragviz.errors import BadInput

__all__ = [
    "FLOOR_SHARE",
    "MIN_PILOT",
    "Calibration",
    "CalibrationError",
    "calibrate",
    "calibrated_spread",
    "crossfitted_spread",
]

MIN_PILOT = 10  # reviewed pilot members a calibration needs (a fit through fewer says little)
FLOOR_SHARE = 0.05  # the least expected squared spread, as a share of the pilot's mean


class CalibrationError(BadInput, ValueError):
    """A pilot a calibration cannot be made from, in one line that says what to do."""


@dataclass(frozen=True)
class Calibration:
    """Per metric the coefficients :math:`\\beta_j` and the floor of :func:`calibrate`, and how many reviewed pilot
    members made them."""

    terms: dict[str, tuple[float, ...]]  # metric -> (beta0, beta_doubt, beta_judge, beta_judge2, floor)
    n_pilot: int

    def to_params(self) -> dict[str, Any]:
        return {"terms": {m: list(t) for m, t in self.terms.items()}, "n_pilot": self.n_pilot}

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Calibration:
        terms = {str(m): tuple(float(v) for v in t) for m, t in params["terms"].items()}
        return cls(terms, int(params["n_pilot"]))


def _features(doubt: np.ndarray, judge: np.ndarray) -> np.ndarray:
    return np.column_stack([np.ones(doubt.size), doubt, judge, judge**2])


def _fit(residual: np.ndarray, doubt: np.ndarray, judge: np.ndarray) -> tuple[float, ...]:
    squared = residual**2
    coef, *_ = np.linalg.lstsq(_features(doubt, judge), squared, rcond=None)
    return (*(float(c) for c in coef), FLOOR_SHARE * float(squared.mean()))


def _expected(term: tuple[float, ...], doubt: np.ndarray, judge: np.ndarray) -> np.ndarray:
    return np.maximum(_features(doubt, judge) @ np.array(term[:4]), term[4])


def calibrate(pilot: Mapping[str, tuple[Sequence[float], Sequence[float], Sequence[float]]]) -> Calibration:
    """The :class:`Calibration` from the pilot's reviewed members: per metric ``(people, judge, confidence)``.

    The pilot estimates the spread of people's value around the judge's per TRACe metric
    *j* from what is known of every example before anyone reviews it — the judge's doubt :math:`u = 1 - c_j` and its
    own value :math:`\\hat Y_j` (a judge that misses hallucinations errs only where it says "supported"):

    .. math:: E[r_j^2 \\mid c, \\hat Y] = \\beta_{j0} + \\beta_{j1} u_j + \\beta_{j2} \\hat Y_j + \\beta_{j3} \\hat Y_j^2,
              \\qquad r_j = (Y_j - \\hat Y_j) - \\overline{(Y_j - \\hat Y_j)},

    least squares over the pilot's reviewed members, each prediction floored at :data:`FLOOR_SHARE` of the pilot's mean
    :math:`r_j^2` (no example is expected to be error-free from a pilot). A pilot where neither says anything fits a
    flat line, hence equal chances.

    >>> c = calibrate({"adherence": ([1, 1, 0, 1, 0, 1, 1, 1, 0, 1], [1] * 10, [1, 1, .2, 1, .3, 1, 1, 1, .2, 1])})
    >>> _expected(c.terms["adherence"], np.array([0.0, 0.8]), np.array([1.0, 1.0])).round(3).tolist()
    [0.091, 0.506]
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
        terms[metric] = _fit(residual, 1.0 - confidence, judge)
    if not terms:
        raise CalibrationError("the pilot has no metric to calibrate on: review some of its members first")
    return Calibration(terms, min(counts))


def calibrated_spread(
    calibration: Calibration, confidence: Mapping[str, np.ndarray], judge: Mapping[str, np.ndarray]
) -> np.ndarray:
    """Every example's spread :math:`s_i` from its confidence and the judge's value per metric
    (metric -> one value per example, in the same order for every metric).

    One sample serves every metric, so each metric's expected squared spread is divided
    by its mean over all examples and the example's spread is the root of their average:
    :math:`s_i = \\sqrt{\\frac1J \\sum_j \\hat v_{ij} / \\bar{\\hat v}_j}` (the chances that minimise the sum of the
    metrics' variances relative to a uniform audit's). A metric whose pilot residuals are all 0 is left out; with none
    left every example gets the same spread. The draw stays valid whatever the pilot says: the chances are fixed before
    it, and the estimate weights each member by the inverse of its own.

    >>> cal = Calibration({"adherence": (0.01, 0.99, 0.0, 0.0, 0.0)}, 20)
    >>> calibrated_spread(cal, {"adherence": np.array([1.0, 0.0])}, {"adherence": np.ones(2)}).round(3).tolist()
    [0.141, 1.407]
    """
    total: np.ndarray | None = None
    used = 0
    for metric, term in calibration.terms.items():
        doubt = 1.0 - np.asarray(confidence[metric], dtype=float)
        expected = _expected(term, doubt, np.asarray(judge[metric], dtype=float))
        mean = float(expected.mean())
        if mean <= 0:
            continue
        total = expected / mean if total is None else total + expected / mean
        used += 1
    size = len(next(iter(confidence.values())))
    return np.ones(size) if total is None else np.sqrt(total / used)


def crossfitted_spread(
    spread: np.ndarray,
    people: Mapping[str, np.ndarray],
    confidence: Mapping[str, np.ndarray],
    judge: Mapping[str, np.ndarray],
    folds: int = 5,
) -> np.ndarray:
    """*spread* (:func:`calibrated_spread` of the pilot's calibration, over all *M* examples) with each reviewed pilot
    member's own entry from the calibration fitted without its fold (*people*: per metric people's value on the
    pilot's reviewed members, NaN elsewhere; *confidence*, *judge* as :func:`calibrated_spread` reads them), rescaled to
    the whole spread's mean. An example's chance of being in the pilot or the sample that tops it up is
    :math:`p + (1 - p)\\,a_i` with :math:`a_i` from a pilot without *i*: fitted with its own residual, a member that
    people and the judge disagreed on gets a larger spread, a larger chance and so a smaller weight. Not what the
    draw uses: measured (``benchmarks/bench_design_target.py --crossfit-pilot-spread``; BENCHMARKS.md, "The active t
    counts what the audit fitted") it raised a noise confidence's coverage at n = 100 but cut the share of the
    oracle's gain on relevance at n = 300 to 0.59. Unchanged where a fold leaves too few members to calibrate."""
    metrics = list(people)
    reviewed = np.flatnonzero(np.any([np.isfinite(people[m]) for m in metrics], axis=0))
    which = fold_of(reviewed.size, folds)
    out = np.array(spread, dtype=float)
    for fold in range(folds):
        train, test = reviewed[which != fold], reviewed[which == fold]
        rows = {}
        for m in metrics:
            keep = train[np.isfinite(people[m][train])]
            if keep.size:
                rows[m] = (people[m][keep], judge[m][keep], confidence[m][keep])
        try:
            other = calibrated_spread(calibrate(rows), confidence, judge)
        except CalibrationError:
            return np.array(spread, dtype=float)
        out[test] = other[test] * float(np.mean(spread)) / float(np.mean(other))
    return out
