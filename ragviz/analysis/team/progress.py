"""Progress of a team's round: per annotator (assigned, done) and per example (assigned to, done by),
and the seconds each annotator spends per example (from the store's decision times)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ragviz.analysis.team.table import RoundTable
from ragviz.store.label_store import LabelStore

__all__ = [
    "BREAK_SECONDS",
    "AnnotatorProgress",
    "Progress",
    "median_seconds",
    "seconds_per_example",
    "table_progress",
    "team_progress",
]


#: A pause longer than this between two decisions is a break, not time spent on the next example.
BREAK_SECONDS = 30 * 60


@dataclass(frozen=True)
class AnnotatorProgress:
    name: str
    assigned: int
    done: int

    @property
    def open(self) -> int:
        return self.assigned - self.done


@dataclass(frozen=True)
class Progress:
    """Per annotator their counts; per assigned example who it is assigned to and who of them decided it."""

    annotators: dict[str, AnnotatorProgress]
    examples: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]

    def as_dict(self) -> dict[str, Any]:
        """``{"annotators": {NAME: {"assigned": n, "done": n}}, "examples": {UID: [NAME, ...]}}`` (``ragviz team
        status --format json``; the examples' lists are the annotators each is assigned to)."""
        return {
            "annotators": {n: {"assigned": a.assigned, "done": a.done} for n, a in sorted(self.annotators.items())},
            "examples": {uid: list(who) for uid, (who, _) in self.examples.items()},
        }

    def example_text(self, uid: str) -> str:
        """``"1/2"``: how many of the example's annotators decided it."""
        who, done = self.examples[uid]
        return f"{len(done)}/{len(who)}"


def team_progress(store: LabelStore, uids: Iterable[str] | None = None) -> Progress:
    """Progress over every assignment (or the assigned examples among *uids*): one query, the assignments
    joined with what each annotator decided."""
    current = store.team.assignments.assigned_with_status()
    if uids is not None:
        wanted = set(uids)
        current = {uid: who for uid, who in current.items() if uid in wanted}
    return _progress(current)


def table_progress(table: RoundTable) -> Progress:
    """:func:`team_progress` over the loaded examples, read from the round's table (no query)."""
    return _progress(
        {
            uid: tuple((n, n in done) for n in who)
            for uid, who, done in zip(table.uids, table.assigned, table.done)
            if who
        }
    )


def _progress(current: Mapping[str, tuple[tuple[str, bool], ...]]) -> Progress:
    """From uid -> ``(annotator, decided?)`` per annotator it is assigned to."""
    names = sorted({n for who in current.values() for n, _ in who})
    examples = {uid: (tuple(n for n, _ in who), tuple(n for n, done in who if done)) for uid, who in current.items()}
    counts = {n: [0, 0] for n in names}
    for who, done in examples.values():
        for n in who:
            counts[n][0] += 1
        for n in done:
            counts[n][1] += 1
    return Progress({n: AnnotatorProgress(n, a, d) for n, (a, d) in counts.items()}, examples)


def _seconds(ts: str) -> float:
    return datetime.fromisoformat(ts).timestamp()


def seconds_per_example(rows: Iterable[tuple[str, str, str]]) -> dict[str, dict[str, float]]:
    """annotator -> uid -> seconds spent, from their decisions ``(annotator, uid, time)`` in the order made.
    A stretch of decisions on one example took from the annotator's previous decision (on another
    example) to the stretch's last one; an annotator's first stretch and one after a break
    (:data:`BREAK_SECONDS`) have no start and are not counted.

    >>> rows = [("a", "x", "2026-01-01T00:00:00+00:00"), ("a", "y", "2026-01-01T00:00:30+00:00"),
    ...         ("a", "y", "2026-01-01T00:00:40+00:00"), ("a", "z", "2026-01-01T00:01:00+00:00")]
    >>> seconds_per_example(rows)
    {'a': {'y': 40.0, 'z': 20.0}}
    """
    by_person: dict[str, list[tuple[str, float]]] = {}
    for who, uid, ts in rows:
        by_person.setdefault(who, []).append((uid, _seconds(ts)))
    out: dict[str, dict[str, float]] = {}
    for who, seq in by_person.items():
        spent: dict[str, float] = {}
        prev_end: float | None = None  # end of the previous stretch (another example)
        i = 0
        while i < len(seq):
            uid, start_t = seq[i]
            j = i
            while j + 1 < len(seq) and seq[j + 1][0] == uid and seq[j + 1][1] - seq[j][1] <= BREAK_SECONDS:
                j += 1
            end = seq[j][1]
            if prev_end is not None and start_t - prev_end <= BREAK_SECONDS:
                spent[uid] = spent.get(uid, 0.0) + end - prev_end
            prev_end = end
            i = j + 1
        if spent:
            out[who] = spent
    return out


def median_seconds(store: LabelStore, uids: Iterable[str] | None = None) -> dict[str, float]:
    """annotator -> median seconds per example (:func:`seconds_per_example`, over *uids* when given)."""
    spent = seconds_per_example(store.decision_times())
    wanted = set(uids) if uids is not None else None
    out = {}
    for who, per in spent.items():
        values = [s for uid, s in per.items() if wanted is None or uid in wanted]
        if values:
            out[who] = float(statistics.median(values))
    return out
