"""Per-page results, cached per data, label store (file and version) and the page's choices.

Keyed on the store file too: ``data_version()`` is only unique within one store. What ``st.cache_resource``
keeps is shared by every session: read-only, never modified after it is built."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import streamlit as st

from ragviz.analysis.labelsets.diff import DiffTotals, ExampleDiff, diff_label_sets, diff_totals
from ragviz.analysis.labelsets.named import resolve_label_set
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.ui.core.state import current_paths, load_result, store

if TYPE_CHECKING:
    import pandas as pd

    from ragviz.analysis.agreement import AnnotatorAgreement
    from ragviz.analysis.dashboard.aggregates import SubsetMeans
    from ragviz.analysis.dashboard.families import FamilyView
    from ragviz.analysis.dashboard.figures import DashboardData
    from ragviz.analysis.dashboard.rows import RowFigures
    from ragviz.data.model import Example

__all__ = [
    "Comparison",
    "annotator_agreement",
    "comparison",
    "dashboard_data",
    "family_view",
    "metric_families",
    "metrics_table",
    "uid_matches",
]


def _store_key() -> tuple[str, tuple[int, int]]:
    """The label store's part of a cache key: its file and its data version."""
    s = store()
    return s.location, s.data_version()


@st.cache_resource(show_spinner="Computing the metrics…", max_entries=8)
def _metrics_table(
    paths: tuple[str, ...], db: str, store_version: tuple[int, int], whose: LabelSelection
) -> pd.DataFrame:
    from ragviz.export import rows

    table: pd.DataFrame = rows.metrics_table(load_result(paths).dataset, store(), whose).to_pandas()
    return table


def metrics_table(whose: LabelSelection) -> pd.DataFrame:
    """Export: the per-example metrics under *whose* labels as a ``pandas.DataFrame`` (it
    scores every example)."""
    return _metrics_table(current_paths(), *_store_key(), whose)


@dataclass(frozen=True)
class Comparison:
    """Compare: the examples where two label sets differ, how many examples both cover, the totals
    of the differences and the table of them (a ``pandas.DataFrame``)."""

    diffs: list[ExampleDiff]
    common: int
    totals: DiffTotals
    table: pd.DataFrame


@st.cache_resource(show_spinner="Comparing…", max_entries=16)
def _comparison(
    paths: tuple[str, ...], db: str, store_version: tuple[int, int], a: LabelSelection, b: LabelSelection
) -> Comparison:
    import pandas as pd

    ds = load_result(paths).dataset
    set_a, set_b = resolve_label_set(ds, a, store()), resolve_label_set(ds, b, store())
    diffs = diff_label_sets(ds, set_a, set_b)
    table = pd.DataFrame([d.as_row() for d in diffs])
    return Comparison(diffs, len(set_a.shared_rows(set_b)), diff_totals(diffs), table)


def comparison(a: LabelSelection, b: LabelSelection) -> Comparison:
    """Compare: label set *a* against label set *b* (it builds the examples where they may differ:
    :meth:`ragviz.analysis.labelsets.named.LabelSet.differing_rows`)."""
    return _comparison(current_paths(), *_store_key(), a, b)


@st.cache_resource(show_spinner=False, max_entries=4)
def _row_figures(paths: tuple[str, ...]) -> RowFigures:
    """The Dashboard's per-row figures of the data's own labels: per data, whatever the store holds."""
    from ragviz.analysis.dashboard.rows import row_figures
    from ragviz.ui.core.progress import RowProgress

    dataset = load_result(paths).dataset
    progress = RowProgress("Scoring the labels", len(dataset))
    figures = row_figures(dataset, lambda done, total: progress("Scoring the labels", done, total))
    progress.close()
    return figures


@st.cache_resource(show_spinner="Bootstrap intervals…", max_entries=4)
def _base_means(paths: tuple[str, ...]) -> SubsetMeans:
    """The subset means of the data's own labels (the judge's), per data: decisions update them."""
    import pandas as pd

    from ragviz.analysis.dashboard.aggregates import subset_mean_state

    dataset = load_result(paths).dataset
    scores = _row_figures(paths).scores
    return subset_mean_state(pd.DataFrame({"dataset": dataset.datasets, **scores}))


@st.cache_resource(show_spinner=False, max_entries=4)
def _store_examples(paths: tuple[str, ...], db: str, store_version: tuple[int, int]) -> dict[int, Example]:
    """The examples of the rows whose labels the store decides (:func:`ragviz.analysis.labelsets.named.store_rows`),
    built once for the Dashboard's label sets, figures and annotator agreement. Read-only."""
    from ragviz.analysis.labelsets.named import store_rows
    from ragviz.data.dataset import examples_at

    dataset = load_result(paths).dataset
    return examples_at(dataset, store_rows(dataset, store()))


@st.cache_resource(show_spinner="Computing the dashboard…", max_entries=16)
def _dashboard_data(
    paths: tuple[str, ...], against: LabelSelection, db: str, store_version: tuple[int, int], _base: RowFigures
) -> DashboardData:
    from ragviz.analysis.dashboard import figures as dashboard
    from ragviz.ui.core.progress import RowProgress

    dataset, base = load_result(paths).dataset, _base
    progress = RowProgress("Computing the dashboard", len(dataset))
    means, examples = _base_means(paths), _store_examples(paths, db, store_version)
    data = dashboard.dashboard_data(
        dataset, against, store(), progress=progress, base=base, base_means=means, examples=examples
    )
    progress.close()
    return data


def dashboard_data(against: LabelSelection) -> DashboardData:
    """Dashboard: :func:`ragviz.analysis.dashboard.figures.dashboard_data` with *against* as the current labels
    (shared by every session: read-only)."""
    paths = current_paths()
    return _dashboard_data(paths, against, *_store_key(), _row_figures(paths))


@st.cache_data(show_spinner=False, max_entries=4)
def _metric_families(paths: tuple[str, ...]) -> list[str]:
    from ragviz.analysis.dashboard import families

    return families.dataset_families(load_result(paths).dataset)


def metric_families() -> list[str]:
    """Dashboard: the metric families the loaded data can be scored with."""
    return _metric_families(current_paths())


# cache_resource: a rerun hands out the same (read-only) view instead of unpickling every record.
@st.cache_resource(show_spinner="Computing the metric family…", max_entries=8)
def _family_view(
    paths: tuple[str, ...],
    against: LabelSelection,
    db: str,
    store_version: tuple[int, int],
    family: str,
    ks: tuple[int, ...],
) -> FamilyView:
    from ragviz.analysis.dashboard import families

    return families.family_view(load_result(paths).dataset, None, against, store(), family, ks)


def family_view(against: LabelSelection, family: str, ks: tuple[int, ...]) -> FamilyView:
    """Dashboard: :func:`ragviz.analysis.dashboard.families.family_view` of *family* at cut-offs *ks*."""
    db, version = _store_key()
    return _family_view(current_paths(), against, db, version, family, ks)


@st.cache_data(show_spinner="Computing annotator agreement…", max_entries=8)
def _annotator_agreement(paths: tuple[str, ...], db: str, store_version: tuple[int, int]) -> AnnotatorAgreement:
    from ragviz.analysis.team.kappas import annotator_agreement as agreement_of_annotators

    examples = _store_examples(paths, db, store_version)  # the decided examples, shared with the Dashboard's data
    return agreement_of_annotators(load_result(paths).dataset, examples, store())


def annotator_agreement() -> AnnotatorAgreement:
    """Dashboard: the agreement between the annotators of the label store on the loaded examples."""
    return _annotator_agreement(current_paths(), *_store_key())


@st.cache_resource(show_spinner=False, max_entries=32)
def _uid_matches(paths: tuple[str, ...], query: str) -> tuple[list[int], int]:
    from ragviz.ui.core import picker

    return picker.matching_rows(load_result(paths).dataset.uids, query)


def uid_matches(query: str) -> tuple[list[int], int]:
    """Explainer: the first rows whose uid contains *query* and how many match in all
    (:func:`ragviz.ui.core.picker.matching_rows`)."""
    return _uid_matches(current_paths(), query)
