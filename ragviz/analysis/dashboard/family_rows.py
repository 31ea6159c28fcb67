"""The Dashboard's per-example records of a metric family, from the rows' columns where it can.

Most rows of a label set carry their labels in their own label fields
(:meth:`ragviz.analysis.labelsets.rows.RowLabels.own_rows`): their Tonic, retrieval and answer values are
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
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.data.ragbench import LABEL_FIELDS
from ragviz.metrics.retrieval import DEFAULT_KS

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset
    from ragviz.data.model import Example, Labels

__all__ = ["PerExample", "ROW_FAMILIES", "mixed_records", "row_records", "tonic_columns"]


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
    for start in range(0, len(rows), _BATCH):
        yield from dataset.rows_at(rows[start : start + _BATCH], columns)


def row_records(
    dataset: Dataset, rows: Sequence[int], family: str, ks: Sequence[int] = DEFAULT_KS
) -> Iterator[tuple[int, dict]]:
    """``(row, record)`` for each of *rows* (in that order) under the labels its own fields carry:
    ``{uid, dataset, [system,] metric: value ...}`` as the Dashboard's records are (retrieval: one
    per system, none for a row without a ranking)."""
    from ragviz.metrics import answer, retrieval

    if family not in ROW_FAMILIES:
        raise ValueError(f"no row function for family {family!r} (expected one of {', '.join(ROW_FAMILIES)})")
    uids, names = dataset.uids, dataset.datasets
    if family == "tonic":
        yield from _tonic_records(dataset, rows)
        return
    for i, row in zip(rows, _rows(dataset, _columns(family), rows)):
        if family == "retrieval":
            records: Iterator[dict] = retrieval.family_records([row], [names[i]], ks)
        else:
            records = answer.family_records([row], [names[i]])
        for record in records:
            yield i, {"uid": uids[i], **{k: v for k, v in record.items() if k != "id"}}


def tonic_columns(batch: pa.Table, n_documents: np.ndarray) -> dict[str, np.ndarray] | None:
    """:func:`ragviz.metrics.tonic.tonic_arrays` of the rows of *batch* (label fields, ``response_sentences``,
    ``answer_similarity``) under the labels they carry, *n_documents* per row; ``None`` when the
    columns are not of RAGBench's types or hold values the row-by-row path reads differently (then
    :func:`ragviz.metrics.tonic.family_records` scores them). Rows with direct chunk labels are not
    handled here; rows with a response-sentence key written with a trailing dot (matched to its
    sentence on loading) are scored by :func:`~ragviz.metrics.tonic.family_records`."""
    from ragviz.data.label_columns import (
        dotted_response_key_rows,
        label_columns,
        label_columns_ok,
        label_values_ok,
        list_lengths,
        list_offsets,
    )
    from ragviz.data.ragbench import RELEVANT, UNSUPPORTED, UTILIZED
    from ragviz.metrics.tonic import SIMILARITY_FIELD, chunk_counts, family_records, supported_counts, tonic_arrays

    if not label_columns_ok(batch.schema) or not label_values_ok(batch):
        return None
    n = batch.num_rows
    sim_type = batch.schema.field(SIMILARITY_FIELD).type if SIMILARITY_FIELD in batch.schema.names else pa.null()
    if not (pa.types.is_floating(sim_type) or pa.types.is_integer(sim_type) or pa.types.is_null(sim_type)):
        return None
    if "response_sentences" in batch.schema.names:
        resp = batch.column("response_sentences").combine_chunks()
        if resp.type != pa.list_(pa.list_(pa.string())):
            return None
        pairs = pc.list_flatten(resp)
        if pairs.null_count or (len(pairs) and pc.min(pc.list_value_length(pairs)).as_py() < 1):
            return None
        keys = pc.list_element(pairs, 0) if len(pairs) else pa.array([], pa.string())
        if keys.null_count:
            return None
        response_keys = pa.ListArray.from_arrays(list_offsets(list_lengths(resp)), keys)
    else:
        response_keys = pa.ListArray.from_arrays(list_offsets(np.zeros(n, np.int64)), pa.array([], pa.string()))
    labels = label_columns(batch)
    chunks = chunk_counts(labels.columns[RELEVANT], labels.columns[UTILIZED], n_documents)
    sentences, supported = supported_counts(response_keys, labels.columns[UNSUPPORTED])
    if pa.types.is_null(sim_type):
        similarity = np.full(n, np.nan)
    else:
        similarity = np.asarray(batch.column(SIMILARITY_FIELD).to_numpy(), float)  # nulls -> NaN
    values = tonic_arrays(labels.labeled, n_documents, chunks, sentences, supported, similarity)
    dotted = dotted_response_key_rows(batch)  # keys matched on loading ("a." -> "a"): scored row by row
    if len(dotted):
        rows = batch.take(pa.array(dotted, pa.int64())).to_pylist()
        for i, record in zip(dotted.tolist(), family_records(rows, n_documents[dotted].tolist())):
            for metric, column in values.items():
                value = record[metric]
                column[i] = np.nan if value is None else value
    return values


def _tonic_records(dataset: Dataset, rows: Sequence[int]) -> Iterator[tuple[int, dict]]:
    """:func:`row_records` of Tonic: on columns a batch at a time (:func:`tonic_columns`),
    row by row (:func:`ragviz.metrics.tonic.family_records`) where a batch or a row (direct chunk
    labels) cannot be; in row order."""
    from ragviz.metrics import tonic

    wanted = np.zeros(len(dataset), bool)
    wanted[np.asarray(rows, np.int64)] = True
    uids, names, counts = dataset.uids, dataset.datasets, _document_counts(dataset)
    columns = [c for c in _columns("tonic") if c in dataset.table.column_names]
    direct = [c for c in (tonic.CHUNK_RELEVANT_FIELD, tonic.CHUNK_USED_FIELD) if c in columns]
    start = 0
    for batch in dataset.table.select(columns).to_batches(max_chunksize=8 * _BATCH):
        stop, part = start + batch.num_rows, pa.Table.from_batches([batch])
        picked = np.flatnonzero(wanted[start:stop])
        values = tonic_columns(part, counts[start:stop]) if len(picked) else None
        by_row = np.zeros(batch.num_rows, bool) if values is not None else np.ones(batch.num_rows, bool)
        for name in direct:
            by_row |= np.asarray(pc.is_valid(part.column(name)).to_numpy(zero_copy_only=False), bool)
        lists = {m: [None if v != v else v for v in a[picked].tolist()] for m, a in (values or {}).items()}
        slow = {int(k): r for k, r in zip(picked[by_row[picked]], part.take(picked[by_row[picked]]).to_pylist())}
        for n, k in enumerate(picked.tolist()):
            i = start + k
            if k in slow:
                (record,) = tonic.family_records([slow[k]], [int(counts[i])], [names[i]])
                yield i, {"uid": uids[i], **{f: v for f, v in record.items() if f != "id"}}
            else:
                yield i, {"uid": uids[i], "dataset": names[i], **{m: lists[m][n] for m in tonic.TONIC_METRICS}}
        start = stop


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
    (:meth:`~ragviz.analysis.labelsets.rows.RowLabels.own_rows`; every row for answer), *per_example*
    (``ragviz.analysis.dashboard.families.family_records``) for the others, their Examples built here
    (*examples*: any already built, by row index)."""
    from ragviz.analysis.labelsets.rows import RowLabels
    from ragviz.data.dataset import iter_examples

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
