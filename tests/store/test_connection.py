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
