"""One connection to the store's database, SQLite file or PostgreSQL URL, behind one interface.

:func:`open_database` picks the backend from *where* (a ``postgresql://`` URL, else a file path);
:class:`Database` runs ``?``-placeholder SQL through the backend's
:class:`~ragviz.store.dialect.Dialect` and opens write transactions the same way for both. The
label store and the judge's tables (:mod:`ragviz.judge.cache`) share this seam, so their SQL is
written once. A database that is unavailable for a while is raised as
:class:`~ragviz.store.errors.StoreUnavailable`, the same for both backends.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from time import monotonic
from typing import Any

from ragviz.store.dialect import POSTGRES, SQLITE, Dialect
from ragviz.store.errors import StoreUnavailable
from ragviz.store.postgres import POOL_MAX, is_url, mask_url, scrub
from ragviz.store.postgres import RELAXED as PG_RELAXED
from ragviz.store.postgres import errors as pg_errors
from ragviz.store.postgres import is_unavailable as pg_is_unavailable
from ragviz.store.postgres import open_pool as pg_open_pool
from ragviz.store.sqlite import DURABLE as SQLITE_DURABLE
from ragviz.store.sqlite import RELAXED as SQLITE_RELAXED
from ragviz.store.sqlite import connect as sqlite_connect
from ragviz.store.sqlite import is_unavailable as sqlite_is_unavailable

__all__ = ["DB_ENV", "Database", "StoreUnavailable", "default_db", "default_db_path", "open_database"]


DB_ENV = "RAGVIZ_DB"


class _Rows:
    """A PostgreSQL statement's result, read whole before its connection goes back to the pool; reads like
    the driver's cursor (``fetchone``, ``fetchall``, iteration)."""

    def __init__(self, rows: list[Any], rowcount: int):
        self._rows = rows
        self._at = 0
        self.rowcount = rowcount

    def fetchone(self) -> Any:
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchall(self) -> list[Any]:
        rest, self._at = self._rows[self._at :], len(self._rows)
        return rest

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class Database:
    """The store's database, its dialect, and where it points: :attr:`path` for SQLite (``None`` on
    PostgreSQL) and :attr:`location`, the path or the URL with its password masked, for messages.

    SQLite is one connection (not thread-safe by itself: callers hold their own lock; :attr:`conn`).
    PostgreSQL is a pool (:func:`ragviz.store.postgres.open_pool`): each statement outside a write
    transaction takes a checked connection and gives it back; a write transaction keeps one connection
    from :meth:`begin_write` to :meth:`commit` / :meth:`rollback` for the thread that opened it.

    A database that cannot be reached or written just now (a restart, a dropped connection, a locked
    file, a full disk: :func:`~ragviz.store.postgres.is_unavailable`,
    :func:`~ragviz.store.sqlite.is_unavailable`) is raised as :class:`StoreUnavailable`; every other
    driver error as the driver raised it."""

    def __init__(self, where: str | os.PathLike, error: type[Exception], what: str = "label store"):
        target = os.fspath(where)
        self._target = target
        self._error = error
        self._what = what
        self.path: Path | None
        self.conn: Any = None  # SQLite's one connection
        self._pool: Any = None  # PostgreSQL's pool
        self._tx = threading.local()  # PostgreSQL: the connection of this thread's open write transaction
        self._relaxed = False  # SQLite: a not-durable write's synchronous = NORMAL is in force (begin_write)
        if is_url(target):
            self.dialect: Dialect = POSTGRES
            self.path = None
            self.location = mask_url(target)
            self._pool = pg_open_pool(target, error, what)
            self.errors: tuple[type[Exception], ...] = pg_errors()
            self._unavailable = pg_is_unavailable
        else:
            self.dialect = SQLITE
            self.path = Path(target).expanduser()
            self.location = str(self.path)
            self.conn = sqlite_connect(self.path, error, what)
            self.errors = (sqlite3.Error,)
            self._unavailable = sqlite_is_unavailable

    def reopen(self, error: type[Exception] | None = None, what: str | None = None) -> Database:
        """A new connection to the same database (the URL's password is never shown to callers)."""
        return Database(self._target, error or self._error, what or self._what)

    def _raise_unavailable(self, exc: BaseException, outcome_unknown: bool = False) -> None:
        """*exc* as :class:`StoreUnavailable` when it says the database is unavailable; else nothing."""
        if self._unavailable(exc):
            raise StoreUnavailable(
                f"{self.location}: the database is unavailable: {self.describe(exc)}", outcome_unknown
            ) from exc

    def _run(self, work: Callable[[Any], Any], read: bool = False) -> Any:
        """*work(connection)*: on SQLite its one connection; on PostgreSQL this thread's transaction
        connection, else a connection from the pool, given back at once. A *read* whose pooled connection
        turns out broken (the server restarted since it was last used) runs again on another (each
        broken one is dropped; at worst the pool makes a new one)."""
        try:
            if self._pool is None:
                return work(self.conn)
            tx = getattr(self._tx, "conn", None)
            if tx is not None:
                return work(tx)
            for attempt in range(POOL_MAX + 1):
                with self._pool.connection() as conn:
                    try:
                        done = work(conn)
                    except self.errors:
                        if not (read and attempt < POOL_MAX and conn.broken):
                            raise
                        continue  # the pool drops the broken connection; another is tried
                    conn._ragviz_used = monotonic()
                    return done
        except self.errors as exc:
            self._raise_unavailable(exc)
            raise
        raise AssertionError("unreachable")

    def execute(self, statement: str, params: Sequence[Any] = ()) -> Any:
        """Run one ``?``-placeholder statement; the driver's cursor on SQLite, its rows read whole on
        PostgreSQL (``fetchone``, ``fetchall``, iteration either way)."""
        if self.dialect.name == "sqlite":
            return self._run(lambda conn: conn.execute(statement, tuple(params)))

        def run(conn: Any) -> _Rows:
            # psycopg: no parameters = no placeholder parsing (a literal % stays as written)
            cur = conn.execute(self.dialect.sql(statement), tuple(params) if params else None)
            return _Rows(cur.fetchall() if cur.description is not None else [], cur.rowcount)

        return self._run(run, read=statement.lstrip()[:6].upper() == "SELECT")

    def executemany(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        if self.dialect.name == "sqlite":
            self._run(lambda conn: conn.executemany(statement, rows))
            return

        def run(conn: Any) -> None:
            with conn.cursor() as cur:
                cur.executemany(self.dialect.sql(statement), rows)

        self._run(run)

    def begin_write(self, durable: bool = True) -> None:
        """Open a write transaction holding the store's write lock (writers are serialized). A write that is not
        *durable* commits without waiting for the disk: SQLite's ``synchronous = NORMAL`` until its commit or
        rollback (:data:`~ragviz.store.sqlite.RELAXED`; FULL again after, whatever happens), PostgreSQL's
        ``synchronous_commit = off`` for that transaction only (:data:`~ragviz.store.postgres.RELAXED`)."""
        if self._pool is None:
            self._restore_durable()  # a restore that failed earlier: no write begins under NORMAL unasked
            if not durable:
                self._run(lambda conn: conn.execute(SQLITE_RELAXED))  # refused inside an open transaction
                self._relaxed = True
            try:
                self._run(lambda conn: self._begin(conn))
            except BaseException:
                if not durable:  # this write's NORMAL only: a write nested in a not-durable one keeps the outer's
                    self._restore_durable()
                raise
            return
        try:
            conn = self._pool.getconn()
        except self.errors as exc:
            self._raise_unavailable(exc)
            raise
        try:
            self._begin(conn, durable)
        except BaseException as exc:
            self._pool.putconn(conn)
            if isinstance(exc, self.errors):
                self._raise_unavailable(exc)
            raise
        self._tx.conn = conn

    def _begin(self, conn: Any, durable: bool = True) -> None:
        conn.execute(self.dialect.begin_write)
        try:
            if self.dialect.lock_write:
                conn.execute(self.dialect.lock_write)
            if not durable and self.dialect.name != "sqlite":
                conn.execute(PG_RELAXED)
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _restore_durable(self) -> None:
        """SQLite: every commit durable again after a not-durable write (outside its transaction, as SQLite wants)."""
        if self._relaxed:
            self._run(lambda conn: conn.execute(SQLITE_DURABLE))
            self._relaxed = False  # only once FULL is in force (SQLite refuses it inside a transaction)

    def commit(self) -> None:
        """Commit the write transaction. A connection that breaks during ``COMMIT`` leaves the outcome
        unknown (:attr:`StoreUnavailable.outcome_unknown`); a refused commit on SQLite (locked, full) is
        rolled back here: nothing of it is stored."""
        if self._pool is None:
            try:
                self._run(lambda conn: conn.execute("COMMIT"))
            except BaseException:
                self.rollback()  # SQLite keeps a transaction open when its COMMIT fails (busy, full)
                raise
            self._restore_durable()
            return
        conn = self._end_tx()
        try:
            conn.execute("COMMIT")
        except self.errors as exc:
            self._raise_unavailable(exc, outcome_unknown=True)
            raise
        finally:
            self._pool.putconn(conn)

    def rollback(self) -> None:
        """Roll the write transaction back; a connection already lost (nothing to roll back) is no error."""
        if self._pool is None:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.OperationalError as exc:  # SQLite rolls back by itself on SQLITE_FULL / I/O errors
                if "no transaction is active" not in str(exc) and not sqlite_is_unavailable(exc):
                    raise
            finally:
                self._restore_durable()
            return
        conn = getattr(self._tx, "conn", None)
        if conn is None:
            return  # a failed COMMIT already gave the connection back
        self._tx.conn = None
        try:
            conn.execute("ROLLBACK")
        except self.errors as exc:
            if not self._unavailable(exc):
                raise
        finally:
            self._pool.putconn(conn)

    def _end_tx(self) -> Any:
        conn = getattr(self._tx, "conn", None)
        if conn is None:
            raise RuntimeError("no write transaction is open on this thread")
        self._tx.conn = None
        return conn

    def has_table(self, name: str) -> bool:
        return self.execute(self.dialect.table_exists, (name,)).fetchone() is not None

    def table_names(self) -> list[str]:
        """Every table in the database (the current schema on PostgreSQL)."""
        if self.dialect.name == "sqlite":
            sql = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        else:
            sql = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        return sorted(r[0] for r in self.execute(sql))

    def describe(self, exc: BaseException) -> str:
        """A driver error as one line, with any secret of the URL masked."""
        text = " ".join(str(exc).split())
        return scrub(text, self._target) if self.dialect.name != "sqlite" else text

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
        else:
            self.conn.close()


def open_database(where: str | os.PathLike, error: type[Exception], what: str = "label store") -> Database:
    """The database at *where*: a ``postgresql://user[:password]@host[:port]/db`` URL, else an SQLite
    file path (its folder created). Failures are raised as *error* ("<file or masked URL>: cannot open
    <what>: <problem>")."""
    return Database(where, error, what)


def default_db_path() -> Path:
    """``$RAGVIZ_DB`` when set, else ``~/.ragviz/ragviz.db`` (a file; see :func:`default_db` for URLs)."""
    env = os.environ.get(DB_ENV)
    if env:
        return Path(env).expanduser()
    return Path.home() / ".ragviz" / "ragviz.db"


def default_db() -> str | Path:
    """Where the store is by default: ``$RAGVIZ_DB`` as given when it is a ``postgresql://`` URL, else
    :func:`default_db_path`."""
    env = os.environ.get(DB_ENV, "").strip()
    return env if is_url(env) else default_db_path()
