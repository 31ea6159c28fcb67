"""RAGBench TRACe metrics: relevance, utilization, completeness, adherence.

These are the formulas the RAGBench authors used to compute the scores stored in the dataset
(checked with ``==`` on all 2,896 test rows in ``tests/test_conformance.py``). Key lists are
counted *as stored*: a duplicate or a key that names no sentence still counts until the labels are
normalized (:func:`ragviz.analysis.quality.normalize`).

References: Friel, Belyi, Sanyal, "RAGBench: Explainable Benchmark for Retrieval-Augmented
Generation Systems", 2024 (arXiv:2407.11005).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.summary import score_delta

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset

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


def trace_deltas(before: TraceScores, after: TraceScores) -> dict[str, float | None]:
    """Per TRACe metric, :func:`ragviz.metrics.summary.score_delta` from *before* to *after*."""
    return {m: score_delta(getattr(before, m), getattr(after, m)) for m in TRACE_METRICS}


def example_trace(example: Example, labels: Labels | None = None) -> TraceScores:
    """TRACe of *example* under *labels* (default: the labels the example carries)."""
    return trace_scores(example.labels if labels is None else labels, example.n_context_sentences)


def dataset_trace_records(dataset: Dataset) -> Iterator[dict[str, Any]]:
    """One record per example of *dataset*: ``id``, ``dataset``, ``generation_model`` and the TRACe
    scores of the labels the rows carry (``trace_mean`` is the mean of the four).

    Only the key columns are converted to Python and N comes from a columnar count, so this
    costs a fraction of materialising the rows (the documents' text is never touched).
    """
    from ragviz.data.ragbench import LABEL_FIELDS, labels_from_row

    columns = ["id", *LABEL_FIELDS]
    n_sentences = dataset.n_context_sentences
    names, models = dataset.datasets, dataset.generation_models
    for i, row in enumerate(dataset.iter_rows(columns)):
        scores = trace_scores(labels_from_row(row), n_sentences[i])
        yield {
            "id": "" if row.get("id") is None else str(row["id"]),
            "dataset": names[i],
            "generation_model": models[i],
            **scores.as_dict(),
        }
