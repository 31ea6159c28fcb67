"""One connection to the store's database, SQLite file or PostgreSQL URL, behind one interface.

:func:`open_database` picks the backend from *where* (a ``postgresql://`` URL, else a file path);
:class:`Database` runs ``?``-placeholder SQL through the backend's
:class:`~ragviz.store.migrations.Dialect` and opens write transactions the same way for both. The
label store and the judge's tables (:mod:`ragviz.judge.cache`) share this seam, so their SQL is
written once.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragviz.store.migrations import POSTGRES, SQLITE, Dialect
from ragviz.store.postgres import connect as pg_connect
from ragviz.store.postgres import errors as pg_errors
from ragviz.store.postgres import is_url, mask_url, scrub
from ragviz.store.sqlite import connect as sqlite_connect

__all__ = ["DB_ENV", "Database", "default_db", "default_db_path", "open_database"]


DB_ENV = "RAGVIZ_DB"


class Database:
    """A connection (not thread-safe by itself: callers hold their own lock), its dialect, and
    where it points: :attr:`path` for SQLite (``None`` on PostgreSQL) and :attr:`location`, the path
    or the URL with its password masked, for messages."""

    def __init__(self, where: str | os.PathLike, error: type[Exception], what: str = "label store"):
        target = os.fspath(where)
        self._target = target
        self._error = error
        self._what = what
        self.path: Path | None
        if is_url(target):
            self.dialect: Dialect = POSTGRES
            self.path = None
            self.location = mask_url(target)
            self.conn: Any = pg_connect(target, error, what)
            self.errors: tuple[type[Exception], ...] = pg_errors()
        else:
            self.dialect = SQLITE
            self.path = Path(target).expanduser()
            self.location = str(self.path)
            self.conn = sqlite_connect(self.path, error, what)
            self.errors = (sqlite3.Error,)

    def reopen(self, error: type[Exception] | None = None, what: str | None = None) -> Database:
        """A new connection to the same database (the URL's password is never shown to callers)."""
        return Database(self._target, error or self._error, what or self._what)

    def execute(self, statement: str, params: Sequence[Any] = ()) -> Any:
        """Run one ``?``-placeholder statement; the driver's cursor (``fetchone``, ``fetchall``, iteration)."""
        if self.dialect.name == "sqlite":
            return self.conn.execute(statement, tuple(params))
        # psycopg: no parameters = no placeholder parsing (a literal % stays as written)
        return self.conn.execute(self.dialect.sql(statement), tuple(params) if params else None)

    def executemany(self, statement: str, rows: Sequence[Sequence[Any]]) -> None:
        if self.dialect.name == "sqlite":
            self.conn.executemany(statement, rows)
        else:
            with self.conn.cursor() as cur:
                cur.executemany(self.dialect.sql(statement), rows)

    def begin_write(self) -> None:
        """Open a write transaction holding the store's write lock (writers are serialized)."""
        self.conn.execute(self.dialect.begin_write)
        if self.dialect.lock_write:
            try:
                self.conn.execute(self.dialect.lock_write)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise

    def commit(self) -> None:
        self.conn.execute("COMMIT")

    def rollback(self) -> None:
        self.conn.execute("ROLLBACK")

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
