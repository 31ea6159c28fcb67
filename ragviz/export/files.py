"""The exported rows as files: JSONL, Parquet with RAGBench's Hugging Face feature types, per-example metrics as CSV, written atomically."""

from __future__ import annotations

import io
import json
import math
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import pyarrow as pa
import pyarrow.parquet as pq

from ragviz.data.dataset import Dataset
from ragviz.data.ragbench import LLM_PREFIX
from ragviz.export.rows import (
    METRICS_COLUMNS,
    export_rows,
    metrics_records,
)
from ragviz.store.label_store import LabelStore

FORMATS = ("jsonl", "parquet", "csv")


MIME_TYPES = {"jsonl": "application/jsonl", "parquet": "application/vnd.apache.parquet", "csv": "text/csv"}


def _json_safe(value: Any) -> Any:
    """NaN / infinity are not JSON: write them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def _json_default(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", errors="replace")
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def jsonl_text(rows: Sequence[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(_json_safe(dict(r)), ensure_ascii=False, default=_json_default) + "\n" for r in rows)


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


def rows_table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    """An Arrow table of *rows*: RAGBench fields get their canonical types, others are inferred."""
    columns: dict[str, None] = {}
    for r in rows:
        columns.update(dict.fromkeys(r))
    arrays = {}
    for name in columns:
        values = [r.get(name) for r in rows]
        known = _KNOWN_TYPES.get(name)
        arrays[name] = pa.array(values, type=known) if known is not None else pa.array(values)
    return pa.table(arrays)


def parquet_bytes(rows: Sequence[Mapping[str, Any]]) -> bytes:
    buf = io.BytesIO()
    pq.write_table(rows_table(rows), buf)
    return buf.getvalue()


def metrics_csv(dataset: Dataset, store: LabelStore | None, annotator: str | None) -> str:
    """The per-example metrics (:func:`metrics_records`) as CSV text; null -> empty cell."""
    return metrics_records_csv(metrics_records(dataset, store, annotator))


def metrics_records_csv(records: Sequence[Mapping[str, Any]]) -> str:
    """*records* of :func:`metrics_records` as CSV text (only the header when there is none)."""
    from ragviz.data.records import write_csv

    buf = io.StringIO()
    if records:
        write_csv(records, buf)
    else:
        buf.write(",".join(METRICS_COLUMNS) + "\n")
    return buf.getvalue()


def metrics_csv_bytes(dataset: Dataset, store: LabelStore | None, annotator: str | None) -> bytes:
    return metrics_csv(dataset, store, annotator).encode("utf-8")


def export_bytes(dataset: Dataset, store: LabelStore | None, annotator: str | None, fmt: str) -> bytes:
    """The whole export in *fmt* (``jsonl``, ``parquet`` or ``csv`` = metrics) for a download button."""
    if fmt == "csv":
        return metrics_csv_bytes(dataset, store, annotator)
    rows = export_rows(dataset, store, annotator)
    if fmt == "jsonl":
        return jsonl_bytes(rows)
    if fmt == "parquet":
        return parquet_bytes(rows)
    raise ValueError(f"unknown export format {fmt!r} (choose from {', '.join(FORMATS)})")


def export_filename(annotator: str | None, fmt: str, stem: str = "ragviz-labels") -> str:
    """A download name such as ``ragviz-labels-alice.jsonl``."""
    who = "".join(c if c.isalnum() or c in "-_" else "_" for c in (annotator or "")).strip("_")
    ext = "metrics.csv" if fmt == "csv" else fmt
    return f"{stem}-{who}.{ext}" if who else f"{stem}.{ext}"


def _write_atomically(data: bytes, path: str | os.PathLike) -> None:
    target = Path(path)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".tmp", dir=target.parent if str(target.parent) else "."
    )
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_output(data: bytes, path_or_file: str | os.PathLike | IO[bytes] | IO[str]) -> None:
    if isinstance(path_or_file, (str, os.PathLike)):
        if str(path_or_file) == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
            return
        _write_atomically(data, path_or_file)
        return
    if isinstance(path_or_file, io.TextIOBase):
        path_or_file.write(data.decode("utf-8"))
    else:
        # Any file object that is not a text stream is taken to be binary; IO[str] cannot say which.
        path_or_file.write(data)  # type: ignore[arg-type]


def write_jsonl(rows: Sequence[Mapping[str, Any]], path_or_file: str | os.PathLike | IO) -> None:
    """Write *rows* as JSON lines (UTF-8) to a path (atomically), ``"-"`` (stdout) or an open file."""
    write_output(jsonl_bytes(rows), path_or_file)


def write_parquet(rows: Sequence[Mapping[str, Any]], path_or_file: str | os.PathLike | IO[bytes]) -> None:
    """Write *rows* as one Parquet file to a path (atomically), ``"-"`` or a binary file object."""
    write_output(parquet_bytes(rows), path_or_file)


def write_metrics_csv(
    dataset: Dataset, store: LabelStore | None, annotator: str | None, path_or_file: str | os.PathLike | IO
) -> None:
    write_output(metrics_csv_bytes(dataset, store, annotator), path_or_file)
