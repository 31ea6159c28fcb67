"""The exported rows as files: JSONL, Parquet with RAGBench's Hugging Face feature types, per-example metrics as CSV, written atomically."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Mapping, Sequence
from typing import IO, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ragviz.analysis.labelsets.selection import Whose
from ragviz.data.dataset import BOOKKEEPING, Dataset
from ragviz.data.ragbench import LLM_PREFIX
from ragviz.export.card import with_hf_features
from ragviz.export.casting import aligned_column
from ragviz.export.columnar import plain_export_columns
from ragviz.export.json_text import json_default, json_lines, json_safe, string_bytes
from ragviz.export.output import binary_output as _binary_output
from ragviz.export.output import write_output
from ragviz.export.rows import (
    EXPORTING,
    METRICS_COLUMNS,
    TEXT_COLUMNS,
    ExportBatch,
    RowsDone,
    export_batches,
    export_fields,
    export_row,
    metrics_table,
)
from ragviz.export.shapes import SHAPES, write_shape
from ragviz.store.label_store import LabelStore

__all__ = [
    "FORMATS",
    "MIME_TYPES",
    "PARQUET_ROW_GROUP",
    "WRITING_PARQUET",
    "export_bytes",
    "export_filename",
    "export_table",
    "jsonl_bytes",
    "jsonl_text",
    "metrics_csv",
    "metrics_csv_bytes",
    "metrics_records_csv",
    "parquet_bytes",
    "rows_table",
    "write_download",
    "write_export",
    "write_jsonl",
    "write_metrics_csv",
    "write_parquet",
]


FORMATS = ("jsonl", "parquet", "csv")
#: The step a Parquet export's progress names once its rows are built.
WRITING_PARQUET = "Writing the Parquet file"
#: Rows per row group of an exported Parquet file (its write reports progress once a row group).
PARQUET_ROW_GROUP = 8192

MIME_TYPES = {
    "jsonl": "application/jsonl",
    "parquet": "application/vnd.apache.parquet",
    "csv": "text/csv",
    "ragas": "application/jsonl",
    "deepeval": "application/json",
    "ragchecker": "application/json",
}
# the download name's ending per format (a tool shape names its tool)
_EXTENSIONS = {
    "csv": "metrics.csv",
    "ragas": "ragas.jsonl",
    "deepeval": "deepeval.json",
    "ragchecker": "ragchecker.json",
}


def jsonl_text(rows: Sequence[Mapping[str, Any]]) -> str:
    return "".join(_jsonl_line(r) for r in rows)


def _jsonl_line(row: Mapping[str, Any]) -> str:
    return json.dumps(json_safe(dict(row)), ensure_ascii=False, default=json_default) + "\n"


def jsonl_bytes(rows: Sequence[Mapping[str, Any]]) -> bytes:
    return jsonl_text(rows).encode("utf-8")


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
            tables.append(_mixed_table(sliced, batch.plain, counts, rows, text, order))
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
) -> pa.Table:
    """One batch as :func:`rows_table` of all its rows would give it: the *plain* rows' columns
    from :func:`plain_export_columns`, the other *rows* (in order) from Python, the text columns
    from the slice."""
    kept = sliced.drop_columns(list(text)).filter(pa.array(plain))
    columns = {name: _typed(name, values) for name, values in plain_export_columns(kept, n_sentences).items()}
    names: dict[str, None] = dict.fromkeys(order)
    remaining = iter(rows)
    template = [*columns]
    for is_plain in plain:
        names.update(dict.fromkeys(template) if is_plain else dict.fromkeys(next(remaining)))
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


def parquet_bytes(rows: Sequence[Mapping[str, Any]]) -> bytes:
    buf = io.BytesIO()
    pq.write_table(with_hf_features(rows_table(rows)), buf)
    return buf.getvalue()


def metrics_csv(dataset: Dataset, store: LabelStore | None, whose: Whose, progress: RowsDone | None = None) -> str:
    """The per-example metrics (:func:`metrics_records`) as CSV text; null -> empty cell. *progress*
    hears ``(what, rows done, total)`` once a batch."""
    return metrics_records_csv(metrics_table(dataset, store, whose, progress=progress).to_pylist())


def metrics_records_csv(records: Sequence[Mapping[str, Any]]) -> str:
    """*records* of :func:`metrics_records` as CSV text (only the header when there is none)."""
    from ragviz.data.records import write_csv

    buf = io.StringIO()
    if records:
        write_csv(records, buf)
    else:
        buf.write(",".join(METRICS_COLUMNS) + "\n")
    return buf.getvalue()


def metrics_csv_bytes(
    dataset: Dataset, store: LabelStore | None, whose: Whose, progress: RowsDone | None = None
) -> bytes:
    return metrics_csv(dataset, store, whose, progress).encode("utf-8")


def write_download(
    dataset: Dataset,
    store: LabelStore | None,
    whose: Whose,
    fmt: str,
    out: IO[bytes],
    progress: RowsDone | None = None,
) -> None:
    """Write the whole export in *fmt* (``jsonl``, ``parquet``, ``csv`` = metrics, or a tool's shape:
    ``ragas``, ``deepeval``, ``ragchecker``, :mod:`ragviz.export.shapes`) to the binary file *out*, as
    the app's download gives it; *progress* hears ``(what, rows done, total)`` once a batch."""
    if fmt == "csv":
        out.write(metrics_csv_bytes(dataset, store, whose, progress))
    elif fmt in SHAPES:
        write_shape(dataset, store, whose, fmt, out, progress=progress)
    elif fmt in FORMATS:
        write_export(dataset, store, whose, fmt, out, progress=progress)
    else:
        raise ValueError(f"unknown export format {fmt!r} (choose from {', '.join((*FORMATS, *SHAPES))})")


def export_bytes(
    dataset: Dataset, store: LabelStore | None, whose: Whose, fmt: str, progress: RowsDone | None = None
) -> bytes:
    """The bytes :func:`write_download` writes."""
    buf = io.BytesIO()
    write_download(dataset, store, whose, fmt, buf, progress)
    return buf.getvalue()


def write_export(
    dataset: Dataset,
    store: LabelStore | None,
    whose: Whose,
    fmt: str,
    path_or_file: str | os.PathLike | IO[bytes],
    batch_size: int = 2048,
    progress: RowsDone | None = None,
) -> tuple[int, int]:
    """Write the export of *dataset* (``jsonl`` or ``parquet``; the rows of :func:`export_rows`,
    the same bytes as :func:`write_jsonl` / :func:`write_parquet` of them) to a path (atomically),
    ``"-"`` (stdout) or a binary file object, batch by batch; returns (rows, human-reviewed rows).

    JSONL is written a batch of lines at a time. Parquet is typed from every row (as
    :func:`rows_table` does), so the batches are kept as Arrow tables, whose text columns are the
    dataset's own buffers, and written at the end in one go."""
    if fmt not in ("jsonl", "parquet"):
        raise ValueError(f"write_export writes jsonl or parquet, not {fmt!r}")
    with _binary_output(path_or_file) as out:
        if fmt == "parquet":
            table = with_hf_features(export_table(dataset, store, whose, batch_size, progress))
            _write_parquet_row_groups(table, out, progress)
            sources = table.column("label_source").to_pylist() if "label_source" in table.column_names else []
            n_human = sum(s in ("human", "agreed", "adjudicated") for s in sources)
            return table.num_rows, n_human
        n_rows = n_human = 0
        n_sentences = np.asarray(dataset.n_context_sentences, np.int64)
        for batch in export_batches(dataset, store, whose, batch_size):
            _write_jsonl_batch(batch, n_sentences[n_rows : n_rows + batch.sliced.num_rows], out)
            n_rows += batch.sliced.num_rows
            n_human += sum(
                1
                for item in batch.items
                if item.current is not None and item.label_source in ("human", "agreed", "adjudicated")
            )
            _ = progress and progress(EXPORTING, n_rows, len(dataset))
        return n_rows, n_human


def _write_parquet_row_groups(table: pa.Table, out: IO[bytes], progress: RowsDone | None) -> None:
    """*table* as Parquet, :data:`PARQUET_ROW_GROUP` rows a row group, telling *progress* after each."""
    if not table.num_rows:
        pq.write_table(table, out)
        return
    with pq.ParquetWriter(out, table.schema) as writer:
        for start in range(0, table.num_rows, PARQUET_ROW_GROUP):
            writer.write_table(table.slice(start, PARQUET_ROW_GROUP))
            _ = progress and progress(WRITING_PARQUET, min(start + PARQUET_ROW_GROUP, table.num_rows), table.num_rows)


def _write_jsonl_batch(batch: ExportBatch, n_sentences: np.ndarray, out: IO[bytes]) -> None:
    """The JSON lines of one batch in row order: the plain rows' lines from Arrow
    (:func:`json_lines`), the other rows' from :func:`export_row` and ``json.dumps``."""
    if batch.plain is None or not batch.plain.any():
        out.write("".join(_jsonl_line(export_row(item)) for item in batch.items).encode("utf-8"))
        return
    plain = batch.plain
    lines = json_lines(plain_export_columns(batch.sliced.filter(pa.array(plain)), n_sentences[plain]))
    # Runs of plain rows between the other rows, written as slices of the Arrow lines.
    taken = 0
    previous = 0
    for position, item in zip(np.flatnonzero(~plain).tolist(), batch.items):
        run = position - previous
        if run:
            out.write(string_bytes(lines.slice(taken, run)))
            taken += run
        out.write(_jsonl_line(export_row(item)).encode("utf-8"))
        previous = position + 1
    if taken < len(lines):
        out.write(string_bytes(lines.slice(taken)))


def export_filename(annotator: str | None, fmt: str, stem: str = "ragviz-labels") -> str:
    """A download name such as ``ragviz-labels-alice.jsonl``."""
    who = "".join(c if c.isalnum() or c in "-_" else "_" for c in (annotator or "")).strip("_")
    ext = _EXTENSIONS.get(fmt, fmt)
    return f"{stem}-{who}.{ext}" if who else f"{stem}.{ext}"


def write_jsonl(rows: Sequence[Mapping[str, Any]], path_or_file: str | os.PathLike | IO) -> None:
    """Write *rows* as JSON lines (UTF-8) to a path (atomically), ``"-"`` (stdout) or an open file."""
    write_output(jsonl_bytes(rows), path_or_file)


def write_parquet(rows: Sequence[Mapping[str, Any]], path_or_file: str | os.PathLike | IO[bytes]) -> None:
    """Write *rows* as one Parquet file to a path (atomically), ``"-"`` or a binary file object."""
    write_output(parquet_bytes(rows), path_or_file)


def write_metrics_csv(
    dataset: Dataset, store: LabelStore | None, whose: Whose, path_or_file: str | os.PathLike | IO
) -> None:
    write_output(metrics_csv_bytes(dataset, store, whose), path_or_file)
