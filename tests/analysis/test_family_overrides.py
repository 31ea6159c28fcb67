"""The family override label fields (relevant_ids, answer_similarity, chunk_relevant,
chunk_utilized): field values, apply/diff, store validation, the metric functions' input choice,
and export -> reload of all four on real rows."""

from __future__ import annotations

import json

import pytest

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.labels import (
    CHUNK_RELEVANT_FIELD,
    CHUNK_UTILIZED_FIELD,
    RELEVANT_IDS_FIELD,
    SIMILARITY_FIELD,
    Change,
    apply_changes,
    diff_labels,
    field_value,
)
from ragviz.data.load import load_bytes
from ragviz.data.model import Labels
from ragviz.export.files import export_bytes
from ragviz.metrics.families import relevance_change, retrieved_rows, similarity_change
from ragviz.metrics.retrieval import example_gold, example_retrieval
from ragviz.metrics.tonic import example_tonic
from ragviz.store.events import labels_from_json, labels_to_json
from ragviz.store.label_store import LabelStore
from tests.sample import SAMPLE_JSONL


def sample_row(example_id: str) -> dict:
    for line in SAMPLE_JSONL.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["id"] == example_id:
            return row
    raise KeyError(example_id)


def test_field_values_apply_and_diff_round_trip():
    base = Labels(relevant_keys=("0a",))
    changes = [
        (RELEVANT_IDS_FIELD, ["d2", "d1"]),
        (SIMILARITY_FIELD, 3),
        (CHUNK_RELEVANT_FIELD, [True, False]),
        (CHUNK_UTILIZED_FIELD, [False, False]),
    ]
    new = apply_changes(base, changes)
    assert new.relevant_ids == ("d2", "d1") and new.answer_similarity == 3.0
    assert new.chunk_relevant == (True, False) and new.chunk_utilized == (False, False)
    assert [field_value(new, f) for f, _ in changes] == [["d2", "d1"], 3.0, [True, False], [False, False]]
    assert [field_value(base, f) for f, _ in changes] == [None, None, None, None]
    diff = diff_labels(base, new)
    assert [c.field for c in diff] == [f for f, _ in changes]
    assert apply_changes(base, [(c.field, c.new) for c in diff]) == new
    assert apply_changes(new, [(SIMILARITY_FIELD, None)]).answer_similarity is None  # None clears
    # judge label sets carrying overrides survive the store's JSON
    assert labels_from_json(labels_to_json(new)) == new


def test_store_validates_override_values(tmp_path):
    store = LabelStore(tmp_path / "s.db")
    store.record("d/1/m", "ann", [Change(SIMILARITY_FIELD, None, 4.5), Change(RELEVANT_IDS_FIELD, None, ["x"])])
    assert store.status("d/1/m", "ann").corrected
    for field, value, message in [
        (SIMILARITY_FIELD, 7, "outside 0..5"),
        (SIMILARITY_FIELD, "high", "expected a number"),
        (RELEVANT_IDS_FIELD, "x", "expected a list"),
        (CHUNK_RELEVANT_FIELD, [1, 0], "one true/false per document"),
    ]:
        with pytest.raises(ValueError, match=message):
            store.record("d/1/m", "ann", [Change(field, None, value)])
    assert len(store.effective("d/1/m", "ann")) == 2  # nothing of the refused decisions was stored


def test_metric_functions_use_the_overrides_when_set():
    from ragviz.data.ragbench import example_from_row

    row = sample_row("tech-001")  # retrieved kb-214, kb-87, kb-311; gold kb-214, kb-87
    row["relevant_grades"] = [2, 1]
    ex = example_from_row(row)
    assert example_gold(ex) == {"kb-214": 2, "kb-87": 1}
    labels = ex.labels.replace(relevant_ids=("kb-311", "kb-214"))
    assert example_gold(ex, labels) == {"kb-311": 1, "kb-214": 2}  # graded weight kept
    assert example_retrieval(ex, (1,), labels)["default"]["mrr"] == 1.0
    assert example_retrieval(ex, (3,), labels.replace(relevant_ids=("kb-311",)))["default"]["mrr"] == pytest.approx(
        1 / 3
    )

    plain = example_tonic(ex)
    direct = example_tonic(ex, ex.labels.replace(chunk_relevant=(False, False, True), answer_similarity=5.0))
    assert direct.retrieval_precision == pytest.approx(1 / 3)
    assert direct.answer_similarity == 5.0 and plain.answer_similarity is None
    assert direct.augmentation_accuracy == plain.augmentation_accuracy  # used chunks still from the sentences

    # the panel's changes: back to the example's own value = no override
    rows = retrieved_rows(ex, ex.labels)
    change = relevance_change(ex, ex.labels, rows, {2: {"relevant": True}})
    assert change == Change(RELEVANT_IDS_FIELD, None, ["kb-214", "kb-87", "kb-311"])
    undone = apply_changes(ex.labels, [(change.field, change.new)])
    assert relevance_change(ex, undone, retrieved_rows(ex, undone), {2: {"relevant": False}}) == Change(
        RELEVANT_IDS_FIELD, ["kb-214", "kb-87", "kb-311"], None
    )
    assert similarity_change(ex, ex.labels, None) is None


def test_export_reload_round_trips_every_override(tmp_path):
    row = sample_row("tech-001")
    row["answer_similarity"] = 2.0
    row["chunk_relevant"] = [True, True, False]
    data = (json.dumps(row) + "\n").encode()
    loaded = load_bytes("family.jsonl", data)
    assert not loaded.errors, [str(p) for p in loaded.errors]
    ds = loaded.dataset
    ex = ds.example(0)
    store = LabelStore(tmp_path / "s.db")
    store.record(
        ex.uid,
        "ann",
        [
            Change(RELEVANT_IDS_FIELD, None, ["kb-311"]),
            Change(SIMILARITY_FIELD, None, 4.0),
            Change(CHUNK_RELEVANT_FIELD, None, [False, True, True]),
            Change(CHUNK_UTILIZED_FIELD, None, [True, False, False]),
        ],
    )
    current = store.current_labels(ex, "ann")
    for fmt in ("jsonl", "parquet"):
        out = export_bytes(ds, store, LabelSelection.of("ann"), fmt)
        back = load_bytes(f"reviewed.{fmt}", out)
        assert not back.errors, [str(p) for p in back.errors]
        again = back.dataset.example(0)
        exported = back.dataset.row(0)
        assert list(exported["relevant_ids"]) == ["kb-311"] and exported["answer_similarity"] == 4.0
        assert list(exported["llm_relevant_ids"]) == ["kb-214", "kb-87"] and exported["llm_answer_similarity"] == 2.0
        assert list(exported["llm_chunk_relevant"]) == [True, True, False]  # the data's own direct labels
        assert list(exported["llm_chunk_utilized"]) == [True, True, False]  # the judge's, derived from sentences
        # the current numbers and the judge's numbers are the same as before the export
        assert example_tonic(again) == example_tonic(ex, current)
        assert example_retrieval(again) == example_retrieval(ex, labels=current)
        assert example_tonic(again, again.judge_labels) == example_tonic(ex, ex.judge_labels)
        assert example_retrieval(again, labels=again.judge_labels) == example_retrieval(ex, labels=ex.judge_labels)
