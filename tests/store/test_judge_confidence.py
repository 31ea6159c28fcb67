"""The judge's confidence in the store (migration 018) on SQLite and PostgreSQL: the newest per example counts, and
only while it belongs to the example's current judge label set."""

from __future__ import annotations

from ragviz.data.model import Labels, Provenance
from ragviz.store.judge_confidence import (
    ExampleConfidence,
    confidence_row,
    example_confidence,
    example_confidences,
    save_confidences,
)
from ragviz.store.label_store import LabelStore

METRICS = ("relevance", "utilization", "completeness", "adherence")


def _item(uid: str, relevance: float, n: int = 3) -> ExampleConfidence:
    metrics: dict[str, float | None] = {"relevance": relevance, "utilization": 1.0, "completeness": None,
                                        "adherence": 0.9}  # fmt: skip
    return ExampleConfidence(uid, n, metrics, {"relevant": {"0a": 2 / 3}, "utilized": {}, "supported": {"a": 1.0}})


def test_confidence_is_the_newest_for_the_current_label_set(db_target):
    labels = Labels(relevant_keys=("0a",), provenance=Provenance("llm", "m", "t", "v1"))
    with LabelStore(db_target) as store:
        save_confidences(store, [_item("never-judged", 0.5)])  # nothing to be about: skipped
        assert example_confidences(store) == {}
        store.judge.save("u1", labels)
        store.judge.save("u2", labels)
        save_confidences(store, [_item("u1", 0.2), _item("u2", 0.4)])
        save_confidences(store, [_item("u1", 0.6, n=5)])
        found = example_confidences(store)
        assert set(found) == {"u1", "u2"} and found["u1"] == _item("u1", 0.6, n=5)
        assert found["u1"].overall == 0.6 and found["u1"].sentences["relevant"]["0a"] == 2 / 3
        store.judge.save("u1", labels)  # judged again without samples: its confidence is gone
        assert example_confidence(store, "u1") is None and set(example_confidences(store)) == {"u2"}
    row = confidence_row(_item("u2", 0.4), METRICS)
    assert row == {"judge_confidence": 0.4, "judge_confidence_relevance": 0.4, "judge_confidence_utilization": 1.0,
                   "judge_confidence_completeness": None, "judge_confidence_adherence": 0.9}  # fmt: skip
    assert set(confidence_row(None, METRICS).values()) == {None}
