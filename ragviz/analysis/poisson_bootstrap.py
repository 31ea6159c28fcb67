"""The Poisson bootstrap of large samples (:func:`ragviz.analysis.stats.bootstrap_mean_ci`, Notes):
each row's Poisson(1) weights depend on its position and the seed alone, so resample sums can take
one row's contribution out and put it back changed (an override: O(B), no pass over the rows)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

__all__ = ["ResampleSums", "WEIGHT_BLOCK", "WORKERS", "poisson_weights", "resample_sums"]


#: Rows whose Poisson weights one generator draws (:func:`poisson_weights`): the unit regenerated
#: to take one row's contribution out of, or into, the resample sums.
WEIGHT_BLOCK = 256
#: Threads :func:`resample_sums` splits its blocks of rows between (each with one BLAS thread).
WORKERS = 2

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


def _block_weights(block: int, n_resamples: int, seed: int, first: int = 0, rows: int = WEIGHT_BLOCK) -> Any:
    """Rows *first* .. *first* + *rows* - 1 of block *block*'s weights (``uint8``, ``(rows,
    n_resamples)``): 16 bits of the generator seeded ``[seed, block]`` per weight, row after row.
    The generator is advanced past the rows before *first* (no draw for them)."""
    import numpy as np

    start, stop = first * n_resamples, (first + rows) * n_resamples  # in 16-bit draws
    bits = np.random.PCG64([seed, block])  # what default_rng([seed, block]) draws with
    if start >= 4:
        bits.advance(start // 4)
    raw = bits.random_raw((stop - start // 4 * 4 + 3) // 4).view(np.uint16)
    return np.take(_poisson_table(), raw[start % 4 : start % 4 + stop - start]).reshape(rows, n_resamples)


def poisson_weights(start: int, stop: int, n_resamples: int, seed: int = 0) -> Any:
    """The Poisson(1) bootstrap weights of rows *start* .. *stop* - 1, an array ``(rows, n_resamples)``
    of ``uint8``: the rows of block *k* (:data:`WEIGHT_BLOCK` rows) come from the generator seeded
    ``[seed, k]``, so a row's weights depend on its position and *seed* only."""
    import numpy as np

    first, last = start // WEIGHT_BLOCK, max(start, stop - 1) // WEIGHT_BLOCK
    if first == last:  # within one block: only those rows are drawn
        return _block_weights(first, n_resamples, seed, start % WEIGHT_BLOCK, max(0, stop - start))
    blocks = [_block_weights(block, n_resamples, seed) for block in range(first, last + 1)]
    offset = first * WEIGHT_BLOCK
    return np.concatenate(blocks)[start - offset : stop - offset]


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
        (its weights drawn alone: :func:`poisson_weights`; no pass over the other rows)."""
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


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """BLAS on one thread inside: the products here are small, and OpenBLAS's threads spin
    waiting for each other (4x slower than one thread on a busy 2-core machine)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - scikit-learn brings it
        yield
        return
    with threadpool_limits(1, user_api="blas"):
        yield


def _design(values: Any) -> tuple[Any, Any]:
    """The columns each block of weights is multiplied with: the *K* value columns (null as 0)
    and each distinct presence pattern once (1 where a column's value is not null); and per value
    column, the index of its presence column."""
    import numpy as np

    present = ~np.isnan(values)
    patterns: list[int] = []
    weight_of = []
    for k in range(values.shape[1]):
        same = next((j for j, p in enumerate(patterns) if np.array_equal(present[:, p], present[:, k])), None)
        if same is None:
            patterns.append(k)
            same = len(patterns) - 1
        weight_of.append(values.shape[1] + same)
    design = np.concatenate([np.where(present, values, 0.0), present[:, patterns].astype(np.float64)], axis=1)
    return design, np.asarray(weight_of, np.int64)


def _block_sums(design: Any, groups: Any, n_groups: int, blocks: range, n_resamples: int, seed: int) -> Any:
    """``out[g, c, b]`` = sum of w_rb design[r, c] over the rows r of group g in *blocks*."""
    import numpy as np

    n = len(design)
    out = np.zeros((n_groups, design.shape[1], n_resamples))
    for block in blocks:
        start = block * WEIGHT_BLOCK
        stop = min(n, start + WEIGHT_BLOCK)
        w = _block_weights(block, n_resamples, seed, 0, stop - start)
        x, in_block = design[start:stop], groups[start:stop]
        first = in_block[0]
        if (in_block == first).all():
            out[first] += x.T @ w.astype(np.float64)
            continue
        for g in np.unique(in_block).tolist():
            member = in_block == g
            out[g] += x[member].T @ w[member].astype(np.float64)
    return out


def resample_sums(
    values: Any, groups: Any, n_groups: int, n_resamples: int = 1000, seed: int = 0, workers: int = WORKERS
) -> ResampleSums:
    """:class:`ResampleSums` of *values* (``(n, K)`` floats, NaN = null) whose row r is in group
    ``groups[r]`` (0 .. *n_groups* - 1): one pass over the rows, a block of weights at a time
    (:data:`WEIGHT_BLOCK` rows), the blocks split between *workers* threads. Each block's weights
    are multiplied with the K value columns and the distinct presence patterns once (the weight
    sums of columns null in the same rows are the same sums)."""
    import numpy as np

    values = np.asarray(values, dtype=float)
    n, n_columns = values.shape
    groups = np.asarray(groups, dtype=np.int64)
    design, weight_of = _design(values)
    n_blocks = -(-n // WEIGHT_BLOCK)
    parts = max(1, min(workers, n_blocks // 16))
    spans = [range(n_blocks * p // parts, n_blocks * (p + 1) // parts) for p in range(parts)]
    with _one_blas_thread():
        if parts == 1:
            found = [_block_sums(design, groups, n_groups, spans[0], n_resamples, seed)]
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(parts) as pool:
                found = list(
                    pool.map(lambda span: _block_sums(design, groups, n_groups, span, n_resamples, seed), spans)
                )
    acc = found[0]
    for more in found[1:]:
        acc += more
    sums, weights = acc[:, :n_columns].copy(), acc[:, weight_of].copy()
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
