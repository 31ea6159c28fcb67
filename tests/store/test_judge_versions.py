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
