"""Label events and how they fold into labels: the pure part of the store (no database here)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from ragviz.data.labels import (
    CLAIM_PREFIX,
    FAMILY_FIELDS,
    RELEVANT_FIELD,
    RESET_FIELD,
    REVIEW_FIELD,
    REVIEWED,
    SUPPORT_PREFIX,
    UTILIZED_FIELD,
    apply_changes,
    empty_labels,
)
from ragviz.data.model import Example, Labels, Provenance

__all__ = [
    "Event",
    "ExampleStatus",
    "StoredAction",
    "TeamLabels",
    "UNDO_FIELD",
    "base_labels",
    "canonical",
    "check_field",
    "effective_events",
    "fold_labels",
    "fold_team",
    "is_label_field",
    "labels_from_json",
    "labels_to_json",
    "now_iso",
    "same_value",
    "status_of",
    "without_contradicting_explanations",
]


UNDO_FIELD = "undo"


def now_iso() -> str:
    """UTC time with microseconds, ISO-8601 (sorts as text)."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def is_label_field(name: str) -> bool:
    """Fields that change the labels themselves (not ``review``/``reset``/``undo``)."""
    return (
        name in (RELEVANT_FIELD, UTILIZED_FIELD)
        or name in FAMILY_FIELDS
        or name.startswith(SUPPORT_PREFIX)
        or name.startswith(CLAIM_PREFIX)  # RagChecker claim labels (uid "ragchecker:<file>/<query_id>")
    )


def check_field(name: str) -> None:
    if not (is_label_field(name) or name in (REVIEW_FIELD, RESET_FIELD)):
        raise ValueError(f"unknown label field {name!r}")


@dataclass(frozen=True)
class Event:
    """One stored field change. ``action`` is the kind the caller gave (``"edit"``, ``"review"``,
    ``"undo"`` ...); ``undone`` is true when a later ``undo`` event cancelled its action."""

    id: int
    action_id: int
    example_uid: str
    annotator: str
    ts: str
    field: str
    old: Any
    new: Any
    action: str = "edit"
    undone: bool = False


@dataclass(frozen=True)
class ExampleStatus:
    """What an annotator's effective events say about one example.

    ``corrected``: some label field ends with a value different from the one it had before the
    person's first change of it (since the last reset); key lists compare as sets and a support
    entry's supporting keys too, so ticking and unticking a box (which may reorder a list) is no
    correction. ``reviewed``: the example is corrected, or the person's latest review marker since
    the last reset says ``reviewed`` (accepting); an edit that ends where it started marks nothing.
    """

    reviewed: bool
    corrected: bool
    last_ts: str | None


@dataclass(frozen=True)
class StoredAction:
    """One decision as stored: its action id, example, kind (``"edit"``, ``"accept"``, ``"reset"`` ...)
    and its field changes (:class:`Event`), the action an undo would cancel."""

    action_id: int
    example_uid: str
    kind: str
    events: tuple[Event, ...]


def effective_events(events: Sequence[Event]) -> list[Event]:
    """*events* (in id order) without undo markers and without events of undone actions."""
    undone = {int(e.new) for e in events if e.field == UNDO_FIELD and e.new is not None}
    return [e for e in events if e.field != UNDO_FIELD and e.action_id not in undone]


def status_of(effective: Sequence[Event]) -> ExampleStatus:
    """Fold effective events into an :class:`ExampleStatus` (see its docstring)."""
    marked = False
    first_old: dict[str, Any] = {}
    last_new: dict[str, Any] = {}
    for e in effective:
        if e.field == RESET_FIELD:
            marked = False
            first_old.clear()
            last_new.clear()
        elif e.field == REVIEW_FIELD:
            marked = e.new == REVIEWED
        elif is_label_field(e.field):
            first_old.setdefault(e.field, e.old)
            last_new[e.field] = e.new
    corrected = any(not same_value(f, first_old[f], v) for f, v in last_new.items())
    last_ts = effective[-1].ts if effective else None
    return ExampleStatus(reviewed=marked or corrected, corrected=corrected, last_ts=last_ts)


def same_value(field: str, a: Any, b: Any) -> bool:
    """Whether two values of label *field* mean the same labels: the relevant / utilized key lists
    as sets, a support entry with its supporting keys as a set, anything else exactly.

    >>> same_value("relevant_keys", ["0a", "0b"], ["0b", "0a", "0b"]), same_value("relevant_keys", ["0a"], [])
    (True, False)
    """
    return canonical(_comparable(field, a)) == canonical(_comparable(field, b))


def _comparable(field: str, value: Any) -> Any:
    if field in (RELEVANT_FIELD, UTILIZED_FIELD) and isinstance(value, (list, tuple)):
        return sorted(set(map(str, value)))
    if field.startswith(SUPPORT_PREFIX) and isinstance(value, dict):
        keys = value.get("supporting_keys") or []
        return {**value, "supporting_keys": sorted(set(map(str, keys)))}
    return value


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def base_labels(example: Example, stored_judge: Labels | None) -> Labels | None:
    """What human edits start from: *stored_judge* (the latest judge label set the store holds
    for the example) when there is one, else the labels the loaded row carries (for a re-loaded
    reviewed export: the earlier reviewer's), else its judge labels; ``None`` when unlabeled."""
    if stored_judge is not None:
        return stored_judge
    return example.labels if example.labels is not None else example.judge_labels


def fold_labels(base: Labels | None, effective: Sequence[Event], example: Example, annotator: str) -> Labels | None:
    """*base* with the *effective* events applied in order (``reset`` returns to *base*).

    No events: *base* unchanged. An unlabeled example (``base is None``) starts from
    :func:`ragviz.data.labels.empty_labels`. Provenance is ``Provenance("human", annotator, time of the
    last decision)`` when the person edited or marked the example reviewed (:class:`ExampleStatus`),
    else the base's.
    """
    if not effective:
        return base
    if base is None:
        base = empty_labels(example)
    status = status_of(effective)
    provenance = Provenance("human", annotator, status.last_ts) if status.reviewed else base.provenance
    return apply_changes(base, [(e.field, e.new) for e in effective], provenance)


@dataclass(frozen=True)
class TeamLabels:
    """One example's labels in the team's export: every annotator's latest decision per field on
    *base*, the reviewer of the row (whose decision is the latest) and when, and who decided each
    field (*field_reviewers*; empty unless more than one person's decisions are in the row)."""

    labels: Labels | None
    reviewer: str | None
    reviewed_at: str | None
    field_reviewers: dict[str, str]


def fold_team(base: Labels | None, events: Sequence[Event], example: Example | None) -> TeamLabels:
    """The team's labels of one example from every annotator's *events* on it (in id order).

    Per annotator only what :func:`fold_labels` would apply counts (undone actions out, nothing
    before their last reset), and only when their decisions mark the example reviewed
    (:class:`ExampleStatus`). Each label field then takes the newest value any of them decided
    (events are serialized: a larger id is a later decision). With no reviewer the labels are *base*.

    >>> e = lambda i, who, f, new: Event(i, i, "u", who, f"t{i}", f, None, new)
    >>> decided = [e(1, "ana", "relevant_keys", ["0a"]), e(2, "bo", "utilized_keys", ["0a"])]
    >>> team = fold_team(Labels(), decided, example=None)
    >>> team.reviewer, team.field_reviewers
    ('bo', {'relevant_keys': 'ana', 'utilized_keys': 'bo'})
    """
    by_person: dict[str, list[Event]] = {}
    for e in events:
        by_person.setdefault(e.annotator, []).append(e)
    newest: dict[str, Event] = {}  # label field -> the newest decision of it
    last: dict[str, Event] = {}  # reviewer -> their last effective event
    for person, own in by_person.items():
        effective = effective_events(own)
        if not effective or not status_of(effective).reviewed:
            continue
        last[person] = effective[-1]
        resets = [i for i, e in enumerate(effective) if e.field == RESET_FIELD]
        for e in effective[resets[-1] + 1 :] if resets else effective:
            if is_label_field(e.field) and (e.field not in newest or e.id > newest[e.field].id):
                newest[e.field] = e
    if not last:
        return TeamLabels(base, None, None, {})
    latest = max(last.values(), key=lambda e: e.id)
    start = base if base is not None else empty_labels(example) if example is not None else Labels()
    decided = sorted(newest.values(), key=lambda e: e.id)
    labels = apply_changes(start, [(e.field, e.new) for e in decided], Provenance("human", latest.annotator, latest.ts))
    people = {e.annotator for e in decided} | {latest.annotator}
    per_field = {f: e.annotator for f, e in sorted(newest.items())} if len(people) > 1 else {}
    return TeamLabels(labels, latest.annotator, latest.ts, per_field)


def without_contradicting_explanations(labels: Labels | None, base: Labels | None) -> Labels | None:
    """*labels* where a sentence whose verdict differs from the *base*'s but still carries the base's
    explanation (a flip stored before flips took the reviewer's note) has no explanation instead:
    the base's text argued for the other verdict. Everything else unchanged (the same object when
    nothing is dropped)."""
    if labels is None or base is None:
        return labels
    support = []
    dropped = False
    for s in labels.support:
        before = base.support_for(s.key)
        if (
            before is not None
            and s.explanation
            and s.supported != before.supported
            and s.explanation == before.explanation
        ):
            s = replace(s, explanation="")
            dropped = True
        support.append(s)
    return labels.replace(support=tuple(support)) if dropped else labels


def labels_to_json(labels: Labels) -> str:
    from ragviz.data.ragbench import labels_to_row

    row = labels_to_row(labels)
    # Keep the stored unsupported list as it is (None = derive from support), not the derived one.
    row["unsupported_response_sentence_keys"] = (
        None if labels.unsupported_keys is None else list(labels.unsupported_keys)
    )
    p = labels.provenance
    row["provenance"] = {"source": p.source, "name": p.name, "time": p.time, "prompt_version": p.prompt_version}
    return json.dumps(row, ensure_ascii=False)


def labels_from_json(text: str) -> Labels:
    from ragviz.data.ragbench import UNSUPPORTED, labels_from_row

    row = json.loads(text)
    p = row.pop("provenance", None) or {}
    provenance = Provenance(p.get("source") or "llm", p.get("name") or "", p.get("time"), p.get("prompt_version"))
    labels = labels_from_row(row, provenance=provenance, overrides=True)
    if labels is None:  # every field null: an empty label set
        labels = Labels(provenance=provenance)
    if row.get(UNSUPPORTED) is None:
        labels = labels.replace(unsupported_keys=None)
    return labels
