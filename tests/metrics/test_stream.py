"""Issue 11 (scale): ``ragviz metrics`` over Parquet files reads them a record batch at a time and
writes what loading them whole gives; bad rows are named by file and row and nothing is written."""

from __future__ import annotations

import io
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.cli.main import main
from ragviz.data.load import load
from ragviz.export.records import write_csv
from ragviz.metrics.trace import dataset_trace_records
from tests.ragbench_data import require_ragbench


@pytest.fixture
def shards(tmp_path):
    """Two subsets of the real shards copied as Parquet files into one directory."""
    ragbench = require_ragbench()
    out = tmp_path / "shards"
    for name in ("covidqa", "emanual"):
        src = next((ragbench / name).glob("*.parquet"))
        (out / name).mkdir(parents=True)
        (out / name / src.name).write_bytes(src.read_bytes())
    return out


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_metrics_over_a_directory_of_shards_in_batches_match_loading_it_whole(shards, tmp_path, fmt, monkeypatch):
    import ragviz.data.stream as stream

    monkeypatch.setattr(stream, "BATCH_ROWS", 50)  # several batches per file
    out = tmp_path / f"m.{fmt}"
    assert main(["metrics", str(shards), "-o", str(out), "--format", fmt]) == 0
    records = list(dataset_trace_records(load(shards).dataset))
    if fmt == "jsonl":
        assert [json.loads(line) for line in out.read_text().splitlines()] == records
    else:
        buf = io.StringIO()
        write_csv(records, buf)
        assert out.read_text() == buf.getvalue()
    assert not list(tmp_path.glob(".ragviz-metrics.*"))


def test_a_bad_row_in_a_later_batch_is_named_and_nothing_is_written(shards, tmp_path, capsys, monkeypatch):
    import ragviz.data.stream as stream

    monkeypatch.setattr(stream, "BATCH_ROWS", 50)
    shard = next((shards / "emanual").glob("*.parquet"))
    table = pq.read_table(shard)
    pairs = table.column("response_sentences").to_pylist()
    pairs[120] = [["a"]]  # not a [key, text] pair
    column = pa.array(pairs, table.schema.field("response_sentences").type)
    pq.write_table(
        table.set_column(table.column_names.index("response_sentences"), "response_sentences", column), shard
    )
    out = tmp_path / "m.jsonl"
    assert main(["metrics", str(shards), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{shard}:121: response_sentences" in err and "nothing computed" in err
    assert not out.exists() and not list(tmp_path.glob(".ragviz-metrics.*"))


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "csv"])
def test_export_over_a_directory_of_shards_in_batches_matches_loading_it_whole(shards, tmp_path, fmt, monkeypatch):

    import ragviz.data.stream as stream
    from ragviz.export.files import export_bytes
    from tests.analysis.test_scale import _store_with_edits

    monkeypatch.setattr(stream, "BATCH_ROWS", 50)
    dataset = load(shards).dataset
    db = tmp_path / "l.db"
    _store_with_edits(dataset, db).close()
    out = tmp_path / f"out.{'metrics.csv' if fmt == 'csv' else fmt}"
    assert main(["export", str(shards), "--db", str(db), "-o", str(out), "--format", fmt, "--annotator", "alice"]) == 0
    from ragviz.store.label_store import LabelStore

    with LabelStore(db) as store:
        whole = export_bytes(dataset, store, LabelSelection.of("alice"), fmt)
    if fmt == "parquet":
        assert pq.read_table(out).equals(pq.read_table(io.BytesIO(whole)))
    else:
        assert out.read_bytes() == whole


def test_export_over_shards_with_a_bad_row_leaves_the_output_alone(shards, tmp_path, capsys, monkeypatch):
    import ragviz.data.stream as stream

    monkeypatch.setattr(stream, "BATCH_ROWS", 50)
    monkeypatch.setenv("RAGVIZ_DB", str(tmp_path / "labels.db"))  # not the person's own ~/.ragviz store
    shard = next((shards / "covidqa").glob("*.parquet"))
    table = pq.read_table(shard)
    pairs = table.column("response_sentences").to_pylist()
    pairs[70] = [["a"]]
    column = pa.array(pairs, table.schema.field("response_sentences").type)
    pq.write_table(
        table.set_column(table.column_names.index("response_sentences"), "response_sentences", column), shard
    )
    out = tmp_path / "out.jsonl"
    out.write_text("earlier export\n")
    assert main(["export", str(shards), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{shard}:71: response_sentences" in err and "nothing exported" in err
    assert out.read_text() == "earlier export\n"
