"""The store's public read / write interface (store.read / store.write / store.query), on SQLite and PostgreSQL."""

from __future__ import annotations

import threading

import pytest

from ragviz.data.labels import Change
from ragviz.store.label_store import LabelStore


def _positions(store: LabelStore) -> list[tuple[str, str]]:
    return [tuple(r) for r in store.query("SELECT annotator, example_uid FROM annotator_positions ORDER BY annotator")]


def test_a_write_commits_what_its_function_wrote_and_returns_its_result(db_target):
    with LabelStore(db_target) as store:
        made = store.write(
            lambda q: q(
                "INSERT INTO annotator_positions (annotator, example_uid, ts) VALUES (?, ?, ?) RETURNING annotator",
                ("ann", "d/1/m", "2026-01-01T00:00:00+00:00"),
            ).fetchone()[0]
        )
        assert made == "ann"
    with LabelStore(db_target) as again:  # durable: another connection reads it
        assert _positions(again) == [("ann", "d/1/m")] and again.position("ann") == "d/1/m"


def test_a_write_whose_function_raises_leaves_nothing_and_the_store_usable(db_target):
    with LabelStore(db_target) as store:

        def half_then_fail(q):
            q.many(
                "INSERT INTO annotator_positions (annotator, example_uid, ts) VALUES (?, ?, ?)",
                [("ann", "d/1/m", "t"), ("bo", "d/2/m", "t")],
            )
            raise OSError("disk full")

        with pytest.raises(OSError, match="disk full"):
            store.write(half_then_fail)
        assert _positions(store) == []
        assert store.record("d/1/m", "ann", [Change("review", None, "reviewed")]) is not None
        assert store.reviewed_uids("ann") == {"d/1/m"}


def test_a_read_inside_a_write_sees_what_the_write_wrote_so_far(db_target):
    with LabelStore(db_target) as store:

        def write_then_read(q):
            q("INSERT INTO annotator_positions (annotator, example_uid, ts) VALUES (?, ?, ?)", ("ann", "d/1/m", "t"))
            return store.query("SELECT example_uid FROM annotator_positions WHERE annotator = ?", ("ann",))

        assert [tuple(r) for r in store.write(write_then_read)] == [("d/1/m",)]


def test_reads_and_writes_from_threads_share_one_store(db_target):
    with LabelStore(db_target) as store:
        errors: list[BaseException] = []

        def click(i: int) -> None:
            try:
                store.record(f"d/{i}/m", "ann", [Change("review", None, "reviewed")])
                store.read(lambda q: q("SELECT COUNT(*) FROM label_events").fetchone())
            except BaseException as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=click, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == [] and store.n_events() == 8 and len(store.reviewed_uids("ann")) == 8


def _commit_mode(q, dialect: str) -> str:
    """How this connection commits just now: SQLite's synchronous level, PostgreSQL's synchronous_commit."""
    if dialect == "sqlite":
        return {1: "relaxed", 2: "durable"}[q("PRAGMA synchronous").fetchone()[0]]
    return {"off": "relaxed", "on": "durable"}[q("SHOW synchronous_commit").fetchone()[0]]


def test_a_position_is_written_without_waiting_for_the_disk_and_everything_else_durably(db_target):
    with LabelStore(db_target) as store:
        kind = store.dialect.name
        seen = store.write(
            lambda q: (
                q(
                    "INSERT INTO annotator_positions (annotator, example_uid, ts) VALUES (?, ?, ?)",
                    ("ann", "d/1/m", "t"),
                ),
                _commit_mode(q, kind),
            )[1],
            durable=False,
        )
        assert seen == "relaxed"
        assert store.read(lambda q: _commit_mode(q, kind)) == "durable"  # back right after the commit
        store.save_position("bo", "d/2/m")
        assert store.write(lambda q: _commit_mode(q, kind)) == "durable"  # the next write is durable again
        assert store.record("d/1/m", "ann", [Change("review", None, "reviewed")]) is not None
    with LabelStore(db_target) as again:  # another connection reads what was committed
        assert _positions(again) == [("ann", "d/1/m"), ("bo", "d/2/m")]
        assert again.position("bo") == "d/2/m" and again.reviewed_uids("ann") == {"d/1/m"}


def test_a_failing_not_durable_write_leaves_nothing_and_commits_durable_again(db_target):
    with LabelStore(db_target) as store:
        kind = store.dialect.name

        def half_then_fail(q):
            q("INSERT INTO annotator_positions (annotator, example_uid, ts) VALUES (?, ?, ?)", ("ann", "d/1/m", "t"))
            assert _commit_mode(q, kind) == "relaxed"
            raise OSError("disk full")

        with pytest.raises(OSError, match="disk full"):
            store.write(half_then_fail, durable=False)
        assert _positions(store) == []
        assert store.read(lambda q: _commit_mode(q, kind)) == "durable"
        assert store.write(lambda q: _commit_mode(q, kind)) == "durable"


def test_a_decision_right_after_a_position_commits_durably_on_sqlite(tmp_path):
    with LabelStore(tmp_path / "labels.db") as store:
        said: list[str] = []
        store.db.conn.set_trace_callback(said.append)  # every statement the store's one connection runs
        store.save_position("ann", "d/1/m")
        store.record("d/1/m", "ann", [Change("review", None, "reviewed")])
        store.db.conn.set_trace_callback(None)
    commits = [i for i, s in enumerate(said) if s == "COMMIT"]
    levels = [(i, s) for i, s in enumerate(said) if s.startswith("PRAGMA synchronous =")]
    assert len(commits) == 2, said

    def level_at(i: int) -> str:
        return [s for at, s in levels if at < i][-1] if any(at < i for at, _ in levels) else "PRAGMA synchronous = FULL"

    assert level_at(commits[0]) == "PRAGMA synchronous = NORMAL"  # the position
    assert level_at(commits[1]) == "PRAGMA synchronous = FULL"  # the decision


def test_a_write_nested_in_a_not_durable_write_leaves_every_later_commit_durable(tmp_path):
    """A write opened inside another cannot begin (SQLite has one transaction a connection); the inner write's
    failed BEGIN must not take the outer one's synchronous = NORMAL for its own: the outer write's rollback then
    left NORMAL in force for every later decision (the PRAGMA refused inside the open transaction)."""
    with LabelStore(tmp_path / "labels.db") as store:
        with pytest.raises(Exception):  # noqa: B017 (SQLite's "cannot start a transaction within a transaction")
            store.write(lambda q: store.write(lambda q2: None), durable=False)
        assert not store.db.conn.in_transaction
        assert store.read(lambda q: _commit_mode(q, "sqlite")) == "durable"
        assert store.write(lambda q: _commit_mode(q, "sqlite")) == "durable"


def test_the_newest_event_id_moves_with_a_decision_and_its_undo_not_with_a_position(db_target):
    with LabelStore(db_target) as store:
        assert store.last_event_id("ann") is None
        store.record("d/1/m", "ann", [Change("review", None, "reviewed")])
        first = store.last_event_id("ann")
        assert first is not None
        store.save_position("ann", "d/2/m")
        store.record("d/1/m", "bo", [Change("review", None, "reviewed")])  # someone else's
        assert store.last_event_id("ann") == first
        assert store.undo("d/1/m", "ann")
        assert store.last_event_id("ann") > first
