"""Exports of data larger than memory: the rows come as a sequence of datasets (record batches of
Parquet files, :func:`ragviz.data.stream.parquet_batches`) and are written one batch at a time, so
memory stays constant in the number of rows. The rows are those :func:`ragviz.export.files.write_export`
writes for each batch; a Parquet export reads the batches twice (first for the schema every row
types, then to write them) because its column types come from all the rows."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

import pyarrow as pa
import pyarrow.parquet as pq

from ragviz.data.dataset import Dataset
from ragviz.export.card import with_hf_features
from ragviz.export.casting import aligned_column
from ragviz.export.files import export_table, metrics_records_csv, write_export
from ragviz.export.output import binary_output as _binary_output
from ragviz.export.rows import metrics_records
from ragviz.store.label_store import LabelStore

__all__ = ["StreamedExport", "write_export_stream"]


@dataclass
class StreamedExport:
    """What a streamed export wrote: examples, those a person reviewed, those *annotator* corrected."""

    n_rows: int = 0
    n_human: int = 0
    n_corrected: int = 0


def write_export_stream(
    batches: Callable[[], Iterator[Dataset]],
    store: LabelStore | None,
    annotator: str | None,
    fmt: str,
    path_or_file: str | os.PathLike | IO[bytes],
) -> StreamedExport:
    """Write the export (``jsonl``, ``parquet`` or ``csv`` = per-example metrics) of the datasets
    ``batches()`` yields to a path (atomically: an exception raised by *batches* leaves nothing) or
    a binary file object."""
    done = StreamedExport()
    corrected = store.corrected_uids(annotator) if store is not None and annotator else set()

    def count(part: Dataset, n_rows: int, n_human: int) -> None:
        done.n_rows += n_rows
        done.n_human += n_human
        done.n_corrected += len(corrected & set(part.uids))

    with _binary_output(path_or_file) as out:
        if fmt == "jsonl":
            for part in batches():
                count(part, *write_export(part, store, annotator, "jsonl", out))
        elif fmt == "csv":
            header = True
            for part in batches():
                records = metrics_records(part, store, annotator)
                text = metrics_records_csv(records)
                out.write((text if header else text.split("\n", 1)[1]).encode("utf-8"))
                header = False
                count(
                    part,
                    len(records),
                    sum(1 for r in records if r["label_source"] in ("human", "agreed", "adjudicated")),
                )
        elif fmt == "parquet":
            schemas = [export_table(part, store, annotator).schema for part in batches() if len(part)]
            if not schemas:
                pq.write_table(export_table(Dataset.empty(), store, annotator), out)
                return done
            unified = pa.unify_schemas(schemas, promote_options="permissive")
            schema = with_hf_features(unified.empty_table()).schema  # RAGBench's feature types, as write_export
            with pq.ParquetWriter(out, schema) as writer:
                for part in batches():
                    if not len(part):
                        continue
                    table = export_table(part, store, annotator)
                    arrays = [aligned_column(table, f) for f in schema]
                    writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
                    sources = table.column("label_source").to_pylist() if "label_source" in table.column_names else []
                    count(part, table.num_rows, sum(s in ("human", "agreed", "adjudicated") for s in sources))
        else:
            raise ValueError(f"unknown export format {fmt!r}")
    return done
