"""RAGBench TRACe metrics: relevance, utilization, completeness, adherence.

These are the formulas the RAGBench authors used to compute the scores stored in the dataset
(checked with ``==`` on all 2,896 test rows in ``tests/metrics/test_conformance.py``). Key lists are
counted *as stored*: a duplicate or a key that names no sentence still counts until the labels are
normalized (:func:`ragviz.analysis.quality.issues.normalize`).

References: Friel, Belyi, Sanyal, "RAGBench: Explainable Benchmark for Retrieval-Augmented
Generation Systems", 2024 (arXiv:2407.11005).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.summary import score_delta

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset
    from ragviz.data.label_columns import LabelColumns

__all__ = [
    "TRACE_METRICS",
    "TraceScores",
    "UNLABELED",
    "adherence",
    "completeness",
    "dataset_adherence",
    "dataset_trace_records",
    "example_trace",
    "relevance",
    "trace_arrays",
    "trace_deltas",
    "trace_scores",
    "utilization",
]


TRACE_METRICS = ("relevance", "utilization", "completeness", "adherence")


@dataclass(frozen=True)
class TraceScores:
    """The four TRACe scores of one example; all ``None`` when the example is unlabeled."""

    relevance: float | None
    utilization: float | None
    completeness: float | None
    adherence: float | None

    @property
    def mean(self) -> float | None:
        """Mean of the four scores, ``None`` when any is undefined."""
        r, u, c, a = self.relevance, self.utilization, self.completeness, self.adherence
        if r is None or u is None or c is None or a is None:
            return None
        return (r + u + c + a) / 4

    @property
    def labeled(self) -> bool:
        return self.adherence is not None

    def as_dict(self) -> dict[str, float | None]:
        d = asdict(self)
        d["trace_mean"] = self.mean
        return d


UNLABELED = TraceScores(None, None, None, None)


def relevance(relevant_keys: Sequence[str], n_sentences: int) -> float | None:
    """Share of context sentences relevant to the question.

    .. math:: \\mathrm{relevance} = |R| / N

    *R* is the relevant key list as stored (duplicates count), *N* the number of sentences over
    all documents. ``None`` when there is no context sentence (N = 0).

    >>> relevance(["0b", "0c", "1a", "1b"], 6)
    0.6666666666666666
    """
    if n_sentences == 0:
        return None
    return len(relevant_keys) / n_sentences


def utilization(utilized_keys: Sequence[str], n_sentences: int) -> float | None:
    """Share of context sentences the response used.

    .. math:: \\mathrm{utilization} = |U| / N

    ``None`` when N = 0.

    >>> utilization(["0b", "0c", "1a"], 6)
    0.5
    """
    if n_sentences == 0:
        return None
    return len(utilized_keys) / n_sentences


def completeness(relevant_keys: Sequence[str], utilized_keys: Sequence[str]) -> float:
    """Share of the relevant sentences that were used.

    .. math:: \\mathrm{completeness} = |set(R) \\cap set(U)| / |R|

    The numerator is over distinct keys, the denominator counts *R* as stored (this is what the
    dataset's stored scores do). 1.0 when *R* is empty: nothing relevant was left unused.

    >>> completeness(["0b", "0c", "1a", "1b"], ["0b", "0c", "1a"])
    0.75
    >>> completeness([], ["0a"])
    1.0
    """
    if not relevant_keys:
        return 1.0
    return len(set(relevant_keys) & set(utilized_keys)) / len(relevant_keys)


def adherence(unsupported_response_keys: Iterable[str]) -> float:
    """1.0 when no response sentence is unsupported by the context, else 0.0 (boolean, never a
    fraction: one hallucinated sentence makes the whole answer non-adherent).

    .. math:: \\mathrm{adherence} = [\\, |\\{s : s \\text{ unsupported}\\}| = 0 \\,]

    >>> adherence([]), adherence(["c"])
    (1.0, 0.0)
    """
    return 0.0 if any(True for _ in unsupported_response_keys) else 1.0


def trace_scores(labels: Labels | None, n_sentences: int) -> TraceScores:
    """All four TRACe scores for one label set over *n_sentences* context sentences.

    ``labels is None`` (an unlabeled example) gives :data:`UNLABELED`: null scores, never 0 or 1,
    so an unlabeled answer never looks perfectly adherent.
    """
    if labels is None:
        return UNLABELED
    return TraceScores(
        relevance=relevance(labels.relevant_keys, n_sentences),
        utilization=utilization(labels.utilized_keys, n_sentences),
        completeness=completeness(labels.relevant_keys, labels.utilized_keys),
        adherence=adherence(unsupported_keys(labels)),
    )


def trace_arrays(labels: LabelColumns, n_sentences: np.ndarray) -> dict[str, np.ndarray]:
    """The four TRACe scores of many examples at once, from the per-row counts of
    :func:`ragviz.data.label_columns.label_columns` over *n_sentences* context sentences each: the
    formulas of :func:`relevance`, :func:`utilization`, :func:`completeness` and :func:`adherence`
    (|R| / N, |U| / N, |set(R) ∩ set(U)| / |R| or 1.0, 1.0 unless a sentence is unsupported), the
    same floats :func:`trace_scores` gives; NaN where it gives ``None`` (unlabeled; N = 0)."""
    n = np.asarray(n_sentences, np.int64)
    unlabeled = ~labels.labeled
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = labels.n_relevant.astype(np.float64) / n.astype(np.float64)
        util = labels.n_utilized.astype(np.float64) / n.astype(np.float64)
        comp = np.where(
            labels.n_relevant == 0, 1.0, labels.n_overlap / np.maximum(labels.n_relevant, 1).astype(np.float64)
        )
    adh = np.where(labels.n_unsupported == 0, 1.0, 0.0)
    rel[unlabeled | (n == 0)] = np.nan
    util[unlabeled | (n == 0)] = np.nan
    comp[unlabeled] = np.nan
    adh[unlabeled] = np.nan
    return {"relevance": rel, "utilization": util, "completeness": comp, "adherence": adh}


def trace_deltas(before: TraceScores, after: TraceScores) -> dict[str, float | None]:
    """Per TRACe metric, :func:`ragviz.metrics.summary.score_delta` from *before* to *after*."""
    return {m: score_delta(getattr(before, m), getattr(after, m)) for m in TRACE_METRICS}


def example_trace(example: Example, labels: Labels | None = None) -> TraceScores:
    """TRACe of *example* under *labels* (default: the labels the example carries)."""
    return trace_scores(example.labels if labels is None else labels, example.n_context_sentences)


def dataset_trace_records(dataset: Dataset, batch_size: int = 65536) -> Iterator[dict[str, Any]]:
    """One record per example of *dataset*: ``id``, ``dataset``, ``generation_model`` and the TRACe
    scores of the labels the rows carry (``trace_mean`` is the mean of the four).

    The scores are computed on Arrow columns (:func:`trace_arrays`) batch by batch, N comes from
    a columnar count and the documents' text is never touched; label columns of other types
    than RAGBench's go row by row through :func:`ragviz.data.ragbench.labels_from_row`.
    """
    from ragviz.data.label_columns import label_columns, label_columns_ok, label_values_ok
    from ragviz.data.ragbench import LABEL_FIELDS, labels_from_row

    columns = ["id", *LABEL_FIELDS]
    n_sentences = dataset.n_context_sentences
    names, models, ids = dataset.datasets, dataset.generation_models, dataset.ids
    table = dataset.table.select([c for c in columns if c in dataset.table.column_names])
    columnar = label_columns_ok(table.schema)
    start = 0
    for batch in table.to_batches(max_chunksize=batch_size):
        stop = start + batch.num_rows
        part = pa.Table.from_batches([batch])
        if columnar and label_values_ok(part):
            scores = trace_arrays(label_columns(part), np.asarray(n_sentences[start:stop], np.int64))
            mean = (scores["relevance"] + scores["utilization"] + scores["completeness"] + scores["adherence"]) / 4
            values = [[None if v != v else v for v in scores[m].tolist()] for m in TRACE_METRICS]
            means = [None if v != v else v for v in mean.tolist()]
            for k, i in enumerate(range(start, stop)):
                yield {
                    "id": ids[i],
                    "dataset": names[i],
                    "generation_model": models[i],
                    "relevance": values[0][k],
                    "utilization": values[1][k],
                    "completeness": values[2][k],
                    "adherence": values[3][k],
                    "trace_mean": means[k],
                }
        else:
            for k, row in enumerate(part.to_pylist()):
                i = start + k
                yield {
                    "id": ids[i],
                    "dataset": names[i],
                    "generation_model": models[i],
                    **trace_scores(labels_from_row(row), n_sentences[i]).as_dict(),
                }
        start = stop


def dataset_adherence(dataset: Dataset, batch_size: int = 65536) -> list[float | None]:
    """Per row of *dataset*, the :func:`adherence` of the labels it carries (``None`` when unlabeled), as
    ``trace_scores(labels_from_row(row), 0).adherence`` gives it row by row: counted on the label columns
    (:func:`ragviz.data.label_columns.label_columns`) batch by batch, row by row only for label
    columns of other types than RAGBench's."""
    from ragviz.data.label_columns import label_columns, label_columns_ok, label_values_ok
    from ragviz.data.ragbench import LABEL_FIELDS, labels_from_row

    table = dataset.table.select([c for c in LABEL_FIELDS if c in dataset.table.column_names])
    columnar = label_columns_ok(table.schema)
    out: list[float | None] = []
    for batch in table.to_batches(max_chunksize=batch_size):
        part = pa.Table.from_batches([batch])
        if columnar and label_values_ok(part):
            labels = label_columns(part)
            scores = np.where(labels.n_unsupported == 0, 1.0, 0.0).tolist()
            out += [s if labeled else None for s, labeled in zip(scores, labels.labeled.tolist())]
        else:
            out += [trace_scores(labels_from_row(row), 0).adherence for row in part.to_pylist()]
    if not table.num_columns:
        out = [None] * len(dataset)
    return out
