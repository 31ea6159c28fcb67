"""Krippendorff's alpha (nominal) for the team's sentence labels, with a bootstrap 95 % interval.

Each sentence label of an example (relevant / utilized per context sentence, the support verdict per
response sentence) is one *unit*; each annotator who decided the example gives it one value. With
:math:`n_{uc}` the number of annotators giving unit *u* value *c* and :math:`m_u` the unit's values,
only units with :math:`m_u \\ge 2` count (pairable), and

.. math:: \\alpha = 1 - (n - 1)\\,\\frac{\\sum_{c \\ne k} o_{ck}}{\\sum_{c \\ne k} n_c n_k},
   \\quad o_{ck} = \\sum_u \\frac{n_{uc} n_{uk}}{m_u - 1},\\quad n_c = \\sum_u n_{uc},\\quad n = \\sum_c n_c

(Krippendorff 2011, "Computing Krippendorff's alpha-reliability"; equal to the ``krippendorff`` package's
``alpha(..., level_of_measurement="nominal")``, a test). The interval resamples *examples* with
replacement (their sentences stay together: they are not independent), 1,000 times, seeded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["ALPHA_KINDS", "Alpha", "alpha_of_units", "round_alpha", "team_alpha"]


ALPHA_KINDS = ("relevant", "utilized", "supported")


@dataclass(frozen=True)
class Alpha:
    """Alpha of one label kind: the point figure, its bootstrap 95 % interval, and what it rests on
    (examples with two or more annotators, pairable units). ``None`` figures: not defined (fewer than two
    values, or every value the same)."""

    kind: str
    alpha: float | None
    low: float | None
    high: float | None
    n_examples: int
    n_units: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha,
            "ci_low": self.low,
            "ci_high": self.high,
            "n_examples": self.n_examples,
            "n_units": self.n_units,
        }


def _per_example(units: Iterable[Sequence[Any]]) -> tuple[dict[Any, float], float]:
    """One example's sums: per value c, n_c (its pairable values); and the disagreement mass
    sum over c != k of n_uc n_uk / (m_u - 1)."""
    n_c: dict[Any, float] = {}
    disagree = 0.0
    for values in units:
        present = [v for v in values if v is not None]
        m = len(present)
        if m < 2:
            continue
        counts: dict[Any, int] = {}
        for v in present:
            counts[v] = counts.get(v, 0) + 1
        for v, k in counts.items():
            n_c[v] = n_c.get(v, 0.0) + k
        disagree += (m * m - sum(k * k for k in counts.values())) / (m - 1)
    return n_c, disagree


def _alpha(n_c: Mapping[Any, float], disagree: float) -> float | None:
    n = sum(n_c.values())
    expected = n * n - sum(v * v for v in n_c.values())  # sum over c != k of n_c n_k
    if n < 2 or expected <= 0:
        return None
    return 1.0 - (n - 1) * disagree / expected


def alpha_of_units(
    examples: Sequence[Sequence[Sequence[Any]]], kind: str = "", n_boot: int = 1000, seed: int = 0
) -> Alpha:
    """Alpha over *examples*, each a list of units, each unit the annotators' values (``None``: that
    annotator gave none), with the example-resampling bootstrap interval."""
    n_units = sum(1 for units in examples for u in units if sum(v is not None for v in u) >= 2)
    return _alpha_of_sums([_per_example(units) for units in examples], kind, n_units, n_boot, seed)


def _agreed_sums(values: Iterable[Any], m: int) -> tuple[dict[Any, float], float, int]:
    """:func:`_per_example`'s sums when *m* annotators gave every unit the same value (*values*, one per unit):
    no disagreement, each value counted *m* times; and the pairable units."""
    n_c: dict[Any, float] = {}
    n_units = 0
    if m >= 2:
        for v in values:
            if v is not None:
                n_c[v] = n_c.get(v, 0.0) + m
                n_units += 1
    return n_c, 0.0, n_units


def _alpha_of_sums(
    sums: Sequence[tuple[dict[Any, float], float]], kind: str, n_units: int, n_boot: int, seed: int
) -> Alpha:
    kept = [(n_c, d) for n_c, d in sums if n_c]
    categories = sorted({c for n_c, _ in kept for c in n_c}, key=repr)
    table = np.array([[n_c.get(c, 0.0) for c in categories] for n_c, _ in kept], float).reshape(
        len(kept), len(categories)
    )
    disagreement = np.array([d for _, d in kept], float)
    point = _alpha(dict(zip(categories, table.sum(axis=0))), float(disagreement.sum()))
    low = high = None
    if point is not None and len(kept) >= 2:
        rng = np.random.default_rng(seed)
        draws = []
        for _ in range(n_boot):
            w = np.bincount(rng.integers(0, len(kept), len(kept)), minlength=len(kept)).astype(float)
            n_c = w @ table
            n = n_c.sum()
            expected = n * n - float((n_c * n_c).sum())
            if expected > 0:
                draws.append(1.0 - (n - 1) * float(w @ disagreement) / expected)
        if draws:
            low, high = (float(x) for x in np.percentile(draws, [2.5, 97.5]))
    return Alpha(kind, point, low, high, len(kept), n_units)


def team_alpha(rounds: Iterable[Any], kinds: Sequence[str] = ALPHA_KINDS, n_boot: int = 1000) -> dict[str, Alpha]:
    """Alpha per label kind over the examples of *rounds* (:class:`ragviz.analysis.team.gold.ExampleRound`)
    that two or more annotators decided."""
    sums: dict[str, list[tuple[dict[Any, float], float]]] = {k: [] for k in kinds}
    n_units = dict.fromkeys(kinds, 0)
    for r in rounds:
        if len(r.values) < 2:
            continue
        rows = list(r.values.values())
        if all(row == rows[0] for row in rows[1:]):  # everyone agrees (most examples): one pass over one row
            for kind in kinds:
                n_c, d, n = _agreed_sums((v for (k, _), v in zip(r.units, rows[0]) if k == kind), len(rows))
                sums[kind].append((n_c, d))
                n_units[kind] += n
            continue
        for kind in kinds:
            units = [tuple(row[i] for row in rows) for i, (k, _) in enumerate(r.units) if k == kind]
            sums[kind].append(_per_example(units))
            n_units[kind] += sum(1 for u in units if sum(v is not None for v in u) >= 2)
    return {k: _alpha_of_sums(sums[k], k, n_units[k], n_boot, 0) for k in kinds}


def round_alpha(rounds: Iterable[Any], kinds: Sequence[str] = ALPHA_KINDS, n_boot: int = 1000) -> dict[str, Alpha]:
    """The round's alpha (the Team page's, ``ragviz agreement --annotators``'): :func:`team_alpha` over the
    examples assigned to someone, each with its assigned annotators only (an imported annotator's or an
    adjudicator's own decisions outside the round do not count); every decided example when nothing is assigned."""
    rounds = list(rounds)
    if any(r.assigned for r in rounds):
        rounds = [r for r in rounds if r.assigned]
    return team_alpha(rounds, kinds, n_boot)
