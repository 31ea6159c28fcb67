"""The label store's public read and write interface: the one door every part of the store goes through.

Anchor: datasette's ``Database.execute_fn`` / ``execute_write_fn``: a function gets the statement runner *q*
(``q(statement, params=())`` with ``?`` placeholders, returning a cursor) and runs under the store's lock
(:meth:`StoreConnection.read`) or in ONE write transaction (:meth:`StoreConnection.write`; durable unless asked
otherwise, which only where an annotator was is);
:meth:`StoreConnection.query` is one read statement. :class:`ragviz.store.label_store.LabelStore` offers the same
three methods, and its composed parts are written against :class:`SqlStore`, what both provide. Nothing outside
``ragviz/store`` writes SQL: it calls a part's method.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ragviz.store.database import Database
from ragviz.store.dialect import Dialect
from ragviz.store.errors import StoreError

__all__ = ["Query", "SqlStore", "StoreConnection"]

T = TypeVar("T")


class Query(Protocol):
    """The statement runner a :meth:`~StoreConnection.read` / :meth:`~StoreConnection.write` function gets:
    ``q(statement, params=())`` with ``?`` placeholders returns a cursor (``fetchone``, ``fetchall``,
    ``rowcount``, iteration); ``q.many(statement, rows)`` runs one statement per row."""

    def __call__(self, statement: str, params: Sequence[Any] = ()) -> Any: ...

    def many(self, statement: str, rows: Sequence[Sequence[Any]]) -> None: ...


class _Runner:
    def __init__(self, connection: StoreConnection):
        self._connection = connection

    def __call__(self, statement: str, params: Sequence[Any] = ()) -> Any:
        return self._connection.db.execute(statement, params)

    def many(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        self._connection.db.executemany(statement, rows)


class SqlStore(Protocol):
    """What the store's parts need: the read / write interface and where the store is."""

    path: Path | None
    location: str
    dialect: Dialect

    def read(self, fn: Callable[[Query], T]) -> T: ...

    def write(self, fn: Callable[[Query], T], durable: bool = True) -> T: ...

    def query(self, statement: str, params: Sequence[Any] = ()) -> list[Any]: ...


class StoreConnection:
    """One label store's database behind its lock (see the module docstring). *on_rollback* runs after a
    write is rolled back (the store forgets in-memory caches that may hold what was rolled back)."""

    def __init__(self, db: Database, on_rollback: Callable[[], None] = lambda: None):
        self._lock = threading.RLock()
        self._db: Database | None = db
        self._on_rollback = on_rollback
        self._q = _Runner(self)
        self.path: Path | None = db.path  # the SQLite file; None on PostgreSQL
        self.location: str = db.location  # the file, or the URL with its password masked
        self.dialect: Dialect = db.dialect

    @property
    def db(self) -> Database:
        if self._db is None:
            raise StoreError(f"{self.location}: label store is closed")
        return self._db

    def read(self, fn: Callable[[Query], T]) -> T:
        """``fn(q)`` under the store's lock; its result. One SQLite connection is shared by threads, so the statements
        of *fn* see one connection: fetch the rows inside *fn*."""
        with self._lock:
            return fn(self._q)

    def query(self, statement: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of one read statement."""
        with self._lock:
            return list(self._q(statement, params).fetchall())

    def write(self, fn: Callable[[Query], T], durable: bool = True) -> T:
        """``fn(q)`` in one write transaction, committed when it returns, rolled back when it raises.
        Writers are serialized on both backends (SQLite's write lock, a PostgreSQL advisory lock); a read inside a
        write sees what the write wrote so far.

        The commit is durable (it waits for the disk) unless *durable* is false: then it survives the app's crash
        but an OS crash or a power cut may lose it (:meth:`Database.begin_write`). That is for what can be lost
        without losing work (where an annotator was); decisions, notes and everything else stay durable."""
        with self._lock:
            self.db.begin_write(durable)
            committed = False
            try:
                try:
                    result = fn(self._q)
                except BaseException:
                    self.db.rollback()
                    raise
                self.db.commit()  # a refused commit rolls itself back (Database.commit)
                committed = True
                return result
            finally:
                if not committed:
                    self._on_rollback()

    def reopen(self) -> Database:
        """A new connection to the same database (the judge's tables keep their own: :mod:`ragviz.judge.cache`)."""
        return self.db.reopen()

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
