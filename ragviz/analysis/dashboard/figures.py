"""Everything the Dashboard shows, computed in one pass from the loaded data and the label store.

No metric is computed here: per-example scores come from :func:`ragviz.metrics.trace.trace_scores`
(and its columnar twin :func:`~ragviz.metrics.trace.trace_arrays`, through
:mod:`ragviz.analysis.dashboard.rows`), comparisons from :mod:`ragviz.analysis.agreement`, baseline
figures from :mod:`ragviz.analysis.dashboard.baselines`, rankings from :mod:`ragviz.analysis.dashboard.triage`. The result
is plain data the page draws (and caches per label version). Only the examples a person decided on
(and those with a judge label set in the store) become :class:`~ragviz.data.model.Example` objects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ragviz.analysis.agreement import Agreement, agreement
from ragviz.analysis.dashboard.aggregates import HISTOGRAM_BINS as HISTOGRAM_BINS
from ragviz.analysis.dashboard.aggregates import MAX_MARKS as MAX_MARKS
from ragviz.analysis.dashboard.aggregates import SCATTER_EXAMPLES as SCATTER_EXAMPLES
from ragviz.analysis.dashboard.aggregates import SubsetMeans, scatter_sample, subset_means
from ragviz.analysis.dashboard.aggregates import histogram_counts as histogram_counts
from ragviz.analysis.dashboard.agreement_table import AGREEMENT_COLUMNS as AGREEMENT_COLUMNS
from ragviz.analysis.dashboard.agreement_table import INTERVAL_COLUMNS as INTERVAL_COLUMNS
from ragviz.analysis.dashboard.agreement_table import agreement_rows as agreement_rows
from ragviz.analysis.dashboard.agreement_table import interval_text as interval_text
from ragviz.analysis.dashboard.baselines import baseline_table_of_scores, has_baseline_scores
from ragviz.analysis.dashboard.families import TRACE, FamilyView
from ragviz.analysis.dashboard.rows import RowFigures, row_figures
from ragviz.analysis.dashboard.triage import Disagreement, Leverage, best_moves, disagreements, top_leverage
from ragviz.analysis.labelsets.named import JUDGE, LabelSet, judge_labels, resolve_label_set, store_rows
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.dataset import examples_at
from ragviz.data.model import Example
from ragviz.metrics.trace import TRACE_METRICS, trace_scores

if TYPE_CHECKING:
    import pandas as pd

    from ragviz.data.dataset import Dataset
    from ragviz.store.label_store import LabelStore

__all__ = [
    "AGREEMENT_COLUMNS",
    "INTERVAL_COLUMNS",
    "DashboardData",
    "HISTOGRAM_BINS",
    "agreement_rows",
    "interval_text",
    "baseline_rows",
    "dashboard_data",
    "histogram_counts",
    "trace_view",
]


@dataclass
class DashboardData:
    """Per-example TRACe under the current labels, per-subset means with intervals, judge-vs-truth
    agreement over the reviewed examples, the baseline table and the triage lists. ``records`` is a
    ``pandas.DataFrame`` (``uid``, ``dataset`` and the four scores, NaN for null), one row per example."""

    against: LabelSelection
    records: pd.DataFrame
    means: list[dict[str, Any]]
    n_reviewed: int
    judge_agreement: Agreement
    scatter: list[dict[str, Any]]
    baselines: list[dict[str, Any]] | None
    #: Examples behind the scatter before sampling (:func:`scatter_sample`); ``scatter`` holds
    #: every one of them when this is at most :data:`SCATTER_EXAMPLES`.
    scatter_examples: int = 0
    leverage: dict[str, list[Leverage]] = field(default_factory=dict)
    disagreements: list[Disagreement] = field(default_factory=list)


def dashboard_data(
    dataset: Dataset,
    against: LabelSelection,
    store: LabelStore | None,
    top: int = 10,
    progress: Callable[[str, int, int], None] | None = None,
    base: RowFigures | None = None,
    base_means: SubsetMeans | None = None,
    examples: Mapping[int, Example] | None = None,
) -> DashboardData:
    """The Dashboard of *dataset* with the *against* label set (``human`` or an annotator) as the truth
    (undecided examples keep the judge's labels). *base*: ``dashboard_rows.row_figures(dataset)``, if
    kept; *base_means*: their ``subset_mean_state`` (the decided rows swapped in: ``updated``);
    *examples*: those of :func:`ragviz.analysis.labelsets.named.store_rows`, if built."""
    import pandas as pd

    n, step = len(dataset), progress or (lambda what, done, total: None)
    if base is None:
        base = row_figures(dataset, lambda done, total: step("Scoring the labels", done, total))
    have = examples_at(dataset, store_rows(dataset, store), examples)  # each built once, shared below
    reviewed = resolve_label_set(dataset, against, store, scope="reviewed", examples=have)
    judged = store.judge.judged_uids() if store is not None else set()
    stored = {i for uid in judged if (i := dataset.index_of(uid)) is not None}
    built = examples_at(dataset, wanted := sorted(set(reviewed.labels) | stored), have)  # + rows a file says are human
    examples = {i: built[i] for i in wanted}
    judge = {i: judge_labels(ex, store if ex.uid in judged else None) for i, ex in examples.items()}
    current = {i: reviewed.labels.get(i, judge[i]) for i in examples}
    figures = base.with_rows({i: (examples[i], current[i]) for i in examples})
    records = pd.DataFrame({"uid": dataset.uids, "dataset": dataset.datasets, **figures.scores})

    judged_labels = {i: label for i in sorted(reviewed.labels) if (label := judge[i]) is not None}
    judged_rows = list(judged_labels)
    agreed = agreement((examples[i], reviewed.labels[i], judged_labels[i]) for i in judged_rows)
    scatter = []
    for i in scatter_sample(judged_rows):
        ex = examples[i]
        before = trace_scores(judged_labels[i], ex.n_context_sentences)
        after = trace_scores(reviewed.labels[i], ex.n_context_sentences)
        for m in TRACE_METRICS:
            scatter.append({"uid": ex.uid, "metric": m, "judge": getattr(before, m), "human": getattr(after, m)})

    baselines = baseline_table_of_scores(dataset, figures.scores) if has_baseline_scores(dataset) else None
    step("Bootstrap intervals", 0, n)
    changed = {i: [figures.scores[m][i] for m in TRACE_METRICS] for i in examples}
    means = subset_means(records) if base_means is None else base_means.updated(changed).rows
    step("Which label change moves a metric most", 0, n)

    def moves(i: int) -> dict[str, tuple[str, float]]:
        ex = examples[i] if i in examples else dataset.example(i)
        labels = current[i] if i in examples else ex.judge_labels
        return best_moves(ex, labels) if labels is not None else {}

    uids = dataset.uids
    return DashboardData(
        against=against,
        records=records,
        means=means,
        n_reviewed=len(judged_rows),
        judge_agreement=agreed,
        scatter=scatter,
        scatter_examples=len(judged_rows),
        baselines=baselines,
        leverage=top_leverage(figures.moves, moves, uids.__getitem__, top, reviewed=set(reviewed.labels)),
        disagreements=disagreements(
            dataset,
            LabelSet(JUDGE.name, judged_labels),
            LabelSet(against.label(), {i: reviewed.labels[i] for i in judged_rows}),
            top,
            examples,
        ),
    )


def trace_view(data: DashboardData) -> FamilyView:
    """The TRACe family as a :class:`FamilyView`, from the records and means *data* already holds."""
    return FamilyView(TRACE, TRACE_METRICS, TRACE_METRICS, data.records, data.means, ())


def baseline_rows(baselines: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The baseline-judge table as the Dashboard shows it: the per-figure counts (``*_n_*``) left out."""
    return [{k: v for k, v in row.items() if "_n_" not in k} for row in baselines]
