"""Audit sampling designs: which examples people review, and with what chance each was drawn.

* **uniform** — every example equally likely: the first *n* of the seeded draw order, inclusion probability
  :math:`n/N` (:func:`uniform_draw`).
* **stratified** — a uniform draw within each stratum of a column, :math:`n_h` per stratum by proportional or Neyman
  allocation (:func:`stratified_draw`).
* **active** — examples the judge is unsure about are likelier to be drawn (A. Zrnic, E. J. Candès, "Active
  statistical inference", ICML 2024): Poisson sampling with known inclusion probabilities (:func:`active_draw`).

Every draw depends only on the seed, the uids and the strata or confidence, grows by keeping its members, and keeps
them in the order people should review them, so a partly reviewed sample is still a sample of its design.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragviz.analysis.audits.allocation import ALLOCATIONS, NEYMAN, AllocationError, allocate, grow_allocation
from ragviz.analysis.audits.topup import topped_chance, topped_key, topped_level
from ragviz.errors import BadInput
from ragviz.store.audit_samples import SampleMember, draw_order

__all__ = [
    "ACTIVE",
    "DEFAULT_FLOOR",
    "DESIGNS",
    "DesignError",
    "DesignedDraw",
    "PAIRED",
    "SALTS",
    "STRATIFIED",
    "UNIFORM",
    "active_draw",
    "active_level",
    "selection_weights",
    "stratified_draw",
    "uniform_draw",
    "unit_draw",
    "weights_from_spread",
]


UNIFORM, STRATIFIED, ACTIVE = "uniform", "stratified", "active"
DESIGNS = (UNIFORM, STRATIFIED, ACTIVE)
PAIRED = "paired"  # questions drawn uniformly, both systems' answers reviewed (ragviz.analysis.compare_systems.audit)
DEFAULT_FLOOR = 0.5  # the share of the active design's selection weight spread evenly over all examples


class DesignError(BadInput, ValueError):
    """A design that cannot be drawn as asked, in one line that says what to do."""


@dataclass(frozen=True)
class DesignedDraw:
    """A design's members in review order and what the estimator needs of the design (``params``: for
    stratified ``by``, ``allocation``, ``sizes`` and ``counts`` per stratum, ``spreads`` for Neyman; for active
    ``floor``, ``level`` and ``budget``)."""

    design: str
    seed: int
    members: tuple[SampleMember, ...]
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def uids(self) -> list[str]:
        return [m.uid for m in self.members]


#: What each design puts before the seed in the hash that ranks its examples (:func:`unit_draw`,
#: :func:`ragviz.store.audit_samples.draw_order`), kept in a sample's params as ``"salt"``: no two designs share a
#: ranking, so a pilot and an active sample drawn with one seed overlap as two independent draws would. Samples
#: drawn before the salt have no ``"salt"`` in their params and keep the unsalted ranking (uniform's).
SALTS = {STRATIFIED: "stratified:", ACTIVE: "active:"}


def unit_draw(seed: int, uid: str, salt: str = "") -> float:
    """:math:`U \\in (0, 1)` from the SHA-256 of ``"<salt><seed>:<uid>"`` (unsalted: the hash that orders uniform
    draws; :data:`SALTS`).

    >>> 0 < unit_draw(7, "a") < 1, unit_draw(7, "a") == unit_draw(7, "a"), unit_draw(7, "a") == unit_draw(7, "a", "active:")
    (True, True, False)
    """
    top = int.from_bytes(hashlib.sha256(f"{salt}{seed}:{uid}".encode()).digest()[:8], "big")
    return (top + 0.5) / 2.0**64


def _check_size(n: int, population: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise DesignError(f"sample size must be a whole number of at least 1, got {n!r}")
    if n > population:
        raise DesignError(f"sample size {n:,} is larger than the {population:,} loaded examples")


def uniform_draw(uids: Sequence[str], n: int, seed: int) -> DesignedDraw:
    """The first *n* of the seeded draw order, each with inclusion probability :math:`n/N` (today's draw).

    >>> d = uniform_draw(["a", "b", "c", "d"], 2, 7)
    >>> len(d.members), d.members[0].inclusion_probability
    (2, 0.5)
    """
    population = sorted(set(uids))
    _check_size(n, len(population))
    share = n / len(population)
    return DesignedDraw(UNIFORM, seed, tuple(SampleMember(u, share) for u in draw_order(population, seed)[:n]))


def _strata_of(uids: Sequence[str], strata: Mapping[str, str]) -> tuple[list[str], list[str], list[int]]:
    missing = [u for u in uids if strata.get(u) is None]
    if missing:
        raise DesignError(
            f"{len(missing):,} examples have no value in the stratifying column (first: {missing[0]}): "
            "fill it, or stratify by another column"
        )
    names = sorted({strata[u] for u in uids})
    counts: dict[str, int] = dict.fromkeys(names, 0)
    for u in uids:
        counts[strata[u]] += 1
    return sorted(set(uids)), names, [counts[h] for h in names]


def stratified_draw(
    uids: Sequence[str],
    strata: Mapping[str, str],
    n: int,
    seed: int,
    allocation: str = "proportional",
    spreads: Mapping[str, float] | None = None,
    current: Mapping[str, int] | None = None,
    salt: str = SALTS[STRATIFIED],
) -> DesignedDraw:
    """A stratified draw of *n*: stratum *h* of the uids (``strata[uid]``) gets :math:`n_h` by *allocation*
    (``neyman`` needs *spreads* :math:`S_h`), its members the first :math:`n_h` of the seeded order within it.
    *current* (the counts of a sample being grown) keeps every stratum at least as large as it is.

    >>> d = stratified_draw(["a1", "a2", "a3", "a4", "b1", "b2"], {"a1": "a", "a2": "a", "a3": "a", "a4": "a",
    ...                     "b1": "b", "b2": "b"}, 4, 1)
    >>> d.params["counts"], sorted(m.inclusion_probability for m in d.members)
    ({'a': 2, 'b': 2}, [0.5, 0.5, 1.0, 1.0])
    """
    if allocation not in ALLOCATIONS:
        raise DesignError(f"unknown allocation {allocation!r}; expected one of {', '.join(ALLOCATIONS)}")
    population, names, sizes = _strata_of(uids, strata)
    _check_size(n, len(population))
    spread_list = None
    if allocation == NEYMAN:
        if spreads is None or any(h not in spreads for h in names):
            raise DesignError("Neyman allocation needs each stratum's spread: from the judge's confidence or a pilot")
        spread_list = [float(spreads[h]) for h in names]
    try:
        if current:
            counts = grow_allocation([current.get(h, 0) for h in names], n, sizes, spread_list)
        else:
            counts = allocate(n, sizes, spread_list)
    except AllocationError as exc:
        raise DesignError(str(exc)) from None
    want = dict(zip(names, counts))
    taken: dict[str, int] = dict.fromkeys(names, 0)
    members = []
    size_of = dict(zip(names, sizes))
    for uid in draw_order(population, seed, salt):
        h = strata[uid]
        if taken[h] < want[h]:
            taken[h] += 1
            members.append(SampleMember(uid, want[h] / size_of[h], h))
    params: dict[str, Any] = {"allocation": allocation, "sizes": size_of, "counts": want, "salt": salt}
    if spreads is not None and allocation == NEYMAN:
        params["spreads"] = {h: float(spreads[h]) for h in names}
    return DesignedDraw(STRATIFIED, seed, tuple(members), params)


def _check_floor(floor: float) -> None:
    if not 0.0 < floor <= 1.0:
        raise DesignError(
            f"the floor must lie in (0, 1], got {floor}: with 0 an example the judge is sure of could never be "
            "drawn (inclusion probability 0) and no estimate would be unbiased"
        )


def weights_from_spread(spread: Sequence[float] | np.ndarray, floor: float = DEFAULT_FLOOR) -> np.ndarray:
    """:math:`q_i = \\phi/N + (1-\\phi)\\,s_i/\\sum_k s_k` from each example's expected spread :math:`s_i \\ge 0`
    (equal shares when every spread is 0): sums to 1, at least :math:`\\phi/N` each.

    >>> weights_from_spread([0.0, 1.0], 0.5).tolist()
    [0.25, 0.75]
    """
    values = np.asarray(spread, dtype=float)
    if values.size == 0:
        raise DesignError("no example to draw from")
    _check_floor(floor)
    total = float(values.sum())
    share = values / total if total > 0 else np.full(values.size, 1.0 / values.size)
    return floor / values.size + (1.0 - floor) * share


def selection_weights(confidence: Sequence[float] | np.ndarray, floor: float = DEFAULT_FLOOR) -> np.ndarray:
    """:math:`q_i` of the active design (:func:`active_draw`): sums to 1, at least :math:`\\phi/N` each.

    >>> selection_weights([1.0, 1.0, 0.0, 0.0], 0.2).round(3).tolist()
    [0.05, 0.05, 0.45, 0.45]
    """
    conf = np.asarray(confidence, dtype=float)
    if conf.size == 0:
        raise DesignError("no example to draw from")
    bad = np.flatnonzero(~np.isfinite(conf) | (conf < 0) | (conf > 1))
    if bad.size:
        raise DesignError(f"confidence must lie in 0-1; example {int(bad[0]) + 1} has {float(conf[bad[0]])!r}")
    _check_floor(floor)
    return weights_from_spread(np.sqrt(1.0 - conf), floor)


def active_level(weights: np.ndarray, budget: float, descending: bool = False) -> float:
    """The level :math:`\\ell` with :math:`\\sum_i \\min(1, \\ell q_i) = ` *budget* (exact: the capped
    examples are the ones with the largest :math:`q_i`); *descending*: the weights are sorted largest first already.

    >>> active_level(np.array([0.25, 0.25, 0.5]), 2.0), active_level(np.array([0.1, 0.1, 0.8]), 2.0)
    (2.0, 5.0)
    """
    q = np.asarray(weights, dtype=float) if descending else np.sort(np.asarray(weights, dtype=float))[::-1]
    if not 0 < budget <= q.size:
        raise DesignError(f"a budget of {budget:g} does not fit {q.size:,} examples")
    rest = np.cumsum(q[::-1])[::-1]  # rest[k] = sum of q[k:]
    for capped in range(q.size):  # the *capped* largest weights have probability 1
        level = (budget - capped) / rest[capped]
        if level * q[capped] <= 1.0 + 1e-12:
            return float(level)
    return float(1.0 / q[-1])


def active_draw(
    uids: Sequence[str],
    confidence: Mapping[str, float],
    budget: int,
    seed: int,
    floor: float = DEFAULT_FLOOR,
    spread: Mapping[str, float] | None = None,
    weigh: Sequence[str] = (),
    salt: str = SALTS[ACTIVE],
    base: float = 0.0,
) -> DesignedDraw:
    """The active design's Poisson sample with expected size *budget*, members in :math:`U_i/q_i` order.

    With the judge's confidence :math:`c_i` (its chance of being right), example *i* gets the selection weight
    :math:`q_i = \\phi/N + (1-\\phi)\\sqrt{1-c_i}/\\sum_k\\sqrt{1-c_k}` (:math:`\\sqrt{1-c}` is the spread of a 0/1 error
    made with chance :math:`1-c`, the optimal rule's shape; the floor :math:`\\phi` keeps every example drawable) and
    is in the sample when :math:`U_i / q_i \\le \\ell` — Poisson sampling with inclusion probability
    :math:`\\pi_i = \\min(1, \\ell q_i)`, the level :math:`\\ell` set so that :math:`\\sum_i \\pi_i` is the budget (the
    sample's size is the budget on average). :math:`U_i \\in (0, 1)` is the seeded hash of the uid (:func:`unit_draw`).
    A larger budget raises :math:`\\ell`, which keeps every member (its :math:`U_i/q_i` is still below the level) and
    adds the examples between the two levels; members in :math:`U_i/q_i` order, so a partly reviewed sample is still
    an active sample (:func:`ragviz.analysis.audits.design_pairing.reviewed_level`).

    *spread* (uid -> the example's expected spread, e.g. calibrated on a pilot:
    :mod:`ragviz.analysis.audits.calibration`) takes the place of :math:`\\sqrt{1-c_i}`. A larger *budget* with
    the same seed and confidence (or spread) gives a superset. *weigh*: examples (members or not) whose
    :math:`q_i` the draw's params keep under ``"pilot_weights"`` — a pilot's, whose reviews then join the estimate
    at their chance of being in either sample. *base*: the chance a uniform pilot gave every example, which the sample
    tops up instead of adding to (:mod:`ragviz.analysis.audits.topup`; kept in the params as ``"base"``).

    >>> c = {f"u{i}": (0.99 if i < 50 else 0.5) for i in range(100)}
    >>> d = active_draw(list(c), c, 20, 3)
    >>> sum(1 for m in d.members if c[m.uid] == 0.5) > sum(1 for m in d.members if c[m.uid] == 0.99)
    True
    """
    population = sorted(set(uids))
    _check_size(budget, len(population))
    if spread is not None:
        q = weights_from_spread([spread[u] for u in population], floor)
    else:
        missing = [u for u in population if confidence.get(u) is None or not math.isfinite(confidence[u])]
        if missing:
            raise DesignError(
                f"{len(missing):,} examples have no judge confidence (first: {missing[0]}): the active design needs "
                "it on every example — give the confidence column for every row, or draw a uniform or stratified "
                "sample"
            )
        q = selection_weights([confidence[u] for u in population], floor)
    if not 0.0 <= base < 1.0:
        raise DesignError(f"a pilot's chance must lie in [0, 1), got {base}")
    level = active_level(q, float(budget)) if base == 0.0 else topped_level(q, float(budget), base)
    keys = topped_key(np.array([unit_draw(seed, u, salt) for u in population]), q, base)
    chances = topped_chance(level, q, base)
    chosen = np.flatnonzero((keys <= level) & (chances > 0))
    chosen = chosen[np.argsort(keys[chosen], kind="stable")]
    members = tuple(SampleMember(population[i], float(chances[i]), None, float(q[i])) for i in chosen)
    params: dict[str, Any] = {"floor": floor, "level": level, "budget": budget, "salt": salt}
    if base > 0.0:
        params["base"] = base
    if weigh:
        position = {u: i for i, u in enumerate(population)}
        params["pilot_weights"] = {u: float(q[position[u]]) for u in weigh if u in position}
    return DesignedDraw(ACTIVE, seed, members, params)
