"""LabelStore on real SQLite files: fold semantics, undo/reset, annotators, provenance, statuses,
migrations, bad paths, positions, sources, uploads, judge label sets."""

from __future__ import annotations

import io
import re
import shutil
import threading
from pathlib import Path

import pytest

from ragviz.data.labels import (
    Change,
    apply_changes,
    empty_labels,
    field_value,
    support_field,
)
from ragviz.data.model import Labels, Provenance, SentenceSupport
from ragviz.data.ragbench import example_from_row
from ragviz.store.database import open_database
from ragviz.store.events import labels_from_json, labels_to_json
from ragviz.store.label_store import EVERYONE, LabelStore, StaleEdit, StoreError, default_db_path
from ragviz.store.schema import MIGRATIONS, SETS, MigrationSet
from ragviz.store.schema import runner as schema_runner
from ragviz.store.schema.core import CORE
from ragviz.store.schema.team import TEAM


def _row(**over):
    row = {
        "id": "q1",
        "question": "When does water boil?",
        "documents": ["Water boils at 100 C. Ice melts at 0 C.", "Salt raises the boiling point."],
        "documents_sentences": [
            [["0a", "Water boils at 100 C."], ["0b", "Ice melts at 0 C."]],
            [["1a", "Salt raises the boiling point."]],
        ],
        "response": "Water boils at 100 C. It is blue.",
        "response_sentences": [["a", "Water boils at 100 C."], ["b", "It is blue."]],
        "generation_model_name": "gen-1",
        "annotating_model_name": "judge-1",
        "dataset_name": "toy",
        "all_relevant_sentence_keys": ["0a"],
        "all_utilized_sentence_keys": ["0a"],
        "sentence_support_information": [
            {
                "response_sentence_key": "a",
                "fully_supported": True,
                "supporting_sentence_keys": ["0a"],
                "explanation": "ok",
            },
            {
                "response_sentence_key": "b",
                "fully_supported": False,
                "supporting_sentence_keys": [],
                "explanation": "no",
            },
        ],
        "unsupported_response_sentence_keys": ["b"],
        "relevance_explanation": "",
        "overall_supported_explanation": "",
        "overall_supported": False,
    }
    row.update(over)
    return row


@pytest.fixture
def example():
    return example_from_row(_row())


@pytest.fixture
def unlabeled():
    row = _row(id="q2")
    for f in (
        "all_relevant_sentence_keys",
        "all_utilized_sentence_keys",
        "sentence_support_information",
        "unsupported_response_sentence_keys",
        "relevance_explanation",
        "overall_supported_explanation",
        "overall_supported",
        "annotating_model_name",
    ):
        row.pop(f)
    return example_from_row(row)


@pytest.fixture
def store(db_target):
    """A fresh store, once on an SQLite file and once on an empty PostgreSQL database."""
    with LabelStore(db_target) as s:
        yield s


def _tables(target) -> set[str]:
    db = open_database(target, StoreError)
    try:
        return set(db.table_names())
    finally:
        db.close()


def _rel(store, example, annotator, new):
    old = field_value(store.current_labels(example, annotator), "relevant_keys")
    return store.record(example.uid, annotator, [Change("relevant_keys", old, new)])


def test_record_returns_action_ids_and_folds_in_order(store, example):
    a1 = _rel(store, example, "ann", ["0a", "0b"])
    a2 = store.record(
        example.uid,
        "ann",
        [
            Change("utilized_keys", ["0a"], ["0b"]),
            Change(support_field("b"), None, {"supported": True, "supporting_keys": ["1a"], "explanation": "x"}),
        ],
    )
    assert isinstance(a1, int) and a2 > a1
    assert store.record(example.uid, "ann", []) is None
    assert store.changes(example.uid, "ann") == [
        ("relevant_keys", ["0a", "0b"]),
        ("utilized_keys", ["0b"]),
        ("support:b", {"supported": True, "supporting_keys": ["1a"], "explanation": "x"}),
    ]
    current = store.current_labels(example, "ann")
    assert current == apply_changes(example.labels, store.changes(example.uid, "ann"), current.provenance)
    assert current.relevant_keys == ("0a", "0b") and current.utilized_keys == ("0b",)
    assert current.support_for("b") == SentenceSupport("b", True, ("1a",), "x")
    assert current.unsupported_keys is None  # a support edit drops the stored list
    # both changes of the second action share its id, in one transaction
    assert [e.action_id for e in store.history(example.uid, "ann")] == [a1, a2, a2]


def test_unknown_field_and_bad_ids_are_refused_before_writing(store, example):
    with pytest.raises(ValueError, match="unknown label field"):
        store.record(example.uid, "ann", [Change("relevant_keys", [], ["0a"]), Change("colour", None, "red")])
    with pytest.raises(ValueError, match="annotator"):
        store.record(example.uid, " ", [Change("relevant_keys", [], ["0a"])])
    with pytest.raises(ValueError, match="relevant_keys: value cannot be stored as JSON"):
        store.record(example.uid, "ann", [Change("relevant_keys", [], {"0a"})])
    assert store.n_events() == 0


def test_undo_walks_back_and_never_deletes(store, example):
    _rel(store, example, "ann", ["0a", "0b"])
    _rel(store, example, "ann", ["0a", "0b", "1a"])
    assert store.undo(example.uid, "ann") is True
    assert store.current_labels(example, "ann").relevant_keys == ("0a", "0b")
    assert store.undo(example.uid, "ann") is True
    assert store.current_labels(example, "ann") == example.labels
    assert store.undo(example.uid, "ann") is False
    history = store.history(example.uid, "ann")
    assert [e.field for e in history] == ["relevant_keys", "relevant_keys", "undo", "undo"]
    assert [e.undone for e in history] == [True, True, False, False]
    assert history[2].new == history[1].action_id and history[3].new == history[0].action_id
    assert store.n_events() == 4


def test_reset_returns_to_base_and_undo_of_reset_reapplies(store, example):
    _rel(store, example, "ann", ["1a"])
    store.record(example.uid, "ann", [Change("reset", None, None)], action="reset")
    assert store.current_labels(example, "ann").relevant_keys == example.labels.relevant_keys
    assert example.uid not in store.reviewed_uids("ann")
    assert example.uid not in store.corrected_uids("ann")
    _rel(store, example, "ann", ["0b"])
    assert store.current_labels(example, "ann").relevant_keys == ("0b",)
    store.undo(example.uid, "ann")  # the edit after the reset
    store.undo(example.uid, "ann")  # the reset itself
    assert store.current_labels(example, "ann").relevant_keys == ("1a",)
    assert example.uid in store.corrected_uids("ann")


def test_two_annotators_are_kept_apart(store, example):
    _rel(store, example, "alice", ["0b"])
    store.record(example.uid, "bob", [Change("review", None, "reviewed")], action="review")
    assert store.current_labels(example, "alice").relevant_keys == ("0b",)
    assert store.current_labels(example, "bob").relevant_keys == ("0a",)
    assert store.undo(example.uid, "bob") is True
    assert store.current_labels(example, "alice").relevant_keys == ("0b",)  # bob's undo never touches alice
    assert store.annotators() == ["alice", "bob"]
    assert store.reviewed_uids("alice") == {example.uid} and store.reviewed_uids("bob") == set()
    assert [e.annotator for e in store.history(example.uid)] == ["alice", "bob", "bob"]


def test_provenance(store, example):
    assert store.current_labels(example, "ann").provenance == Provenance("llm", "judge-1")
    _rel(store, example, "ann", ["0b"])
    last = store.history(example.uid, "ann")[-1]
    assert store.current_labels(example, "ann").provenance == Provenance("human", "ann", last.ts)


def test_reviewed_and_corrected_sets(store, example, unlabeled):
    other = example_from_row(_row(id="q3"))
    store.record(example.uid, "ann", [Change("review", None, "reviewed")], action="review")
    assert store.reviewed_uids("ann") == {example.uid} and store.corrected_uids("ann") == set()
    # an edit and its reverse is no change: neither corrected nor reviewed (accepting marks reviewed)
    _rel(store, other, "ann", ["0a", "0b"])
    assert store.corrected_uids("ann") == {other.uid} and store.reviewed_uids("ann") == {example.uid, other.uid}
    _rel(store, other, "ann", ["0a"])
    assert store.reviewed_uids("ann") == {example.uid}
    assert store.corrected_uids("ann") == set()
    # un-reviewing
    store.record(example.uid, "ann", [Change("review", "reviewed", None)], action="review")
    assert store.reviewed_uids("ann") == set()
    # unlabeled example: any label decided is a correction of "nothing"
    store.record(unlabeled.uid, "ann", [Change("relevant_keys", [], ["0a"])])
    assert unlabeled.uid in store.corrected_uids("ann")
    assert store.status(unlabeled.uid, "ann").reviewed is True
    assert store.status("nope", "ann").last_ts is None


def test_status_queries_use_the_index(tmp_path):
    store = LabelStore(tmp_path / "i.db")  # SQLite's planner; PostgreSQL picks by table statistics
    for sql, params in [
        ("SELECT example_uid FROM example_status WHERE annotator = ? AND reviewed = 1", ("a",)),
        ("SELECT example_uid FROM example_status WHERE annotator = ? AND corrected = 1", ("a",)),
        ("SELECT e.id FROM label_events e WHERE e.example_uid = ? AND e.annotator = ? ORDER BY e.id", ("u", "a")),
        ("SELECT labels_json FROM judge_label_sets WHERE example_uid = ? ORDER BY id DESC LIMIT 1", ("u",)),
        ("SELECT annotator FROM example_status WHERE last_action_id > ?", (5,)),
        # last_action (what Z undoes): the annotator's newest events first
        ("SELECT e.id FROM label_events e WHERE e.annotator = ? AND e.id < ? ORDER BY e.id DESC LIMIT 200", ("a", 9)),
    ]:
        plan = " ".join(str(r[-1]) for r in store.db.execute("EXPLAIN QUERY PLAN " + sql, params))
        assert "SEARCH" in plan and "INDEX" in plan and "SCAN" not in plan, plan
    store.close()


def test_unlabeled_example_starts_from_empty_labels(store, unlabeled):
    assert unlabeled.labels is None
    assert store.current_labels(unlabeled, "ann") is None
    store.record(
        unlabeled.uid,
        "ann",
        [Change(support_field("b"), None, {"supported": False, "supporting_keys": [], "explanation": ""})],
    )
    current = store.current_labels(unlabeled, "ann")
    expected = apply_changes(empty_labels(unlabeled), store.changes(unlabeled.uid, "ann"))
    assert current.support == expected.support and current.relevant_keys == ()
    assert current.provenance.source == "human"


def test_judge_labels_are_the_base_latest_wins(store, example):
    first = Labels(relevant_keys=("1a",), provenance=Provenance("llm", "judge-2", None, "v1"))
    store.judge.save(example.uid, first)
    second = Labels(
        relevant_keys=("0b",),
        utilized_keys=("0b",),
        support=(SentenceSupport("a", None, ("0b",), "e"), SentenceSupport("b", None, (), "")),
        relevance_explanation="why",
        overall_supported=None,
        provenance=Provenance("llm", "judge-3", "2026-01-01T00:00:00+00:00", "v2"),
    )
    store.judge.save(example.uid, second)
    assert store.judge.labels(example.uid) == second
    assert store.judge.labels("missing") is None
    assert store.judge.judged_uids() == {example.uid}
    assert store.current_labels(example, "ann") == second
    store.record(example.uid, "ann", [Change("reset", None, None)], action="reset")
    assert store.current_labels(example, "ann").relevant_keys == ("0b",)
    store.judge.save(example.uid, first)  # stored as given: equal when read back
    assert store.judge.labels(example.uid) == first


def test_labels_json_round_trip_keeps_stored_unsupported_list(example):
    assert labels_from_json(labels_to_json(example.labels)) == example.labels
    derived = example.labels.replace(unsupported_keys=None)
    assert labels_from_json(labels_to_json(derived)) == derived
    assert labels_from_json(labels_to_json(Labels())) == Labels()


def test_migrations_are_idempotent_on_reopen(db_target, example):
    path = db_target
    with LabelStore(path) as s:
        _rel(s, example, "ann", ["0b"])
        assert s.applied_migrations() == [name for name, _ in MIGRATIONS]
    for _ in range(2):
        with LabelStore(path) as s:
            assert s.applied_migrations() == [name for name, _ in MIGRATIONS]
            assert s.current_labels(example, "ann").relevant_keys == ("0b",)
    db = open_database(path, StoreError)
    assert db.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == len(MIGRATIONS)
    if db.dialect.name == "sqlite":
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_failing_migration_applies_nothing(db_target, monkeypatch):
    def broken(run, dialect):
        run("CREATE TABLE half_done (x INTEGER)")
        run("THIS IS NOT SQL")

    monkeypatch.setattr(schema_runner, "SETS", (*SETS, MigrationSet("core", (("999_broken", broken),))))
    with pytest.raises(StoreError, match=re.escape(f"{db_target}: cannot open label store")):
        LabelStore(db_target)
    tables = _tables(db_target)
    assert "half_done" not in tables and "label_events" not in tables


def test_newer_schema_is_refused(db_target):
    LabelStore(db_target).close()
    db = open_database(db_target, StoreError)
    db.execute("INSERT INTO schema_migrations VALUES ('core', '900_future', 'x')")
    db.close()
    with pytest.raises(StoreError, match="newer ragviz"):
        LabelStore(db_target)


def test_bad_db_paths_give_clear_errors(tmp_path):
    with pytest.raises(StoreError, match=f"{tmp_path}: cannot open label store: is a directory"):
        LabelStore(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create the folder"):
        LabelStore(blocker / "sub" / "x.db")
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite " * 500)
    with pytest.raises(StoreError, match=f"{junk}: cannot open label store: file is not a database"):
        LabelStore(junk)


def test_closed_store_says_so(tmp_path):
    s = LabelStore(tmp_path / "c.db")
    s.close()
    with pytest.raises(StoreError, match="closed"):
        s.annotators()


def test_default_db_path(monkeypatch, tmp_path):
    monkeypatch.setenv("RAGVIZ_DB", str(tmp_path / "env.db"))
    assert default_db_path() == tmp_path / "env.db"
    monkeypatch.delenv("RAGVIZ_DB")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_db_path() == tmp_path / ".ragviz" / "ragviz.db"


def test_creates_parent_folders(tmp_path):
    with LabelStore(tmp_path / "a" / "b" / "x.db") as s:
        assert s.path.exists()


def test_positions_resume(db_target):
    path = db_target
    with LabelStore(path) as s:
        assert s.position("ann") is None
        s.save_position("ann", "toy/q1/gen-1")
        s.save_position("ann", "toy/q2/gen-1")
        s.save_position("bob", "toy/q9/gen-1")
    with LabelStore(path) as s:
        assert s.position("ann") == "toy/q2/gen-1" and s.position("bob") == "toy/q9/gen-1"


def test_sources_and_uploads(tmp_path):
    with LabelStore(tmp_path / "s.db") as s:
        data = tmp_path / "d.jsonl"
        data.write_text("{}\n")
        s.sources.register(str(data))
        s.sources.register(str(data))
        up1 = s.sources.save_upload("../../evil name.parquet", b"PAR1 bytes")
        up2 = s.sources.save_upload("other.parquet", b"PAR1 bytes")
        up3 = s.sources.save_upload("other.parquet", b"different")
        assert up1.parent == s.sources.uploads_dir and up1.parent.parent == tmp_path
        assert up1.read_bytes() == b"PAR1 bytes" and up1.suffix == ".parquet" and "/" not in up1.name
        assert up1 != up3 and up2 == up1  # the same bytes under another name: kept once
        assert s.sources.registered() == [str(data.resolve()), str(up1), str(up3)]


def test_threads_share_one_store(store, example):
    ids: list[int] = []

    def work(name):
        for i in range(20):
            old = [] if i == 0 else [f"0{'ab'[(i - 1) % 2]}"]
            ids.append(store.record(example.uid, name, [Change("relevant_keys", old, [f"0{'ab'[i % 2]}"])]))

    threads = [threading.Thread(target=work, args=(f"t{k}",)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(ids)) == 80 and store.n_events() == 80
    assert store.annotators() == ["t0", "t1", "t2", "t3"]


def test_status_sets_see_commits_of_other_connections(db_target, example):
    path = db_target
    with LabelStore(path) as a, LabelStore(path) as b:
        assert a.reviewed_uids("ann") == set() and a.statuses("ann") == {}  # cached now
        b.record(example.uid, "ann", [Change("relevant_keys", ["0a"], ["0b"])])
        assert a.reviewed_uids("ann") == {example.uid} and a.corrected_uids("ann") == {example.uid}
        b.undo(example.uid, "ann")  # both sets read together (one check of the cache) see the other's commits too
        assert a.review_statuses("ann") == (set(), set())
        b.record(example.uid, "ann", [Change("relevant_keys", ["0a"], ["0b"])])
        assert a.review_statuses("ann") == ({example.uid}, {example.uid})
        a.undo(example.uid, "ann")  # a's own write updates its cache in place
        assert a.reviewed_uids("ann") == set() and a.statuses("ann")[example.uid].reviewed is False
        assert b.reviewed_uids("ann") == set() and b.corrected_uids("ann") == set()
        returned = a.reviewed_uids("ann")
        returned.add("x")  # callers get a copy
        assert a.reviewed_uids("ann") == set()


def test_the_status_version_changes_exactly_when_the_status_sets_do(db_target, example):
    """Issue 38: the Review page's J asks whether the person's reviewed / corrected sets moved by one number, not by
    copying and comparing both sets (a J's cost grew with the decisions made); the number follows other
    connections' commits, and a decision that leaves the sets as they were leaves it too."""
    path = db_target
    with LabelStore(path) as a, LabelStore(path) as b:
        first = a.status_version("ann")
        assert a.status_version("ann") == first and a.status_version(EVERYONE) is None
        b.record(example.uid, "ann", [Change("relevant_keys", ["0a"], ["0b"])])  # reviewed and corrected now
        second = a.status_version("ann")
        assert second != first and a.review_statuses("ann") == ({example.uid}, {example.uid})
        b.record(example.uid, "ann", [Change("relevant_keys", ["0b"], ["0a", "0b"])])  # still both: the same sets
        assert a.status_version("ann") == second
        b.record(example.uid, "other", [Change("relevant_keys", ["0a"], ["0b"])])  # someone else's sets
        assert a.status_version("ann") == second
        a.undo(example.uid, "ann")  # a's own writes, in place: the second change undone (the sets stay)
        assert a.status_version("ann") == second
        a.undo(example.uid, "ann")  # the first too: neither reviewed nor corrected
        assert a.status_version("ann") not in (first, second) and a.review_statuses("ann") == (set(), set())


def test_the_review_counts_within_the_open_data_follow_every_write(db_target, example):
    """The Review page's progress on every run (an Accept's too) is counted by the store, kept up to date as
    decisions arrive (its own and another connection's): always the sets' sizes within each open data's uids, for a
    new set of the same uids too, and past the few sets it keeps counted."""
    other = example_from_row(_row(id="q9"))
    outside = example_from_row(_row(id="q-not-loaded"))
    loaded = frozenset({example.uid, other.uid, "never-decided"})
    just_one = frozenset({other.uid})

    equal = frozenset(list(loaded))  # another set of the same uids (frozenset(loaded) would be loaded itself)
    others = [frozenset({example.uid, f"x{i}"}) for i in range(5)]  # more than the store keeps counted

    def agree(store, who="ann"):
        for within in (loaded, just_one, equal, *others, loaded):
            reviewed, corrected = store.review_statuses(who)
            assert store.review_counts(who, within) == (len(within & reviewed), len(within & corrected)), within

    with LabelStore(db_target) as a, LabelStore(db_target) as b:
        assert a.review_counts("ann", loaded) == (0, 0)
        agree(a)
        _rel(a, example, "ann", ["0b"])  # reviewed and corrected
        assert a.review_counts("ann", loaded) == (1, 1)
        b.record(other.uid, "ann", [Change("review", None, "reviewed")], action="accept")  # another connection's
        b.record(outside.uid, "ann", [Change("review", None, "reviewed")], action="accept")  # not in the open data
        assert a.review_counts("ann", loaded) == (2, 1) and a.review_counts("ann", just_one) == (1, 0)
        agree(a)
        _rel(b, other, "bob", ["1a"])  # someone else's
        assert a.review_counts("ann", loaded) == (2, 1) and a.review_counts(EVERYONE, loaded) == (2, 2)  # bob corrected
        a.undo(example.uid, "ann")  # its own write, in place
        assert a.review_counts("ann", loaded) == (1, 0)
        agree(a)
        agree(b)


def test_old_schema_is_upgraded_in_place(db_target, monkeypatch, example):
    path = db_target
    # the first three migrations, and 015's guideline column (with 014's table) that every decision now writes
    older = (MigrationSet("core", CORE.migrations[:3]), MigrationSet("team", TEAM.migrations[:2]))
    monkeypatch.setattr(schema_runner, "SETS", older)
    with LabelStore(path) as s:
        _rel(s, example, "ann", ["0b"])
        assert len(s.applied_migrations()) == 5
    monkeypatch.setattr(schema_runner, "SETS", SETS)
    with LabelStore(path) as s:
        assert s.applied_migrations() == [name for name, _ in MIGRATIONS]
        assert s.current_labels(example, "ann").relevant_keys == ("0b",)
        assert s.corrected_uids("ann") == {example.uid}


def test_failed_write_leaves_caches_consistent(store, example, monkeypatch):
    import ragviz.store.label_store as store_module

    assert store.reviewed_uids("ann") == set()
    loaded = frozenset({example.uid})
    assert store.review_counts("ann", loaded) == (0, 0)  # counted, and kept from now on
    real = store_module.insert_event

    def insert_then_fail(q, action_id, uid, annotator, ts, field, old, new):
        real(q, action_id, uid, annotator, ts, field, old, new)
        if field == "utilized_keys":
            raise OSError("disk full")

    monkeypatch.setattr(store_module, "insert_event", insert_then_fail)
    with pytest.raises(OSError):
        store.record(example.uid, "ann", [Change("relevant_keys", ["0a"], ["0b"]), Change("utilized_keys", ["0a"], [])])
    assert store.n_events() == 0 and store.history(example.uid) == []
    assert store.reviewed_uids("ann") == set()
    assert store.review_counts("ann", loaded) == (0, 0)


def test_data_version_moves_with_every_label_event_and_judge_label_set(db_target):
    with LabelStore(db_target) as store:
        assert store.data_version() == (0, 0)
        store.record("d/1/m", "ann", [Change("review", None, "reviewed")])
        after_event = store.data_version()
        assert after_event[0] > 0 and after_event[1] == 0
        store.undo("d/1/m", "ann")
        after_undo = store.data_version()
        assert after_undo[0] > after_event[0]
        labels = Labels(("0a",), (), (), provenance=Provenance("llm", "j"))
        store.judge.save("d/1/m", labels)
        first = store.data_version()
        store.judge.save("d/1/m", labels.replace(relevant_keys=()))  # a re-judge: same judged uids
        assert first[1] > 0 and store.data_version()[1] > first[1] and store.data_version()[0] == after_undo[0]


# -- no lost update -------------------------------------------------------------------------------


def test_two_sessions_of_one_annotator_conflict_nothing_is_lost(db_target, example):
    """Two tabs of one annotator (two stores on one file): the later edit based on what was shown
    before the earlier one is refused, with the newer value; the earlier edit stays."""
    with LabelStore(db_target) as tab1, LabelStore(db_target) as tab2:
        seen1 = tab1.current_labels(example, "ann")
        seen2 = tab2.current_labels(example, "ann")
        field = support_field("b")
        first = {"supported": True, "supporting_keys": ["0a"], "explanation": "no"}
        assert tab1.record(example.uid, "ann", [Change(field, field_value(seen1, field), first)], example=example)
        second = {"supported": False, "supporting_keys": ["1a"], "explanation": "no"}
        with pytest.raises(StaleEdit) as refused:
            tab2.record(
                example.uid,
                "ann",
                [Change("relevant_keys", ["0a"], ["0a", "1a"]), Change(field, field_value(seen2, field), second)],
                example=example,
            )
        assert [(c.field, c.seen, c.stored) for c in refused.value.conflicts] == [
            (field, field_value(seen2, field), first)
        ]
        assert "support:b" in str(refused.value) and '"supporting_keys": ["0a"]' in str(refused.value)
        # the whole decision was refused (its relevant_keys change too), the first edit kept
        assert tab1.n_events() == 1
        assert tab2.current_labels(example, "ann").support_for("b").supporting_keys == ("0a",)
        assert tab2.current_labels(example, "ann").relevant_keys == ("0a",)
        # redone from the newer labels, it is stored
        fresh = tab2.current_labels(example, "ann")
        assert tab2.record(example.uid, "ann", [Change(field, field_value(fresh, field), second)], example=example)
        assert tab1.current_labels(example, "ann").support_for("b").supporting_keys == ("1a",)


def test_a_click_drawn_from_older_labels_is_refused_whichever_field_changed(db_target, example):
    """Tab 1 clicks 0b round none -> R -> R+U -> U; tab 2, still drawn with 0b "neither", clicks it
    once. Its click changes relevant_keys, which is back where tab 2 saw it, but utilized_keys (which
    it leaves alone) changed under it: refused, and 0b stays U, as tab 1 left it (not R+U)."""
    from ragviz.analysis.review.edits import context_state
    from ragviz.analysis.review.text import click_changes, next_state

    with LabelStore(db_target) as tab1, LabelStore(db_target) as tab2:
        drawn2 = tab2.current_labels(example, "ann")
        state = "neither"
        for _ in range(3):
            state = next_state(state)
            drawn1 = tab1.current_labels(example, "ann")
            assert tab1.record(example.uid, "ann", click_changes(example, drawn1, "0b", state), example=example)
        with pytest.raises(StaleEdit) as refused:
            tab2.record(example.uid, "ann", click_changes(example, drawn2, "0b", "relevant"), example=example)
        assert [(c.field, c.seen, c.stored) for c in refused.value.conflicts] == [
            ("utilized_keys", ["0a"], ["0a", "0b"])
        ]
        now = tab2.current_labels(example, "ann")
        assert context_state("0b", set(now.relevant_keys), set(now.utilized_keys)) == "utilized"
        assert tab1.n_events() == 3  # one event per click: the unchanged field is checked, never written
        # redrawn from the stored labels, the same click is stored: U -> none
        changes = click_changes(example, now, "0b", "neither")
        assert tab2.record(example.uid, "ann", changes, example=example)
        after = tab1.current_labels(example, "ann")
        assert (after.relevant_keys, after.utilized_keys) == (("0a",), ("0a",))


def test_two_annotators_on_one_example_never_conflict(db_target, example):
    with LabelStore(db_target) as a, LabelStore(db_target) as b:
        seen = field_value(example.labels, "relevant_keys")
        assert a.record(example.uid, "alice", [Change("relevant_keys", seen, ["0b"])], example=example)
        assert b.record(example.uid, "bob", [Change("relevant_keys", seen, ["1a"])], example=example)
        assert a.current_labels(example, "alice").relevant_keys == ("0b",)
        assert a.current_labels(example, "bob").relevant_keys == ("1a",)


def test_stale_check_sees_resets_undos_and_new_judge_labels(store, example):
    seen = ["0a"]
    store.record(example.uid, "ann", [Change("relevant_keys", seen, ["0b"])], example=example)
    store.record(example.uid, "ann", [Change("reset", None, None)], action="reset", example=example)
    with pytest.raises(StaleEdit):  # shown before the reset: ["0b"]; stored now: the base ["0a"]
        store.record(example.uid, "ann", [Change("relevant_keys", ["0b"], ["1a"])], example=example)
    store.undo(example.uid, "ann")  # the reset: ["0b"] again
    assert store.record(example.uid, "ann", [Change("relevant_keys", ["0b"], ["1a"])], example=example)
    store.undo(example.uid, "ann")
    store.undo(example.uid, "ann")  # back to the base
    store.judge.save(example.uid, example.labels.replace(relevant_keys=("1a",)))  # a re-judge elsewhere
    with pytest.raises(StaleEdit, match=r'relevant_keys: saw \["0a"\], now \["1a"\]'):
        store.record(example.uid, "ann", [Change("relevant_keys", ["0a"], ["0b"])], example=example)


def test_same_new_value_is_no_conflict_and_records_the_stored_old(store, example):
    store.record(example.uid, "ann", [Change("relevant_keys", ["0a"], ["0b"])], example=example)
    assert store.record(example.uid, "ann", [Change("relevant_keys", ["0a"], ["0b"])], example=example)
    assert store.history(example.uid, "ann")[-1].old == ["0b"]


def test_without_the_example_fields_with_events_are_checked(store, example):
    store.record("ragchecker:f/1", "ann", [Change("claim:answer2response:0", "Neutral", "Entailment")])
    with pytest.raises(StaleEdit):
        store.record("ragchecker:f/1", "ann", [Change("claim:answer2response:0", "Neutral", "Contradiction")])
    assert store.record("ragchecker:f/1", "ann", [Change("claim:answer2response:0", "Entailment", "Neutral")])


def test_concurrent_writers_of_one_annotator_lose_nothing(db_target, example):
    """8 threads, each with its own store on one file, each read-then-write the same field many
    times: every stored event's old value is the previous event's new value (no overwrite)."""
    path = db_target
    LabelStore(path).close()
    refused = [0]

    def writer(n: int) -> None:
        with LabelStore(path) as s:
            for i in range(15):
                seen = field_value(s.current_labels(example, "ann"), "relevant_keys")
                try:
                    s.record(example.uid, "ann", [Change("relevant_keys", seen, [f"w{n}-{i}"])], example=example)
                except StaleEdit:
                    refused[0] += 1

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with LabelStore(path) as s:
        events = s.history(example.uid, "ann")
    assert len(events) + refused[0] == 8 * 15
    assert events[0].old == ["0a"]
    assert all(later.old == earlier.new for earlier, later in zip(events, events[1:]))


# -- PostgreSQL: what only a server has -------------------------------------------------------------


def test_postgres_bad_urls_name_the_url_with_the_password_masked(postgres_server):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        down = s.getsockname()[1]
    cases = [
        (
            f"postgresql://ann:s3cret@127.0.0.1:{down}/labels",
            rf"postgresql://ann:\*\*\*@127.0.0.1:{down}/labels: cannot open label store: .*refused",
        ),
        (
            postgres_server.url("no_such_db").replace("@", ":s3cret@"),
            r":\*\*\*@.*no_such_db: cannot open label store: .*no_such_db.*does not exist",
        ),
        (
            "postgresql://ann:s3cret@127.0.0.1:notaport/labels",
            r"postgresql://ann:\*\*\*@127.0.0.1:notaport/labels: .*port",
        ),
    ]
    for url, message in cases:
        with pytest.raises(StoreError, match=message) as raised:
            LabelStore(url)
        assert "s3cret" not in str(raised.value)


def test_postgres_database_with_other_tables_is_refused_not_written(postgres_server):
    url = postgres_server.new_database()
    db = open_database(url, StoreError)
    db.execute("CREATE TABLE invoices (id INTEGER)")
    db.close()
    with pytest.raises(
        StoreError, match=r"has tables but none of ragviz's \(invoices\); give ragviz an empty database"
    ):
        LabelStore(url)
    assert _tables(url) == {"invoices"}


def test_postgres_uploads_reach_every_replica(postgres_server, tmp_path, monkeypatch):
    url = postgres_server.new_database()
    monkeypatch.setenv("HOME", str(tmp_path / "replica1"))
    with LabelStore(url) as one:
        path = one.sources.save_upload("../my data.jsonl", b'{"id": 1}\n')
        assert path == tmp_path / "replica1" / ".ragviz" / "uploads" / path.name and path.suffix == ".jsonl"
        assert one.sources.registered() == [str(path)]
    monkeypatch.setenv("HOME", str(tmp_path / "replica2"))  # another machine: no copy of the file yet
    with LabelStore(url) as two:
        [there] = two.sources.registered()
        assert there == str(tmp_path / "replica2" / ".ragviz" / "uploads" / path.name)
        assert open(there, "rb").read() == b'{"id": 1}\n'
        assert two.sources.save_upload("my data.jsonl", b'{"id": 1}\n').name == path.name  # same bytes, same name
        assert two.sources.registered() == [there]


def test_postgres_upload_is_registered_by_its_content_and_an_old_local_registration_reads_as_it(
    postgres_server, tmp_path, monkeypatch
):
    """Issue 29.7: opening a kept upload registers ``upload:NAME`` (never the replica's own copy); a path an
    older version registered for one replica's copy is read as that upload, once, on another machine."""
    url = postgres_server.new_database()
    monkeypatch.setenv("HOME", str(tmp_path / "replica1"))
    with LabelStore(url) as one:
        kept = one.sources.keep_upload("rows.jsonl", io.BytesIO(b'{"id": 1}\n'))
        one.sources.choose_data("team", [kept], "lead@example.org")
        assert [r[0] for r in one.query("SELECT path FROM data_sources")] == [f"upload:{kept.name}"]
        one.write(  # what the old state.set_paths added beside it
            lambda q: q("INSERT INTO data_sources (path, ts) VALUES (?, ?)", (str(kept), "2025-01-01T00:00:00+00:00"))
        )
    shutil.rmtree(tmp_path / "replica1")  # that replica's home cleaned
    monkeypatch.setenv("HOME", str(tmp_path / "replica2"))
    with LabelStore(url) as two:
        [there] = two.sources.registered()
        assert there == str(tmp_path / "replica2" / ".ragviz" / "uploads" / kept.name)
        assert open(there, "rb").read() == b'{"id": 1}\n'
        assert two.sources.uploads() == [Path(there)]
        choice = two.sources.chosen_data("team")
        assert choice is not None and [two.sources.local_path(s) for s in choice.sources] == [there]


def test_accept_keeps_corrections_and_an_edit_back_to_the_start_is_no_correction(store, example):
    """Accept is a review marker only: the corrections stand. Unticking and re-ticking a key (which
    moves it to the end of the list) ends where it started: not corrected, not reviewed."""
    _rel(store, example, "ann", ["0a", "1a"])
    store.record(example.uid, "ann", [Change("review", None, "reviewed")], action="accept")
    assert store.current_labels(example, "ann").relevant_keys == ("0a", "1a")
    assert example.uid in store.corrected_uids("ann") and example.uid in store.reviewed_uids("ann")

    other = example_from_row(_row(id="q9", all_relevant_sentence_keys=["0a", "0b", "1a"]))
    _rel(store, other, "ann", ["0a", "1a"])  # untick 0b
    _rel(store, other, "ann", ["0a", "1a", "0b"])  # tick it again: the same set in another order
    assert other.uid not in store.corrected_uids("ann")
    assert other.uid not in store.reviewed_uids("ann")  # no spurious status
    assert store.status(other.uid, "ann").corrected is False
    b = support_field("b")
    judge_b = field_value(other.labels, b)
    flipped = {**judge_b, "supported": True, "explanation": ""}
    store.record(other.uid, "ann", [Change(b, judge_b, flipped)])
    assert other.uid in store.corrected_uids("ann")
    store.record(other.uid, "ann", [Change(b, flipped, judge_b)])  # flipped back, the judge's text back
    assert other.uid not in store.corrected_uids("ann") and other.uid not in store.reviewed_uids("ann")


@pytest.mark.slow
def test_last_action_and_undo_action_reach_across_examples(store, example):
    """Z undoes the annotator's last action wherever it was made: last_action names it (skipping
    undone ones, undo markers, other annotators and examples the caller excludes), undo_action
    undoes exactly that one, once."""
    other = example_from_row(_row(id="q9"))
    assert store.last_action("ann") is None
    first = _rel(store, example, "ann", ["0a", "0b"])
    second = store.record(other.uid, "ann", [Change("review", None, "reviewed")], action="accept")
    _rel(store, example, "bob", ["1a"])  # someone else's later action is not ann's to undo
    last = store.last_action("ann")
    assert (last.action_id, last.example_uid, last.kind) == (second, other.uid, "accept")
    assert [(e.field, e.new) for e in last.events] == [("review", "reviewed")]
    assert store.last_action("ann", where=lambda uid: uid != other.uid).action_id == first  # not loaded: skipped
    assert store.undo_action(other.uid, "ann", second) is True
    assert store.undo_action(other.uid, "ann", second) is False  # already undone (another tab)
    assert other.uid not in store.reviewed_uids("ann")
    last = store.last_action("ann")
    assert (last.action_id, last.example_uid) == (first, example.uid)
    assert [(e.field, e.old, e.new) for e in last.events] == [("relevant_keys", ["0a"], ["0a", "0b"])]
    assert store.undo_action(example.uid, "bob", first) is False  # not bob's
    assert store.undo_action(other.uid, "ann", first) is False  # not on that example
    assert store.undo_action(example.uid, "ann", first) is True
    assert store.current_labels(example, "ann") == example.labels
    assert store.last_action("ann") is None
    for _ in range(230):  # more than one page of events to walk
        _rel(store, example, "ann", ["0b"])
        store.undo(example.uid, "ann")
    assert store.last_action("ann") is None
    kept = _rel(store, other, "ann", ["1a"])
    for _ in range(120):
        _rel(store, example, "ann", ["0b"])
        store.undo(example.uid, "ann")
    assert store.last_action("ann").action_id == kept


def test_migration_008_recounts_statuses_the_old_rule_wrote(db_target, example):
    """A store written before an edit back to the start counted as no change: its example_status
    row said reviewed + corrected; opening it with this ragviz recounts the row from the events."""
    with LabelStore(db_target) as s:
        other = example_from_row(_row(id="q9", all_relevant_sentence_keys=["0a", "0b", "1a"]))
        _rel(s, other, "ann", ["0a", "1a"])
        _rel(s, other, "ann", ["0a", "1a", "0b"])  # back to the same set, reordered
        _rel(s, example, "ann", ["0a", "1a"])  # a real correction stays counted
        s.write(
            lambda q: (
                q("UPDATE example_status SET reviewed = 1, corrected = 1"),  # what the old rule stored
                q("DELETE FROM schema_migrations WHERE name = ?", ("008_recount_example_status",)),
            )
        )
    with LabelStore(db_target) as s:
        assert "008_recount_example_status" in s.applied_migrations()
        assert s.corrected_uids("ann") == {example.uid} and s.reviewed_uids("ann") == {example.uid}
        assert s.status(other.uid, "ann").reviewed is False


def test_a_change_from_a_value_to_itself_is_no_decision(store, example):
    """A widget that re-sends the value it showed (a note committed on blur, unchanged) must not put an
    action on the annotator's undo stack or mark the example corrected."""
    assert store.record(example.uid, "ann", [Change("relevant_keys", ["0a"], ["0a"])]) is None
    assert store.n_events() == 0 and store.last_action("ann") is None
    kept = store.record(
        example.uid, "ann", [Change("relevant_keys", ["0a"], ["0a"]), Change("utilized_keys", [], ["0a"])]
    )
    assert kept is not None and [e.field for e in store.history(example.uid, "ann")] == ["utilized_keys"]


def test_open_store_without_a_path_opens_ragviz_db_whether_a_file_or_a_postgresql_url(db_target, monkeypatch):
    """``ragviz.open_store()`` reads ``$RAGVIZ_DB`` as the app and the CLI do: a team's PostgreSQL URL too."""
    import ragviz

    monkeypatch.setenv("RAGVIZ_DB", db_target)
    with ragviz.open_store() as store:
        assert (store.path is None) == db_target.startswith("postgresql://")
        store.record("d/1/m", "ann", [Change("review", None, "reviewed")])
    with LabelStore(db_target) as same:
        assert same.reviewed_uids("ann") == {"d/1/m"}
