"""The Poisson bootstrap of large samples (:func:`ragviz.analysis.stats.bootstrap_mean_ci`, Notes):
each row's Poisson(1) weights depend on its position and the seed alone, so resample sums can take
one row's contribution out and put it back changed (an override: O(B), no pass over the rows)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: Rows whose Poisson weights one generator draws (:func:`poisson_weights`): the unit regenerated
#: to take one row's contribution out of, or into, the resample sums.
WEIGHT_BLOCK = 256

_POISSON_TABLE: Any = None


def _poisson_table() -> Any:
    """16 random bits -> a Poisson(1) count: the inverse CDF on 65,536 equal steps (each
    probability P(k) = e^-1 / k! rounded to a multiple of 2^-16)."""
    global _POISSON_TABLE
    if _POISSON_TABLE is None:
        import numpy as np

        cdf = np.cumsum([math.exp(-1) / math.factorial(k) for k in range(20)]) * 65536
        _POISSON_TABLE = np.minimum(np.searchsorted(cdf, np.arange(65536) + 0.5, side="right"), 19).astype(np.uint8)
    return _POISSON_TABLE


def poisson_weights(start: int, stop: int, n_resamples: int, seed: int = 0) -> Any:
    """The Poisson(1) bootstrap weights of rows *start* .. *stop* - 1, an array ``(rows, n_resamples)``
    of ``uint8``: the rows of block *k* (:data:`WEIGHT_BLOCK` rows) come from the generator seeded
    ``[seed, k]``, so a row's weights depend on its position and *seed* only."""
    import numpy as np

    table, size = _poisson_table(), WEIGHT_BLOCK * n_resamples
    first, last = start // WEIGHT_BLOCK, max(start, stop - 1) // WEIGHT_BLOCK
    blocks = []
    for block in range(first, last + 1):
        raw = np.random.default_rng([seed, block]).bit_generator.random_raw((size + 3) // 4)
        blocks.append(np.take(table, raw.view(np.uint16)[:size]).reshape(WEIGHT_BLOCK, n_resamples))
    weights = blocks[0] if len(blocks) == 1 else np.concatenate(blocks)
    offset = first * WEIGHT_BLOCK
    return weights[start - offset : stop - offset]


@dataclass(frozen=True)
class ResampleSums:
    """Poisson-bootstrap sums (:func:`bootstrap_mean_ci`, Notes) of *K* columns over rows in *G*
    groups: ``sums[g, k, b]`` = sum of w_rb x_rk and ``weights[g, k, b]`` = sum of w_rb over the rows
    r of group g where x_rk is not null (NaN); ``totals[g, k]`` and ``counts[g, k]`` the plain sum
    and count of those values. Read-only (shared between sessions); :meth:`with_rows` gives a copy."""

    sums: Any
    weights: Any
    totals: Any
    counts: Any
    seed: int

    def interval(self, groups: Sequence[int], k: int, level: float = 0.95) -> tuple[int, Any, Any, Any]:
        """``(n, mean, low, high)``: the mean and Poisson-bootstrap interval of column *k* over the
        rows of *groups* together (``None`` for an empty sample)."""
        import numpy as np

        n = int(self.counts[groups, k].sum())
        if n == 0:
            return 0, None, None, None
        sums, weights = self.sums[groups, k].sum(axis=0), self.weights[groups, k].sum(axis=0)
        means = np.divide(sums, weights, out=np.full(len(sums), np.nan), where=weights > 0)
        alpha = (1 - level) / 2
        low, high = np.nanquantile(means, [alpha, 1 - alpha])
        return n, float(self.totals[groups, k].sum() / n), float(low), float(high)

    def with_rows(self, rows: Sequence[int], groups: Sequence[int], old: Any, new: Any) -> ResampleSums:
        """These sums with row ``rows[j]`` (of group ``groups[j]``) holding ``new[j]`` (K values, NaN =
        null) instead of ``old[j]``: each row's contribution taken out and put back, O(B) per row
        plus regenerating its block of weights (no pass over the other rows)."""
        import numpy as np

        sums, weights, totals, counts = (a.copy() for a in (self.sums, self.weights, self.totals, self.counts))
        n_resamples = sums.shape[2]
        for row, g, before, after in zip(rows, groups, np.asarray(old, float), np.asarray(new, float)):
            w = poisson_weights(row, row + 1, n_resamples, self.seed)[0].astype(np.float64)
            for k in range(sums.shape[1]):
                for value, sign in ((before[k], -1.0), (after[k], 1.0)):
                    if not np.isnan(value):
                        sums[g, k] += sign * value * w
                        weights[g, k] += sign * w
                        totals[g, k] += sign * value
                        counts[g, k] += int(sign)
        return ResampleSums(sums, weights, totals, counts, self.seed)


def resample_sums(values: Any, groups: Any, n_groups: int, n_resamples: int = 1000, seed: int = 0) -> ResampleSums:
    """:class:`ResampleSums` of *values* (``(n, K)`` floats, NaN = null) whose row r is in group
    ``groups[r]`` (0 .. *n_groups* - 1): one pass over the rows, a block of weights at a time."""
    import numpy as np

    values = np.asarray(values, dtype=float)
    n, n_columns = values.shape
    groups = np.asarray(groups, dtype=np.int64)
    sums = np.zeros((n_groups, n_columns, n_resamples))
    weights = np.zeros((n_groups, n_columns, n_resamples))
    chunk = 16 * WEIGHT_BLOCK
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        w = poisson_weights(start, stop, n_resamples, seed).astype(np.float64)
        x = values[start:stop]
        present = ~np.isnan(x)
        both = np.concatenate([np.where(present, x, 0.0), present], axis=1)
        in_chunk = groups[start:stop]
        for g in np.unique(in_chunk):
            member = in_chunk == g
            result = both.T @ w if member.all() else both[member].T @ w[member]
            sums[g] += result[:n_columns]
            weights[g] += result[n_columns:]
    present = ~np.isnan(values)
    totals = (
        np.stack(
            [np.bincount(groups, np.where(present[:, k], values[:, k], 0.0), n_groups) for k in range(n_columns)],
            axis=1,
        )
        if n
        else np.zeros((n_groups, n_columns))
    )
    counts = (
        np.stack([np.bincount(groups, present[:, k], n_groups).astype(np.int64) for k in range(n_columns)], axis=1)
        if n
        else np.zeros((n_groups, n_columns), np.int64)
    )
    return ResampleSums(sums, weights, totals, counts, seed)
