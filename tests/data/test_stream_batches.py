"""Parquet read a record batch at a time (``ragviz export`` / ``ragviz metrics`` over data larger than memory): a
batch's rows are freed as soon as the next batch replaces it, by reference counting alone, so memory stays one
batch whatever the file's size and whenever Python's cycle collector runs."""

from __future__ import annotations

import gc
import weakref

from ragviz.analysis.labelsets.selection import as_selection
from ragviz.data.problems import Report
from ragviz.data.stream import parquet_batches
from ragviz.export.tables import export_table
from ragviz.store.label_store import LabelStore
from tests.ragbench_data import require_ragbench


def test_a_batch_is_freed_when_the_next_one_comes_without_the_cycle_collector(tmp_path):
    shard = next((require_ragbench() / "emanual").glob("*.parquet"))
    with LabelStore(str(tmp_path / "labels.db")) as store:
        gc.collect()
        gc.disable()
        try:
            batches = parquet_batches([shard], Report(), batch_rows=40)
            part = next(batches)
            part.example(3)  # the dataset's cache of built examples
            assert part.uids and len(part.n_context_sentences) == 40
            assert export_table(part, store, as_selection("alice")).num_rows == 40
            rows, dataset = weakref.ref(part.table), weakref.ref(part)
            export = export_table(part, store, as_selection("alice"))
            del export
            del part
            following = next(batches)
            assert dataset() is None and rows() is None
            assert len(following) == 40
        finally:
            gc.enable()


def test_a_dataset_with_built_examples_is_freed_by_reference_counting():
    from ragviz.data.load import load

    dataset = load(next((require_ragbench() / "emanual").glob("*.parquet"))).dataset
    assert dataset.example(0).uid == dataset.uids[0] and dataset.example(0) is dataset.example(0)  # cached
    gone = weakref.ref(dataset)
    gc.disable()
    try:
        del dataset
        assert gone() is None
    finally:
        gc.enable()


def test_a_corrupt_row_group_after_good_ones_is_named_at_its_first_row_after_the_good_batches(tmp_path):
    """Each batch is read one ahead of the caller's work: a batch that cannot be read is still reported where it is
    asked for, after every good batch before it, at its first row."""
    import pyarrow.parquet as pq

    shard = next((require_ragbench() / "emanual").glob("*.parquet"))
    table = pq.read_table(shard).slice(0, 60)
    damaged = tmp_path / "damaged.parquet"
    pq.write_table(table, damaged, row_group_size=20)
    chunk = pq.ParquetFile(damaged).metadata.row_group(2).column(0)
    data = bytearray(damaged.read_bytes())
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    data[start : start + 64] = b"\xff" * 64
    damaged.write_bytes(bytes(data))
    report = Report()
    sizes = [len(part) for part in parquet_batches([damaged], report, batch_rows=20)]
    assert sizes == [20, 20]
    [problem] = report.errors
    assert (problem.path, problem.row) == (str(damaged), 41) and "unreadable Parquet" in problem.message


def test_a_row_repeating_an_earlier_one_in_the_same_or_an_earlier_batch_is_skipped_and_named(tmp_path):
    """As loading a file whole: a row with the uid of an earlier row (same dataset, id and generation model) is
    skipped with a warning naming both, whether the earlier row is in its batch or in one before it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    shard = next((require_ragbench() / "emanual").glob("*.parquet"))
    table = pq.read_table(shard).slice(0, 6)
    rows = pa.concat_tables([table, table.slice(4, 1), table.slice(1, 1)])  # rows 7 and 8 repeat rows 5 and 2
    path = tmp_path / "emanual.parquet"
    pq.write_table(rows, path)
    report = Report()
    parts = list(parquet_batches([path], report, batch_rows=4))
    assert [len(p) for p in parts] == [4, 2]
    kept = [uid for p in parts for uid in p.uids]
    assert len(set(kept)) == 6
    assert [(w.row, w.message.split(" (")[0]) for w in report.warnings] == [
        (7, f"duplicate of {path}:5"),
        (8, f"duplicate of {path}:2"),
    ]
