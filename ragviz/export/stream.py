"""Exports of data larger than memory: the rows come as a sequence of datasets (record batches of
Parquet files, :func:`ragviz.data.stream.parquet_batches`) and are written one batch at a time, so
memory stays constant in the number of rows. The rows are those :func:`ragviz.export.files.write_export`
writes for each batch; a Parquet export builds each batch once into a temporary Arrow file and writes them all
when every batch is built, because its column types come from all the rows."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO

import pyarrow as pa
import pyarrow.parquet as pq

from ragviz.analysis.labelsets.selection import Whose, corrected_uids
from ragviz.data.dataset import Dataset
from ragviz.export.card import with_hf_features
from ragviz.export.casting import aligned_column
from ragviz.export.files import metrics_records_csv, write_export
from ragviz.export.output import binary_output as _binary_output
from ragviz.export.rows import metrics_records
from ragviz.export.tables import export_table
from ragviz.store.label_store import LabelStore

__all__ = ["WRITE_BUFFER", "StreamedExport", "write_export_stream"]

#: Bytes of a streamed Parquet export gathered before they go to the output file: the writer thread then takes the
#: GIL (to call the file's ``write``) a few dozen times, not for each of the thousands of pages.
WRITE_BUFFER = 8 << 20


@dataclass
class StreamedExport:
    """What a streamed export wrote: examples, those a person reviewed, those *whose* people corrected."""

    n_rows: int = 0
    n_human: int = 0
    n_corrected: int = 0


def write_export_stream(
    batches: Callable[[], Iterator[Dataset]],
    store: LabelStore | None,
    whose: Whose,
    fmt: str,
    path_or_file: str | os.PathLike | IO[bytes],
) -> StreamedExport:
    """Write the export (``jsonl``, ``parquet`` or ``csv`` = per-example metrics) of the datasets
    ``batches()`` yields to a path (atomically: an exception raised by *batches* leaves nothing) or
    a binary file object."""
    done = StreamedExport()
    corrected = corrected_uids(store, whose)

    def count(part: Dataset, n_rows: int, n_human: int) -> None:
        done.n_rows += n_rows
        done.n_human += n_human
        done.n_corrected += len(corrected & set(part.uids))

    with _binary_output(path_or_file) as out:
        if fmt == "jsonl":
            for part in batches():
                count(part, *write_export(part, store, whose, "jsonl", out))
        elif fmt == "csv":
            header = True
            for part in batches():
                records = metrics_records(part, store, whose)
                text = metrics_records_csv(records)
                out.write((text if header else text.split("\n", 1)[1]).encode("utf-8"))
                header = False
                count(
                    part,
                    len(records),
                    sum(1 for r in records if r["label_source"] in ("human", "agreed", "adjudicated")),
                )
        elif fmt == "parquet":
            # a path's temporary file (removed on an exception) can be written as the batches come and started
            # over; an open file or stdout is written only once every batch is built
            direct = isinstance(path_or_file, (str, os.PathLike)) and str(path_or_file) != "-"
            if not (direct and _write_parquet_directly(batches, store, whose, out, count)):
                if direct:
                    out.seek(0)
                    out.truncate()
                    done.n_rows = done.n_human = done.n_corrected = 0
                _write_parquet(batches, store, whose, out, count)
        else:
            raise ValueError(f"unknown export format {fmt!r}")
    return done


def _human(table: pa.Table) -> int:
    """Rows of an export *table* whose labels a person decided."""
    sources = table.column("label_source").to_pylist() if "label_source" in table.column_names else []
    return sum(s in ("human", "agreed", "adjudicated") for s in sources)


def _write_parquet_directly(
    batches: Callable[[], Iterator[Dataset]],
    store: LabelStore | None,
    whose: Whose,
    out: IO[bytes],
    count: Callable[[Dataset, int, int], None],
) -> bool:
    """The Parquet export written as each batch is built, in the types of the first batch's export table, when every
    later batch's types unify into them (as :func:`_write_parquet` would unify them: the same file, without the
    temporary copy of every batch). ``False`` as soon as a batch brings a new column or type: *out* then holds a
    part of the export, to be started over.

    Each batch is written in a worker thread while the next is built: pyarrow encodes and compresses without the
    GIL, so the build (Python) and the write share the machine's cores; at most one batch waits to be written."""
    writer: pq.ParquetWriter | None = None
    sink: pa.BufferedOutputStream | None = None
    schema: pa.Schema | None = None
    writing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragviz-export-write")
    pending: Future[None] | None = None
    try:
        for part in batches():
            if not len(part):
                continue
            table = export_table(part, store, whose)
            if schema is None:
                unified = pa.unify_schemas([table.schema], promote_options="permissive")
                schema = with_hf_features(unified.empty_table()).schema
                raw = pa.PythonFile(out, mode="w")  # type: ignore[arg-type]  # any binary file object
                sink = pa.BufferedOutputStream(raw, buffer_size=WRITE_BUFFER)
                writer = pq.ParquetWriter(sink, schema)
            elif not table.schema.equals(schema):
                unified = pa.unify_schemas([schema, table.schema], promote_options="permissive")
                if not unified.equals(schema):
                    return False
            assert writer is not None
            aligned = pa.Table.from_arrays([aligned_column(table, f) for f in schema], schema=schema)
            count(part, table.num_rows, _human(table))
            del table, part
            if pending is not None:
                pending.result()  # the batch before written (its error raised here)
            pending = writing.submit(writer.write_table, aligned)
            del aligned
        if pending is not None:
            pending.result()
        if writer is None:
            pq.write_table(export_table(Dataset.empty(), store, whose), out)
        return True
    finally:
        writing.shutdown(wait=True)  # the last write done (or failed) before the file is closed
        try:
            if writer is not None:
                writer.close()
        finally:
            if sink is not None:
                sink.detach()  # its last bytes written to *out*, which stays open (the caller flushes and closes it)


def _write_parquet(
    batches: Callable[[], Iterator[Dataset]],
    store: LabelStore | None,
    whose: Whose,
    out: IO[bytes],
    count: Callable[[Dataset, int, int], None],
) -> None:
    """The Parquet export in one pass over the rows: each batch's export table is built once and kept in an
    uncompressed Arrow file of its own in an unnamed temporary folder (memory-mapped when read back, so the process
    holds one batch), because the file's column types come from all the batches; then each is cast to the unified
    types and written."""
    with tempfile.TemporaryDirectory(prefix="ragviz-export-") as folder:
        kept: list[tuple[str, pa.Schema]] = []
        for part in batches():
            if not len(part):
                continue
            table = export_table(part, store, whose)
            name = os.path.join(folder, f"{len(kept)}.arrow")
            with pa.OSFile(name, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)
            kept.append((name, table.schema))
            count(part, table.num_rows, _human(table))
            del table
        if not kept:
            pq.write_table(export_table(Dataset.empty(), store, whose), out)
            return
        unified = pa.unify_schemas([schema for _, schema in kept], promote_options="permissive")
        schema = with_hf_features(unified.empty_table()).schema  # RAGBench's feature types, as write_export
        with pq.ParquetWriter(out, schema) as parquet:
            for name, _ in kept:
                with pa.memory_map(name) as source:
                    table = pa.ipc.open_file(source).read_all()
                    arrays = [aligned_column(table, f) for f in schema]
                    parquet.write_table(pa.Table.from_arrays(arrays, schema=schema))
                    del table, arrays
                os.unlink(name)  # its space back at once
