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

__all__ = [
    "ALPHA_KINDS",
    "Alpha",
    "KindCounts",
    "alpha_of_units",
    "alphas_of_counts",
    "counts_of_sums",
    "example_sums",
    "round_alpha",
    "team_alpha",
    "unit_runs",
]


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
        first = values[0] if values else None
        if (
            values and first is not None and values.count(first) == len(values)
        ):  # one value (most units): no disagreement
            if len(values) >= 2:
                n_c[first] = n_c.get(first, 0.0) + len(values)
            continue
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
    return alphas_of_counts({kind: counts_of_sums(sums, n_units)}, n_boot, seed)[kind]


KindCounts = tuple[np.ndarray, list[Any], np.ndarray, int]
"""One label kind over a round's examples in order: per example its pairable values per category (a row of the
array; the categories listed), its disagreement mass, and the pairable units in all."""


def counts_of_sums(sums: Sequence[tuple[dict[Any, float], float]], n_units: int) -> KindCounts:
    """:data:`KindCounts` of per-example sums (:func:`example_sums`' shape)."""
    categories = sorted({c for n_c, _ in sums for c in n_c}, key=repr)
    at = {c: j for j, c in enumerate(categories)}
    table = np.zeros((len(sums), len(categories)))
    for i, (n_c, _) in enumerate(sums):
        for c, v in n_c.items():
            table[i, at[c]] = v
    return table, categories, np.array([d for _, d in sums], float), n_units


def unit_runs(units: Sequence[tuple[str, Any]]) -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` of each run of units of one kind (an example's units come kind by kind)."""
    out, start = [], 0
    for i in range(1, len(units) + 1):
        if i == len(units) or units[i][0] != units[start][0]:
            out.append((units[start][0], start, i))
            start = i
    return out


def example_sums(r: Any, kinds: Sequence[str]) -> dict[str, tuple[dict[Any, float], float, int]]:
    """Per kind, one example's sums (:class:`ragviz.analysis.team.gold.ExampleRound` *r* with two or more
    labellers' values) and its pairable units."""
    rows = list(r.values.values())
    runs = unit_runs(r.units)
    if all(row == rows[0] for row in rows[1:]):  # everyone agrees (most examples): one pass over one row
        first = rows[0]
        return {
            kind: _agreed_sums((v for k, s, e in runs if k == kind for v in first[s:e]), len(rows)) for kind in kinds
        }
    columns = list(zip(*rows))  # per unit, every labeller's value
    out = {}
    for kind in kinds:
        units = [u for k, s, e in runs if k == kind for u in columns[s:e]]
        n_c, d = _per_example(units)
        out[kind] = (n_c, d, sum(1 for u in units if sum(v is not None for v in u) >= 2))
    return out


def _draws(tables: Sequence[tuple[np.ndarray, np.ndarray]], n_boot: int, seed: int) -> list[list[float]]:
    """Bootstrap alphas of several (counts, disagreement) tables over the same number of examples: each resample
    drawn once (seeded, so each table's draws are those a table alone would get) and applied to all. The weighted
    sums are one ``einsum`` over the tables side by side, not BLAS: OpenBLAS's threads spin on a busy machine
    (16 s of CPU instead of 1 s for three kinds at 100,000 examples), and the counts are whole numbers, summed
    exactly in any order."""
    n = len(tables[0][0])
    widths = [table.shape[1] for table, _ in tables]
    side_by_side = np.hstack([np.column_stack([table, disagreement]) for table, disagreement in tables])
    rng = np.random.default_rng(seed)
    draws: list[list[float]] = [[] for _ in tables]
    for _ in range(n_boot):
        w = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        sums = np.einsum("i,ij->j", w, side_by_side)
        start = 0
        for out, width in zip(draws, widths):
            n_c, disagree = sums[start : start + width], float(sums[start + width])
            start += width + 1
            total = n_c.sum()
            expected = total * total - float((n_c * n_c).sum())
            if expected > 0:
                out.append(1.0 - (total - 1) * disagree / expected)
    return draws


def alphas_of_counts(counts: Mapping[str, KindCounts], n_boot: int = 1000, seed: int = 0) -> dict[str, Alpha]:
    """Alpha per kind of *counts* (the examples with no pairable value left out), with the example-resampling
    bootstrap interval."""
    kept: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    points: dict[str, float | None] = {}
    for kind, (table, categories, disagreement, _) in counts.items():
        rows = table.sum(axis=1) > 0 if table.size else np.zeros(len(table), bool)
        present = table[rows].sum(axis=0) > 0 if table.size else np.zeros(len(categories), bool)
        kept[kind] = (table[rows][:, present], disagreement[rows])
        shown = [c for c, p in zip(categories, present) if p]
        points[kind] = _alpha(dict(zip(shown, kept[kind][0].sum(axis=0))), float(kept[kind][1].sum()))
    sizes: dict[int, list[str]] = {}
    for kind, (table, _) in kept.items():
        if points[kind] is not None and len(table) >= 2:
            sizes.setdefault(len(table), []).append(kind)
    bounds: dict[str, tuple[float | None, float | None]] = {}
    for kinds in sizes.values():
        for kind, draws in zip(kinds, _draws([kept[k] for k in kinds], n_boot, seed)):
            if draws:
                low, high = (float(x) for x in np.percentile(draws, [2.5, 97.5]))
                bounds[kind] = (low, high)
    return {
        kind: Alpha(kind, points[kind], *bounds.get(kind, (None, None)), len(kept[kind][0]), counts[kind][3])
        for kind in counts
    }


def team_alpha(rounds: Iterable[Any], kinds: Sequence[str] = ALPHA_KINDS, n_boot: int = 1000) -> dict[str, Alpha]:
    """Alpha per label kind over the examples of *rounds* (:class:`ragviz.analysis.team.gold.ExampleRound`)
    that two or more annotators decided."""
    sums: dict[str, list[tuple[dict[Any, float], float]]] = {k: [] for k in kinds}
    n_units = dict.fromkeys(kinds, 0)
    for r in rounds:
        if len(r.values) < 2:
            continue
        for kind, (n_c, d, n) in example_sums(r, kinds).items():
            sums[kind].append((n_c, d))
            n_units[kind] += n
    return alphas_of_counts({k: counts_of_sums(sums[k], n_units[k]) for k in kinds}, n_boot)


def round_alpha(rounds: Iterable[Any], kinds: Sequence[str] = ALPHA_KINDS, n_boot: int = 1000) -> dict[str, Alpha]:
    """The round's alpha (the Team page's, ``ragviz agreement --annotators``'): :func:`team_alpha` over the
    examples assigned to someone, each with its assigned annotators only (an imported annotator's or an
    adjudicator's own decisions outside the round do not count); every decided example when nothing is assigned."""
    rounds = list(rounds)
    if any(r.assigned for r in rounds):
        rounds = [r for r in rounds if r.assigned]
    return team_alpha(rounds, kinds, n_boot)
