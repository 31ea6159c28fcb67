"""The Dashboard's aggregates of per-example values: per-subset means with bootstrap intervals, the
histogram counts and the scatter sample the charts draw (at most about :data:`MAX_MARKS` marks).
Plain functions of records (dicts, or a ``pandas.DataFrame``); no metric is computed here."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragviz.analysis.poisson_bootstrap import ResampleSums, resample_sums
from ragviz.analysis.stats import LARGE_SAMPLE, bootstrap_mean_cis
from ragviz.metrics.summary import ALL
from ragviz.metrics.trace import TRACE_METRICS

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "HISTOGRAM_BINS",
    "MAX_MARKS",
    "SCATTER_EXAMPLES",
    "SubsetMeans",
    "histogram_counts",
    "scatter_sample",
    "subset_mean_state",
    "subset_means",
]


def subset_means(
    records: Sequence[Mapping[str, Any]] | pd.DataFrame,
    metrics: Sequence[str] = TRACE_METRICS,
    n_resamples: int = 1000,
    group_of: Callable[[Mapping[str, Any]], str] | None = None,
) -> list[dict[str, Any]]:
    """Mean and 95% expanded percentile-bootstrap interval (:func:`ragviz.analysis.stats.bootstrap_mean_cis`) of each
    metric per subset (sorted, then ``ALL`` when there are several), null values (``None``, NaN) left
    out. Below :data:`~ragviz.analysis.coverage.MIN_EXAMPLES` values a row has no interval and ``too_few`` holds
    the words said instead (``None`` otherwise). *records*: dicts (grouped by *group_of*, default their ``dataset``) or a
    ``pandas.DataFrame`` with a ``dataset`` column. (:attr:`SubsetMeans.rows` of :func:`subset_mean_state`.)"""
    return subset_mean_state(records, metrics, n_resamples, group_of).rows


@dataclass(frozen=True)
class SubsetMeans:
    """:func:`subset_means` with what updates them: each record's subset (``groups``, an index
    into ``names``) and values (``values[r, k]`` of ``metrics[k]``, NaN = null) and, when there
    are at least :data:`~ragviz.analysis.stats.LARGE_SAMPLE` records, the Poisson-bootstrap
    resample sums of every subset (``sums``, keyed by record position). Read-only."""

    metrics: tuple[str, ...]
    names: tuple[str, ...]
    groups: Any
    values: Any
    sums: ResampleSums | None
    n_resamples: int
    rows: list[dict[str, Any]]

    def updated(self, changes: Mapping[int, Sequence[float]]) -> SubsetMeans:
        """These means with record *r* holding ``changes[r]`` (one value per metric, NaN = null):
        each changed record's contribution taken out of its subset's and ALL's counts, sums and
        resample sums and put back (:meth:`ResampleSums.with_rows`); the intervals of samples under
        ``LARGE_SAMPLE`` are redrawn (their index draws depend on every value; O(B x subset)),
        only for the subsets a change touches and ALL. Equal to :func:`subset_mean_state` of the
        changed records, up to float rounding of the sums."""
        import numpy as np

        rows = sorted(r for r, new in changes.items() if not _same(self.values[r], np.asarray(new, float)))
        if not rows:
            return self
        values = self.values.copy()
        old = values[rows].copy()
        values[rows] = np.asarray([changes[r] for r in rows], float)
        groups = self.groups[rows].tolist()
        sums = None if self.sums is None else self.sums.with_rows(rows, groups, old, values[rows])
        touched = {self.names[g] for g in groups} | {ALL}
        fresh = _mean_rows(self.metrics, self.names, self.groups, values, sums, self.n_resamples, touched)
        keep = [row for row in self.rows if row["dataset"] not in touched]
        order = {name: k for k, name in enumerate((*self.names, ALL))}
        out = sorted([*keep, *fresh], key=lambda row: (order[row["dataset"]], self.metrics.index(row["metric"])))
        return SubsetMeans(self.metrics, self.names, self.groups, values, sums, self.n_resamples, out)


def _same(a: Any, b: Any) -> bool:
    import numpy as np

    return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


def subset_mean_state(
    records: Sequence[Mapping[str, Any]] | pd.DataFrame,
    metrics: Sequence[str] = TRACE_METRICS,
    n_resamples: int = 1000,
    group_of: Callable[[Mapping[str, Any]], str] | None = None,
) -> SubsetMeans:
    """:class:`SubsetMeans` of *records* (see :func:`subset_means`)."""
    import numpy as np
    import pandas as pd

    if isinstance(records, pd.DataFrame):
        names, groups = _group_codes(records["dataset"].astype(str))
        values = np.stack([records[m].to_numpy(dtype=float) for m in metrics], axis=1)
    else:
        by = group_of or (lambda r: r["dataset"])
        labels = np.asarray([by(r) for r in records], dtype=object)
        values = np.array([[np.nan if r[m] is None else r[m] for m in metrics] for r in records], dtype=float)
        names = tuple(sorted(set(labels.tolist())))
        groups = np.searchsorted(np.asarray(names, dtype=object), labels) if len(labels) else np.zeros(0, np.int64)
    values = values.reshape(len(groups), len(metrics))
    sums = resample_sums(values, groups, len(names), n_resamples) if len(groups) >= LARGE_SAMPLE else None
    rows = _mean_rows(tuple(metrics), names, groups, values, sums, n_resamples, None)
    return SubsetMeans(tuple(metrics), names, groups, values, sums, n_resamples, rows)


def _group_codes(labels: pd.Series) -> tuple[tuple[str, ...], Any]:
    """The distinct *labels* (text) sorted, and per row the index of its label among them:
    hashed (``pandas.factorize``), not sorted row by row."""
    import numpy as np
    import pandas as pd

    codes, found = pd.factorize(labels, use_na_sentinel=False)
    names = sorted(str(v) for v in found)
    rank = np.asarray([names.index(str(v)) for v in found], np.int64)
    return tuple(names), rank[codes] if len(codes) else np.zeros(0, np.int64)


def _mean_rows(
    metrics: tuple[str, ...],
    names: tuple[str, ...],
    groups: Any,
    values: Any,
    sums: ResampleSums | None,
    n_resamples: int,
    only: set[str] | None,
) -> list[dict[str, Any]]:
    """The rows of :func:`subset_means` (of the subsets in *only*, default all): a sample of at
    least ``LARGE_SAMPLE`` values from the Poisson resample sums, a smaller one by index draws."""
    import numpy as np

    parts = [(name, [g], groups == g) for g, name in enumerate(names)]
    if len(names) > 1:
        parts.append((ALL, list(range(len(names))), np.ones(len(groups), bool)))
    out = []
    for name, members, member in parts:
        if only is not None and name not in only:
            continue
        small = {}
        for k in range(len(metrics)):
            if sums is not None and int(sums.counts[members, k].sum()) >= LARGE_SAMPLE:
                continue
            column = values[:, k]
            small[k] = column[member & ~np.isnan(column)]
        drawn = dict(zip(small, bootstrap_mean_cis(list(small.values()), n_resamples=n_resamples)))
        for k, m in enumerate(metrics):
            ci = drawn[k] if k in drawn else None
            n, mean, low, high = (ci.n, ci.mean, ci.low, ci.high) if ci else sums.interval(members, k)  # type: ignore[union-attr]
            too_few = ci.too_few if ci else None
            out.append(
                {"dataset": name, "metric": m, "mean": mean, "low": low, "high": high, "n": n, "too_few": too_few}
            )
    return out


#: Charts send at most about 5,000 marks: histograms as counts, the scatter as a sample of examples.
MAX_MARKS = 5000
SCATTER_EXAMPLES = MAX_MARKS // len(TRACE_METRICS)
HISTOGRAM_BINS = 20


def scatter_sample(rows: Sequence[int], limit: int | None = None) -> list[int]:
    """At most *limit* (default :data:`SCATTER_EXAMPLES`) of *rows*, evenly spaced (all of them
    when there are no more): the examples the judge-vs-human scatter draws (one point per metric)."""
    limit = SCATTER_EXAMPLES if limit is None else limit
    if len(rows) <= limit:
        return list(rows)
    step = len(rows) / limit
    return [rows[int(k * step)] for k in range(limit)]


def histogram_counts(
    records: Sequence[Mapping[str, Any]] | pd.DataFrame,
    metrics: Sequence[str],
    color: str = "dataset",
    bins: int = HISTOGRAM_BINS,
) -> list[dict[str, Any]]:
    """The histogram of each metric over [0, 1] in *bins* equal bins, per *color* value: one row
    ``{color, "metric", "bin_start", "bin_end", "count"}`` per non-empty bin (1.0 falls in the last
    bin; null and out-of-range values are left out), so a chart draws counts instead of receiving
    every example. *records*: dicts or a ``pandas.DataFrame``."""
    import numpy as np
    import pandas as pd

    if isinstance(records, pd.DataFrame):
        colors = records[color] if color in records else pd.Series(["None"] * len(records))
        column: Callable[[str], np.ndarray] = lambda m: records[m].to_numpy(dtype=float)  # noqa: E731
    else:
        colors = pd.Series([str(r.get(color)) for r in records], dtype=object)
        column = lambda m: np.array([r.get(m) for r in records], dtype=float)  # noqa: E731
    codes, found = pd.factorize(colors.astype(str))  # hashing, not sorting every row's text
    groups = sorted(str(g) for g in found)
    rank = np.array([groups.index(str(g)) for g in found], dtype=np.int64)
    group_of = rank[codes] if len(codes) else np.zeros(0, np.int64)
    out = []
    for m in metrics:
        values = column(m)
        keep = np.isfinite(values) & (values >= 0) & (values <= 1)
        slot = np.minimum((values[keep] * bins).astype(np.int64), bins - 1)
        counts = np.bincount(np.asarray(group_of, np.int64)[keep] * bins + slot, minlength=len(groups) * bins)
        for cell in np.flatnonzero(counts):
            g, b = divmod(int(cell), bins)
            out.append(
                {
                    color: groups[g],
                    "metric": m,
                    "bin_start": b / bins,
                    "bin_end": (b + 1) / bins,
                    "count": int(counts[cell]),
                }
            )
    return out
