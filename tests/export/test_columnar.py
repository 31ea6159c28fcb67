"""Issue 11 (scale): rows the label store knows nothing about are exported on Arrow columns; the
bytes stay those of the per-row export (every example built, every row a dict, ``json.dumps`` per
line) for awkward values, on the real RAGBench shards with a store's decisions, and for the JSON
text of every Arrow type."""

from __future__ import annotations

import datetime
import io
import json
import math
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.dataset import Dataset
from ragviz.data.load import load
from ragviz.export.columnar import plain_table
from ragviz.export.files import jsonl_bytes, write_export
from ragviz.export.json_text import json_default, json_fragments, json_safe
from ragviz.export.rows import export_batches, export_row, exported_batches
from ragviz.export.tables import rows_table
from tests.analysis.test_scale import _store_with_edits
from tests.ragbench_data import require_ragbench
from tests.synthetic import make_synthetic

STRINGS = pa.list_(pa.string())
SUPPORT = pa.list_(
    pa.struct(
        [
            ("explanation", pa.string()),
            ("fully_supported", pa.bool_()),
            ("response_sentence_key", pa.string()),
            ("supporting_sentence_keys", STRINGS),
        ]
    )
)


def _reference(dataset, store, annotator):
    """The export before the columnar path: every example whole, every row a dict."""
    rows = [export_row(item) for _, items in exported_batches(dataset, store, annotator, light=False) for item in items]
    return jsonl_bytes(rows), rows_table(rows)


def _assert_same_export(dataset, store, annotator, tmp_path, batch_sizes=(3, 2048)):
    old_jsonl, old_table = _reference(dataset, store, annotator)
    for batch_size in batch_sizes:
        buf = io.BytesIO()
        write_export(dataset, store, annotator, "jsonl", buf, batch_size=batch_size)
        assert buf.getvalue().decode() == old_jsonl.decode()
        out = tmp_path / f"out{batch_size}.parquet"
        write_export(dataset, store, annotator, "parquet", out, batch_size=batch_size)
        new_table = pq.read_table(out)
        assert new_table.schema.equals(old_table.schema), (new_table.schema, old_table.schema)
        assert new_table.equals(old_table)


def _awkward_table() -> pa.Table:
    """Rows with every shape the label fields and text take: escapes and non-ASCII text, unlabeled
    rows, null support fields, stored vs derived unsupported keys, duplicate and unknown keys, no
    context sentence, empty / null dataset names, non-finite scores, extra columns of other types."""
    text = 'He said "hi"\\ back\nthen\ttab \x01\x1f é 😀 \u2028 end'
    docs = [[["0a", text], ["0b", "Plain."]], [["1a", "Other doc."]]]
    support = [
        {"explanation": None, "fully_supported": None, "response_sentence_key": "a", "supporting_sentence_keys": None},
        {"explanation": "x", "fully_supported": False, "response_sentence_key": "b", "supporting_sentence_keys": []},
        {
            "explanation": "y",
            "fully_supported": True,
            "response_sentence_key": None,
            "supporting_sentence_keys": ["0a"],
        },
    ]
    rows = [
        # labeled, stored unsupported missing -> derived; duplicates and an unknown key
        dict(rel=["0a", "0a", "9z"], util=["0a", "1a"], sup=support, uns=None, rex=text, oex=None, ovs=None),
        # unlabeled
        dict(rel=None, util=None, sup=None, uns=None, rex=None, oex=None, ovs=None),
        # labeled only through an explanation; empty stored unsupported list
        dict(rel=None, util=None, sup=None, uns=[], rex="only this", oex="", ovs=True),
        # stored unsupported list wins over the support
        dict(rel=[], util=["0b"], sup=support[:1], uns=["b"], rex=None, oex="why", ovs=False),
        # labeled with no context sentence at all (N = 0)
        dict(rel=["0a"], util=[], sup=[], uns=None, rex="", oex=None, ovs=None),
        dict(rel=["0b", "1a"], util=["1a", "1a"], sup=support[1:], uns=None, rex=None, oex=None, ovs=True),
    ]
    n = len(rows)
    names = ["alpha", "", None, "beta", "alpha", ""]
    return pa.table(
        {
            "id": pa.array([f"q{i}" for i in range(n)]),
            "question": pa.array([text] * n),
            "documents": pa.array([[text, "Other doc."]] * 4 + [[]] + [[text]], STRINGS),
            "response": pa.array([text, None, "r", "r", "r", "r"]),
            "generation_model_name": pa.array(["m1", "m2", None, "m1", "m1", "m1"]),
            "dataset_name": pa.array(names, pa.string()),
            "documents_sentences": pa.array([docs] * 4 + [[]] + [docs[:1]], pa.list_(pa.list_(STRINGS))),
            "response_sentences": pa.array([[["a", text], ["b", "B."]]] * n, pa.list_(STRINGS)),
            "all_relevant_sentence_keys": pa.array([r["rel"] for r in rows], STRINGS),
            "all_utilized_sentence_keys": pa.array([r["util"] for r in rows], STRINGS),
            "sentence_support_information": pa.array([r["sup"] for r in rows], SUPPORT),
            "unsupported_response_sentence_keys": pa.array([r["uns"] for r in rows], STRINGS),
            "relevance_explanation": pa.array([r["rex"] for r in rows], pa.string()),
            "overall_supported_explanation": pa.array([r["oex"] for r in rows], pa.string()),
            "overall_supported": pa.array([r["ovs"] for r in rows], pa.bool_()),
            "relevance_score": pa.array([0.5, None, math.nan, 1.0, 0.0, 1e16]),
            "trulens_groundedness": pa.array([math.inf, -math.inf, None, 0.1, 1 / 3, 2.5e-07], pa.float32()),
            "retrieved_ids": pa.array([["d1"], None, [], ["d2", "d3"], None, ["x"]], STRINGS),
            "n_hops": pa.array([1, None, 3, 4, 5, 6], pa.int32()),
            "meta": pa.array([{"a": 1, "b": "x"}, None, {"a": None, "b": 'q"'}] * 2),
            "never_set": pa.nulls(n),
        }
    )


def test_awkward_rows_export_the_bytes_of_the_per_row_path(tmp_path):
    dataset = Dataset.from_table(_awkward_table(), "subset", str(tmp_path / "awkward.parquet"))
    assert plain_table(dataset.table.schema)
    _assert_same_export(dataset, None, None, tmp_path, batch_sizes=(1, 4, 2048))


def _store_with_some_edits(dataset, db):
    """Stored judge labels for every 7th labeled example, a relevance toggle and a review on every 5th."""
    from ragviz.data.labels import Change, field_value, toggle_key
    from ragviz.store.label_store import LabelStore

    store = LabelStore(db)
    examples = [dataset.example(i) for i in range(len(dataset))]
    store.judge.save_many([(e.uid, e.labels) for e in examples[1::7] if e.labels is not None])
    for e in examples[::5]:
        cur = store.current_labels(e, "alice")
        keys = cur.relevant_keys if cur is not None else ()
        key = e.context_keys()[-1] if e.context_keys() else "0a"
        changes = [Change("relevant_keys", field_value(cur, "relevant_keys") if cur else [], toggle_key(keys, key))]
        store.record(e.uid, "alice", [*changes, Change("review", None, "reviewed")])
    return store


def test_awkward_rows_with_decisions_and_stored_judge_labels(tmp_path):
    table = pa.concat_tables([_awkward_table()] * 4)
    table = table.set_column(0, "id", pa.array([f"q{i}" for i in range(table.num_rows)]))
    dataset = Dataset.from_table(table, "subset", str(tmp_path / "awkward.parquet"))
    with _store_with_some_edits(dataset, tmp_path / "l.db") as store:
        batches = list(export_batches(dataset, store, LabelSelection.of("alice"), batch_size=5))
        plain = sum(int(b.plain.sum()) for b in batches if b.plain is not None)
        assert 0 < plain < len(dataset)  # both paths are taken
        assert sum(len(b.items) for b in batches) == len(dataset) - plain
        _assert_same_export(dataset, store, LabelSelection.of("alice"), tmp_path)


def test_ragbench_shards_with_decisions_export_the_bytes_of_the_per_row_path(tmp_path):
    dataset = load(require_ragbench()).dataset
    assert plain_table(dataset.table.schema)
    with _store_with_edits(dataset, tmp_path / "l.db") as store:
        _assert_same_export(dataset, store, LabelSelection.of("alice"), tmp_path, batch_sizes=(1000,))


def test_a_reloaded_export_goes_row_by_row_and_keeps_its_bytes(tmp_path):
    dataset = Dataset.from_table(_awkward_table(), "subset", str(tmp_path / "awkward.parquet"))
    first = tmp_path / "first.parquet"
    write_export(dataset, None, None, "parquet", first)
    again = load(first).dataset
    assert not plain_table(again.table.schema)  # llm_ copies and provenance: the per-row path
    _assert_same_export(again, None, None, tmp_path)


@pytest.mark.parametrize(
    "values",
    [
        pa.array(["a", None, 'q"\\\n\x00\x7f', "é😀", ""]),
        pa.array(["x", None], pa.large_string()),
        pa.array([True, None, False]),
        pa.array([1, None, -(2**62)], pa.int64()),
        pa.array([1, 2], pa.uint8()),
        pa.array([0.1, None, math.nan, math.inf, 1e16, 1e-5, 5.0, -0.0]),
        pa.array([0.1, 3.0], pa.float32()),
        pa.array([[1.5, math.nan], None, []]),
        pa.array([[["a", "b"], None], [], None, [[]]]),
        pa.array([{"x": 1, "y": [None, "z"]}, None, {"x": None, "y": None}]),
        pa.array([[{"k": "v"}], [None], None]),
        pa.array([{}, None], pa.struct([])),
        pa.nulls(3),
        pa.array([datetime.datetime(2024, 1, 2, 3, 4, 5), None]),
        pa.array(["a", "b", "a"]).dictionary_encode(),
        pa.array([b"ab", None]),
        pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int64())),
    ],
    ids=lambda v: str(v.type),
)
def test_json_fragments_are_json_dumps_of_the_python_values(values):
    expected = [json.dumps(json_safe(v), ensure_ascii=False, default=json_default) for v in values.to_pylist()]
    assert json_fragments(values).to_pylist() == expected
    assert json_fragments(values.slice(1)).to_pylist() == expected[1:]


def _reference_metrics(dataset, store, annotator):
    """The per-example metrics before the columnar path: every example built and scored."""
    out = []
    for _, items in exported_batches(dataset, store, annotator, light=False):
        for item in items:
            e = item.example
            source = item.label_source if item.current is not None else None
            out.append(
                {"id": e.id, "dataset": e.dataset, "generation_model": e.generation_model, **item.scores.as_dict()}
                | {"label_source": source}
            )
    return out


def test_metrics_records_are_those_of_every_example_scored(tmp_path):
    from ragviz.export.rows import metrics_records

    table = pa.concat_tables([_awkward_table()] * 4)
    table = table.set_column(0, "id", pa.array([f"q{i}" for i in range(table.num_rows)]))
    dataset = Dataset.from_table(table, "subset", str(tmp_path / "awkward.parquet"))
    assert metrics_records(dataset, None, None) == _reference_metrics(dataset, None, None)
    with _store_with_some_edits(dataset, tmp_path / "l.db") as store:
        records = metrics_records(dataset, store, LabelSelection.of("alice"))
        assert records == _reference_metrics(dataset, store, LabelSelection.of("alice"))
        assert {r["label_source"] for r in records} == {"human", "llm", None}


def test_export_page_metrics_table_is_paged(app_env, tmp_path, monkeypatch):
    """1,200 synthetic examples: the Export page sends 1,000 rows of metrics at a time, not all."""
    from streamlit.testing.v1 import AppTest

    parquet = make_synthetic().write(1200, str(tmp_path / "syn"), seed=5, jsonl=False)[0]
    monkeypatch.setenv("RAGVIZ_DATA", str(parquet))
    at = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "app.py"), default_timeout=120)
    at.switch_page("pages/export.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.toggle(key="export.show_table").set_value(True).run()
    table = next(d.value for d in at.dataframe if "relevance" in d.value.columns)
    assert len(table) == 1000
    assert any("Examples 1–1,000 of 1,200" in c.value for c in at.caption)
    at.number_input(key="export.table_page").set_value(2).run()
    table = next(d.value for d in at.dataframe if "relevance" in d.value.columns)
    assert len(table) == 200
    expected = load(parquet).dataset.ids[1000:]
    assert list(table["id"]) == expected


def test_trace_records_on_columns_are_those_of_every_row_scored(tmp_path):
    """``ragviz metrics``' records (scored on Arrow columns) equal scoring each row's labels."""
    from ragviz.data.ragbench import labels_from_row
    from ragviz.metrics.trace import dataset_trace_records, trace_scores

    dataset = Dataset.from_table(_awkward_table(), "subset", str(tmp_path / "awkward.parquet"))
    expected = [
        {
            "id": dataset.ids[i],
            "dataset": dataset.datasets[i],
            "generation_model": dataset.generation_models[i],
            **trace_scores(labels_from_row(dataset.row(i)), dataset.n_context_sentences[i]).as_dict(),
        }
        for i in range(len(dataset))
    ]
    for batch_size in (1, 4, 65536):
        assert list(dataset_trace_records(dataset, batch_size)) == expected
