"""The exported rows as files: JSONL, Parquet with RAGBench's Hugging Face feature types, per-example metrics as CSV,
written atomically (the rows as typed Arrow tables are :mod:`ragviz.export.tables`)."""

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
from ragviz.data.dataset import Dataset
from ragviz.export.card import with_hf_features
from ragviz.export.columnar import plain_export_columns
from ragviz.export.json_text import json_default, json_lines, json_safe, string_bytes
from ragviz.export.output import binary_output as _binary_output
from ragviz.export.output import write_output
from ragviz.export.rows import (
    EXPORTING,
    METRICS_COLUMNS,
    ExportBatch,
    RowsDone,
    export_batches,
    export_row,
    metrics_table,
)
from ragviz.export.shapes import SHAPES, write_shape
from ragviz.export.tables import export_table, rows_table
from ragviz.store.label_store import LabelStore

__all__ = [
    "FORMATS",
    "MIME_TYPES",
    "PARQUET_ROW_GROUP",
    "WRITING_PARQUET",
    "export_bytes",
    "export_filename",
    "jsonl_bytes",
    "jsonl_text",
    "metrics_csv",
    "metrics_csv_bytes",
    "metrics_records_csv",
    "parquet_bytes",
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
    from ragviz.export.records import write_csv

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
            n_human += sum(s is not None for s in batch.provenance.label_source) if batch.provenance else 0
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
    lines = json_lines(plain_export_columns(batch.sliced.filter(pa.array(plain)), n_sentences[plain], batch.provenance))
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
