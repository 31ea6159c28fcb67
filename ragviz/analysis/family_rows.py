"""The Dashboard's per-example records of a metric family, from the rows' columns where it can.

Most rows of a label set carry their labels in their own label fields
(:meth:`ragviz.analysis.row_labels.RowLabels.own_rows`): their Tonic, retrieval and answer values are
what ``ragviz metrics --family F`` computes from the row (each family's row function:
:func:`ragviz.metrics.tonic.family_records`, :func:`ragviz.metrics.retrieval.family_records`,
:func:`ragviz.metrics.answer.family_records`), reading only the columns that family needs, never the
documents' text. The other rows (a person's decision, the judge's ``llm_`` copy or stored label set)
are scored by the caller, example by example. Nothing here computes a metric.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow.compute as pc

from ragviz.data.ragbench import LABEL_FIELDS
from ragviz.metrics.retrieval import DEFAULT_KS

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset
    from ragviz.data.model import Example, Labels

PerExample = Callable[[Mapping[int, "Example"], Mapping[int, "Labels"], str, Sequence[int]], list[dict[str, Any]]]

ROW_FAMILIES = ("tonic", "retrieval", "answer")
_BATCH = 4096


def _columns(family: str) -> list[str]:
    from ragviz.metrics import retrieval, tonic

    return {
        "tonic": [*LABEL_FIELDS, *tonic.ROW_COLUMNS],
        "retrieval": list(retrieval.ROW_COLUMNS),
        "answer": ["id", "response", "reference_answer"],
    }[family]


def _document_counts(dataset: Dataset) -> np.ndarray:
    """Per row: its documents, as ``len(example.document_sentences)`` counts them."""
    if "documents_sentences" not in dataset.table.column_names:
        return np.zeros(len(dataset), np.int64)
    lengths = pc.fill_null(pc.list_value_length(dataset.table.column("documents_sentences")), 0)
    return np.asarray(lengths.to_numpy(), np.int64)


def _rows(dataset: Dataset, columns: list[str], rows: Sequence[int]) -> Iterator[dict[str, Any]]:
    table = dataset.table.select([c for c in columns if c in dataset.table.column_names])
    for start in range(0, len(rows), _BATCH):
        yield from table.take(np.asarray(rows[start : start + _BATCH], np.int64)).to_pylist()


def row_records(
    dataset: Dataset, rows: Sequence[int], family: str, ks: Sequence[int] = DEFAULT_KS
) -> Iterator[tuple[int, dict]]:
    """``(row, record)`` for each of *rows* (in that order) under the labels its own fields carry:
    ``{uid, dataset, [system,] metric: value ...}`` as the Dashboard's records are (retrieval: one
    per system, none for a row without a ranking)."""
    from ragviz.metrics import answer, retrieval, tonic

    if family not in ROW_FAMILIES:
        raise ValueError(f"no row function for family {family!r} (expected one of {', '.join(ROW_FAMILIES)})")
    uids, names = dataset.uids, dataset.datasets
    counts = _document_counts(dataset) if family == "tonic" else None
    for i, row in zip(rows, _rows(dataset, _columns(family), rows)):
        if family == "tonic":
            assert counts is not None
            records: Iterator[dict] = tonic.family_records([row], [int(counts[i])], [names[i]])
        elif family == "retrieval":
            records = retrieval.family_records([row], [names[i]], ks)
        else:
            records = answer.family_records([row], [names[i]])
        for record in records:
            yield i, {"uid": uids[i], **{k: v for k, v in record.items() if k != "id"}}


def mixed_records(
    dataset: Dataset,
    labels: Mapping[int, Labels],
    family: str,
    ks: Sequence[int],
    examples: Mapping[int, Example] | None,
    per_example: PerExample,
) -> list[dict[str, Any]]:
    """Every row's records of *family* under *labels* (row index -> labels; ``{}`` for answer, which
    reads none), in row order: :func:`row_records` for the rows whose labels are their own
    (:meth:`~ragviz.analysis.row_labels.RowLabels.own_rows`; every row for answer), *per_example*
    (``ragviz.analysis.dashboard.family_records``) for the others, their Examples built here
    (*examples*: any already built, by row index)."""
    from ragviz.analysis.compare import iter_examples
    from ragviz.analysis.row_labels import RowLabels

    own = np.zeros(len(dataset), bool)
    if family == "answer":  # EM / F1 never see a label
        own[:] = True
    elif family in ROW_FAMILIES and isinstance(labels, RowLabels):
        own = labels.own_rows()
    others = np.flatnonzero(~own).tolist()
    if isinstance(labels, RowLabels):
        labels.prefetch(others)
    by_row: dict[int, list[dict[str, Any]]] = {}
    for i, record in row_records(dataset, np.flatnonzero(own).tolist(), family, ks):
        by_row.setdefault(i, []).append(record)
    have = examples if examples is not None else {}
    built = iter_examples(dataset, [i for i in others if i not in have])
    for i, ex in itertools.chain(((i, have[i]) for i in others if i in have), built):
        by_row[i] = per_example({i: ex}, labels, family, ks)
    return [r for i in range(len(dataset)) for r in by_row.get(i, ())]
