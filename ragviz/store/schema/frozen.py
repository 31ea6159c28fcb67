"""What the data migrations 008 and 020 compute, copied here as it was when they were written.

A migration never imports live code (Django's rule): a later change to how ragviz folds decisions
(:func:`ragviz.store.events.status_of`) or spells a person (:func:`ragviz.store.roles.identity_name`) must not change
what an old migration does to a store it meets for the first time. These copies are of ragviz as of migration
020 (the example-status rule has not changed since 008). Never edit them; a new rule gets a new migration."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["EventRow", "identity_name_020", "recount_status", "status_of_rows"]

_RELEVANT, _UTILIZED, _SUPPORT, _CLAIM = "relevant_keys", "utilized_keys", "support:", "claim:"
_FAMILY = ("relevant_ids", "answer_similarity", "chunk_relevant", "chunk_utilized")
_REVIEW, _REVIEWED, _RESET, _UNDO = "review", "reviewed", "reset", "undo"

# One stored field change as the two migrations read it: (event id, action id, ts, field, old JSON, new JSON).
EventRow = tuple[int, int, str, str, str | None, str | None]


def identity_name_020(name: str) -> str:
    """A name as migration 020 stores it: trimmed, an e-mail address case-folded.

    >>> identity_name_020(" Ana@X.org "), identity_name_020("Bo")
    ('ana@x.org', 'Bo')
    """
    name = name.strip()
    return name.casefold() if "@" in name else name


def _is_label_field(name: str) -> bool:
    return name in (_RELEVANT, _UTILIZED) or name in _FAMILY or name.startswith((_SUPPORT, _CLAIM))


def _comparable(field: str, value: Any) -> Any:
    if field in (_RELEVANT, _UTILIZED) and isinstance(value, (list, tuple)):
        return sorted(set(map(str, value)))
    if field.startswith(_SUPPORT) and isinstance(value, dict):
        keys = value.get("supporting_keys") or []
        return {**value, "supporting_keys": sorted(set(map(str, keys)))}
    return value


def _same(field: str, a: Any, b: Any) -> bool:
    return json.dumps(_comparable(field, a), sort_keys=True) == json.dumps(_comparable(field, b), sort_keys=True)


def _json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def status_of_rows(rows: Sequence[EventRow]) -> tuple[bool, bool, str | None]:
    """(reviewed, corrected, last ts) of one person's events of one example, in id order: undone actions and undo
    markers dropped; corrected = a label field ends away from where the person's first change of it started (key
    lists as sets); reviewed = corrected, or the latest review marker since the last reset says reviewed.

    >>> status_of_rows([(1, 1, "t1", "relevant_keys", '["a"]', '["b", "a"]'), (2, 2, "t2", "relevant_keys", '["a", "b"]', '["a"]')])
    (False, False, 't2')
    >>> status_of_rows([(1, 1, "t1", "review", None, '"reviewed"'), (2, 2, "t2", "undo", None, "1")])
    (False, False, None)
    """
    undone = {int(_json(r[5])) for r in rows if r[3] == _UNDO and r[5] is not None}
    effective = [r for r in rows if r[3] != _UNDO and r[1] not in undone]
    marked = False
    first_old: dict[str, Any] = {}
    last_new: dict[str, Any] = {}
    for _id, _action, _ts, field, old, new in effective:
        if field == _RESET:
            marked = False
            first_old.clear()
            last_new.clear()
        elif field == _REVIEW:
            marked = _json(new) == _REVIEWED
        elif _is_label_field(field):
            first_old.setdefault(field, _json(old))
            last_new[field] = _json(new)
    corrected = any(not _same(f, first_old[f], v) for f, v in last_new.items())
    return marked or corrected, corrected, effective[-1][2] if effective else None


def recount_status(run: Callable[..., Any], annotator: str, uid: str) -> tuple[bool, bool, str | None, int | None]:
    """(reviewed, corrected, last ts, last action id) of *annotator*'s stored events of example *uid*."""
    rows = run(
        "SELECT e.id, e.action_id, e.ts, e.field, e.old_value, e.new_value FROM label_events e"
        " WHERE e.example_uid = ? AND e.annotator = ? ORDER BY e.id",
        (uid, annotator),
    ).fetchall()
    reviewed, corrected, last_ts = status_of_rows([tuple(r) for r in rows])
    return reviewed, corrected, last_ts, max((r[1] for r in rows), default=None)
