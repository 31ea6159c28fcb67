"""The data files a label store remembers, and the uploads it keeps.

A *data source* is a file opened on the app's Data page (not the data the app was started with), judged by
``ragviz label --db`` or written by ``ragviz import ... --db``, registered by its absolute path so ``ragviz export``
can rebuild the examples without being told where they are. An *upload* is a file someone gave the app: kept under
a content-hashed name (:mod:`ragviz.store.uploads`) next to an SQLite store; on PostgreSQL its bytes also go into
the ``uploads`` table, registered once as ``upload:<name>``, and each replica and the CLI write their own copy on
first use. *Chosen data* is what someone opened, per annotator or for the team (:meth:`DataSources.choose_data`).

:class:`DataSources` is a part composed into :class:`ragviz.store.label_store.LabelStore` as ``store.sources``;
it owns this SQL and reaches the database through the store's read / write interface (:mod:`ragviz.store.connection`).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ragviz.store.connection import Query, SqlStore
from ragviz.store.events import now_iso
from ragviz.store.uploads import digest_of, keep_bytes, keep_stream

__all__ = ["ChosenData", "DataSources", "UPLOAD_PREFIX"]


UPLOAD_PREFIX = "upload:"  # a data source that is an upload kept in the database (PostgreSQL)


@dataclass(frozen=True)
class ChosenData:
    """Data someone opened (:meth:`DataSources.choose_data`): its *sources* as the store names them
    (:meth:`DataSources.source_of`; :meth:`DataSources.local_path` gives the file to read), the app's
    start-up data at the time, who chose it and when (ISO-8601, UTC)."""

    sources: tuple[str, ...]
    startup: tuple[str, ...]
    chosen_by: str
    ts: str


class DataSources:
    """Registered data files and kept uploads of one label store (see the module docstring)."""

    def __init__(self, store: SqlStore):
        self._store = store

    def register(self, path: str | os.PathLike) -> None:
        """Remember a data file (see the module docstring), so exports can rebuild the examples: as
        :meth:`source_of` names it (an upload kept in a PostgreSQL store by its content, else the
        absolute path)."""
        self._register(self.source_of(path))

    def source_of(self, path: str | os.PathLike) -> str:
        """How the store names a data file for every replica and the CLI: on PostgreSQL a file in this
        machine's :attr:`uploads_dir` that the store holds is ``upload:NAME`` (its bytes are in the
        database, its local path is one machine's copy); anything else its absolute path."""
        text = str(path)
        if text.startswith(UPLOAD_PREFIX):
            return text
        resolved = Path(text).expanduser().resolve()
        if (
            self._store.path is None
            and resolved.parent == self.uploads_dir.resolve()
            and self._holds_upload(resolved.name)
        ):
            return UPLOAD_PREFIX + resolved.name
        return str(resolved)

    def local_path(self, source: str) -> str:
        """The file to read for a source :meth:`source_of` named: an ``upload:NAME`` written to this
        machine's :attr:`uploads_dir` from the store when missing; a path as it is."""
        return self._upload_file(source[len(UPLOAD_PREFIX) :]) if source.startswith(UPLOAD_PREFIX) else source

    def _holds_upload(self, name: str) -> bool:
        return bool(self._store.query("SELECT 1 FROM uploads WHERE name = ?", (name,)))

    def _register(self, source: str) -> None:
        self._store.write(
            lambda q: q(
                "INSERT INTO data_sources (path, ts) VALUES (?, ?) ON CONFLICT (path) DO NOTHING", (source, now_iso())
            )
        )

    def registered(self) -> list[str]:
        """Registered data files, in the order they were first registered, each once (on PostgreSQL an
        upload is kept in the database and written to :attr:`uploads_dir` when this replica lacks it;
        a replica's local copy registered by an older version counts as that upload)."""
        stored = [r[0] for r in self._store.query("SELECT path FROM data_sources ORDER BY id")]
        if self._store.path is None:
            stored = [self._legacy_upload(s) for s in stored]
        return [self.local_path(s) for s in dict.fromkeys(stored)]

    def _legacy_upload(self, stored: str) -> str:
        """``upload:NAME`` for a path some replica registered for its own copy of an upload (in an
        ``uploads`` folder, named as the store holds it); else *stored*."""
        if stored.startswith(UPLOAD_PREFIX) or Path(stored).parent.name != "uploads":
            return stored
        name = Path(stored).name
        return UPLOAD_PREFIX + name if self._holds_upload(name) else stored

    # -- which data is open -------------------------------------------------------------------
    def choose_data(
        self, scope: str, paths: Sequence[str | os.PathLike], chosen_by: str, startup: Sequence[str] = ()
    ) -> ChosenData:
        """Remember *paths* as the data open for *scope* (an annotator, or the team), chosen by
        *chosen_by* while the app's start-up data was *startup*; each path is registered as a data
        source too (:meth:`register`: an upload by its content). The newest choice of a scope counts."""
        if not scope or not chosen_by.strip():
            raise ValueError("scope and chosen_by must be non-empty")
        sources = tuple(dict.fromkeys(self.source_of(p) for p in paths))
        ts = now_iso()

        def choose(q: Query) -> None:
            for source in sources:
                q("INSERT INTO data_sources (path, ts) VALUES (?, ?) ON CONFLICT (path) DO NOTHING", (source, ts))
            q(
                "INSERT INTO chosen_data (scope, sources, startup, chosen_by, ts) VALUES (?, ?, ?, ?, ?)",
                (scope, json.dumps(list(sources)), json.dumps(list(startup)), chosen_by, ts),
            )

        self._store.write(choose)
        return ChosenData(sources, tuple(startup), chosen_by, ts)

    def chosen_data(self, scope: str) -> ChosenData | None:
        """The newest :meth:`choose_data` of *scope*, or ``None``."""
        rows = self._store.query(
            "SELECT sources, startup, chosen_by, ts FROM chosen_data WHERE scope = ? ORDER BY id DESC LIMIT 1", (scope,)
        )
        if not rows:
            return None
        row = rows[0]
        return ChosenData(tuple(json.loads(row[0]) or ()), tuple(json.loads(row[1]) or ()), row[2], row[3])

    @property
    def uploads_dir(self) -> Path:
        """Where uploads are kept as files: next to an SQLite file; for PostgreSQL, this machine's copy
        (``~/.ragviz/uploads``) of the bytes the database holds."""
        if self._store.path is None:
            return Path.home() / ".ragviz" / "uploads"
        return self._store.path.parent / f"{self._store.path.stem}-uploads"

    def save_upload(self, name: str, data: bytes) -> Path:
        """:meth:`keep_upload` and :meth:`register_upload` of bytes in memory; the file's path."""
        path = self.keep_upload(name, io.BytesIO(data))
        self.register_upload(path)
        return path

    def keep_upload(self, name: str, source: BinaryIO) -> Path:
        """Keep an uploaded file (read from *source* in chunks) under a content-hashed name
        (:mod:`ragviz.store.uploads`), not yet registered; the file's path.

        The same bytes uploaded again (under any name with the same extension) map to the same file.
        On SQLite the file sits next to the DB; on PostgreSQL the bytes also go into the ``uploads``
        table (one transaction, so every replica reaches them) and each replica writes its own copy on use.
        """
        path, _ = keep_stream(self.uploads_dir, name, source)
        if self._store.path is not None:
            return path
        rows = self._store.query(
            "SELECT name FROM uploads WHERE name LIKE ? ORDER BY name LIMIT 1", (f"{digest_of(path.name)}-%",)
        )
        row = rows[0] if rows else None
        if row is not None and Path(row[0]).suffix.lower() == path.suffix.lower():
            if row[0] != path.name:  # another replica kept the same content first: use its name
                os.replace(path, self.uploads_dir / row[0])
            return self.uploads_dir / row[0]
        data = path.read_bytes()
        self._store.write(
            lambda q: q(
                "INSERT INTO uploads (name, data, ts) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
                (path.name, data, now_iso()),
            )
        )
        return path

    def register_upload(self, path: Path) -> None:
        """Register a kept upload as a data source (after it loaded without errors)."""
        if self._store.path is None:
            self._register(UPLOAD_PREFIX + path.name)
        else:
            self.register(path)

    def uploads(self) -> list[Path]:
        """The registered uploads, oldest first."""
        stored = [r[0] for r in self._store.query("SELECT path FROM data_sources ORDER BY id")]
        if self._store.path is None:
            names = dict.fromkeys(self._legacy_upload(s) for s in stored)
            return [Path(self.local_path(s)) for s in names if s.startswith(UPLOAD_PREFIX)]
        folder = self.uploads_dir.resolve()
        return [Path(s) for s in stored if Path(s).parent == folder]

    def remove_upload(self, path: Path) -> bool:
        """Forget a kept upload: its data-source entry, its bytes (PostgreSQL) and this machine's file.
        True when something was removed. Label decisions on its examples stay in the store."""
        path = Path(path)
        if path.parent.resolve() != self.uploads_dir.resolve():
            return False
        source = UPLOAD_PREFIX + path.name if self._store.path is None else str(path.resolve())

        def forget(q: Query) -> int:
            gone = q("DELETE FROM data_sources WHERE path = ?", (source,)).rowcount
            if self._store.path is None:
                gone += q("DELETE FROM data_sources WHERE path LIKE ?", (f"%/uploads/{path.name}",)).rowcount
                gone += q("DELETE FROM uploads WHERE name = ?", (path.name,)).rowcount
            return gone

        gone = self._store.write(forget)
        existed = path.exists()
        path.unlink(missing_ok=True)
        return bool(gone) or existed

    def _upload_file(self, stored: str) -> str:
        target = self.uploads_dir / stored
        if not target.exists():
            rows = self._store.query("SELECT data FROM uploads WHERE name = ?", (stored,))
            if not rows:
                return str(target)  # gone from the database too: the loader will say the file is missing
            keep_bytes(target, bytes(rows[0][0]))
        return str(target)
