"""Judge versions in the store (migration 013) on SQLite and PostgreSQL: stored once, never changed, names and
prompts unique, promotions kept newest first, the prompt version of each example's latest judge label set."""

from __future__ import annotations

import pytest

from ragviz.data.model import Labels, Provenance
from ragviz.store.judge_versions import (
    JudgeVersionExists,
    insert_version,
    latest_prompt_versions,
    promote_version,
    promotions,
    stored_version,
    stored_versions,
)
from ragviz.store.label_store import LabelStore


def test_versions_are_stored_once_and_promotions_kept(db_target):
    with LabelStore(db_target) as store:
        first = insert_version(store, "v2", "ragviz-judge:v2:abc", '{"name": "v2"}', "lead")
        with pytest.raises(JudgeVersionExists, match="exists already"):
            insert_version(store, "v2", "ragviz-judge:v2:def", '{"name": "v2", "rubric": "x"}', "ana")
        with pytest.raises(JudgeVersionExists, match="this very prompt"):
            insert_version(store, "v3", "ragviz-judge:v2:abc", "{}", "ana")
        assert stored_versions(store) == [first] and stored_version(store, "v2") == first
        assert stored_version(store, "nope") is None
        promote_version(store, "v2", "lead")
        promote_version(store, "v1", "ana")
        assert [(p.version_name, p.promoted_by) for p in promotions(store)] == [("v1", "ana"), ("v2", "lead")]
        store.judge.save("a", Labels(provenance=Provenance("llm", "m", None, "ragviz-judge-v1")))
        store.judge.save("a", Labels(provenance=Provenance("llm", "m", None, "ragviz-judge:v2:abc")))
        store.judge.save("b", Labels(provenance=Provenance("llm", "m", None, "ragviz-judge-v1")))
        assert latest_prompt_versions(store) == {"a": "ragviz-judge:v2:abc", "b": "ragviz-judge-v1"}
    with LabelStore(db_target) as again:  # reopened: the same, nothing migrated twice
        assert stored_versions(again) == [first]


def test_one_prompt_versions_label_sets_are_read_back_latest_per_example(db_target):
    """``judge:NAME``'s labels: per example the latest set recorded under that version's prompt version, on SQLite
    and PostgreSQL; other versions' sets and sets without a prompt version are not its."""
    v1 = Provenance("llm", "m", None, "ragviz-judge-v1")
    v2 = Provenance("llm", "m2", None, "ragviz-judge:v2:abc")
    with LabelStore(db_target) as store:
        assert store.judge.of_prompt("ragviz-judge-v1") == {} and store.judge.prompt_versions() == set()
        store.judge.save("a", Labels(relevant_keys=("0a",), provenance=v1))
        store.judge.save_many(
            [("a", Labels(relevant_keys=("0b",), provenance=v2)), ("b", Labels(relevant_keys=("0c",), provenance=v2))]
        )
        store.judge.save("a", Labels(relevant_keys=("1a",), provenance=v1))  # v1 again, later: v1's latest for a
        store.judge.save("c", Labels(relevant_keys=("0d",), provenance=Provenance("llm", "m")))  # no prompt version
        assert {uid: ls.relevant_keys for uid, ls in store.judge.of_prompt("ragviz-judge-v1").items()} == {"a": ("1a",)}
        second = store.judge.of_prompt("ragviz-judge:v2:abc")
        assert {uid: ls.relevant_keys for uid, ls in second.items()} == {"a": ("0b",), "b": ("0c",)}
        assert second["b"].provenance == v2  # read back as stored
        assert store.judge.prompt_versions() == {"ragviz-judge-v1", "ragviz-judge:v2:abc"}
        assert store.judge.of_prompt("ragviz-judge:v9:000") == {}
