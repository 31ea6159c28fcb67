"""Adjudications: an adjudicator settles the sentence labels annotators disagree on (migration ``014_team``).

A settlement stores the example's settled label field values (``relevant_keys``, ``utilized_keys``,
``support:<key>``: the JSON shapes of :func:`ragviz.data.labels.field_value`) with what the adjudicator
was shown (*seen*: a fingerprint of the annotators' labels and of the example's latest adjudication,
:func:`ragviz.analysis.team.gold.shown_fingerprint`). Inside the write transaction the fingerprint is
computed again: when it differs (an annotator changed their labels, or another adjudicator settled the
example since it was shown) the settlement is refused with :class:`StaleAdjudication` and nothing is
written. An undo is one more row naming the settlement it cancels.

:class:`Adjudications` is ``store.team.adjudications`` (:mod:`ragviz.store.team`); it owns this SQL.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ragviz.store.connection import Query, SqlStore
from ragviz.store.errors import StoreError
from ragviz.store.events import now_iso
from ragviz.store.roles import identity_name

__all__ = [
    "Adjudication",
    "Adjudications",
    "StaleAdjudication",
]


SETTLE = "settle"
UNDO = "undo"


class StaleAdjudication(StoreError):
    """A settlement refused because the example's labels (or its adjudication) changed since it was shown."""

    def __init__(self, example_uid: str):
        self.example_uid = example_uid
        super().__init__(
            f"{example_uid}: not settled, the annotators' labels or the example's adjudication changed since"
            " it was shown; look at it again and settle what it holds now"
        )


@dataclass(frozen=True)
class Adjudication:
    """The settlement in force for one example: its id, who settled it and when, the settled field values,
    and the fingerprint of what they were shown."""

    id: int
    example_uid: str
    adjudicator: str
    ts: str
    settled: dict[str, Any]
    seen: str


def _rows(q: Query, uid: str | None) -> list[Any]:
    where, params = ("WHERE example_uid = ? ", (uid,)) if uid is not None else ("", ())
    return q(
        "SELECT id, example_uid, adjudicator, ts, kind, settled, seen, undoes FROM team_adjudications "
        + where
        + "ORDER BY id",
        params,
    ).fetchall()


def _fold(rows: list[Any]) -> dict[str, Adjudication]:
    undone = {int(r[7]) for r in rows if r[4] == UNDO and r[7] is not None}
    out: dict[str, Adjudication] = {}
    for r in rows:
        if r[4] == SETTLE and int(r[0]) not in undone:
            out[r[1]] = Adjudication(int(r[0]), r[1], r[2], r[3], json.loads(r[5]), r[6])
    return out


class Adjudications:
    """The settlements of one label store's team (see the module docstring): ``store.team.adjudications``."""

    def __init__(self, store: SqlStore):
        self._store = store

    def settlements(self) -> dict[str, Adjudication]:
        """uid -> the settlement in force (the newest one not undone); unsettled examples left out."""
        return _fold(self._store.read(lambda q: _rows(q, None)))

    def settlement_of(self, uid: str) -> Adjudication | None:
        """The settlement in force on *uid* (one indexed query), ``None`` when unsettled."""
        return _fold(self._store.read(lambda q: _rows(q, uid))).get(uid)

    def latest_adjudication_id(self, uid: str) -> int:
        """The id of the example's newest adjudication row (settle or undo; 0: none): part of what an
        adjudicator is shown, so a settlement made meanwhile makes theirs stale."""
        return int(self._store.query("SELECT MAX(id) FROM team_adjudications WHERE example_uid = ?", (uid,))[0][0] or 0)

    def label_changed_uids(self) -> set[str]:
        """The examples on which someone stored a label change (not only review marks): the only ones whose
        annotators can disagree (one query; an undone change still counts, so this may hold a few more)."""
        rows = self._store.query(
            "SELECT DISTINCT example_uid FROM label_events WHERE field NOT IN ('review', 'reset', 'undo')"
        )
        return {r[0] for r in rows}

    def adjudication_version(self) -> int:
        """Changes whenever anyone settles or undoes (the largest row id): a cache key."""
        return int(self._store.query("SELECT MAX(id) FROM team_adjudications")[0][0] or 0)

    def settle(
        self,
        uid: str,
        adjudicator: str,
        settled: Mapping[str, Any],
        seen: str,
        fingerprint_now: Callable[[], str],
    ) -> int:
        """Store *adjudicator*'s settlement of *uid* (the settled field values) when *fingerprint_now()*,
        computed inside the write transaction, still equals *seen*; else :class:`StaleAdjudication`.
        Returns the settlement's id. The callers check the role (admin or adjudicator)."""
        if not adjudicator or not adjudicator.strip():
            raise ValueError("a settlement needs the adjudicator's name")
        adjudicator = identity_name(adjudicator)
        text = json.dumps(dict(settled), ensure_ascii=False, sort_keys=True)

        def store_it(q: Query) -> int:
            if fingerprint_now() != seen:
                raise StaleAdjudication(uid)
            row = q(
                "INSERT INTO team_adjudications (example_uid, adjudicator, ts, kind, settled, seen)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (uid, adjudicator, now_iso(), SETTLE, text, seen),
            ).fetchone()
            return int(row[0])

        return self._store.write(store_it)

    def undo_settlement(self, uid: str, adjudicator: str) -> bool:
        """Undo the settlement in force on *uid* (whoever made it: adjudicators share the queue); ``False``
        when there is none. The example goes back to the adjudication queue."""

        def undo(q: Query) -> bool:
            current = _fold(_rows(q, uid)).get(uid)
            if current is None:
                return False
            q(
                "INSERT INTO team_adjudications (example_uid, adjudicator, ts, kind, seen, undoes)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (uid, identity_name(adjudicator), now_iso(), UNDO, "", current.id),
            )
            return True

        return self._store.write(undo)
