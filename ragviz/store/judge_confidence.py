"""The judge's confidence per example in the label store (migration ``018_judge_confidence``).

``ragviz label --samples N`` (and the Label page's "Samples") asks the judge N times; what the samples say is
kept here per example: per sentence label the share of the N samples that agree with the label kept, and per
TRACe metric a confidence in 0-1 (:mod:`ragviz.judge.sampling.agreement`). Each row belongs to the judge label set
it was measured on (``label_set_id``): once the example is judged again without samples its confidence is gone
rather than wrong. Rows are appended; the newest per example counts.

``ragviz label --confidence logprobs`` stores the same shares and confidences read from the token probabilities of
the kept answer alone (:mod:`ragviz.judge.sampling.logprobs`); such a row has ``n_samples`` =
:data:`LOGPROBS_SAMPLES` (1), which samples never give (they store 2 or more), so no column says how it was measured.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ragviz.store.connection import Query
from ragviz.store.events import now_iso
from ragviz.store.label_store import LabelStore

__all__ = [
    "CONFIDENCE_COLUMN",
    "LOGPROBS_SAMPLES",
    "SENTENCE_FIELDS",
    "ExampleConfidence",
    "confidence_column",
    "confidence_columns_of_metrics",
    "confidence_row",
    "example_confidence",
    "example_confidences",
    "save_confidences",
]

CONFIDENCE_COLUMN = "judge_confidence"  # the lowest of the example's metric confidences
# The n_samples of a confidence read from the kept answer's token probabilities (samples give 2 or more).
LOGPROBS_SAMPLES = 1
# Sentence label kinds whose agreement is kept: context sentences (relevant, utilized), response sentences.
SENTENCE_FIELDS = ("relevant", "utilized", "supported")


def confidence_column(metric: str) -> str:
    """The data column holding the judge's confidence on one TRACe metric (``judge_confidence_adherence``)."""
    return f"{CONFIDENCE_COLUMN}_{metric}"


def confidence_columns_of_metrics(metrics: Iterable[str]) -> list[str]:
    """:data:`CONFIDENCE_COLUMN` and one column per metric, in that order."""
    return [CONFIDENCE_COLUMN, *(confidence_column(m) for m in metrics)]


@dataclass(frozen=True)
class ExampleConfidence:
    """What N samples of the judge say about one example's kept labels.

    ``metrics``: TRACe metric -> confidence in 0-1 (``None`` where the metric has no value);
    ``sentences``: one of :data:`SENTENCE_FIELDS` -> sentence key -> share of the samples agreeing with the kept label
    (``n_samples`` = :data:`LOGPROBS_SAMPLES`: the probability the answer's tokens give the kept label).
    """

    example_uid: str
    n_samples: int
    metrics: dict[str, float | None]
    sentences: dict[str, dict[str, float]]

    @property
    def from_logprobs(self) -> bool:
        """Whether it was read from the kept answer's token probabilities rather than from samples."""
        return self.n_samples == LOGPROBS_SAMPLES

    @property
    def overall(self) -> float | None:
        """The lowest metric confidence (the judge is as sure of the example as of its least sure metric)."""
        values = [v for v in self.metrics.values() if v is not None]
        return min(values) if values else None


def confidence_row(item: ExampleConfidence | None, metrics: Iterable[str]) -> dict[str, float | None]:
    """The confidence columns of one example's row (``None`` in each when it has no confidence)."""
    if item is None:
        return dict.fromkeys(confidence_columns_of_metrics(metrics))
    return {CONFIDENCE_COLUMN: item.overall, **{confidence_column(m): item.metrics.get(m) for m in metrics}}


def save_confidences(store: LabelStore, items: Sequence[ExampleConfidence]) -> None:
    """Append each example's confidence, tied to its latest judge label set, in one transaction; an example
    without a judge label set is skipped (there is nothing the confidence would be about)."""
    if not items:
        return
    ts = now_iso()

    def save(q: Query) -> None:
        for item in items:
            row = q("SELECT MAX(id) FROM judge_label_sets WHERE example_uid = ?", (item.example_uid,)).fetchone()
            if row is None or row[0] is None:
                continue
            q(
                "INSERT INTO judge_confidence (example_uid, label_set_id, n_samples, metrics_json, sentences_json, ts)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    item.example_uid,
                    int(row[0]),
                    item.n_samples,
                    json.dumps(item.metrics, sort_keys=True),
                    json.dumps(item.sentences, sort_keys=True),
                    ts,
                ),
            )

    store.write(save)


_CURRENT = (
    "SELECT c.example_uid, c.n_samples, c.metrics_json, c.sentences_json FROM judge_confidence c"
    " WHERE c.id = (SELECT MAX(k.id) FROM judge_confidence k WHERE k.example_uid = c.example_uid)"
    " AND c.label_set_id = (SELECT MAX(j.id) FROM judge_label_sets j WHERE j.example_uid = c.example_uid)"
)


def _item(row: tuple) -> ExampleConfidence:
    return ExampleConfidence(str(row[0]), int(row[1]), json.loads(row[2]), json.loads(row[3]))


def example_confidences(store: LabelStore) -> dict[str, ExampleConfidence]:
    """uid -> the confidence measured on the example's current judge label set (examples without one left out)."""
    rows = store.query(_CURRENT)
    return {r[0]: _item(r) for r in rows}


def example_confidence(store: LabelStore, example_uid: str) -> ExampleConfidence | None:
    """One example's current confidence (``None``: never sampled, or judged again since)."""
    rows = store.query(_CURRENT + " AND c.example_uid = ?", (example_uid,))
    return _item(rows[0]) if rows else None
