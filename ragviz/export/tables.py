"""The exported rows as typed Arrow tables: RAGBench's fields with their canonical types whatever the values (an
all-null column is not "null"), other fields inferred; the whole export built batch by batch, rows nobody touched
computed on columns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from ragviz.analysis.labelsets.selection import Whose
from ragviz.data.dataset import BOOKKEEPING, Dataset
from ragviz.data.ragbench import LLM_PREFIX
from ragviz.export.casting import aligned_column
from ragviz.export.columnar import RowProvenance, plain_export_columns
from ragviz.export.rows import EXPORTING, TEXT_COLUMNS, RowsDone, export_batches, export_fields
from ragviz.store.label_store import LabelStore

__all__ = ["export_table", "rows_table"]


_STRING_LIST = pa.list_(pa.string())


_SUPPORT_TYPE = pa.list_(
    pa.struct(
        [
            ("explanation", pa.string()),
            ("fully_supported", pa.bool_()),
            ("response_sentence_key", pa.string()),
            ("supporting_sentence_keys", _STRING_LIST),
        ]
    )
)

# Columns whose type must not depend on the values (an all-null column would otherwise be "null").
_KNOWN_TYPES: dict[str, pa.DataType] = {
    "id": pa.string(),
    "question": pa.string(),
    "documents": _STRING_LIST,
    "response": pa.string(),
    "generation_model_name": pa.string(),
    "annotating_model_name": pa.string(),
    "dataset_name": pa.string(),
    "documents_sentences": pa.list_(pa.list_(_STRING_LIST)),
    "response_sentences": pa.list_(_STRING_LIST),
    "relevance_score": pa.float64(),
    "utilization_score": pa.float64(),
    "completeness_score": pa.float64(),
    "adherence_score": pa.bool_(),
    "label_source": pa.string(),
    "reviewer": pa.string(),
    "reviewed_at": pa.string(),
    "audit_sample": pa.bool_(),
}
for _prefix in ("", LLM_PREFIX):
    _KNOWN_TYPES.update(
        {
            _prefix + "all_relevant_sentence_keys": _STRING_LIST,
            _prefix + "all_utilized_sentence_keys": _STRING_LIST,
            _prefix + "sentence_support_information": _SUPPORT_TYPE,
            _prefix + "unsupported_response_sentence_keys": _STRING_LIST,
            _prefix + "relevance_explanation": pa.string(),
            _prefix + "overall_supported_explanation": pa.string(),
            _prefix + "overall_supported": pa.bool_(),
        }
    )
# The judge side's family inputs (only written by ragviz; the plain ones keep their input types).
_KNOWN_TYPES.update(
    {
        LLM_PREFIX + "relevant_ids": _STRING_LIST,
        LLM_PREFIX + "answer_similarity": pa.float64(),
        LLM_PREFIX + "chunk_relevant": pa.list_(pa.bool_()),
        LLM_PREFIX + "chunk_utilized": pa.list_(pa.bool_()),
    }
)


def rows_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Mapping[str, pa.ChunkedArray] | None = None,
    order: Sequence[str] = (),
) -> pa.Table:
    """An Arrow table of *rows*: RAGBench fields get their canonical types, others are inferred.

    Columns are in the order they first appear in *order*, then in the rows; *columns* are Arrow
    columns of the same rows that the rows leave out (the documents' text), taken as they are."""
    names: dict[str, None] = dict.fromkeys(order)
    for r in rows:
        names.update(dict.fromkeys(r))
    arrays: dict[str, pa.Array | pa.ChunkedArray] = {}
    for name in names:
        known = _KNOWN_TYPES.get(name)
        if columns is not None and name in columns:
            column = columns[name]
            same = known is None or column.type == known
            arrays[name] = column if same else pa.array(column.to_pylist(), type=known)
            continue
        values = [r.get(name) for r in rows]
        arrays[name] = pa.array(values, type=known) if known is not None else pa.array(values)
    return pa.table(arrays)  # type: ignore[arg-type]  # the stubs leave out ChunkedArray values


def _unify(tables: Sequence[pa.Table]) -> pa.Table:
    """Batch tables as one table, as :func:`rows_table` over all their rows would type it: columns
    in order of first appearance, a column inferred as null (or int) in one batch and as a
    concrete type (double) in another takes the concrete one, a missing column is null."""
    schema = pa.unify_schemas([t.schema for t in tables], promote_options="permissive")
    aligned = []
    for t in tables:
        arrays = [aligned_column(t, f) for f in schema]
        aligned.append(pa.Table.from_arrays(arrays, schema=schema))
    return pa.concat_tables(aligned)


def export_table(
    dataset: Dataset,
    store: LabelStore | None,
    whose: Whose,
    batch_size: int = 2048,
    progress: RowsDone | None = None,
) -> pa.Table:
    """The export as one Arrow table (the rows of :func:`export_rows`, typed as :func:`rows_table`
    types them), built batch by batch: rows the store knows nothing about are computed on columns
    (:mod:`ragviz.export.columnar`), only the others' labels are Python objects (one batch at a
    time), and the documents' text columns are the dataset's own Arrow buffers, never copied."""
    tables = []
    n_sentences = np.asarray(dataset.n_context_sentences, np.int64)
    start = 0
    for batch in export_batches(dataset, store, whose, batch_size, text=False):
        sliced = batch.sliced
        text = {c: sliced.column(c) for c in sliced.column_names if c in TEXT_COLUMNS}
        order = [c for c in sliced.column_names if c not in BOOKKEEPING]
        rows = [{**item.row, **export_fields(item)} for item in batch.items]
        if batch.plain is None or not batch.plain.any():
            tables.append(rows_table(rows, text, order))
        else:
            counts = n_sentences[start : start + sliced.num_rows][batch.plain]
            tables.append(_mixed_table(sliced, batch.plain, counts, rows, text, order, batch.provenance))
        start += sliced.num_rows
        _ = progress and progress(EXPORTING, start, len(dataset))
    if not tables:
        return rows_table([])
    return _unify(tables)


def _typed(name: str, values: pa.Array) -> pa.Array:
    """*values* typed as :func:`rows_table` types a column of their Python values."""
    known = _KNOWN_TYPES.get(name)
    if known is not None:
        return values if values.type == known else pa.array(values.to_pylist(), type=known)
    return pa.array(values.to_pylist())


def _mixed_table(
    sliced: pa.Table,
    plain: np.ndarray,
    n_sentences: np.ndarray,
    rows: Sequence[Mapping[str, Any]],
    text: Mapping[str, pa.ChunkedArray],
    order: Sequence[str],
    provenance: RowProvenance | None = None,
) -> pa.Table:
    """One batch as :func:`rows_table` of all its rows would give it: the *plain* rows' columns
    from :func:`plain_export_columns` (with their *provenance*), the other *rows* (in order) from Python, the text
    columns from the slice."""
    kept = sliced.drop_columns(list(text)).filter(pa.array(plain))
    plain_columns = plain_export_columns(kept, n_sentences, provenance)
    columns = {name: _typed(name, values) for name, values in plain_columns.items()}
    # the columns in order of first appearance over the rows: the plain rows' (all alike) where the first one is
    names: dict[str, None] = dict.fromkeys(order)
    before = int(np.argmax(plain))  # the rows built in Python before the first plain row (plain has a True)
    for row in rows[:before]:
        names.update(dict.fromkeys(row))
    names.update(dict.fromkeys(columns))
    for row in rows[before:]:
        names.update(dict.fromkeys(row))
    parts = [pa.table(columns)]
    if rows:
        parts.append(rows_table(rows))
    combined = _unify(parts) if len(parts) > 1 else parts[0]
    position = np.empty(len(plain), np.int64)
    position[plain] = np.arange(int(plain.sum()))
    position[~plain] = int(plain.sum()) + np.arange(int((~plain).sum()))
    combined = combined.take(position)
    arrays: dict[str, pa.Array | pa.ChunkedArray] = {}
    for name in names:
        if name in text:
            column = text[name]
            known = _KNOWN_TYPES.get(name)
            same = known is None or column.type == known
            arrays[name] = column if same else pa.array(column.to_pylist(), type=known)
        else:
            arrays[name] = combined.column(name)
    return pa.table(arrays)  # type: ignore[arg-type]  # the stubs leave out ChunkedArray values
