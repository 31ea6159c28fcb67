"""Parquet files read a record batch at a time, for work that needs one pass over the rows and
never all of them at once (``ragviz metrics``, ``ragviz export`` over data larger than memory).

Each batch becomes a :class:`~ragviz.data.dataset.Dataset` of its own, checked as
:func:`ragviz.data.load.load` checks a whole file (the column-wise fast path, else row by row with
the file's row numbers in every problem). What stays in memory is the batch in hand, the next one (read on a
worker thread meanwhile) and, to skip duplicates as :func:`~ragviz.data.load.load` does, the uid and location of
every example seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ragviz.data.dataset import PATH_COL, ROW_COL, Dataset
from ragviz.data.formats.parquet_rows import parquet_fast_table
from ragviz.data.problems import DUPLICATE_OF, Report
from ragviz.data.schema import load_rows

__all__ = ["BATCH_ROWS", "parquet_batches", "parquet_only"]


#: Rows per record batch: about 150 MB of RAGBench-shaped rows in Arrow.
BATCH_ROWS = 20_000


def parquet_only(paths: Iterable[str | Path], report: Report) -> list[Path] | None:
    """The files *paths* name (directories searched as :func:`ragviz.data.load.load` does) when
    every one is Parquet, else ``None`` (the caller loads them whole)."""
    from ragviz.data.load import expand_paths, format_of

    files = expand_paths(paths, report)
    if not files or any(format_of(f.name) != "parquet" for f in files):
        return None
    return files


def parquet_batches(files: Iterable[Path], report: Report, batch_rows: int | None = None) -> Iterator[Dataset]:
    """The rows of the Parquet *files* as datasets of at most *batch_rows* (default
    :data:`BATCH_ROWS`) rows, in file order;
    problems go to *report* (an unreadable file, a bad row) and duplicates (same dataset, id and
    generation model as an earlier row) are skipped with a warning, as :func:`ragviz.data.load.load`
    reports them."""
    from ragviz.data.load import subset_name

    first_seen: dict[str, tuple[str, int]] = {}
    for f in files:
        try:
            parquet = pq.ParquetFile(str(f), memory_map=False, pre_buffer=False)
        except Exception as e:  # pyarrow raises several types for corrupt files
            report.error(str(f), None, "file", f"unreadable Parquet: {e}")
            continue
        first_row = 1
        subset = subset_name(f)
        try:
            for batch in _read_ahead(parquet.iter_batches(batch_size=batch_rows or BATCH_ROWS)):
                table = pa.Table.from_batches([batch])
                fast = parquet_fast_table(table)
                if fast is not None:
                    part = Dataset.from_table(fast, subset, str(f), first_row)
                else:
                    part = load_rows(enumerate(table.to_pylist(), start=first_row), str(f), subset, report)
                first_row += batch.num_rows
                yield _unseen(part, first_seen, report)
                del part, fast, table, batch  # freed here: a Dataset is no reference cycle
        except Exception as e:  # a corrupt page in the middle of the file
            report.error(str(f), first_row, "file", f"unreadable Parquet: {e}")


def _read_ahead(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """*batches*, each read and decoded in a worker thread while the caller works on the one before: pyarrow decodes
    without holding the GIL, so the caller's work on a batch (an export's rows, their metrics) and the reading of the
    next share the machine's cores (as ``pyarrow.parquet.read_table`` decodes columns in parallel). One batch ahead:
    memory holds at most the batch in hand and the next. An error reading a batch is raised where that batch is
    asked for."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragviz-read-ahead") as worker:
        pending = worker.submit(next, batches, None)
        while (batch := pending.result()) is not None:
            pending = worker.submit(next, batches, None)
            yield batch
            del batch


def _unseen(part: Dataset, first_seen: dict[str, tuple[str, int]], report: Report) -> Dataset:
    """*part* without the rows whose uid an earlier row had (each reported as a warning)."""
    if not len(part):
        return part
    paths = part.table.column(PATH_COL).to_pylist()
    rows = part.table.column(ROW_COL).to_pylist()
    if first_seen.keys().isdisjoint(part.uids) and len(set(part.uids)) == len(part.uids):  # no duplicate: one update
        first_seen.update(zip(part.uids, zip([p or "" for p in paths], [r or 0 for r in rows])))
        return part
    keep = []
    for uid, path, row in zip(part.uids, paths, rows):
        where = (path or "", row or 0)
        first = first_seen.setdefault(uid, where)
        keep.append(first == where)
        if first != where:
            report.warning(
                where[0],
                where[1],
                "id",
                f"{DUPLICATE_OF}{first[0]}:{first[1]} (same dataset, id and generation model); "
                "kept the first, skipped this row",
            )
    return part if all(keep) else Dataset(part.table.filter(pa.array(keep)))
