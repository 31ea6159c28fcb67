"""The metric families on the Dashboard and the Explainer (TRACe, Tonic Validate, retrieval, answer EM / F1): which
ones the loaded data can be scored with, each family's metrics, its per-example records under a label set and
their per-subset means (:class:`FamilyView`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from ragviz.analysis.dashboard.aggregates import subset_means
from ragviz.analysis.labelsets.named import resolve_label_set
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import LABEL_FIELDS, LLM_PREFIX
from ragviz.metrics.answer import ANSWER_METRICS, example_answer
from ragviz.metrics.retrieval import (
    BY_SYSTEM_FIELD,
    DEFAULT_KS,
    example_retrieval,
    metric_names,
    systems_of,
)
from ragviz.metrics.tonic import (
    CHUNK_RELEVANT_FIELD,
    CHUNK_USED_FIELD,
    SIMILARITY_FIELD,
    TONIC_METRICS,
    example_inputs,
    tonic_scores,
)
from ragviz.metrics.trace import TRACE_METRICS, trace_scores

if TYPE_CHECKING:
    import pandas as pd

    from ragviz.data.dataset import Dataset
    from ragviz.store.label_store import LabelStore

__all__ = [
    "ANSWER",
    "FAMILY_TITLES",
    "FamilyView",
    "NO_OVERRIDES",
    "RETRIEVAL",
    "TONIC",
    "TRACE",
    "chart_means",
    "dataset_families",
    "families_present",
    "family_means",
    "family_metrics",
    "family_records",
    "family_view",
    "unit_interval_metrics",
]


TRACE, TONIC, RETRIEVAL, ANSWER = "trace", "tonic", "retrieval", "answer"
FAMILY_TITLES = {TRACE: "TRACe", TONIC: "Tonic Validate", RETRIEVAL: "Retrieval", ANSWER: "Answer EM / F1"}
NO_OVERRIDES = Labels()


def families_present(examples: Mapping[int, Example]) -> list[str]:
    """The metric families the loaded data can be scored with, in :data:`FAMILY_TITLES` order:
    TRACe and Tonic when an example has labels (or direct chunk labels / a similarity score),
    retrieval when one has a retrieved ranking and gold ids, answer when one has a reference answer."""
    labelled = retrieval = answer = False
    for ex in examples.values():
        labelled = (
            labelled
            or ex.labels is not None
            or ex.judge_labels is not None
            or any(ex.extra.get(f) is not None for f in (CHUNK_RELEVANT_FIELD, CHUNK_USED_FIELD, SIMILARITY_FIELD))
        )
        retrieval = retrieval or (
            ex.relevant_ids is not None and bool(systems_of(ex.retrieved_ids, ex.extra.get(BY_SYSTEM_FIELD)))
        )
        answer = answer or bool(ex.reference_answer)
        if labelled and retrieval and answer:
            break
    present = {TRACE: labelled, TONIC: labelled, RETRIEVAL: retrieval, ANSWER: answer}
    return [f for f in FAMILY_TITLES if present[f]]


def dataset_families(dataset: Dataset) -> list[str]:
    """:func:`families_present` of every example of *dataset*, decided on its columns (a Python
    value per row only for ``retrieved_ids_by_system`` where a row has gold ids but no
    ``retrieved_ids``)."""
    table = dataset.table

    def valid(name: str) -> pa.Array | None:
        if name not in table.column_names or pa.types.is_null(table.schema.field(name).type):
            return None
        return pc.is_valid(table.column(name))

    def some(mask: pa.Array | None) -> bool:
        return mask is not None and bool(pc.any(mask).as_py())

    inputs = (CHUNK_RELEVANT_FIELD, CHUNK_USED_FIELD, SIMILARITY_FIELD)
    labelled = any(some(valid(f)) for f in (*LABEL_FIELDS, *(LLM_PREFIX + f for f in LABEL_FIELDS), *inputs))
    gold, ranked, by_system = valid("relevant_ids"), valid("retrieved_ids"), valid(BY_SYSTEM_FIELD)
    retrieval = gold is not None and some(pc.and_(gold, ranked) if ranked is not None else None)
    if not retrieval and gold is not None and by_system is not None:
        named = pc.and_(gold, by_system) if ranked is None else pc.and_(pc.and_(gold, by_system), pc.invert(ranked))
        rows = pc.indices_nonzero(pc.fill_null(named, False))
        retrieval = any(systems_of(None, v) for v in table.column(BY_SYSTEM_FIELD).take(rows).to_pylist())
    answer = False
    if "reference_answer" in table.column_names:
        column = table.column("reference_answer")
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            answer = some(pc.greater(pc.utf8_length(column), pa.scalar(0)))
        elif pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
            answer = some(pc.greater(pc.list_value_length(column), pa.scalar(0)))
        elif not pa.types.is_null(column.type):
            answer = any(bool(v) for v in column.drop_null().to_pylist())
    present = {TRACE: labelled, TONIC: labelled, RETRIEVAL: retrieval, ANSWER: answer}
    return [f for f in FAMILY_TITLES if present[f]]


def family_metrics(family: str, ks: Sequence[int] = DEFAULT_KS) -> tuple[str, ...]:
    """Every metric of *family* (retrieval: :func:`ragviz.metrics.retrieval.metric_names` of *ks*)."""
    return {
        TRACE: TRACE_METRICS,
        TONIC: TONIC_METRICS,
        RETRIEVAL: tuple(metric_names(ks)),
        ANSWER: ANSWER_METRICS,
    }[family]


def unit_interval_metrics(family: str, ks: Sequence[int] = DEFAULT_KS) -> tuple[str, ...]:
    """The metrics of *family* that lie in [0, 1], in the order the distribution and means charts
    draw them (retrieval: one row per measure, one column per k, MRR last; Tonic's
    answer_similarity is on a 0..5 scale and is only in the table)."""
    if family == RETRIEVAL:
        return (*(f"{m}@{k}" for m in ("recall", "precision", "hit", "ndcg") for k in ks), "mrr")
    return tuple(m for m in family_metrics(family, ks) if m != SIMILARITY_FIELD)


def _tonic_of(example: Example, labels: Labels | None) -> dict[str, float | None]:
    relevant, used, similarity = example_inputs(example, labels)
    return tonic_scores(
        labels, len(example.document_sentences), example.response_keys(), relevant, used, similarity
    ).as_dict()


def family_records(
    examples: Mapping[int, Example], current: Mapping[int, Labels], family: str, ks: Sequence[int] = DEFAULT_KS
) -> list[dict[str, Any]]:
    """Per-example values of *family* under the *current* labels (row index -> labels; a row it
    lacks is unlabeled), each from the family's own function: ``{uid, dataset, metric: value ...}``;
    retrieval has one record per (example, system) with a ``system`` field, and skips examples
    with no ranking. Answer EM/F1 do not depend on labels."""
    out: list[dict[str, Any]] = []
    for i in sorted(examples):
        ex = examples[i]
        labels = current.get(i)
        base = {"uid": ex.uid, "dataset": ex.dataset}
        if family == TRACE:
            out.append({**base, **trace_scores(labels, ex.n_context_sentences).as_dict()})
        elif family == TONIC:
            out.append({**base, **_tonic_of(ex, labels)})
        elif family == RETRIEVAL:
            for system, values in example_retrieval(ex, ks, labels or NO_OVERRIDES).items():
                out.append({**base, "system": system, **values})
        elif family == ANSWER:
            out.append({**base, **example_answer(ex).as_dict()})
        else:
            raise ValueError(f"unknown metric family {family!r} (expected one of {', '.join(FAMILY_TITLES)})")
    return out


def family_means(
    records: list[dict[str, Any]], metrics: Sequence[str], n_resamples: int = 1000
) -> list[dict[str, Any]]:
    """:func:`subset_means` of *records*; with several retrieval systems, per system (groups
    ``"<subset> · <system>"`` and ``"ALL · <system>"``: systems are never mixed in one mean)."""
    systems = sorted({r["system"] for r in records if "system" in r})
    if len(systems) <= 1:
        return subset_means(records, metrics, n_resamples)
    out = []
    for system in systems:
        for row in subset_means([r for r in records if r["system"] == system], metrics, n_resamples):
            out.append({**row, "dataset": f"{row['dataset']} · {system}"})
    return out


@dataclass(frozen=True)
class FamilyView:
    """One family on the Dashboard: its per-example records, the metrics the charts draw and
    the per-subset means with 95% expanded percentile-bootstrap intervals of every metric."""

    family: str
    metrics: tuple[str, ...]
    chart_metrics: tuple[str, ...]
    #: dicts, or a ``pandas.DataFrame`` with the same columns (TRACe: :attr:`~ragviz.analysis.dashboard.figures.DashboardData.records`)
    records: list[dict[str, Any]] | pd.DataFrame
    means: list[dict[str, Any]]
    systems: tuple[str, ...]

    @property
    def n_examples(self) -> int:
        """The examples with a record (retrieval has one record per example and system)."""
        if not isinstance(self.records, list):  # a DataFrame holds one row per example
            return len(self.records)
        return len({r["uid"] for r in self.records})


def family_view(
    dataset: Dataset,
    examples: Mapping[int, Example] | None,
    against: LabelSelection,
    store: LabelStore | None,
    family: str,
    ks: Sequence[int] = DEFAULT_KS,
) -> FamilyView:
    """:func:`family_records` and :func:`family_means` of *family* under the *against* label set
    (``human`` or an annotator; examples nobody decided on keep the judge's labels), an Example built
    only where the labels are not the row's own (:func:`ragviz.analysis.dashboard.family_rows.mixed_records`)."""
    from ragviz.analysis.dashboard.family_rows import mixed_records

    labels = (
        {} if family == ANSWER else resolve_label_set(dataset, against, store, scope="all", examples=examples).labels
    )
    records = mixed_records(dataset, labels, family, ks, examples, family_records)
    metrics = family_metrics(family, ks)
    systems = tuple(sorted({r["system"] for r in records if "system" in r}))
    return FamilyView(
        family, metrics, unit_interval_metrics(family, ks), records, family_means(records, metrics), systems
    )


def chart_means(view: FamilyView) -> list[dict[str, Any]]:
    """The means of the metrics the charts draw, in the charts' metric order."""
    order = view.chart_metrics
    return sorted((m for m in view.means if m["metric"] in order), key=lambda m: order.index(m["metric"]))
