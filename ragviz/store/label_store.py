"""The label store: an append-only log of human label decisions in one SQLite file or PostgreSQL database.

Every decision (one click, one CLI edit) is an *action* of field changes, written as ``label_events`` rows in ONE
transaction committed durably before :meth:`LabelStore.record` returns (:mod:`~ragviz.store.sqlite`,
:mod:`~ragviz.store.postgres`); events are never updated or deleted (an undo, a reset is one more event). An annotator's
current labels = the example's base labels with their effective events folded over (:mod:`~ragviz.store.events`);
``example_status`` is rewritten in the same transaction (:mod:`~ragviz.store.status_cache`).

It reads best whole: one class whose write paths share one transaction, lock and status cache, side by side so a reader
checks that no decision can be lost. It reaches the database only through :mod:`~ragviz.store.connection` and composes
its parts, each owning its SQL: ``store.sources``, ``store.judge``, ``store.audits``, ``store.team``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ragviz.data.labels import (
    CLAIM_PREFIX,
    RESET_FIELD,
    Change,
    check_value,
    field_value,
)
from ragviz.data.model import Example, Labels
from ragviz.store.audit_samples import AuditSamples
from ragviz.store.connection import Query, StoreConnection
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
from ragviz.store.judge_sets import JudgeLabels, latest_judge_labels
from ragviz.store.label_events import EVERYONE, check_ids, dumps, insert_event, new_action, read_events
from ragviz.store.label_events import decision_times as read_decision_times
from ragviz.store.roles import identity_name
from ragviz.store.schema import migrate
from ragviz.store.sources import DataSources
from ragviz.store.status_cache import StatusCaches, count_within
from ragviz.store.team import Team
from ragviz.store.team.guidelines import guideline_in_force

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


# The store's errors and default location are defined beside it (errors.py, database.py) and offered here too;
# EVERYONE (every annotator's latest decision per field, in place of a name) beside the events' SQL (label_events.py).
_UNCHECKED = object()  # the stale check has no stored value to compare with
T = TypeVar("T")


class LabelStore:
    """Append-only store of label decisions (see the module docstring).

    *where* is an SQLite file path or a ``postgresql://`` URL (:func:`open_database`). Safe to share
    between threads (one connection behind a lock) and between processes and replicas (SQLite file
    locking with ``busy_timeout``; a PostgreSQL advisory lock per write transaction). Use as a context
    manager or call :meth:`close`.
    """

    def __init__(self, where: str | os.PathLike):
        self._statuses = StatusCaches()
        db = open_database(where, StoreError)
        self._conn = StoreConnection(db, on_rollback=self._statuses.clear)  # a rollback may leave them wrong
        self.path: Path | None = db.path  # the SQLite file; None on PostgreSQL
        self.location = db.location  # the file, or the URL with its password masked
        self.dialect = db.dialect
        self.sources = DataSources(self._conn)  # data files and uploads (sources.py)
        self.judge = JudgeLabels(self._conn)  # the judge's label sets (judge_sets.py)
        self.audits = AuditSamples(self._conn)  # audit samples and the team's choice (audit_samples.py)
        self.team = Team(self)  # a team's round (team/): it builds on this core's statuses
        try:
            migrate(db, StoreError, "label store")
        except StoreError:
            self.close()
            raise
        except db.errors as exc:
            self.close()
            raise StoreError(f"{self.location}: cannot open label store: {db.describe(exc)}") from None

    # -- the public read and write interface (ragviz.store.connection) ---------------------------
    def read(self, fn: Callable[[Query], T]) -> T:
        """``fn(q)`` under the store's lock (:meth:`StoreConnection.read`)."""
        return self._conn.read(fn)

    def write(self, fn: Callable[[Query], T], durable: bool = True) -> T:
        """``fn(q)`` in one write transaction, durable unless *durable* is false (:meth:`StoreConnection.write`)."""
        return self._conn.write(fn, durable)

    def query(self, statement: str, params: Sequence[Any] = ()) -> list[Any]:
        """The rows of one read statement (:meth:`StoreConnection.query`)."""
        return self._conn.query(statement, params)

    @property
    def db(self) -> Database:
        """The database itself, bypassing the store's lock: for tests and benchmarks, never for the app."""
        return self._conn.db

    def reopen_database(self) -> Database:
        """A new connection to the store's database, for the judge's tables (:mod:`ragviz.judge.cache`)."""
        return self._conn.reopen()

    def applied_migrations(self) -> list[str]:
        return [r[0] for r in self.query("SELECT name FROM schema_migrations ORDER BY name")]

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> LabelStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LabelStore({self.location!r})"

    # -- events ------------------------------------------------------------------------------
    def _stored_action(self, q: Query, client_id: str | None, example_uid: str, annotator: str) -> int | None:
        """The id of the action stored under the click id *client_id* (a retry of it stores nothing),
        ``None`` when there is none; :class:`ValueError` when that id is another example's or person's."""
        if client_id is None:
            return None
        if not isinstance(client_id, str) or not client_id.strip():
            raise ValueError("client_id must be a non-empty string")
        row = q("SELECT id, example_uid, annotator FROM label_actions WHERE client_id = ?", (client_id,)).fetchone()
        if row is None:
            return None
        if (row[1], row[2]) != (example_uid, annotator):
            raise ValueError(f"action id {client_id!r} was already used for another decision")
        return int(row[0])

    def _new_action(
        self, q: Query, example_uid: str, annotator: str, ts: str, kind: str, client_id: str | None = None
    ) -> int:
        """One decision row, with the team's guideline version in force (the team part reads it)."""
        return new_action(q, example_uid, annotator, ts, kind, guideline_in_force(q), client_id)

    def _refresh_status(self, q: Query, example_uid: str, annotator: str, action_id: int) -> ExampleStatus:
        status = status_of(effective_events(read_events(q, example_uid=example_uid, annotator=annotator)))
        q(
            "INSERT INTO example_status (annotator, example_uid, reviewed, corrected, last_ts, last_action_id)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (annotator, example_uid) DO UPDATE SET"
            " reviewed = excluded.reviewed, corrected = excluded.corrected,"
            " last_ts = excluded.last_ts, last_action_id = excluded.last_action_id",
            (annotator, example_uid, int(status.reviewed), int(status.corrected), status.last_ts, action_id),
        )
        return status

    _check_ids = staticmethod(check_ids)

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
                dumps(c.old), dumps(c.new)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"{c.field}: value cannot be stored as JSON: {exc}") from None
        # a label "change" from a value to itself (a widget re-sent it) is no decision; beside a real change
        # it is what the decision assumed (a context click's other field): checked, not written
        assumed = [c for c in items if is_label_field(c.field) and canonical(c.old) == canonical(c.new)]
        items = [c for c in items if c not in assumed]
        if not items:
            return None
        ts = now_iso()

        def store_it(q: Query) -> int:
            stored = self._stored_action(q, client_id, example_uid, annotator)
            if stored is not None:
                return stored
            checked = self._check_stale(q, example_uid, annotator, items, example, assumed)
            action_id = self._new_action(q, example_uid, annotator, ts, action, client_id)
            for c in checked:
                insert_event(q, action_id, example_uid, annotator, ts, c.field, c.old, c.new)
            status = self._refresh_status(q, example_uid, annotator, action_id)
            self._statuses.put(annotator, example_uid, status, action_id, q)
            return action_id

        return self.write(store_it)

    def _check_stale(
        self,
        q: Query,
        example_uid: str,
        annotator: str,
        items: list[Change],
        example: Example | None,
        assumed: Sequence[Change],
    ) -> list[Change]:
        """*items* with ``old`` set to the stored value; :class:`StaleEdit` when a field changed since
        it was shown, or an *assumed* field (checked, not written) no longer holds its ``old`` (see
        :meth:`record`). Runs inside the write transaction."""
        checked = [c for c in [*items, *assumed] if is_label_field(c.field)]
        if not checked:
            return items
        events = effective_events(read_events(q, example_uid=example_uid, annotator=annotator))
        resets = [i for i, e in enumerate(events) if e.field == RESET_FIELD]
        since_reset = events[resets[-1] + 1 :] if resets else events
        latest = {e.field: e.new for e in since_reset}
        current: Labels | None = None
        if example is not None:
            base = base_labels(example, latest_judge_labels(q, example_uid))
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

        def undo_last(q: Query) -> bool:
            if self._stored_action(q, client_id, example_uid, annotator) is not None:
                return True
            events = read_events(q, example_uid=example_uid, annotator=annotator)
            undone = _undone_actions(events)
            candidates = [e.action_id for e in events if e.field != UNDO_FIELD and e.action_id not in undone]
            if not candidates:
                return False
            self._mark_undone(q, example_uid, annotator, max(candidates), client_id)
            return True

        return self.write(undo_last)

    def _mark_undone(
        self, q: Query, example_uid: str, annotator: str, action_id: int, client_id: str | None = None
    ) -> None:
        """Store the undo marker of *action_id* and refresh the example's status (inside a write)."""
        ts = now_iso()
        undo_id = self._new_action(q, example_uid, annotator, ts, UNDO_FIELD, client_id)
        insert_event(q, undo_id, example_uid, annotator, ts, UNDO_FIELD, None, action_id)
        status = self._refresh_status(q, example_uid, annotator, undo_id)
        self._statuses.put(annotator, example_uid, status, undo_id, q)

    def last_event_id(self, annotator: str) -> int | None:
        """The id of the annotator's newest event (an undo's too; ``None`` before their first): what
        :meth:`last_action` reads changes only with it (one indexed lookup, for callers that keep its answer)."""
        rows = self.query("SELECT max(id) FROM label_events WHERE annotator = ?", (identity_name(annotator),))
        return None if rows[0][0] is None else int(rows[0][0])

    def last_action(
        self, annotator: str, where: Callable[[str], bool] = lambda uid: True, max_events: int = 5000
    ) -> StoredAction | None:
        """The annotator's latest action that is not undone and not itself an undo, on any example
        for which *where(uid)* holds (the page passes "is loaded"); ``None`` when there is none among
        the annotator's latest *max_events* events. What an undo without an example
        (:meth:`undo_action`) cancels.

        Walks the annotator's events newest first (indexed by annotator and id), in pages: an undo
        marker is always newer than the action it cancels, so one pass knows every undone action
        before it meets it. Usually the first page holds the answer: it is a few events (the action
        just recorded, its fields), each later page four times the one before (up to 200), so the
        page's read after a decision does not decode hundreds of events."""
        self._check_ids("-", annotator)
        annotator = identity_name(annotator)

        def walk(q: Query) -> StoredAction | None:
            undone: set[int] = set()
            below: int | None = None
            seen, page = 0, 8
            while seen < max_events:
                newest = read_events(q, annotator=annotator, below=below, newest_first=True, limit=page)
                page = min(page * 4, 200)
                if not newest:
                    return None
                for e in newest:
                    seen += 1
                    if e.field == UNDO_FIELD:
                        if e.new is not None:
                            undone.add(int(e.new))
                    elif e.action_id not in undone and where(e.example_uid):
                        mine = read_events(q, example_uid=e.example_uid, annotator=annotator)
                        return StoredAction(
                            e.action_id, e.example_uid, e.action, tuple(x for x in mine if x.action_id == e.action_id)
                        )
                below = newest[-1].id
            return None

        return self.read(walk)

    def undo_action(self, example_uid: str, annotator: str, action_id: int) -> bool:
        """Undo one named action of the annotator on the example (the one :meth:`last_action` named
        when the page was drawn); ``False`` when it is not the annotator's, already undone or an undo."""
        self._check_ids(example_uid, annotator)
        annotator = identity_name(annotator)

        def undo_it(q: Query) -> bool:
            events = read_events(q, example_uid=example_uid, annotator=annotator)
            if action_id in _undone_actions(events) or not any(
                e.action_id == action_id and e.field != UNDO_FIELD for e in events
            ):
                return False
            self._mark_undone(q, example_uid, annotator, action_id)
            return True

        return self.write(undo_it)

    def history(self, example_uid: str, annotator: str | None = None) -> list[Event]:
        """Every stored event of the example (of one annotator when named), oldest first, with
        ``undone`` set on events whose action was undone."""
        annotator = None if annotator is None else identity_name(annotator)
        events = self.label_events(example_uid, annotator)
        undone = {(e.annotator, int(e.new)) for e in events if e.field == UNDO_FIELD}
        return [Event(**{**e.__dict__, "undone": (e.annotator, e.action_id) in undone}) for e in events]

    def effective(self, example_uid: str, annotator: str) -> list[Event]:
        """The annotator's effective events on the example, in order."""
        annotator = identity_name(annotator)
        return effective_events(self.label_events(example_uid, annotator))

    def label_events(
        self,
        example_uid: str | None = None,
        annotator: str | None = None,
        old_values: bool = True,
        label_changed: bool = False,
    ) -> list[Event]:
        """The stored events (of one example and / or one annotator when named; of the examples someone changed
        a label of, with *label_changed*), oldest first, each with its action's kind (``old`` left ``None``
        unless *old_values*: folding needs only the new values)."""
        return self.read(
            lambda q: read_events(
                q, example_uid=example_uid, annotator=annotator, old_values=old_values, label_changed=label_changed
            )
        )

    def decision_times(self) -> list[tuple[str, str, str]]:
        """``(annotator, example uid, ts)`` of every decision but undos, in the order made (time spent per example)."""
        return self.read(read_decision_times)

    def changes(self, example_uid: str, annotator: str) -> list[tuple[str, Any]]:
        """Effective ``(field, new value)`` pairs in order, ready for :func:`ragviz.data.labels.apply_changes`."""
        return [(e.field, e.new) for e in self.effective(example_uid, annotator)]

    def status(self, example_uid: str, annotator: str) -> ExampleStatus:
        """Reviewed / corrected / last decision time of one example for one annotator."""
        annotator = identity_name(annotator)
        rows = self.query(
            "SELECT reviewed, corrected, last_ts FROM example_status WHERE annotator = ? AND example_uid = ?",
            (annotator, example_uid),
        )
        if not rows:
            return ExampleStatus(False, False, None)
        return ExampleStatus(bool(rows[0][0]), bool(rows[0][1]), rows[0][2])

    # -- where each annotator was -----------------------------------------------------------
    def save_position(self, annotator: str, example_uid: str) -> None:
        """Remember *example_uid* as where *annotator* was. Saved on every move, so not durably: a position is not a
        decision; an OS crash or a power cut may lose the last ones (the app's own crash does not)."""
        check_ids(example_uid, annotator)
        annotator = identity_name(annotator)
        self.write(
            lambda q: q(
                "INSERT INTO annotator_positions (annotator, example_uid, ts) VALUES (?, ?, ?)"
                " ON CONFLICT (annotator) DO UPDATE SET example_uid = excluded.example_uid, ts = excluded.ts",
                (annotator, example_uid, now_iso()),
            ),
            durable=False,
        )

    def position(self, annotator: str) -> str | None:
        rows = self.query(
            "SELECT example_uid FROM annotator_positions WHERE annotator = ?", (identity_name(annotator),)
        )
        return rows[0][0] if rows else None

    # -- current labels --------------------------------------------------------------------
    def base_labels(self, example: Example) -> Labels | None:
        """What human edits start from (:func:`base_labels`), with the store's judge labels."""
        return base_labels(example, self.judge.labels(example.uid))

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
        return set(self.read(lambda q: self._statuses.of(annotator, q).reviewed))

    def corrected_uids(self, annotator: str) -> set[str]:
        """Examples where the annotator's effective decisions change a label field (:data:`EVERYONE`: anyone's)."""
        annotator = identity_name(annotator)
        if annotator == EVERYONE:
            return {uid for uid, status in self._team_statuses().items() if status.corrected}
        return set(self.read(lambda q: self._statuses.of(annotator, q).corrected))

    def review_statuses(self, annotator: str) -> tuple[set[str], set[str]]:
        """:meth:`reviewed_uids` and :meth:`corrected_uids` read together: one check of the status cache where the
        two calls make two (the Review page asks on every run, a J's too)."""
        annotator = identity_name(annotator)
        if annotator == EVERYONE:
            team = self._team_statuses().items()
            return {u for u, st in team if st.reviewed}, {u for u, st in team if st.corrected}

        def both(q: Query) -> tuple[set[str], set[str]]:  # copied under the lock: a write may change the sets
            cache = self._statuses.of(annotator, q)
            return set(cache.reviewed), set(cache.corrected)

        return self.read(both)

    def review_counts(self, annotator: str, within: frozenset[str]) -> tuple[int, int]:
        """How many examples of *within* (the open data's uids) the annotator reviewed, and corrected: the sizes of
        :meth:`review_statuses` cut to *within* (:data:`EVERYONE`: anyone's). Kept up to date as decisions arrive
        (:meth:`ragviz.store.status_cache.AnnotatorStatuses.counts_within`), so a page that says the person's progress
        on every run (an Accept's) does not count over every decision they made."""
        annotator = identity_name(annotator)
        if annotator == EVERYONE:
            return count_within(within, *self.review_statuses(annotator))
        return self.read(lambda q: self._statuses.of(annotator, q).counts_within(within))

    def status_version(self, annotator: str) -> int | None:
        """A number that changes whenever :meth:`review_statuses` would return other sets for *annotator* (read as
        it reads them: up to date with every process's commits), for a check that costs no copy and no comparison
        of the sets (the Review page's J, issue 38); ``None`` for :data:`EVERYONE` (compare the sets)."""
        annotator = identity_name(annotator)
        if annotator == EVERYONE:
            return None
        return self.read(lambda q: self._statuses.of(annotator, q).version)

    def statuses(self, annotator: str) -> dict[str, ExampleStatus]:
        """Every example the annotator has any decision on, with its status (:data:`EVERYONE`: every
        example anyone decided, reviewed / corrected when anyone's is, with the latest decision time)."""
        annotator = identity_name(annotator)
        if annotator == EVERYONE:
            return self._team_statuses()
        return dict(self.read(lambda q: self._statuses.of(annotator, q).statuses))

    def _team_statuses(self) -> dict[str, ExampleStatus]:
        rows = self.query("SELECT example_uid, reviewed, corrected, last_ts FROM example_status")
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
        return fold_team(self.base_labels(example), self.label_events(example.uid), example)

    def annotators(self) -> list[str]:
        """Names that recorded at least one decision, sorted."""
        return sorted(r[0] for r in self.query("SELECT DISTINCT annotator FROM example_status"))

    def n_events(self) -> int:
        return int(self.query("SELECT COUNT(*) FROM label_events")[0][0])

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

        def largest(q: Query) -> tuple[Any, Any]:
            return (
                q("SELECT MAX(id) FROM label_events" + whose[0], whose[1]).fetchone()[0],
                q("SELECT MAX(id) FROM judge_label_sets").fetchone()[0],
            )

        events, judged = self.read(largest)
        return int(events or 0), int(judged or 0)


def open_store(path: str | os.PathLike | None = None) -> LabelStore:
    """The store at *path* (an SQLite file or a ``postgresql://`` URL), default :func:`default_db`:
    ``$RAGVIZ_DB`` (a file or a URL, as the app and the CLI read it), else ``~/.ragviz/ragviz.db``."""
    return LabelStore(path if path is not None else default_db())


def _undone_actions(events: Sequence[Event]) -> set[int]:
    """The action ids the undo markers among *events* cancel."""
    return {int(e.new) for e in events if e.field == UNDO_FIELD and e.new is not None}
