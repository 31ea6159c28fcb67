"""The SQL of people's label decisions: ``label_actions`` (one row per decision) and ``label_events`` (one per
field change), read and written here once.

:func:`read_events` is the one query over ``label_events JOIN label_actions`` and :func:`decode_event` its one
decoding into :class:`~ragviz.store.events.Event`; every reader (the store's core, a team's round) goes through
them. Each function takes the statement runner *q* of :meth:`ragviz.store.connection.StoreConnection.read` /
``write``, so it runs inside the caller's read or write transaction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ragviz.store.connection import Query
from ragviz.store.events import Event

__all__ = [
    "EVERYONE",
    "check_ids",
    "decision_times",
    "decode_event",
    "dumps",
    "insert_event",
    "new_action",
    "read_events",
]

#: In place of an annotator's name where labels are read (statuses, exports): every annotator's latest
#: decision per example (:func:`ragviz.store.events.fold_team`). Nobody can record under it.
EVERYONE = "*"

#: the examples with a stored label change (not only review marks, resets, undos)
_LABEL_CHANGED = "SELECT DISTINCT example_uid FROM label_events WHERE field NOT IN ('review', 'reset', 'undo')"
_COLUMNS = "e.id, e.action_id, e.example_uid, e.annotator, e.ts, e.field, e.old_value, e.new_value, a.kind"


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def dumps(value: Any) -> str:
    """A value as the events store it (JSON, keys sorted)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def decode_event(row: Sequence[Any], old_values: bool = True) -> Event:
    """One row of :func:`read_events`' columns as an :class:`Event` (``old`` left ``None`` unless *old_values*)."""
    return Event(
        id=row[0],
        action_id=row[1],
        example_uid=row[2],
        annotator=row[3],
        ts=row[4],
        field=row[5],
        old=_loads(row[6]) if old_values else None,
        new=_loads(row[7]),
        action=row[8],
    )


def read_events(
    q: Query,
    *,
    example_uid: str | None = None,
    annotator: str | None = None,
    below: int | None = None,
    newest_first: bool = False,
    limit: int | None = None,
    old_values: bool = True,
    label_changed: bool = False,
) -> list[Event]:
    """The stored events (of one example and / or one annotator when named; with ids below *below*; of the
    examples someone changed a label of, with *label_changed*), oldest first (newest first with
    *newest_first*), at most *limit*; each with its action's kind."""
    where: list[str] = [f"e.example_uid IN ({_LABEL_CHANGED})"] if label_changed else []
    params: list[Any] = []
    for clause, value in (("e.example_uid = ?", example_uid), ("e.annotator = ?", annotator), ("e.id < ?", below)):
        if value is not None:
            where.append(clause)
            params.append(value)
    sql = f"SELECT {_COLUMNS} FROM label_events e JOIN label_actions a ON a.id = e.action_id"
    sql += (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY e.id" + (" DESC" if newest_first else "")
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [decode_event(r, old_values) for r in q(sql, tuple(params)).fetchall()]


def new_action(
    q: Query, example_uid: str, annotator: str, ts: str, kind: str, guideline: int | None, client_id: str | None = None
) -> int:
    """Insert one decision (with the guideline version in force, and the click's id when given); its id."""
    click = ("", "", ()) if client_id is None else (", client_id", ", ?", (client_id,))  # (019's column)
    row = q(
        f"INSERT INTO label_actions (example_uid, annotator, ts, kind{click[0]}, guideline_version)"
        f" VALUES (?, ?, ?, ?{click[1]}, ?) RETURNING id",
        (example_uid, annotator, ts, kind, *click[2], guideline),
    ).fetchone()
    return int(row[0])


def insert_event(
    q: Query, action_id: int, example_uid: str, annotator: str, ts: str, field_name: str, old: Any, new: Any
) -> None:
    q(
        "INSERT INTO label_events (action_id, example_uid, annotator, ts, field, old_value, new_value)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (action_id, example_uid, annotator, ts, field_name, dumps(old), dumps(new)),
    )


def decision_times(q: Query) -> list[tuple[str, str, str]]:
    """``(annotator, example uid, ts)`` of every decision that is not an undo, in the order they were made."""
    rows = q("SELECT annotator, example_uid, ts FROM label_actions WHERE kind <> 'undo' ORDER BY id").fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def check_ids(example_uid: str, annotator: str) -> None:
    """:class:`ValueError` unless both are non-empty and *annotator* is not :data:`EVERYONE`."""
    if not isinstance(example_uid, str) or not example_uid:
        raise ValueError("example_uid must be a non-empty string")
    if not isinstance(annotator, str) or not annotator.strip():
        raise ValueError("annotator must be a non-empty name")
    if annotator.strip() == EVERYONE:
        raise ValueError(f"{EVERYONE!r} is not an annotator's name: it stands for every annotator")
