"""The Dashboard's aggregates of per-example values: per-subset means with bootstrap intervals, the
histogram counts and the scatter sample the charts draw (at most about :data:`MAX_MARKS` marks).
Plain functions of records (dicts, or a ``pandas.DataFrame``); no metric is computed here."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragviz.analysis.stats import bootstrap_mean_cis
from ragviz.metrics.summary import ALL
from ragviz.metrics.trace import TRACE_METRICS

if TYPE_CHECKING:
    import pandas as pd


def subset_means(
    records: Sequence[Mapping[str, Any]] | pd.DataFrame,
    metrics: Sequence[str] = TRACE_METRICS,
    n_resamples: int = 1000,
    group_of: Callable[[Mapping[str, Any]], str] | None = None,
) -> list[dict[str, Any]]:
    """Mean and 95% bootstrap interval (:func:`ragviz.analysis.stats.bootstrap_mean_cis`) of each
    metric per subset (sorted, then ``ALL`` when there are several), null values (``None``, NaN) left
    out. *records*: dicts (grouped by *group_of*, default their ``dataset``) or a
    ``pandas.DataFrame`` with a ``dataset`` column."""
    import numpy as np
    import pandas as pd

    if isinstance(records, pd.DataFrame):
        groups = np.asarray(records["dataset"].astype(str), dtype=object)
        columns = {m: records[m].to_numpy(dtype=float) for m in metrics}
    else:
        by = group_of or (lambda r: r["dataset"])
        groups = np.asarray([by(r) for r in records], dtype=object)
        columns = {m: np.array([np.nan if r[m] is None else r[m] for r in records], dtype=float) for m in metrics}
    names = [(name, groups == name) for name in sorted(set(groups.tolist()))]
    if len(names) > 1:
        names.append((ALL, np.ones(len(groups), bool)))
    out = []
    for name, member in names:
        samples = [columns[m][member & ~np.isnan(columns[m])] for m in metrics]
        for m, ci in zip(metrics, bootstrap_mean_cis(samples, n_resamples=n_resamples)):
            out.append({"dataset": name, "metric": m, "mean": ci.mean, "low": ci.low, "high": ci.high, "n": ci.n})
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
