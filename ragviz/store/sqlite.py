"""The SQLite backend: one file, WAL journal, ``synchronous=FULL`` (a not-durable write: :data:`RELAXED`), a 30 s busy
timeout.

A new store file is created 0600 (its ``-wal`` / ``-shm`` files take the same mode) and the folders
created for it 0700: labels are not readable by other users of the machine.

PostgreSQL is the module beside this one (:mod:`ragviz.store.postgres`); both are opened through
:mod:`ragviz.store.database` with a :class:`~ragviz.store.dialect.Dialect`, and the SQL of the store and its
migrations stays shared.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

__all__ = ["BUSY_TIMEOUT_MS", "DURABLE", "RELAXED", "connect", "fsync_dir", "is_unavailable", "private_dir"]


BUSY_TIMEOUT_MS = 30_000
DURABLE = "PRAGMA synchronous = FULL"  # every commit synced to the disk before it returns
# A write asked for as not durable (StoreConnection.write(durable=False): where an annotator was, not a decision) runs
# under this, set before its BEGIN (SQLite refuses it inside a transaction) and DURABLE again right after. In WAL mode
# its commit survives the app being killed; an OS crash or a power cut may lose it (the next durable commit syncs it).
RELAXED = "PRAGMA synchronous = NORMAL"

# SQLite's messages for a file that cannot be written or read just now (locked past the busy timeout, a
# full disk, an I/O error, a file gone read-only or away), as opposed to a wrong statement or schema.
_UNAVAILABLE = (
    "database is locked",
    "database table is locked",
    "database or disk is full",
    "disk i/o error",
    "unable to open database file",
    "attempt to write a readonly database",
)


def is_unavailable(exc: BaseException) -> bool:
    """Whether *exc* says the store's file cannot be used just now, not that a statement is wrong.

    >>> is_unavailable(sqlite3.OperationalError("database or disk is full"))
    True
    >>> is_unavailable(sqlite3.OperationalError("no such table: label_events"))
    False
    """
    return isinstance(exc, sqlite3.OperationalError) and str(exc).lower().startswith(_UNAVAILABLE)


def connect(where: Path, error: type[Exception], what: str = "label store") -> sqlite3.Connection:
    """An autocommit connection to the SQLite file *where* (its folder created), usable from any
    thread; every failure is raised as *error* with a message naming the file."""
    if where.exists() and where.is_dir():
        raise error(f"{where}: cannot open {what}: is a directory")
    try:
        private_dir(where.parent)
    except OSError as exc:
        raise error(f"{where}: cannot create the folder for the {what}: {exc.strerror or exc}") from None
    try:
        if not where.exists():
            os.close(os.open(where, os.O_WRONLY | os.O_CREAT, 0o600))
    except OSError as exc:
        raise error(f"{where}: cannot create the {what}: {exc.strerror or exc}") from None
    try:
        conn = sqlite3.connect(
            str(where), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        conn.execute(DURABLE)
        conn.execute("PRAGMA foreign_keys = ON")
    except sqlite3.DatabaseError as exc:
        raise error(f"{where}: cannot open {what}: {exc}") from None
    if str(mode).lower() != "wal":
        conn.close()
        raise error(f"{where}: cannot open {what}: the file system does not support WAL journaling (got {mode!r})")
    return conn


def private_dir(path: Path) -> None:
    """Create *path* and any missing parent, each new one mode 0700 (existing folders are left as they are)."""
    missing = []
    while not path.exists():
        missing.append(path)
        if path.parent == path:
            break
        path = path.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass


def fsync_dir(path: Path) -> None:
    """Make a new file's directory entry durable (best effort: not every file system allows it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
