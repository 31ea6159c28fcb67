"""The calibrated active design's floor chosen from its pilot (issue 36 item 8; Zrnic & Candès 2024 tune the mix of
the optimal and the uniform rule the same way): of :data:`FLOORS`, the one whose draw the pilot's own reviews say
is least variable (:func:`pilot_floor`). A Poisson draw with chances :math:`\\pi_i` estimates a total of
:math:`r_i` with variance :math:`\\sum_i r_i^2 (1 - \\pi_i)/\\pi_i`; a uniform pilot's reviewed members, each with its
people-minus-judge residual per metric, estimate that sum for every floor. Cross-fitted: a member's chance comes from
the calibration fitted without its fold. Each estimate comes with its standard error over the pilot's members; with
*caution* a floor counts at its estimate plus that many of them (floor 1, uniform, has none). Measured in
``benchmarks/bench_design_target.py --caution``: no coverage gained at n = 100, so the app's :data:`CAUTION` is 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragviz.analysis.audits.calibration import CalibrationError, calibrate, calibrated_spread
from ragviz.analysis.audits.designs import active_level, weights_from_spread
from ragviz.analysis.audits.topup import topped_chance, topped_level
from ragviz.analysis.estimates.crossfit import FOLDS, fold_of

__all__ = ["CAUTION", "FLOORS", "FloorChoice", "pilot_floor"]

FLOORS = (0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
CAUTION = 0.0  # standard errors a floor's estimated variance is counted above its estimate (module docstring)


@dataclass(frozen=True)
class FloorChoice:
    """The floor chosen, each floor's estimated variance relative to a uniform draw's (1.0 = as uniform) and that
    estimate's standard error over the pilot's members (0 at floor 1)."""

    floor: float
    relative: dict[float, float]
    se: dict[float, float] = field(default_factory=dict)


def pilot_floor(
    people: Mapping[str, np.ndarray],
    confidence: Mapping[str, np.ndarray],
    judge: Mapping[str, np.ndarray],
    budget: float,
    folds: int = FOLDS,
    fallback: float = 0.5,
    base: float = 0.0,
    caution: float = CAUTION,
) -> FloorChoice:
    """The floor of :data:`FLOORS` with the least cross-fitted estimated variance (module docstring) for an active
    draw of *budget* over the *M* examples. Per TRACe metric, arrays over all *M*: *people* (people's value on the
    pilot's reviewed members, NaN elsewhere), *confidence* and *judge* (as
    :func:`ragviz.analysis.audits.calibration.calibrated_spread` reads them). Each metric counts relative to its
    residuals' mean square, as the calibrated spread weighs them. *fallback* where a fold is too small to calibrate.
    *base*: the pilot's chance the draw tops up (:mod:`ragviz.analysis.audits.topup`): each floor is judged by the
    chance of being in either, :math:`\\max(p, \\min(1, \\ell q_i))`, against a uniform draw of both together.
    *caution*: the floor minimises the estimate plus this many standard errors (0: the estimate alone).

    >>> rng = np.random.default_rng(0); c = rng.random(2000); err = rng.random(2000) < 0.4 * (1 - c)
    >>> f = np.ones(2000); y = np.where(err, 0.0, 1.0); p = np.full(2000, np.nan); p[:60] = y[:60]
    >>> pilot_floor({"adherence": p}, {"adherence": c}, {"adherence": f}, 200).floor < 0.5
    True
    """
    metrics = list(people)
    reviewed = np.flatnonzero(np.any([np.isfinite(people[m]) for m in metrics], axis=0))
    k = max(2, min(folds, reviewed.size // 2))
    which = fold_of(reviewed.size, k)
    residual = {m: people[m] - judge[m] for m in metrics}
    scale = {m: float(np.nanmean((residual[m][reviewed] - np.nanmean(residual[m][reviewed])) ** 2)) for m in metrics}
    member: dict[float, list[np.ndarray]] = {f: [] for f in FLOORS}  # each member's term, every floor
    flat_terms: list[np.ndarray] = []
    m_all = next(iter(judge.values())).size
    for fold in range(k):
        train, test = reviewed[which != fold], reviewed[which == fold]
        pilot: dict[str, Any] = {m: _rows(people[m], judge[m], confidence[m], train) for m in metrics}
        try:
            cal = calibrate({m: rows for m, rows in pilot.items() if rows[0].size})
        except CalibrationError:
            return FloorChoice(fallback, {})
        spread = calibrated_spread(cal, confidence, judge)
        order = np.argsort(-spread, kind="stable")  # every floor's q_i sorts alike: one sort for all
        loss = np.zeros(test.size)
        for m in metrics:
            if scale[m] <= 0:
                continue
            centre = float(np.nanmean(residual[m][train]))
            loss += np.nan_to_num((residual[m][test] - centre) ** 2 / scale[m])
        flat = min(1.0, base + (1.0 - base) * budget / m_all)
        flat_terms.append(loss * (1.0 - flat) / flat)
        for floor in FLOORS:
            q = weights_from_spread(spread, floor)
            if base > 0:
                pi = base + (1.0 - base) * topped_chance(topped_level(q, float(budget), base), q[test], base)
            else:
                pi = np.minimum(1.0, active_level(q[order], float(budget), descending=True) * q)[test]
            member[floor].append(loss * (1.0 - pi) / pi)
    u = np.concatenate(flat_terms)
    relative, se = _ratios({f: np.concatenate(v) for f, v in member.items()}, u)
    return FloorChoice(min(FLOORS, key=lambda f: (relative[f] + caution * se[f], -f)), relative, se)


def _ratios(member: dict[float, np.ndarray], u: np.ndarray) -> tuple[dict[float, float], dict[float, float]]:
    """Each floor's estimated variance over uniform's, :math:`\\sum a_i / \\sum u_i`, and its standard error by
    the ratio's linearisation over the pilot's members."""
    total = float(u.sum())
    if total <= 0:
        return dict.fromkeys(member, 1.0), dict.fromkeys(member, 0.0)
    relative = {f: float(a.sum()) / total for f, a in member.items()}
    se = {f: float(np.sqrt(a.size * np.var((a - relative[f] * u) / total))) for f, a in member.items()}
    return relative, se


def _rows(y: np.ndarray, f: np.ndarray, c: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keep = at[np.isfinite(y[at])]
    return y[keep], f[keep], c[keep]
