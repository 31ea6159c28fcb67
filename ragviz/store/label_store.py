"""The label store: an append-only log of human label decisions in one SQLite file or PostgreSQL database.

Every decision (one click in the app, one CLI edit) is an *action*: one or more field changes of
one example's labels by one annotator, written as rows of ``label_events`` in ONE transaction that
is committed before :meth:`LabelStore.record` returns, so a ``kill -9`` right after the call loses
nothing (SQLite: WAL journal, ``synchronous=FULL``; PostgreSQL: a committed transaction). Events are never updated or deleted: an undo is one
more event (field ``undo``, new value = the undone action id), a reset is an event (field
``reset``) that returns the labels to their base.

Current labels of an example for an annotator = its base labels (the latest judge label set the
store holds for it, else the labels the loaded file carries) with every *effective* event of that
annotator folded over them in order (:func:`ragviz.data.labels.apply_changes`); effective = not part of
an undone action and not an ``undo`` marker.

A small derived table ``example_status`` (one row per example and annotator: reviewed? corrected?
last decision time) is rewritten in the same transaction as the events, so the per-rerun
questions "which examples has this person reviewed / corrected" are one indexed query each.

Portability: the schema uses plain SQL types (TEXT, INTEGER, BIGINT) and an identity column type
supplied by the :class:`Dialect`; statements are written with ``?`` placeholders and translated by
the dialect (:mod:`ragviz.store.dialect`; the schema: :mod:`ragviz.store.schema`), and ``INSERT ... RETURNING`` / ``ON CONFLICT`` are understood by
both SQLite >= 3.35 and PostgreSQL. Both backends sit behind :class:`ragviz.store.database.Database`
(:mod:`ragviz.store.sqlite`, :mod:`ragviz.store.postgres`): the same SQL, the same migrations; writers are
serialized on both (SQLite's write lock, a PostgreSQL advisory lock per write transaction).

This module is one class and reads best whole: every write path of a decision shares the same transaction,
lock and status cache, and seeing them side by side is how a reader checks that none can be lost. Beside it:
:mod:`~ragviz.store.events` (folding, pure), :mod:`~ragviz.store.sources` (data files, uploads),
:mod:`~ragviz.store.status_cache`, :mod:`~ragviz.store.errors`.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from ragviz.data.labels import (
    CLAIM_PREFIX,
    RESET_FIELD,
    Change,
    check_value,
    field_value,
)
from ragviz.data.model import Example, Labels
from ragviz.data.roles import identity_name
from ragviz.store.database import DB_ENV, Database, default_db, default_db_path, open_database
from ragviz.store.errors import Conflict, StaleEdit, StoreError, StoreUnavailable
from ragviz.store.events import (
    UNDO_FIELD,
    Event,
    ExampleStatus,
    StoredAction,
    TeamLabels,
    base_labels,
    canonical,
    check_field,
    effective_events,
    fold_labels,
    fold_team,
    is_label_field,
    now_iso,
    status_of,
)
from ragviz.store.judge_sets import JudgeLabelSets
from ragviz.store.schema import migrate
from ragviz.store.sources import DataSources
from ragviz.store.status_cache import StatusCaches

__all__ = [
    "Conflict",
    "DB_ENV",
    "EVERYONE",
    "LabelStore",
    "StaleEdit",
    "StoreError",
    "StoreUnavailable",
    "default_db",
    "default_db_path",
    "open_store",
]


# The store's errors and default location are defined beside it (errors.py, database.py) and offered here too.

#: In place of an annotator's name where labels are read (statuses, exports): every annotator's latest
#: decision per example (:func:`ragviz.store.events.fold_team`). Nobody can record under it.
EVERYONE = "*"
_UNCHECKED = object()  # the stale check has no stored value to compare with
_EVENT_COLUMNS = "e.id, e.action_id, e.example_uid, e.annotator, e.ts, e.field, e.old_value, e.new_value, a.kind"


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _event(row: Sequence[Any]) -> Event:
    return Event(
        id=row[0],
        action_id=row[1],
        example_uid=row[2],
        annotator=row[3],
        ts=row[4],
        field=row[5],
        old=_loads(row[6]),
        new=_loads(row[7]),
        action=row[8],
    )


class LabelStore(DataSources, JudgeLabelSets):
    """Append-only store of label decisions (see the module docstring).

    *where* is an SQLite file path or a ``postgresql://`` URL (:func:`open_database`). Safe to share
    between threads (one connection behind a lock) and between processes and replicas (SQLite file
    locking with ``busy_timeout``; a PostgreSQL advisory lock per write transaction). Use as a context
    manager or call :meth:`close`.
    """

    def __init__(self, where: str | os.PathLike):
        self._lock = threading.RLock()
        self._db: Database | None = None
        self._statuses = StatusCaches()
        self._db = db = open_database(where, StoreError)
        self.path: Path | None = db.path  # the SQLite file; None on PostgreSQL
        self.location = db.location  # the file, or the URL with its password masked
        self.dialect = db.dialect
        try:
            migrate(db, StoreError, "label store")
        except StoreError:
            self.close()
            raise
        except db.errors as exc:
            self.close()
            raise StoreError(f"{self.location}: cannot open label store: {db.describe(exc)}") from None

    # -- connection and transactions -------------------------------------------------------------
    @property
    def db(self) -> Database:
        if self._db is None:
            raise StoreError(f"{self.location}: label store is closed")
        return self._db

    def reopen_database(self) -> Database:
        """A new connection to the store's database, for the judge's tables (:mod:`ragviz.judge.cache`)."""
        return self.db.reopen()

    def _q(self, statement: str, params: Sequence[Any] = ()) -> Any:
        return self.db.execute(statement, params)

    class _Tx:
        def __init__(self, store: LabelStore):
            self.store = store

        def __enter__(self) -> LabelStore:
            self.store._lock.acquire()
            try:
                self.store.db.begin_write()
            except BaseException:
                self.store._lock.release()
                raise
            return self.store

        def __exit__(
            self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
        ) -> None:
            committed = False
            try:
                if exc_type is None:
                    self.store.db.commit()
                    committed = True
                else:
                    self.store.db.rollback()
            finally:
                if not committed:
                    self.store._statuses.clear()  # they may hold what was just rolled back
                self.store._lock.release()

    def _write(self) -> LabelStore._Tx:
        """One write transaction, committed (durably) when the ``with`` block ends."""
        return LabelStore._Tx(self)

    def applied_migrations(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._q("SELECT name FROM schema_migrations ORDER BY name")]

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> LabelStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LabelStore({self.location!r})"

    # -- events ------------------------------------------------------------------------------
    def _events(self, example_uid: str, annotator: str) -> list[Event]:
        rows = self._q(
            f"SELECT {_EVENT_COLUMNS} FROM label_events e JOIN label_actions a ON a.id = e.action_id"
            " WHERE e.example_uid = ? AND e.annotator = ? ORDER BY e.id",
            (example_uid, annotator),
        ).fetchall()
        return [_event(r) for r in rows]

    def _new_action(self, example_uid: str, annotator: str, ts: str, kind: str, client_id: str | None = None) -> int:
        click = ("", "", ()) if client_id is None else (", client_id", ", ?", (client_id,))  # (019's column)
        row = self._q(
            f"INSERT INTO label_actions (example_uid, annotator, ts, kind{click[0]}, guideline_version)"
            f" VALUES (?, ?, ?, ?{click[1]}, (SELECT MAX(id) FROM team_guidelines)) RETURNING id",  # the version in force
            (example_uid, annotator, ts, kind, *click[2]),
        ).fetchone()
        return int(row[0])

    def _stored_action(self, client_id: str | None, example_uid: str, annotator: str) -> int | None:
        """The id of the action stored under the click id *client_id* (a retry of it stores nothing),
        ``None`` when there is none; :class:`ValueError` when that id is another example's or person's."""
        if client_id is None:
            return None
        if not isinstance(client_id, str) or not client_id.strip():
            raise ValueError("client_id must be a non-empty string")
        row = self._q(
            "SELECT id, example_uid, annotator FROM label_actions WHERE client_id = ?", (client_id,)
        ).fetchone()
        if row is None:
            return None
        if (row[1], row[2]) != (example_uid, annotator):
            raise ValueError(f"action id {client_id!r} was already used for another decision")
        return int(row[0])

    def _insert_event(
        self, action_id: int, example_uid: str, annotator: str, ts: str, field_name: str, old: Any, new: Any
    ) -> None:
        self._q(
            "INSERT INTO label_events (action_id, example_uid, annotator, ts, field, old_value, new_value)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (action_id, example_uid, annotator, ts, field_name, _dumps(old), _dumps(new)),
        )

    def _refresh_status(self, example_uid: str, annotator: str, action_id: int) -> ExampleStatus:
        status = status_of(effective_events(self._events(example_uid, annotator)))
        self._q(
            "INSERT INTO example_status (annotator, example_uid, reviewed, corrected, last_ts, last_action_id)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (annotator, example_uid) DO UPDATE SET"
            " reviewed = excluded.reviewed, corrected = excluded.corrected,"
            " last_ts = excluded.last_ts, last_action_id = excluded.last_action_id",
            (annotator, example_uid, int(status.reviewed), int(status.corrected), status.last_ts, action_id),
        )
        return status

    @staticmethod
    def _check_ids(example_uid: str, annotator: str) -> None:
        if not isinstance(example_uid, str) or not example_uid:
            raise ValueError("example_uid must be a non-empty string")
        if not isinstance(annotator, str) or not annotator.strip():
            raise ValueError("annotator must be a non-empty name")
        if annotator.strip() == EVERYONE:
            raise ValueError(f"{EVERYONE!r} is not an annotator's name: it stands for every annotator")

    def record(
        self,
        example_uid: str,
        annotator: str,
        changes: Sequence[Change | tuple[str, Any, Any]],
        action: str = "edit",
        example: Example | None = None,
        client_id: str | None = None,
    ) -> int | None:
        """Store one decision (several field changes) in one durable transaction.

        *client_id*, when given, is the click's own id (made once per click by the page): a decision with
        an id already stored is not stored again, and the stored action's id is returned. So a retry
        after an unknown outcome (:class:`~ragviz.store.errors.StoreUnavailable` with ``outcome_unknown``)
        stores the click once.

        *changes* are :class:`ragviz.data.labels.Change` (or ``(field, old, new)`` triples). Returns the
        new action id, ``None`` when *changes* is empty or changes no stored value (a label field whose
        ``new`` equals its ``old`` is dropped from the decision).

        No lost update: each label field's ``old`` is the value the person saw. Inside the same write
        transaction the store compares it with the field's stored current value for this annotator and
        raises :class:`StaleEdit` (writing nothing) when they differ, unless the stored value already
        equals ``new`` (then nothing is lost; the event records the stored value as ``old``). A label
        field sent with ``old == new`` beside a real change is checked the same way, not written (a
        context click sends both of the sentence's fields). With *example*, the stored value is the
        field of the example's current labels (judge base included: a re-judge since counts); without
        it, the ``new`` of the field's latest effective event since the last reset (none: unchecked).
        Labels are per annotator, so two annotators never conflict; ``review`` / ``reset`` markers
        and :meth:`undo` carry no value and are never refused (each can itself be undone).
        """
        self._check_ids(example_uid, annotator)
        annotator = identity_name(annotator)
        items = [c if isinstance(c, Change) else Change(*c) for c in changes]
        if not items:
            return None
        for c in items:
            check_field(c.field)
            check_value(c.field, c.new)
            try:
                _dumps(c.old), _dumps(c.new)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{c.field}: value cannot be stored as JSON: {exc}") from None
        # a label "change" from a value to itself (a widget re-sent it) is no decision; beside a real change
        # it is what the decision assumed (a context click's other field): checked, not written
        assumed = [c for c in items if is_label_field(c.field) and canonical(c.old) == canonical(c.new)]
        items = [c for c in items if c not in assumed]
        if not items:
            return None
        ts = now_iso()
        with self._write():
            stored = self._stored_action(client_id, example_uid, annotator)
            if stored is not None:
                return stored
            items = self._check_stale(example_uid, annotator, items, example, assumed)
            action_id = self._new_action(example_uid, annotator, ts, action, client_id)
            for c in items:
                self._insert_event(action_id, example_uid, annotator, ts, c.field, c.old, c.new)
            status = self._refresh_status(example_uid, annotator, action_id)
            self._statuses.put(annotator, example_uid, status, action_id, self._q)
        return action_id

    def _check_stale(
        self, example_uid: str, annotator: str, items: list[Change], example: Example | None, assumed: Sequence[Change]
    ) -> list[Change]:
        """*items* with ``old`` set to the stored value; :class:`StaleEdit` when a field changed since
        it was shown, or an *assumed* field (checked, not written) no longer holds its ``old`` (see
        :meth:`record`). Runs inside the write transaction."""
        checked = [c for c in [*items, *assumed] if is_label_field(c.field)]
        if not checked:
            return items
        events = effective_events(self._events(example_uid, annotator))
        resets = [i for i, e in enumerate(events) if e.field == RESET_FIELD]
        since_reset = events[resets[-1] + 1 :] if resets else events
        latest = {e.field: e.new for e in since_reset}
        current: Labels | None = None
        if example is not None:
            base = base_labels(example, self._judge_labels(example_uid))
            current = fold_labels(base, events, example, annotator)

        def stored_value(field: str) -> Any:
            if example is not None and not field.startswith(CLAIM_PREFIX):
                return field_value(current, field)
            return latest.get(field, _UNCHECKED)  # a field with no event since the last reset: not checked

        conflicts: list[Conflict] = []
        out: list[Change] = []
        for c in [*items, *assumed]:  # an assumed field has old == new: it holds old, or it conflicts
            stored = stored_value(c.field) if is_label_field(c.field) else _UNCHECKED
            if stored is _UNCHECKED or canonical(stored) == canonical(c.old):
                out.append(c)
            elif canonical(stored) == canonical(c.new):
                out.append(Change(c.field, stored, c.new))
            else:
                conflicts.append(Conflict(c.field, c.old, stored))
        if conflicts:
            raise StaleEdit(example_uid, annotator, conflicts)
        return out[: len(out) - len(assumed)]

    def undo(self, example_uid: str, annotator: str, client_id: str | None = None) -> bool:
        """Undo the annotator's last not-yet-undone action on this example; ``False`` when none.
        With *client_id* (the click's id, see :meth:`record`) a retried undo undoes one action, not two."""
        self._check_ids(example_uid, annotator)
        annotator = identity_name(annotator)
        with self._write():
            if self._stored_action(client_id, example_uid, annotator) is not None:
                return True
            events = self._events(example_uid, annotator)
            undone = _undone_actions(events)
            candidates = [e.action_id for e in events if e.field != UNDO_FIELD and e.action_id not in undone]
            if not candidates:
                return False
            self._mark_undone(example_uid, annotator, max(candidates), client_id)
        return True

    def _mark_undone(self, example_uid: str, annotator: str, action_id: int, client_id: str | None = None) -> None:
        """Store the undo marker of *action_id* and refresh the example's status (inside a write)."""
        ts = now_iso()
        undo_id = self._new_action(example_uid, annotator, ts, UNDO_FIELD, client_id)
        self._insert_event(undo_id, example_uid, annotator, ts, UNDO_FIELD, None, action_id)
        status = self._refresh_status(example_uid, annotator, undo_id)
        self._statuses.put(annotator, example_uid, status, undo_id, self._q)

    def last_action(
        self, annotator: str, where: Callable[[str], bool] = lambda uid: True, max_events: int = 5000
    ) -> StoredAction | None:
        """The annotator's latest action that is not undone and not itself an undo, on any example
        for which *where(uid)* holds (the page passes "is loaded"); ``None`` when there is none among
        the annotator's latest *max_events* events. What an undo without an example
        (:meth:`undo_action`) cancels.

        Walks the annotator's events newest first (indexed by annotator and id), in pages: an undo
        marker is always newer than the action it cancels, so one pass knows every undone action
        before it meets it. Usually the first page holds the answer."""
        self._check_ids("-", annotator)
        annotator = identity_name(annotator)
        page = 200
        undone: set[int] = set()
        below: int | None = None
        seen = 0
        with self._lock:
            while seen < max_events:
                rows = self._q(
                    f"SELECT {_EVENT_COLUMNS} FROM label_events e JOIN label_actions a ON a.id = e.action_id"
                    " WHERE e.annotator = ?"
                    + ("" if below is None else " AND e.id < ?")
                    + " ORDER BY e.id DESC LIMIT ?",
                    (annotator, page) if below is None else (annotator, below, page),
                ).fetchall()
                if not rows:
                    return None
                for row in rows:
                    e = _event(row)
                    seen += 1
                    if e.field == UNDO_FIELD:
                        if e.new is not None:
                            undone.add(int(e.new))
                    elif e.action_id not in undone and where(e.example_uid):
                        events = tuple(x for x in self._events(e.example_uid, annotator) if x.action_id == e.action_id)
                        return StoredAction(e.action_id, e.example_uid, e.action, events)
                below = _event(rows[-1]).id
        return None

    def undo_action(self, example_uid: str, annotator: str, action_id: int) -> bool:
        """Undo one named action of the annotator on the example (the one :meth:`last_action` named
        when the page was drawn); ``False`` when it is not the annotator's, already undone or an undo."""
        self._check_ids(example_uid, annotator)
        annotator = identity_name(annotator)
        with self._write():
            events = self._events(example_uid, annotator)
            if action_id in _undone_actions(events) or not any(
                e.action_id == action_id and e.field != UNDO_FIELD for e in events
            ):
                return False
            self._mark_undone(example_uid, annotator, action_id)
        return True

    def history(self, example_uid: str, annotator: str | None = None) -> list[Event]:
        """Every stored event of the example (of one annotator when named), oldest first, with
        ``undone`` set on events whose action was undone."""
        annotator = None if annotator is None else identity_name(annotator)
        with self._lock:
            if annotator is None:
                rows = self._q(
                    f"SELECT {_EVENT_COLUMNS} FROM label_events e JOIN label_actions a ON a.id = e.action_id"
                    " WHERE e.example_uid = ? ORDER BY e.id",
                    (example_uid,),
                ).fetchall()
                events = [_event(r) for r in rows]
            else:
                events = self._events(example_uid, annotator)
        undone = {(e.annotator, int(e.new)) for e in events if e.field == UNDO_FIELD}
        return [Event(**{**e.__dict__, "undone": (e.annotator, e.action_id) in undone}) for e in events]

    def effective(self, example_uid: str, annotator: str) -> list[Event]:
        """The annotator's effective events on the example, in order."""
        annotator = identity_name(annotator)
        with self._lock:
            return effective_events(self._events(example_uid, annotator))

    def changes(self, example_uid: str, annotator: str) -> list[tuple[str, Any]]:
        """Effective ``(field, new value)`` pairs in order, ready for :func:`ragviz.data.labels.apply_changes`."""
        return [(e.field, e.new) for e in self.effective(example_uid, annotator)]

    def status(self, example_uid: str, annotator: str) -> ExampleStatus:
        """Reviewed / corrected / last decision time of one example for one annotator."""
        annotator = identity_name(annotator)
        with self._lock:
            row = self._q(
                "SELECT reviewed, corrected, last_ts FROM example_status WHERE annotator = ? AND example_uid = ?",
                (annotator, example_uid),
            ).fetchone()
        if row is None:
            return ExampleStatus(False, False, None)
        return ExampleStatus(bool(row[0]), bool(row[1]), row[2])

    # -- current labels --------------------------------------------------------------------
    def base_labels(self, example: Example) -> Labels | None:
        """What human edits start from (:func:`base_labels`), with the store's judge labels."""
        return base_labels(example, self.judge_labels(example.uid))

    def current_labels(self, example: Example, annotator: str) -> Labels | None:
        """The example's labels after the annotator's effective decisions (:func:`fold_labels`)."""
        annotator = identity_name(annotator)
        return fold_labels(self.base_labels(example), self.effective(example.uid, annotator), example, annotator)

    def reviewed_uids(self, annotator: str) -> set[str]:
        """Examples the annotator edited or marked reviewed (see :class:`ExampleStatus`;
        :data:`EVERYONE`: anyone did)."""
        annotator = identity_name(annotator)
        if annotator == EVERYONE:
            return {uid for uid, status in self._team_statuses().items() if status.reviewed}
        with self._lock:
            return set(self._statuses.of(annotator, self._q).reviewed)

    def corrected_uids(self, annotator: str) -> set[str]:
        """Examples where the annotator's effective decisions change a label field (:data:`EVERYONE`: anyone's)."""
        annotator = identity_name(annotator)
        if annotator == EVERYONE:
            return {uid for uid, status in self._team_statuses().items() if status.corrected}
        with self._lock:
            return set(self._statuses.of(annotator, self._q).corrected)

    def statuses(self, annotator: str) -> dict[str, ExampleStatus]:
        """Every example the annotator has any decision on, with its status (:data:`EVERYONE`: every
        example anyone decided, reviewed / corrected when anyone's is, with the latest decision time)."""
        annotator = identity_name(annotator)
        if annotator == EVERYONE:
            return self._team_statuses()
        with self._lock:
            return dict(self._statuses.of(annotator, self._q).statuses)

    def _team_statuses(self) -> dict[str, ExampleStatus]:
        with self._lock:
            rows = self._q("SELECT example_uid, reviewed, corrected, last_ts FROM example_status").fetchall()
        out: dict[str, ExampleStatus] = {}
        for uid, reviewed, corrected, last_ts in rows:
            seen = out.get(uid)
            if seen is None:
                out[uid] = ExampleStatus(bool(reviewed), bool(corrected), last_ts)
            else:
                latest = max((t for t in (seen.last_ts, last_ts) if t), default=None)
                out[uid] = ExampleStatus(seen.reviewed or bool(reviewed), seen.corrected or bool(corrected), latest)
        return out

    def team_labels(self, example: Example) -> TeamLabels:
        """The example's labels in the team's export: every annotator's latest decision per field on
        its base (:func:`ragviz.store.events.fold_team`), with the row's reviewer and each field's."""
        with self._lock:
            rows = self._q(
                f"SELECT {_EVENT_COLUMNS} FROM label_events e JOIN label_actions a ON a.id = e.action_id"
                " WHERE e.example_uid = ? ORDER BY e.id",
                (example.uid,),
            ).fetchall()
        return fold_team(self.base_labels(example), [_event(r) for r in rows], example)

    def annotators(self) -> list[str]:
        """Names that recorded at least one decision, sorted."""
        with self._lock:
            return sorted(r[0] for r in self._q("SELECT DISTINCT annotator FROM example_status"))

    def n_events(self) -> int:
        with self._lock:
            return int(self._q("SELECT COUNT(*) FROM label_events").fetchone()[0])

    def data_version(self) -> tuple[int, int]:
        """Changes whenever anyone (any process) writes a label event or a judge label set: the
        largest id of each table (both append-only; two primary-key lookups). A cache key for
        views computed from the store's labels."""
        return self._largest_ids(None)

    def annotator_version(self, annotator: str) -> tuple[int, int]:
        """Like :meth:`data_version`, but changes only when *annotator* writes a label event (or
        anyone stores a judge label set): a key for what holds one annotator's labels, such as a
        prepared export, which a teammate's decisions leave valid."""
        return self._largest_ids(annotator)

    def _largest_ids(self, annotator: str | None) -> tuple[int, int]:
        """The largest label event id (of *annotator*'s events, or anyone's) and judge label set id."""
        whose = ("", ()) if annotator in (None, EVERYONE) else (" WHERE annotator = ?", (identity_name(annotator),))
        with self._lock:
            events = self._q("SELECT MAX(id) FROM label_events" + whose[0], whose[1]).fetchone()[0]
            judged = self._q("SELECT MAX(id) FROM judge_label_sets").fetchone()[0]
        return int(events or 0), int(judged or 0)


def open_store(path: str | os.PathLike | None = None) -> LabelStore:
    """The store at *path* (an SQLite file or a ``postgresql://`` URL), default :func:`default_db`:
    ``$RAGVIZ_DB`` (a file or a URL, as the app and the CLI read it), else ``~/.ragviz/ragviz.db``."""
    return LabelStore(path if path is not None else default_db())


def _undone_actions(events: Sequence[Event]) -> set[int]:
    """The action ids the undo markers among *events* cancel."""
    return {int(e.new) for e in events if e.field == UNDO_FIELD and e.new is not None}
