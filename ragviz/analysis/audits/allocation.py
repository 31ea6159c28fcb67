"""How many audited examples each stratum gets: proportional or Neyman allocation.

*Proportional* gives stratum *h* of :math:`N_h` examples the share :math:`N_h / N` of the audit; *Neyman*
gives it :math:`N_h S_h / \\sum_k N_k S_k`, where :math:`S_h` is the spread of what the audit measures there
(for prediction-powered estimates: the judge's error, :math:`Y - \\lambda \\hat Y`), so strata where the judge
is unsure get more of the audit; :math:`S_h` comes from the judge's confidence (:func:`spread_from_confidence`) or
from a pilot audit (:func:`spread_from_pilot`), the rounding to whole examples is :func:`allocate`'s.
Reference: J. Neyman, "On the two different aspects of the representative method", JRSS 97 (1934);
W. G. Cochran, *Sampling Techniques* (1977), 5.5.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ragviz.errors import BadInput

__all__ = [
    "ALLOCATIONS",
    "MIN_PER_STRATUM",
    "MIN_SPREAD",
    "NEYMAN",
    "PROPORTIONAL",
    "AllocationError",
    "allocate",
    "allocation_shares",
    "grow_allocation",
    "spread_from_confidence",
    "spread_from_pilot",
]


PROPORTIONAL, NEYMAN = "proportional", "neyman"
ALLOCATIONS = (PROPORTIONAL, NEYMAN)
MIN_PER_STRATUM = 2
MIN_SPREAD = (
    0.05**0.5
)  # ssepy's floor on a stratum's variance (0.05): a stratum the judge seems sure of still gets some


class AllocationError(BadInput, ValueError):
    """An allocation that cannot be made, in one line that says what to do."""


def allocation_shares(
    sizes: Sequence[int] | np.ndarray, spreads: Sequence[float] | np.ndarray | None = None
) -> np.ndarray:
    """Each stratum's real-valued share of the audit: :math:`N_h/N` (*spreads* ``None``) or
    :math:`N_h S_h/\\sum_k N_k S_k` (Neyman).

    >>> allocation_shares([30, 10]).tolist(), allocation_shares([30, 10], [0.1, 0.9]).tolist()
    ([0.75, 0.25], [0.25, 0.75])
    """
    n_h = np.asarray(sizes, dtype=float)
    weights = n_h if spreads is None else n_h * np.asarray(spreads, dtype=float)
    if weights.sum() <= 0:
        weights = n_h
    return weights / weights.sum()


def _settle(counts: np.ndarray, exact: np.ndarray, low: np.ndarray, high: np.ndarray, total: int) -> np.ndarray:
    """Add or take single examples until *counts* sum to *total*, within [low, high]: where the exact share
    is furthest above (adding) or below (taking) the count first, ties to the larger stratum, then the first."""
    counts = counts.copy()
    order_key = np.arange(counts.size)
    while counts.sum() < total:
        room = counts < high
        gap = np.where(room, exact - counts, -np.inf)
        best = max((i for i in order_key if room[i]), key=lambda i: (gap[i], high[i], -i))
        counts[best] += 1
    while counts.sum() > total:
        room = counts > low
        gap = np.where(room, counts - exact, -np.inf)
        best = max((i for i in order_key if room[i]), key=lambda i: (gap[i], high[i], -i))
        counts[best] -= 1
    return counts


def allocate(
    total: int, sizes: Sequence[int], spreads: Sequence[float] | None = None, minimum: int = MIN_PER_STRATUM
) -> list[int]:
    """Whole audited examples per stratum summing to *total*: ``np.round`` of :func:`allocation_shares`
    times *total* (``ssepy``'s), each between ``min(minimum, N_h)`` and :math:`N_h`, the rest settled
    deterministically. :class:`AllocationError` when *total* cannot give every stratum its minimum or exceeds the
    examples.

    The shares are rounded to whole examples as ``ssepy`` 0.1.1 rounds them (``np.round``, half to even;
    ``StratifiedSampler.allocate_budget``), clipped to each stratum's size and to a floor of :data:`MIN_PER_STRATUM`
    (a stratum's variance needs two audited examples), and what rounding left over or took too much is settled
    deterministically (largest remainder first, then the larger stratum; ``ssepy`` hands out its left-over at
    random). ``tests/analysis/audits/test_audit_designs_reference.py`` holds the shares and the rounded counts to
    ``ssepy``'s.

    >>> allocate(10, [30, 10]), allocate(10, [30, 10], [0.1, 0.9]), allocate(7, [100, 2, 2])
    ([8, 2], [2, 8], [3, 2, 2])
    """
    high = np.asarray(sizes, dtype=int)
    if high.size == 0:
        raise AllocationError("no stratum to allocate the audit to")
    low = np.minimum(high, minimum)
    if total > int(high.sum()):
        raise AllocationError(f"an audit of {total:,} is larger than the {int(high.sum()):,} examples")
    if total < int(low.sum()):
        raise AllocationError(
            f"an audit of {total:,} cannot give each of the {high.size} strata its {minimum} audited examples "
            f"(a stratum's spread needs two): audit at least {int(low.sum()):,}, or stratify by a column with fewer values"
        )
    exact = allocation_shares(high, spreads) * total
    counts = np.clip(np.round(exact).astype(int), low, high)
    return [int(c) for c in _settle(counts, exact, low, high, total)]


def grow_allocation(
    current: Sequence[int],
    total: int,
    sizes: Sequence[int],
    spreads: Sequence[float] | None = None,
    minimum: int = MIN_PER_STRATUM,
) -> list[int]:
    """The allocation of an audit grown to *total*: never fewer in a stratum than *current* (a grown sample
    keeps its members), the extra examples where :func:`allocate` at *total* wants them most.

    >>> grow_allocation([8, 2], 12, [30, 10])
    [9, 3]
    """
    have = np.asarray(current, dtype=int)
    if total <= int(have.sum()):
        return [int(c) for c in have]
    target = np.asarray(allocate(total, sizes, spreads, minimum), dtype=int)
    high = np.asarray(sizes, dtype=int)
    counts = np.maximum(have, np.minimum(target, high))
    if counts.sum() > total:  # a stratum already above its new target: take from the others' additions
        counts = _settle(counts, target.astype(float), have, high, total)
    return [int(c) for c in _settle(counts, target.astype(float), have, high, total)]


def spread_from_confidence(
    confidence: Sequence[float] | np.ndarray, strata: Sequence[str] | np.ndarray
) -> dict[str, float]:
    """:math:`S_h` per stratum from the judge's confidence :math:`c_i` (the chance it is right on example *i*):
    a judge right with chance *c* on a 0/1 outcome errs with variance about :math:`1 - c`, so
    :math:`S_h = \\sqrt{\\max(\\overline{1 - c}_h, 0.05)}` (``ssepy``'s floor of 0.05 on a stratum's variance).

    >>> spread_from_confidence([1.0, 0.5, 0.5], ["a", "b", "b"]) == {"a": MIN_SPREAD, "b": 0.5 ** 0.5}
    True
    """
    conf, labels = np.asarray(confidence, dtype=float), np.asarray(strata, dtype=object)
    return {
        str(h): float(np.sqrt(max(float(np.mean(1.0 - conf[labels == h])), MIN_SPREAD**2)))
        for h in dict.fromkeys(labels.tolist())
    }


def spread_from_pilot(
    y: Sequence[float], yhat: Sequence[float], strata: Sequence[str], names: Sequence[str]
) -> dict[str, float]:
    """:math:`S_h` per stratum from a pilot audit: the standard deviation of people's value minus the judge's
    (the rectifier at :math:`\\lambda = 1`) over the stratum's audited examples, floored at :data:`MIN_SPREAD`.
    :class:`AllocationError` naming the strata with fewer than two pilot examples.

    >>> spread_from_pilot([1, 0, 1, 1], [1, 1, 1, 1], ["a", "a", "b", "b"], ["a", "b"])["a"]
    0.5
    """
    diff = np.asarray(y, dtype=float) - np.asarray(yhat, dtype=float)
    labels = np.asarray(strata, dtype=object)
    short = [h for h in names if int(np.sum(labels == h)) < 2]
    if short:
        raise AllocationError(
            f"the pilot has fewer than two audited examples in stratum {', '.join(map(str, short))}: "
            "grow the pilot there, or allocate from the judge's confidence"
        )
    return {h: max(float(np.std(diff[labels == h])), MIN_SPREAD) for h in names}
