"""The judge's own confidence (``ragviz label --samples N``, kept in the store) as data columns the audit designs read.

:func:`with_judge_confidence` gives the dataset the columns ``judge_confidence`` (an example's least sure metric)
and ``judge_confidence_<metric>`` per TRACe metric from the store, so the active design and Neyman allocation can
draw from them on the Review page and in ``ragviz audit draw --confidence`` alike. Where the store has no
confidence for a row, a column the file brought keeps its value (a file judged elsewhere may carry one).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

from ragviz.data.dataset import Dataset
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.store.judge_confidence import (
    LOGPROBS_SAMPLES,
    ExampleConfidence,
    confidence_columns_of_metrics,
    confidence_row,
    example_confidences,
)
from ragviz.store.label_store import LabelStore

__all__ = ["UNSURE_BELOW", "UnsureSentences", "unsure_sentences", "unsure_uids", "with_judge_confidence"]

# A sentence label that fewer than this share of the samples agree with is "unsure" (the Review marker and filter);
# an example is unsure when its least sure metric's confidence is below it.
UNSURE_BELOW = 0.75


def with_judge_confidence(dataset: Dataset, store: LabelStore) -> Dataset:
    """*dataset* with the judge's confidence columns filled from *store* (unchanged when the store has none)."""
    stored = example_confidences(store)
    if not stored:
        return dataset
    rows = [confidence_row(stored.get(uid), TRACE_METRICS) for uid in dataset.uids]
    table = dataset.table
    for name in confidence_columns_of_metrics(TRACE_METRICS):
        values = [row[name] for row in rows]
        if name in table.column_names:
            old = table.column(name).to_pylist()
            values = [
                v if v is not None else (float(o) if isinstance(o, (int, float)) else None) for v, o in zip(values, old)
            ]
            table = table.set_column(table.column_names.index(name), name, pa.array(values, pa.float64()))
        else:
            table = table.append_column(name, pa.array(values, pa.float64()))
    return Dataset(table)


def unsure_uids(store: LabelStore, below: float = UNSURE_BELOW) -> set[str]:
    """Examples whose judge confidence (the least sure metric) is below *below* (the Review filter "judge unsure")."""
    return {
        uid for uid, item in example_confidences(store).items() if item.overall is not None and item.overall < below
    }


@dataclass(frozen=True)
class UnsureSentences:
    """The judge's sentence labels that fewer than :data:`UNSURE_BELOW` of its samples agree with, key -> what the
    samples said in words (the Review page's faint marker and its tooltip)."""

    context: dict[str, str] = field(default_factory=dict)
    response: dict[str, str] = field(default_factory=dict)


def _agreeing(share: float, n: int) -> str:
    if n == LOGPROBS_SAMPLES:  # read from the kept answer's token probabilities (``--confidence logprobs``)
        return f"token probability {share:.0%}"
    return f"{round(share * n)} of {n} samples agree"


def unsure_sentences(item: ExampleConfidence | None, below: float = UNSURE_BELOW) -> UnsureSentences:
    """Which of the example's judge labels its samples disagreed on (nothing when it was never sampled).

    >>> item = ExampleConfidence("u", 3, {}, {"relevant": {"0a": 2 / 3, "0b": 1.0}, "utilized": {"0a": 1.0},
    ...                                       "supported": {"a": 1 / 3}})
    >>> unsure_sentences(item)
    UnsureSentences(context={'0a': 'judge unsure: relevant 2 of 3 samples agree'}, response={'a': 'judge unsure: supported 1 of 3 samples agree'})
    >>> unsure_sentences(ExampleConfidence("u", 1, {}, {"supported": {"a": 0.6}})).response
    {'a': 'judge unsure: supported token probability 60%'}
    """
    if item is None:
        return UnsureSentences()
    n = item.n_samples
    context: dict[str, str] = {}
    for kind in ("relevant", "utilized"):
        for key, share in item.sentences.get(kind, {}).items():
            if share < below:
                said = f"{kind} {_agreeing(share, n)}"
                context[key] = f"{context[key]}; {said}" if key in context else f"judge unsure: {said}"
    response = {
        key: f"judge unsure: supported {_agreeing(share, n)}"
        for key, share in item.sentences.get("supported", {}).items()
        if share < below
    }
    return UnsureSentences(context, response)
