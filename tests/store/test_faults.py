"""Database faults under the label store (issue 34): a PostgreSQL server stopped and started, killed with
SIGKILL, a network partition between the store and the server (a TCP proxy that drops every connection),
an SQLite file locked past its busy timeout and a full disk. During the fault every statement raises
StoreUnavailable (nothing half-written), and within 5 s of the database returning the same open store —
and a second one on the same database, as a second app replica holds — reads and writes again, without
being reopened. A click's id (client_id) makes a retry store it once."""

from __future__ import annotations

import sqlite3
import time

import pytest

from ragviz.store.errors import StoreError, StoreUnavailable
from ragviz.store.label_store import LabelStore
from tests.tcp_proxy import TcpProxy

RECOVERY_S = 5.0
UID = "ex-1"


@pytest.fixture(scope="module")
def fault_pg():
    """A PostgreSQL server of this module's own (its tests stop, kill and restart it)."""
    from tests.pg_server import PostgresServer, find_bindir

    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found")
    server = PostgresServer(bindir)
    server.start()
    yield server
    server.stop()


def _accept(store: LabelStore, who: str = "ann", client_id: str | None = None) -> int | None:
    return store.record(UID, who, [("review", None, "reviewed")], "accept", client_id=client_id)


def _recovers(stores: list[LabelStore], since: float) -> float:
    """Seconds from *since* until every store in *stores* stores a click again (fails past RECOVERY_S + 10)."""
    waiting = list(stores)
    while waiting:
        try:
            _accept(waiting[0])
            waiting.pop(0)
        except StoreUnavailable:
            assert time.monotonic() - since < RECOVERY_S + 10, "the store did not recover"
            time.sleep(0.1)
    return time.monotonic() - since


def _refuses_everything(store: LabelStore) -> None:
    with pytest.raises(StoreUnavailable) as write:
        _accept(store)
    assert "the database is unavailable" in str(write.value)
    with pytest.raises(StoreUnavailable):
        store.n_events()
    with pytest.raises(StoreUnavailable):
        store.reviewed_uids("ann")


@pytest.mark.parametrize("fault", ["stop -m fast", "SIGKILL"])
def test_two_replicas_recover_within_5s_of_postgresql_returning(fault_pg, fault):
    url = fault_pg.new_database()
    one, two = LabelStore(url), LabelStore(url)  # two app replicas' stores, open the whole time
    try:
        _accept(one)
        _accept(two, "bob")
        if fault == "SIGKILL":
            fault_pg.kill_hard()
        else:
            fault_pg.stop_fast()
        _refuses_everything(one)
        _refuses_everything(two)
        with pytest.raises(StoreError):  # a replica started during the outage cannot open it yet
            LabelStore(url)
        fault_pg.restart()
        back = time.monotonic()
        took = _recovers([one, two], back)
        print(f"{fault}: both stores wrote again {took:.2f} s after PostgreSQL returned")
        assert took <= RECOVERY_S
        assert one.n_events() == two.n_events() == 4  # 2 before, 2 after: nothing of the refused clicks
        LabelStore(url).close()  # and a new replica opens it
    finally:
        one.close()
        two.close()


def test_a_network_partition_is_unavailable_and_heals_within_5s(fault_pg):
    url = fault_pg.new_database()
    proxy = TcpProxy(fault_pg.port)
    through = url.replace(f":{fault_pg.port}/", f":{proxy.port}/")
    store = LabelStore(through)
    try:
        _accept(store)
        proxy.partition()
        _refuses_everything(store)
        proxy.heal()
        assert _recovers([store], time.monotonic()) <= RECOVERY_S
        assert store.n_events() == 2
    finally:
        store.close()
        proxy.close()


def test_a_full_sqlite_disk_is_unavailable_and_nothing_half_written(tmp_path):
    store = LabelStore(tmp_path / "labels.db")
    try:
        _accept(store)
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages}")  # the file cannot grow: "database or disk is full"
        with pytest.raises(StoreUnavailable) as full:
            for n in range(200):  # the free space in the last pages runs out within a few clicks
                note = {"supported": None, "supporting_keys": [], "explanation": "x" * 2000}
                store.record(f"ex-{n}", "ann", [("support:a", None, note)])
        assert "database or disk is full" in str(full.value)
        stored = store.n_events()
        store.db.execute("PRAGMA max_page_count = 1073741823")
        assert _accept(store) is not None
        assert store.n_events() == stored + 1
        assert store.reviewed_uids("ann") >= {UID}
    finally:
        store.close()


def test_an_sqlite_file_locked_past_the_busy_timeout_is_unavailable(tmp_path, monkeypatch):
    monkeypatch.setattr("ragviz.store.sqlite.BUSY_TIMEOUT_MS", 300)
    path = tmp_path / "labels.db"
    store = LabelStore(path)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        _accept(store)
        other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
        with pytest.raises(StoreUnavailable) as locked:
            _accept(store)
        assert "database is locked" in str(locked.value)
        other.execute("ROLLBACK")
        assert _accept(store) is not None
        assert store.n_events() == 2
    finally:
        other.close()
        store.close()


def test_a_retried_click_id_is_stored_once(db_target):
    with LabelStore(db_target) as store:
        first = _accept(store, client_id="click-1")
        assert _accept(store, client_id="click-1") == first  # the retry finds it
        assert store.n_events() == 1
        assert _accept(store, client_id="click-2") != first
        with pytest.raises(ValueError, match="already used"):
            _accept(store, "bob", client_id="click-1")
        assert store.undo(UID, "ann", client_id="undo-1")
        assert store.undo(UID, "ann", client_id="undo-1")  # retried: still one undo
        assert len([e for e in store.effective(UID, "ann")]) == 1  # click-1 stands, click-2 undone once


def test_an_existing_store_gains_action_ids_in_place(db_target):
    with LabelStore(db_target) as store:  # made into a store from before 019: no client_id column
        db = store.db
        db.execute("DROP INDEX label_actions_by_client_id")
        db.execute("ALTER TABLE label_actions DROP COLUMN client_id")
        db.execute("DELETE FROM schema_migrations WHERE name = '019_action_ids'")
        db.execute(
            "INSERT INTO label_actions (example_uid, annotator, ts, kind) VALUES (?, ?, ?, ?)",
            (UID, "ann", "2026-01-01T00:00:00Z", "accept"),
        )
    with LabelStore(db_target) as store:
        assert "019_action_ids" in store.applied_migrations()
        assert _accept(store, client_id="c") == _accept(store, client_id="c")
        assert store.db.execute("SELECT COUNT(*) FROM label_actions").fetchone()[0] == 2


def test_a_retry_after_an_unknown_commit_outcome_stores_the_click_once(db_target, monkeypatch):
    """The connection breaks right after the server committed: the page is told "not saved" (it cannot
    know), keeps the click, and its Retry under the same click id finds it stored."""
    from ragviz.store.database import Database

    real = Database.commit

    def commit_then_break(self):
        real(self)
        raise StoreUnavailable("server closed the connection during COMMIT", outcome_unknown=True)

    with LabelStore(db_target) as store:
        monkeypatch.setattr(Database, "commit", commit_then_break)
        with pytest.raises(StoreUnavailable) as lost:
            _accept(store, client_id="click-9")
        assert lost.value.outcome_unknown
        monkeypatch.setattr(Database, "commit", real)
        stored = _accept(store, client_id="click-9")  # the Retry
        assert _accept(store, client_id="click-9") == stored  # and another
        assert store.n_events() == 1
        assert store.reviewed_uids("ann") == {UID}
