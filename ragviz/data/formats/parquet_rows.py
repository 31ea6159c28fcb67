"""Parquet input: a fast path for files already in RAGBench types, else row by row through the schema checks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ragviz.data.dataset import Dataset
from ragviz.data.formats.tool_columns import column_renames
from ragviz.data.problems import Report
from ragviz.data.schema import CANONICAL_TYPES, STR_LIST, STRUCTURED_FIELDS, load_rows


def _null_inside(column: pa.ChunkedArray) -> bool:
    """Does list column *column* hold a null inside one of its lists, at any depth (a null
    document, sentence pair, sentence key or text, key in a key list)? The row-by-row checks
    reject every such row."""
    values: pa.Array | pa.ChunkedArray = column
    while pa.types.is_list(values.type):
        values = pc.list_flatten(values)
        if values.null_count:
            return True
    return False


def _parquet_fast_table(table: pa.Table) -> pa.Table | None:
    """*table* cast to canonical types when it can be loaded column-wise as is, else ``None``."""
    renames = column_renames(table.column_names)
    if renames:
        if "additional_metadata" in table.column_names:
            return None  # DeepEval's metadata may carry RAGBench fields: row by row
        table = table.rename_columns([renames.get(n, n) for n in table.column_names])
    names = set(table.column_names)
    required = ("id", "question", "documents", "response", "documents_sentences", "response_sentences")
    if not all(n in names for n in required):
        return None
    fields = []
    for f in table.schema:
        target = CANONICAL_TYPES.get(f.name)
        if f.name == "reference_answer" and (pa.types.is_string(f.type) or f.type == STR_LIST):
            target = f.type
        fields.append(pa.field(f.name, target if target is not None else f.type))
    try:
        # pyarrow-stubs wants dict[bytes | str, bytes | str], which dict[bytes, bytes] is not (dict is invariant).
        table = table.cast(pa.schema(fields, metadata=table.schema.metadata))  # type: ignore[arg-type]
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, ValueError):
        return None
    for n in required:
        if table.column(n).null_count:
            return None
    if any(_null_inside(table.column(n)) for n in sorted(STRUCTURED_FIELDS & set(table.column_names))):
        return None
    if pc.any(pc.equal(table.column("id"), pa.scalar(""))).as_py():
        return None
    pairs = pc.list_flatten(pc.list_flatten(table.column("documents_sentences")))
    for column in (pairs, pc.list_flatten(table.column("response_sentences"))):
        if len(column) and not pc.all(pc.equal(pc.list_value_length(column), pa.scalar(2))).as_py():
            return None
    return table


Progress = Callable[[str, int, int], None]
"""``progress(what, rows_done, rows_total)``, told as a file is read (the app draws it as a bar)."""

PROGRESS_STEPS = 20  # about this many reports per file


def load_parquet(
    data: bytes | Path, path: str, subset: str, report: Report, progress: Progress | None = None
) -> Dataset:
    """*data* is the file's bytes (an upload) or its path (read memory-mapped, never copied); read
    in record batches, *progress* told the rows read after each."""
    try:
        source = str(data) if isinstance(data, Path) else pa.BufferReader(data)
        parquet = pq.ParquetFile(source, memory_map=isinstance(data, Path))
        total = parquet.metadata.num_rows
        what = f"Reading {Path(path).name}"
        batches = []
        for batch in parquet.iter_batches(batch_size=max(16384, -(-total // PROGRESS_STEPS))):
            batches.append(batch)
            if progress is not None:
                progress(what, sum(b.num_rows for b in batches), total)
        table = pa.Table.from_batches(batches, schema=parquet.schema_arrow)
    except Exception as e:  # pyarrow raises several types for corrupt files
        report.error(path, None, "file", f"unreadable Parquet: {e}")
        return Dataset.empty()
    return load_table(table, path, subset, report)


def load_table(table: pa.Table, path: str, subset: str, report: Report) -> Dataset:
    """An Arrow table read from *path* (Parquet, or a ``save_to_disk`` Arrow file): column-wise when it
    is already in RAGBench types, else row by row, so every problem gets its row number."""
    fast = _parquet_fast_table(table)
    if fast is not None:
        return Dataset.from_table(fast, subset, path)
    return load_rows(enumerate(table.to_pylist(), start=1), path, subset, report)
