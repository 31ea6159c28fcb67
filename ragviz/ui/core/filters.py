"""The Review page's filters over the loaded data: the per-row columns they read (judge adherence, label-quality
flags), computed once per loaded data set, the label-quality report the Data page shows, and the rows a filter
keeps under the current labels (cached per filter, data, annotator and redraw count)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from ragviz.analysis.audits.judge_confidence import unsure_uids
from ragviz.analysis.review.queue import ReviewFilter, RowColumns, filter_indices
from ragviz.data.dataset import Dataset
from ragviz.metrics.trace import trace_scores
from ragviz.ui.core.keys import ADHERENCE_CACHE, FILTER_CACHE
from ragviz.ui.core.state import annotator, current_paths, dataset, load_result, redraw_count, store

__all__ = [
    "DatasetIndex",
    "MAX_DETAILED",
    "QualityReport",
    "active_filter_rows",
    "current_adherence",
    "quality_report",
    "review_filter_rows",
    "row_columns",
]


@dataclass(frozen=True)
class QualityReport:
    """Label-quality flags of the loaded data: issues and examples per kind, flagged examples, the
    flags of the first :data:`MAX_DETAILED` flagged examples."""

    counts: dict[str, int]
    example_counts: dict[str, int]
    flagged: int
    rows: list[dict[str, Any]]


@dataclass(frozen=True)
class DatasetIndex:
    columns: RowColumns
    quality: QualityReport


MAX_DETAILED = 300


@st.cache_resource(show_spinner="Indexing examples (adherence, label-quality flags)…", max_entries=8)
def _dataset_index(paths: tuple[str, ...]) -> DatasetIndex:
    """One pass over the loaded rows' label columns: judge adherence and label-quality flags."""
    from ragviz.analysis.quality.issues import label_issues
    from ragviz.analysis.quality.scan import scan_dataset
    from ragviz.metrics.trace import dataset_adherence

    ds = load_result(paths).dataset
    scan = scan_dataset(ds)
    adherence = dataset_adherence(ds)
    flags = [len(kinds) for kinds in scan.row_kinds]
    rows: list[dict[str, Any]] = []
    for i in scan.flagged_rows[:MAX_DETAILED]:
        ex = ds.example(i)
        rows.extend({"example": ex.uid, "issue": p.kind, "where": str(p)} for p in label_issues(ex))
    columns = RowColumns(uids=ds.uids, subsets=ds.datasets, adherence=adherence, flag_counts=flags)
    counts = {k: v for k, v in scan.issue_counts.items() if v}
    return DatasetIndex(columns, QualityReport(counts, scan.example_counts, len(scan.flagged_rows), rows))


def row_columns() -> RowColumns:
    """Per-row filter columns of the loaded data (computed on first use, then cached)."""
    return _dataset_index(current_paths()).columns


def quality_report() -> QualityReport:
    return _dataset_index(current_paths()).quality


def current_adherence(ds: Dataset, who: str, corrected: set[str]) -> dict[str, float | None]:
    """Adherence under the current labels of the corrected examples (cached per label version)."""
    cache_key = ("ragviz.adherence_cache", current_paths(), who, redraw_count(), len(corrected))
    cached = st.session_state.get(ADHERENCE_CACHE)
    if cached and cached[0] == cache_key:
        return cached[1]
    s = store()
    out: dict[str, float | None] = {}
    for uid in corrected:
        i = ds.index_of(uid)
        if i is None:
            continue
        ex = ds.example(i)
        out[uid] = trace_scores(s.current_labels(ex, who), ex.n_context_sentences).adherence
    st.session_state[ADHERENCE_CACHE] = (cache_key, out)
    return out


def review_filter_rows(
    ds: Dataset, flt: ReviewFilter, who: str, reviewed: set[str], corrected: set[str]
) -> list[int] | None:
    """Rows that pass the Review page's filter *flt* (``None`` when no filter is on), cached per
    filter, data, annotator and label version. The last active filter is remembered for
    :func:`active_filter_rows`."""
    if not flt.active:
        st.session_state.pop(FILTER_CACHE, None)
        return None
    cache_key = (flt, current_paths(), who, redraw_count())
    cached = st.session_state.get(FILTER_CACHE)
    if cached and cached[0] == cache_key:
        return cached[1]
    adh = current_adherence(ds, who, corrected) if flt.adherence_zero else None
    unsure = unsure_uids(store()) if flt.judge_unsure else set()
    allowed = filter_indices(row_columns(), flt, reviewed, corrected, adh, unsure)
    st.session_state[FILTER_CACHE] = (cache_key, allowed)
    return allowed


def active_filter_rows() -> list[int] | None:
    """For other pages (Label): the rows of the filter the Review page has on for the loaded data,
    under the current labels; ``None`` when no filter is on."""
    cached = st.session_state.get(FILTER_CACHE)
    if not cached or cached[0][1] != current_paths():
        return None
    who = annotator()
    s = store()
    return review_filter_rows(dataset(), cached[0][0], who, s.reviewed_uids(who), s.corrected_uids(who))
