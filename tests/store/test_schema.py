"""One schema: a store written by main before the one runner (``tests/fixtures/store_of_main_50a05ad.*.sql``, made by
``tests/fixtures/make_store_of_main.py`` with that commit's ragviz) is migrated in place on SQLite and PostgreSQL,
its data intact and nothing run again; a store a newer ragviz wrote is refused in every migration set, by the label
store and the judge cache alike, and so is one missing a column of any set."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ragviz.data.labels import RELEVANT_FIELD
from ragviz.judge.cache import JudgeCache
from ragviz.store.database import open_database
from ragviz.store.label_store import LabelStore, StoreError
from ragviz.store.postgres import is_url
from ragviz.store.schema import SETS
from tests.analysis.test_agreement import make_example

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ANA, LEAD = "ana@example.org", "lead@example.org"
MIGRATION_TABLES = {"schema_migrations", "judge_migrations"}


def _restore_store_of_main(db_target: str) -> None:
    """The dump of a store main wrote at 50a05ad, loaded into the empty *db_target*."""
    if is_url(db_target):
        import psycopg

        with psycopg.connect(db_target, autocommit=True) as conn:
            conn.execute((FIXTURES / "store_of_main_50a05ad.postgresql.sql").read_text(encoding="utf-8"))
        return
    conn = sqlite3.connect(db_target)
    conn.executescript((FIXTURES / "store_of_main_50a05ad.sqlite.sql").read_text(encoding="utf-8"))
    conn.close()


def _rows(db_target: str, statement: str) -> list[tuple]:
    db = open_database(db_target, StoreError)
    try:
        return [tuple(r) for r in db.execute(statement).fetchall()]
    finally:
        db.close()


def _contents(db_target: str) -> dict[str, list[str]]:
    """Every table but the migrations' bookkeeping, its rows in a stable order."""
    db = open_database(db_target, StoreError)
    try:
        return {
            t: sorted(
                repr(tuple(bytes(v) if isinstance(v, memoryview) else v for v in r))
                for r in db.execute(f"SELECT * FROM {t}")
            )
            for t in db.table_names()
            if t not in MIGRATION_TABLES
        }
    finally:
        db.close()


def test_a_store_of_main_is_migrated_in_place_with_its_data_and_nothing_runs_again(db_target):
    _restore_store_of_main(db_target)
    recorded = dict(_rows(db_target, "SELECT name, applied_at FROM schema_migrations"))
    recorded.update(_rows(db_target, "SELECT name, applied_at FROM judge_migrations"))
    assert len(recorded) == 21 and "judge_0002_endpoint_formats" in recorded
    before = _contents(db_target)

    q1, q2, q3 = (make_example(f"q{i}") for i in (1, 2, 3))
    with LabelStore(db_target) as store:
        assert store.current_labels(q1, ANA).relevant_keys == ("0a", "1b")
        assert store.status(q2.uid, ANA).reviewed is False  # her edit of q2 was undone
        assert store.status(q1.uid, "bo").reviewed and store.position(ANA) == q3.uid
        assert sorted(store.annotators()) == [ANA, "bo"]
        assert set(store.team.assignments.assigned()) == {q1.uid, q2.uid, q3.uid}
        assert len(store.applied_migrations()) == 21
    with JudgeCache(db_target) as cache:
        answer = cache.get("key-1")
        assert answer is not None and answer.labels.relevant_keys == ("0b",) and answer.prompt_tokens == 10
        assert [r.status for r in cache.runs()] == ["done"] and cache.failures()[0].error == "invalid JSON"
        assert cache.endpoint_format("http://127.0.0.1:1/v1", "m") == "json_schema"

    assert _contents(db_target) == before  # no data migration ran again (008, 020), nothing was lost
    now = {name: (migration_set, at) for migration_set, name, at in _rows(db_target, "SELECT * FROM schema_migrations")}
    assert {name: at for name, (_, at) in now.items()} == recorded  # carried over with their times: none re-ran
    sets = {s.name: set(s.names()) for s in SETS}
    assert all(name in sets[migration_set] for name, (migration_set, _) in now.items())
    assert now["015_decision_guidelines"][0] == "team" and now["judge_0001_create"][0] == "judge"
    db = open_database(db_target, StoreError)
    assert "judge_migrations" not in db.table_names()  # one migrations table
    db.close()

    with LabelStore(db_target) as store:  # and it takes new decisions (ids go on from the stored ones)
        action = store.record(q3.uid, "bo", [(RELEVANT_FIELD, None, ["0a"])], example=q3)
        assert action is not None and action > max(
            r[0] for r in _rows(db_target, "SELECT id FROM label_actions WHERE annotator <> 'bo'")
        )
        assert store.current_labels(q3, "bo").relevant_keys == ("0a",)


@pytest.mark.parametrize("migration_set", [s.name for s in SETS])
def test_a_store_a_newer_ragviz_wrote_is_refused_in_every_set(db_target, migration_set):
    LabelStore(db_target).close()
    db = open_database(db_target, StoreError)
    db.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (migration_set, "990_from_the_future", "x"))
    db.close()
    with pytest.raises(StoreError, match="newer ragviz") as refused:
        LabelStore(db_target)
    assert f"{migration_set}:990_from_the_future" in str(refused.value)
    with pytest.raises(ValueError, match="the judge cache was written by a newer ragviz"):
        JudgeCache(db_target)


@pytest.mark.parametrize("table", ["schema_migrations", "judge_migrations"])
def test_a_store_of_the_two_runner_era_with_a_migration_this_ragviz_lacks_is_refused_unchanged(db_target, table):
    _restore_store_of_main(db_target)
    db = open_database(db_target, StoreError)
    db.execute(f"INSERT INTO {table} (name, applied_at) VALUES ('990_from_the_future', 'x')")
    db.close()
    before = _contents(db_target)
    with pytest.raises(StoreError, match="newer ragviz .*990_from_the_future"):
        LabelStore(db_target)
    assert _contents(db_target) == before
    assert len(_rows(db_target, "SELECT name FROM schema_migrations")) == 19 + (table == "schema_migrations")


@pytest.mark.parametrize(
    ("table", "column"),
    [("sign_ins", "ended_at"), ("audit_samples", "design_json"), ("team_guidelines", "text"), ("judge_runs", "status")],
    ids=["core", "audit", "team", "judge"],
)
def test_a_column_missing_in_any_set_is_refused_by_both_openers(db_target, table, column):
    LabelStore(db_target).close()
    db = open_database(db_target, StoreError)
    db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    db.close()
    named = f"table {table} lacks column {column}"
    with pytest.raises(StoreError, match="its schema is damaged") as refused:
        LabelStore(db_target)
    assert named in str(refused.value)
    with pytest.raises(ValueError, match=f"cannot open the judge cache: its schema is damaged .*{named}"):
        JudgeCache(db_target)


def test_the_judge_cache_opening_first_brings_every_set_up_and_the_store_only_reads(db_target):
    with JudgeCache(db_target):
        pass
    applied = _rows(db_target, "SELECT migration_set, name, applied_at FROM schema_migrations")
    assert {(s, n) for s, n, _ in applied} == {(s.name, n) for s in SETS for n in s.names()}
    with LabelStore(db_target) as store:
        store.save_position(LEAD, "toy/q1/m")
    assert _rows(db_target, "SELECT migration_set, name, applied_at FROM schema_migrations") == applied


def test_the_empty_table_an_older_judge_cache_leaves_behind_is_dropped(db_target):
    """An older ragviz's judge cache, refused by a migrated store, first made its (empty) judge_migrations."""
    LabelStore(db_target).close()
    db = open_database(db_target, StoreError)
    db.execute("CREATE TABLE IF NOT EXISTS judge_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    db.close()
    with JudgeCache(db_target) as cache:
        assert cache.count_results() == 0
    db = open_database(db_target, StoreError)
    assert "judge_migrations" not in db.table_names()
    db.close()
