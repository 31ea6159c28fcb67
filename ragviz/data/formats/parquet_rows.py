"""Parquet input: a fast path for files already in RAGBench types, else row by row through the schema checks."""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ragviz.data.dataset import Dataset
from ragviz.data.finite import finite_scores
from ragviz.data.formats.parquet_dictionary import dictionary_bound
from ragviz.data.problems import Report
from ragviz.data.schema import CANONICAL_TYPES, STR_LIST, STRUCTURED_FIELDS, load_rows
from ragviz.data.tool_columns import column_renames

__all__ = [
    "Progress",
    "SPILL_BYTES",
    "decoded_bytes",
    "load_parquet",
    "load_table",
    "parquet_fast_table",
    "spill",
]


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


def _text(source: pa.DataType) -> bool:
    return pa.types.is_string(source) or pa.types.is_large_string(source) or pa.types.is_string_view(source)


def _castable(source: pa.DataType, target: pa.DataType, integers: bool = False) -> bool:
    """Whether casting *source* to the canonical *target* changes nothing the row-by-row checks would refuse:
    text to text (integers too for *integers*: ``id``), lists of such, structs field by field, numbers to floats,
    booleans to booleans, a column of nulls to anything. Arrow also casts numbers to text and to booleans, and
    floats to text ids (NaN to 'nan'): those rows go row by row, where each is refused or warned about by row."""
    if pa.types.is_null(source):
        return True
    if pa.types.is_dictionary(source):
        source = source.value_type
    if pa.types.is_string(target):
        return _text(source) or (integers and pa.types.is_integer(source))
    if isinstance(target, pa.ListType):
        if not isinstance(source, (pa.ListType, pa.LargeListType, pa.FixedSizeListType)):
            return False
        return _castable(source.value_type, target.value_type)
    if pa.types.is_struct(target):
        fields = {f.name: f.type for f in source} if pa.types.is_struct(source) else None
        return fields is not None and all(_castable(fields[f.name], f.type) for f in target if f.name in fields)
    if pa.types.is_boolean(target):
        return pa.types.is_boolean(source)
    if pa.types.is_floating(target):
        return pa.types.is_integer(source) or pa.types.is_floating(source)
    return True


def parquet_fast_table(table: pa.Table) -> pa.Table | None:
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
        if target is not None and not _castable(f.type, target, integers=f.name == "id"):
            return None
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


def _dictionary_chunks(meta: pq.FileMetaData, group: int) -> list[str]:
    """The string columns (paths in the schema) of row group *group* stored with a dictionary page."""
    rg = meta.row_group(group)
    chunks = (rg.column(c) for c in range(rg.num_columns))
    return [cc.path_in_schema for cc in chunks if cc.physical_type == "BYTE_ARRAY" and cc.has_dictionary_page]


def _value_bytes(values: pa.Array | pa.ChunkedArray) -> int:
    """Bytes *values* take decoded: a dictionary column counts each row's entry, not the entry once."""
    if isinstance(values, pa.ChunkedArray):
        return sum(_value_bytes(chunk) for chunk in values.chunks)
    kind = values.type
    if isinstance(values, pa.DictionaryArray):
        lengths = pc.binary_length(values.dictionary)  # type: ignore[call-overload]
        taken = pc.sum(pc.take(lengths, values.indices)).as_py() or 0
        return int(taken) + 4 * len(values)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return 4 * len(values) + _value_bytes(pc.list_flatten(values))
    if isinstance(values, pa.StructArray):
        return sum(_value_bytes(values.field(i)) for i in range(values.type.num_fields))
    return int(values.nbytes)


def _decoded_bound(source: Path | bytes, meta: pq.FileMetaData) -> int | None:
    """An upper bound of the bytes the Parquet file *source* decodes to, from its metadata, page headers and
    dictionary pages alone (:func:`ragviz.data.formats.parquet_dictionary.dictionary_bound`); ``None`` when some
    dictionary chunk's bound cannot be read."""
    total = 0
    with source.open("rb") if isinstance(source, Path) else io.BytesIO(source) as f:
        for group in range(meta.num_row_groups):
            rg = meta.row_group(group)
            for c in range(rg.num_columns):
                chunk = rg.column(c)
                total += chunk.total_uncompressed_size
                if chunk.physical_type == "BYTE_ARRAY" and chunk.has_dictionary_page:
                    extra = dictionary_bound(f, chunk)
                    if extra is None:
                        return None
                    total += extra
    return total


def decoded_bytes(source: Path | bytes, limit: int, exact: bool = True) -> int:
    """The bytes the Parquet file *source* decodes to, found before any row is decoded; counting stops
    once past *limit* (the result is then only known to exceed it).

    The metadata gives each column chunk's uncompressed size, which is its decoded size except for a
    dictionary-encoded string column, whose pages hold each row's index into the dictionary: there one
    200 KB string referenced from 50,000 rows is 10 GB decoded. Those columns are read keeping their
    dictionaries (one row group at a time, about the chunks' stored size) and each row's entry length
    is summed.

    *exact* ``False``: when an upper bound read from the page headers and dictionary pages alone
    (:func:`_decoded_bound`) is within *limit*, that bound (nothing decoded: what a check against *limit* needs);
    the exact count otherwise."""
    reader = pq.ParquetFile(str(source) if isinstance(source, Path) else pa.BufferReader(source))
    meta = reader.metadata
    stored = 0
    for group in range(meta.num_row_groups):
        rg = meta.row_group(group)
        stored += sum(rg.column(c).total_uncompressed_size for c in range(rg.num_columns))
    if stored > limit:
        return stored  # the pages alone decompress past the limit
    if not exact and (bound := _decoded_bound(source, meta)) is not None and bound <= limit:
        return bound
    total = 0
    for group in range(meta.num_row_groups):
        rg = meta.row_group(group)
        dictionary = set(_dictionary_chunks(meta, group))
        total += sum(
            rg.column(c).total_uncompressed_size
            for c in range(rg.num_columns)
            if rg.column(c).path_in_schema not in dictionary
        )
        if dictionary:
            tops = list(dict.fromkeys(path.split(".")[0] for path in dictionary))
            opened = pq.ParquetFile(
                str(source) if isinstance(source, Path) else pa.BufferReader(source),
                read_dictionary=sorted(dictionary),
            )
            part = opened.read_row_group(group, columns=tops, use_threads=False)
            total += sum(_value_bytes(column) for column in part.columns)
            del part
        if total > limit:
            return total
    return total


SPILL_BYTES = 64 << 20  # a Parquet file larger than this is decoded into a memory-mapped Arrow file
_BATCH_BYTES = 4 << 20  # about this much decoded data at a time (one thread: the least held in flight)


def _decoded_batch_rows(pf: pq.ParquetFile) -> int:
    """Rows per batch so that a batch decodes to about :data:`_BATCH_BYTES`."""
    meta = pf.metadata
    decoded = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    return max(1, min(meta.num_rows, int(_BATCH_BYTES * meta.num_rows / max(decoded, 1))))


Progress = Callable[[str, int, int], None]
"""``progress(what, rows_done, rows_total)``, told as a file is read (the app draws it as a bar)."""


def spill(batches: Iterable[pa.RecordBatch], schema: pa.Schema, near: Path) -> pa.Table:
    """*batches* (each of *schema*) written into an uncompressed Arrow file beside *near* (else in the temp folder)
    and memory-mapped: the table's buffers are that file's pages, which the kernel drops and rereads as it needs,
    not memory of this process. The file's name is removed at once; its space is given back when the table is no
    longer used (the mapping keeps it until then). An exception raised by *batches* leaves no file."""
    folder = near.parent if os.access(near.parent, os.W_OK) else Path(tempfile.gettempdir())
    fd, name = tempfile.mkstemp(prefix=".ragviz-", suffix=".arrow", dir=folder)  # mode 0600
    os.close(fd)
    try:
        with pa.OSFile(name, "wb") as out, pa.ipc.new_file(out, schema) as writer:
            for batch in batches:
                writer.write_batch(batch)
        source = pa.memory_map(name)
    finally:
        os.unlink(name)
    pa.default_memory_pool().release_unused()  # the decoding buffers, before the checks run
    return pa.ipc.open_file(source).read_all()


def _spilled(path: Path, progress: Progress | None = None) -> pa.Table:
    """The Parquet file at *path* decoded batch by batch into a memory-mapped Arrow file (:func:`spill`);
    *progress* is told the rows decoded after each batch."""
    pf = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)  # read a page at a time
    what, total = f"Reading {path.name}", pf.metadata.num_rows

    def batches() -> Iterator[pa.RecordBatch]:
        done = 0
        for batch in pf.iter_batches(batch_size=_decoded_batch_rows(pf), use_threads=False):
            yield batch
            done += batch.num_rows
            if progress is not None:
                progress(what, done, total)

    return spill(batches(), pf.schema_arrow, path)


def load_parquet(
    data: bytes | Path, path: str, subset: str, report: Report, progress: Progress | None = None
) -> Dataset:
    """*data* is the file's bytes (an upload) or its path: read memory-mapped, and when larger than
    :data:`SPILL_BYTES` decoded into a memory-mapped Arrow file (:func:`_spilled`, telling *progress*
    the rows decoded), so the process holds neither the file nor its decoded table, whose columns are
    often 3x the compressed file."""
    try:
        if isinstance(data, Path) and data.stat().st_size > SPILL_BYTES:
            table = _spilled(data, progress)
        else:
            source = str(data) if isinstance(data, Path) else pa.BufferReader(data)
            table = pq.read_table(source, memory_map=isinstance(data, Path))
    except Exception as e:  # pyarrow raises several types for corrupt files
        report.error(path, None, "file", f"unreadable Parquet: {e}")
        return Dataset.empty()
    return load_table(table, path, subset, report)


def load_table(table: pa.Table, path: str, subset: str, report: Report) -> Dataset:
    """An Arrow table read from *path* (Parquet, or a ``save_to_disk`` Arrow file): column-wise when it
    is already in RAGBench types, else row by row, so every problem gets its row number."""
    fast = parquet_fast_table(table)
    if fast is not None:
        return Dataset.from_table(finite_scores(fast, path, report), subset, path)
    return load_rows(enumerate(table.to_pylist(), start=1), path, subset, report)
