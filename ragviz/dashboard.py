"""Everything the Dashboard shows, computed in one pass from the loaded data and the label store.

No metric is computed here: per-example scores come from :func:`ragviz.metrics.trace.trace_scores`,
comparisons from :mod:`ragviz.agreement`, baseline figures from :mod:`ragviz.baselines`, rankings
from :mod:`ragviz.triage`. The result is plain data the page draws (and caches per label version).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from ragviz.agreement import Agreement, MeanInterval, agreement, bootstrap_mean_ci
from ragviz.baselines import baseline_table_against, has_baseline_scores
from ragviz.compare import JUDGE, LabelSet, resolve_label_set
from ragviz.metrics.summary import subset_groups
from ragviz.metrics.trace import TRACE_METRICS, trace_scores
from ragviz.model import Example
from ragviz.triage import Disagreement, Leverage, disagreements, leverage_by_metric

if TYPE_CHECKING:
    from ragviz.dataset import Dataset
    from ragviz.store import LabelStore


@dataclass
class DashboardData:
    """Per-example TRACe under the current labels, per-subset means with intervals, judge-vs-truth
    agreement over the reviewed examples, the baseline table and the triage lists."""

    against: str
    records: list[dict[str, Any]]
    means: list[dict[str, Any]]
    n_reviewed: int
    judge_agreement: Agreement
    scatter: list[dict[str, Any]]
    baselines: list[dict[str, Any]] | None
    leverage: dict[str, list[Leverage]] = field(default_factory=dict)
    disagreements: list[Disagreement] = field(default_factory=list)


# LabelAgreement.as_dict() key -> the Dashboard's column title
AGREEMENT_COLUMNS = {
    "n": "decisions", "kappa": "Cohen's κ", "precision": "precision", "recall": "recall", "f1": "F1",
    "accuracy": "accuracy", "tp": "TP", "fp": "FP", "fn": "FN", "tn": "TN",
}


def agreement_rows(agreement: Agreement) -> list[dict[str, Any]]:
    """One row per binary label (:data:`ragviz.agreement.BINARY_LABELS`): the figures of
    :meth:`ragviz.agreement.LabelAgreement.as_dict` under the Dashboard's column titles."""
    return [
        {"label": label, **{AGREEMENT_COLUMNS[k]: v for k, v in la.as_dict().items()}}
        for label, la in agreement.labels.items()
    ]


def subset_means(records: list[dict[str, Any]], metrics: tuple[str, ...] = TRACE_METRICS, n_resamples: int = 1000) -> list[dict[str, Any]]:
    """Mean and 95% bootstrap interval of each metric per subset (and ``ALL``), null values left out."""
    out = []
    for name, rows in subset_groups(records, lambda r: r["dataset"]):
        for m in metrics:
            ci: MeanInterval = bootstrap_mean_ci([r[m] for r in rows if r[m] is not None], n_resamples=n_resamples)
            out.append({"dataset": name, "metric": m, "mean": ci.mean, "low": ci.low, "high": ci.high, "n": ci.n})
    return out


def dashboard_data(
    dataset: "Dataset",
    examples: Mapping[int, Example],
    against: str,
    store: "LabelStore | None",
    top: int = 10,
) -> DashboardData:
    """Compute the Dashboard for *dataset* (*examples*: every row's Example by index) with the
    *against* label set (``human`` or an annotator) as the current truth."""
    judge: LabelSet = resolve_label_set(dataset, JUDGE, store, examples=examples)
    current = resolve_label_set(dataset, against, store, scope="all", examples=examples)
    reviewed = resolve_label_set(dataset, against, store, scope="reviewed", examples=examples)

    records = []
    for i in range(len(dataset)):
        ex = examples[i]
        scores = trace_scores(current.labels.get(i), ex.n_context_sentences)
        records.append({"uid": ex.uid, "dataset": ex.dataset, **{m: getattr(scores, m) for m in TRACE_METRICS}})

    rows = sorted(reviewed.labels)
    judged_rows = [i for i in rows if i in judge.labels]
    agreed = agreement((examples[i], reviewed.labels[i], judge.labels[i]) for i in judged_rows)
    scatter = []
    for i in judged_rows:
        ex = examples[i]
        before = trace_scores(judge.labels[i], ex.n_context_sentences)
        after = trace_scores(reviewed.labels[i], ex.n_context_sentences)
        for m in TRACE_METRICS:
            scatter.append({"uid": ex.uid, "metric": m, "judge": getattr(before, m), "human": getattr(after, m)})

    baselines = baseline_table_against(dataset, current) if has_baseline_scores(dataset) else None

    items = [(i, examples[i], current.labels.get(i)) for i in range(len(dataset))]
    return DashboardData(
        against=against,
        records=records,
        means=subset_means(records),
        n_reviewed=len(judged_rows),
        judge_agreement=agreed,
        scatter=scatter,
        baselines=baselines,
        leverage=leverage_by_metric(items, TRACE_METRICS, top),
        disagreements=disagreements(dataset, judge, LabelSet(against, {i: reviewed.labels[i] for i in judged_rows}), top),
    )
