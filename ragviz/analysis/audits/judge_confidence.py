"""The judge's own confidence (``ragviz label --samples N``, kept in the store) as data columns the audit designs read.

:func:`with_judge_confidence` gives the dataset the columns ``judge_confidence`` (an example's least sure metric)
and ``judge_confidence_<metric>`` per TRACe metric from the store, so the active design and Neyman allocation can
draw from them on the Review page and in ``ragviz audit draw --confidence`` alike. Where the store has no
confidence for a row, a column the file brought keeps its value (a file judged elsewhere may carry one).
"""

from __future__ import annotations

import pyarrow as pa

from ragviz.data.dataset import Dataset
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.store.judge_confidence import confidence_columns_of_metrics, confidence_row, example_confidences
from ragviz.store.label_store import LabelStore

__all__ = ["UNSURE_BELOW", "unsure_uids", "with_judge_confidence"]

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
