"""Gold labels: what a team's annotators settled on for each example.

An example's *labellers* are the annotators assigned to it (:mod:`ragviz.store.team.assignments`), or,
for an example nobody assigned, everyone who decided on it. It is *ready* when every labeller has
decided (reviewed or edited it). Its labellers' labels are compared sentence by sentence on four kinds
of :data:`Unit`: ``relevant`` and ``utilized`` per context sentence, ``supported`` (the verdict) and
``supporting`` (the supporting keys, as a set) per response sentence. A ready example where they all
agree is gold as it is (``"agreed"``); one where they differ enters the adjudication queue until an
adjudicator settles it (:mod:`ragviz.store.team.adjudications`), and the settled labels are its gold
(``"adjudicated"``, with who settled it). A settlement whose annotators' labels changed after it was
made still stands, and the example is back in the queue (``stale``) until it is settled again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragviz.analysis.agreement import decisions
from ragviz.data.dataset import Dataset, examples_at
from ragviz.data.keys import clean_key
from ragviz.data.labels import RELEVANT_FIELD, UTILIZED_FIELD, apply_changes, support_field
from ragviz.data.model import Example, Labels, Provenance
from ragviz.data.ragbench import unsupported_keys
from ragviz.store.events import Event, base_labels, effective_events, fold_labels
from ragviz.store.label_store import LabelStore
from ragviz.store.team.adjudications import Adjudication

__all__ = [
    "ADJUDICATED",
    "AGREED",
    "ExampleRound",
    "Gold",
    "UNIT_KINDS",
    "Unit",
    "decided_at",
    "decided_by",
    "events_by_example",
    "example_round",
    "labels_fingerprint",
    "rounds_at",
    "settled_fields",
    "shown_fingerprint",
    "team_round",
    "unit_values",
]


AGREED = "agreed"
ADJUDICATED = "adjudicated"
UNIT_KINDS = ("relevant", "utilized", "supported", "supporting")
#: One sentence label: ``(kind, sentence key)``, kind one of :data:`UNIT_KINDS`.
Unit = tuple[str, str]


@dataclass(frozen=True)
class Gold:
    """An example's gold labels: *source* ``"agreed"`` or ``"adjudicated"``; *by* the adjudicator, or the
    labellers who agreed (comma-separated); *at* when it was settled or last decided."""

    labels: Labels
    source: str
    by: str
    at: str | None


@dataclass(frozen=True)
class ExampleRound:
    """Where one example stands in the team's round (see the module docstring)."""

    uid: str
    assigned: tuple[str, ...]
    done: tuple[str, ...]
    labels: Mapping[str, Labels] = field(default_factory=dict)
    differences: tuple[Unit, ...] = ()
    settlement: Adjudication | None = None
    stale: bool = False
    gold: Gold | None = None
    #: the example's units, and per labeller who decided (and for the judge and the gold labels, when
    #: there are any) the values of those units in the same order: what agreement figures count
    units: tuple[Unit, ...] = ()
    values: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    judge_values: tuple[Any, ...] | None = None
    gold_values: tuple[Any, ...] | None = None

    @property
    def labellers(self) -> tuple[str, ...]:
        return self.assigned or self.done

    @property
    def ready(self) -> bool:
        return bool(self.labellers) and all(n in self.done for n in self.labellers)

    @property
    def needs_adjudication(self) -> bool:
        return self.ready and bool(self.differences) and (self.settlement is None or self.stale)


def unit_values(example: Example, labels: Labels) -> dict[Unit, Any]:
    """Every sentence label of *labels* on *example*: a bool per relevant / utilized / supported unit,
    the sorted supporting keys (a tuple) per response sentence."""
    d = decisions(example, labels)
    out: dict[Unit, Any] = {}
    for kind, values in (("relevant", d.relevant), ("utilized", d.utilized), ("supported", d.supported)):
        out.update(((kind, k), v) for k, v in values.items())
    for key in example.response_keys():
        s = labels.support_for(key)
        out[("supporting", key)] = tuple(sorted({clean_key(k) for k in (s.supporting_keys if s else ())}))
    return out


_NOBODY = Provenance()


def _units(example: Example) -> tuple[Unit, ...]:
    """The example's units in :func:`unit_values`' order."""
    context, response = example.context_keys(), example.response_keys()
    return tuple(
        [("relevant", k) for k in context]
        + [("utilized", k) for k in context]
        + [("supported", k) for k in response]
        + [("supporting", k) for k in response]
    )


def _aligned(example: Example, labels: Labels | None) -> tuple[Any, ...] | None:
    """:func:`unit_values` in :func:`_units`' order, built straight as a tuple (a whole round builds one per
    example and label set: no dict, no TRACe scores)."""
    if labels is None:
        return None
    context, response = example.context_keys(), example.response_keys()
    relevant = {clean_key(k) for k in labels.relevant_keys}
    utilized = {clean_key(k) for k in labels.utilized_keys}
    unsupported = {clean_key(k) for k in unsupported_keys(labels)}
    supporting = []
    for key in response:
        s = labels.support_for(key)
        supporting.append(tuple(sorted({clean_key(k) for k in (s.supporting_keys if s else ())})))
    return (
        *(k in relevant for k in context),
        *(k in utilized for k in context),
        *(k not in unsupported for k in response),
        *supporting,
    )


def _differences(units: Sequence[Unit], values: Iterable[tuple[Any, ...]]) -> tuple[Unit, ...]:
    rows = list(values)
    if len(rows) < 2 or all(row == rows[0] for row in rows[1:]):
        return ()
    return tuple(u for i, u in enumerate(units) if any(row[i] != rows[0][i] for row in rows[1:]))


def labels_fingerprint(example: Example, by_labeller: Mapping[str, Labels]) -> str:
    """Every labeller's sentence labels on *example*, as a short hash."""
    shown = {
        who: sorted((f"{k}:{key}", v) for (k, key), v in unit_values(example, labels).items())
        for who, labels in sorted(by_labeller.items())
    }
    return hashlib.sha256(json.dumps(shown, sort_keys=True, default=list).encode()).hexdigest()[:32]


def shown_fingerprint(example: Example, by_labeller: Mapping[str, Labels], adjudication_id: int) -> str:
    """What an adjudicator is shown: :func:`labels_fingerprint` and the id of the example's latest
    adjudication row. A settlement is refused when it changed (``StaleAdjudication``)."""
    return f"{labels_fingerprint(example, by_labeller)}:{adjudication_id}"


def settled_fields(
    example: Example, chosen: Mapping[Unit, Any], explanations: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The label fields (``relevant_keys``, ``utilized_keys``, ``support:<key>``) an adjudication stores,
    from a value for every unit of the example (*chosen*; :func:`unit_values`' shapes); *explanations*
    per response key are kept with the settled verdicts."""
    notes = explanations or {}
    out: dict[str, Any] = {
        RELEVANT_FIELD: [k for k in example.context_keys() if chosen.get(("relevant", k))],
        UTILIZED_FIELD: [k for k in example.context_keys() if chosen.get(("utilized", k))],
    }
    for key in example.response_keys():
        out[support_field(key)] = {
            "supported": bool(chosen.get(("supported", key))),
            "supporting_keys": list(chosen.get(("supporting", key)) or ()),
            "explanation": notes.get(key, ""),
        }
    return out


def _gold(example: Example, base: Labels | None, r: ExampleRound, last_ts: str | None) -> Gold | None:
    if r.settlement is not None and r.ready:
        start = base if base is not None else Labels()
        s = r.settlement
        labels = apply_changes(start, s.settled.items(), Provenance("human", s.adjudicator, s.ts))
        return Gold(labels, ADJUDICATED, s.adjudicator, s.ts)
    if r.ready and not r.differences:
        first = r.labels[r.labellers[0]]
        who = ", ".join(sorted(r.labellers))  # one order whoever was assigned first
        return Gold(first.replace(provenance=Provenance("human", who, last_ts)), AGREED, who, last_ts)
    return None


def _round_of(
    example: Example,
    assignees: tuple[str, ...],
    done: tuple[str, ...],
    base: Labels | None,
    events: Mapping[str, Sequence[Event]],
    settlement: Adjudication | None,
    judge: Labels | None = None,
) -> ExampleRound:
    labellers = assignees or done
    labels: dict[str, Labels] = {}
    last_ts: str | None = None
    for who in labellers:
        if who not in done:
            continue
        effective = effective_events(events.get(who, ()))
        current = fold_labels(base, effective, example, who)
        if current is not None:
            labels[who] = current
        if effective and (last_ts is None or effective[-1].ts > last_ts):
            last_ts = effective[-1].ts
    units = _units(example)
    memo: dict[Labels, tuple[Any, ...] | None] = {}  # labellers who changed nothing hold the same labels

    def aligned(lab: Labels | None) -> tuple[Any, ...] | None:
        if lab is None:
            return None
        content = lab.replace(provenance=_NOBODY)
        if content not in memo:
            memo[content] = _aligned(example, lab)
        return memo[content]

    values = {who: v for who, lab in labels.items() if (v := aligned(lab)) is not None}
    differences = _differences(units, values.values())
    stale = settlement is not None and settlement.seen.split(":")[0] != labels_fingerprint(example, labels)
    r = ExampleRound(example.uid, assignees, done, labels, differences, settlement, stale, None, units, values)
    gold = _gold(example, base, r, last_ts)
    return ExampleRound(
        **{
            **r.__dict__,
            "gold": gold,
            "judge_values": aligned(judge),
            "gold_values": aligned(gold.labels if gold else None),
        }
    )


def events_by_example(
    store: LabelStore, uid: str | None = None, label_changed: bool = False
) -> dict[str, dict[str, list[Event]]]:
    """uid -> annotator -> their events on it, in order (every example's when *uid* is None, those of the
    examples someone changed a label of with *label_changed*: one query)."""
    out: dict[str, dict[str, list[Event]]] = {}
    for event in store.label_events(uid, old_values=False, label_changed=label_changed):  # folding needs no old
        out.setdefault(event.example_uid, {}).setdefault(event.annotator, []).append(event)
    return out


def decided_at(store: LabelStore) -> dict[str, dict[str, str | None]]:
    """uid -> the annotators who decided it (edited it or marked it reviewed, in name order) -> when they last did."""
    return {uid: dict(sorted(who.items())) for uid, who in store.team.decided().items()}


def decided_by(store: LabelStore) -> dict[str, list[str]]:
    """uid -> the annotators who decided it (edited it or marked it reviewed)."""
    return {uid: list(who) for uid, who in decided_at(store).items()}


def example_round(example: Example, store: LabelStore) -> ExampleRound:
    """Where one example stands now (a handful of queries: the adjudication view and the stale check)."""
    uid = example.uid
    assignees = store.team.assignments.assigned_to(uid)
    events = events_by_example(store, uid).get(uid, {})
    done = tuple(sorted(who for who in events if store.status(uid, who).reviewed))
    stored_judge = store.judge.labels(uid)
    base = base_labels(example, stored_judge)
    settlement = store.team.adjudications.settlement_of(uid)
    judge = stored_judge if stored_judge is not None else example.judge_labels  # labelsets.named.judge_labels_of
    return _round_of(example, assignees, done, base, events, settlement, judge)


def team_round(
    dataset: Dataset,
    store: LabelStore,
    examples: Mapping[int, Example] | None = None,
    uids: Iterable[str] | None = None,
) -> dict[str, ExampleRound]:
    """uid -> :class:`ExampleRound` for every loaded example someone is assigned to or decided on (or
    those of *uids*), in row order. A few bulk queries; only those examples are built."""
    assignees = store.team.assignments.assigned()
    done = decided_by(store)
    wanted = set(assignees) | set(done) if uids is None else set(uids)
    rows = sorted(i for i in map(dataset.index_of, wanted) if i is not None)
    return rounds_at(dataset, store, rows, assignees, done, events_by_example(store), examples)


def rounds_at(
    dataset: Dataset,
    store: LabelStore,
    rows: Sequence[int],
    assignees: Mapping[str, tuple[str, ...]],
    done: Mapping[str, Sequence[str]],
    events: Mapping[str, Mapping[str, Sequence[Event]]],
    examples: Mapping[int, Example] | None = None,
) -> dict[str, ExampleRound]:
    """:func:`team_round` of the examples at *rows* (in that order), from what it reads of the store:
    *assignees* (``store.team.assignments.assigned()``), *done* (:func:`decided_by`) and *events*
    (:func:`events_by_example`, which holds at least these examples')."""
    built = examples_at(dataset, rows, examples)
    judged = store.judge.judged_uids()
    settled = store.team.adjudications.settlements()
    out: dict[str, ExampleRound] = {}
    for i in rows:
        example = built[i]
        uid = example.uid
        stored_judge = store.judge.labels(uid) if uid in judged else None
        base = base_labels(example, stored_judge)
        who_done = tuple(sorted(done.get(uid, ())))
        judge = stored_judge if stored_judge is not None else example.judge_labels
        out[uid] = _round_of(
            example, assignees.get(uid, ()), who_done, base, events.get(uid, {}), settled.get(uid), judge
        )
    return out
