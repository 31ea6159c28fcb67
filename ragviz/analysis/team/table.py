"""A team's round over the whole loaded data (:func:`round_table`): what the Team page, ``ragviz team status`` and
``ragviz agreement --annotators`` count.

Most examples of a large round reach the store only as review marks: each labeller holds the labels the row
was loaded with, so they agree, and their gold is those labels. Those examples are counted on the data's
Arrow columns (:mod:`ragviz.analysis.team.columns`); the others (someone changed a label, a settlement, a
stored judge label set, a row the columns do not read exactly) are compared one by one as
:class:`~ragviz.analysis.team.gold.ExampleRound`. The figures are those of comparing every example one by
one (tests hold them equal).
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ragviz.analysis.team.columns import key_examples, loaded_counts
from ragviz.analysis.team.gold import ExampleRound, decided_at, events_by_example, rounds_at
from ragviz.data.dataset import Dataset
from ragviz.data.model import Example
from ragviz.store.label_store import LabelStore

__all__ = ["COLUMNS_FROM", "RoundTable", "current_round_table", "round_table"]


#: Rounds of fewer examples are compared one by one (the columns' fixed cost is a read of the whole data).
COLUMNS_FROM = 1_000


@dataclass(frozen=True, eq=False)
class RoundTable:
    """Every example someone is assigned to or decided (row order): who is assigned, who decided; the
    examples compared one by one (*compared*); for the others (*on_columns*) the units per kind of
    :data:`~ragviz.analysis.team.gold.UNIT_KINDS` (*units*), the relevant, utilized and supported ones
    (*true*), and whether the judge holds the same labels (*judged*; else there is no judge)."""

    uids: tuple[str, ...]
    assigned: tuple[tuple[str, ...], ...]
    done: tuple[tuple[str, ...], ...]
    compared: Mapping[str, ExampleRound]
    on_columns: np.ndarray
    units: np.ndarray
    true: np.ndarray
    judged: np.ndarray
    #: the store held assignments (a round): some example's labellers are its assignees
    in_round: bool = False
    #: per example on columns, its labellers' latest decision time (its gold's, when it is ready); else None
    decided_at: tuple[str | None, ...] = ()

    @classmethod
    def from_rounds(cls, rounds: Mapping[str, ExampleRound]) -> RoundTable:
        """Every example compared one by one (:func:`ragviz.analysis.team.gold.team_round`)."""
        n = len(rounds)
        rs = list(rounds.values())
        return cls(
            tuple(rounds),
            tuple(r.assigned for r in rs),
            tuple(r.done for r in rs),
            dict(rounds),
            np.zeros(n, bool),
            np.zeros((n, 4), np.int64),
            np.zeros((n, 3), np.int64),
            np.zeros(n, bool),
        )

    def __len__(self) -> int:
        return len(self.uids)

    def labellers(self, i: int) -> tuple[str, ...]:
        return self.assigned[i] or self.done[i]

    def holders(self, i: int) -> tuple[str, ...]:
        """Who of the example's labellers holds labels on it (decided)."""
        return self._holders[i]

    @cached_property
    def _holders(self) -> list[tuple[str, ...]]:
        out = []
        for uid, assignees, done in zip(self.uids, self.assigned, self.done):
            r = self.compared.get(uid)
            out.append(tuple(r.values) if r is not None else tuple(w for w in (assignees or done) if w in done))
        return out

    def ready(self, i: int) -> bool:
        return bool(self.ready_rows[i])

    @cached_property
    def ready_rows(self) -> np.ndarray:
        """Per example: ready (it has labellers and every one decided)."""
        out = np.zeros(len(self.uids), bool)
        for i, (assignees, done) in enumerate(zip(self.assigned, self.done)):
            labellers = assignees or done
            out[i] = bool(labellers) and (labellers == done or all(w in done for w in labellers))
        return out

    def state(self, uid: str) -> str | None:
        """Where example *uid* stands: ``gold (agreed)``, ``gold (adjudicated)``, ``to adjudicate [again]``,
        ``ready``, ``in progress``; ``None`` when it is not in the round."""
        r = self.compared.get(uid)
        if r is not None:
            if r.gold is not None and not r.stale:
                return f"gold ({r.gold.source})"
            if r.needs_adjudication:
                return "to adjudicate" + (" again" if r.stale else "")
            return "in progress" if not r.ready else "ready"
        if uid not in self._position:
            return None
        return "gold (agreed)" if self.ready(self._position[uid]) else "in progress"

    @cached_property
    def _position(self) -> dict[str, int]:
        return {uid: i for i, uid in enumerate(self.uids)}

    def queue(self) -> list[str]:
        """The uids waiting for an adjudicator (:func:`ragviz.analysis.team.adjudicate.adjudication_queue`), in
        row order: only examples someone changed a label of can be."""
        return [uid for uid in self.uids if (r := self.compared.get(uid)) is not None and r.needs_adjudication]


def round_table(
    dataset: Dataset,
    store: LabelStore,
    columns_from: int | None = None,
    assignees: Mapping[str, tuple[str, ...]] | None = None,
    examples: Mapping[int, Example] | None = None,
) -> RoundTable:
    """The round over *dataset* (module docstring); a round of fewer than *columns_from* examples
    (:data:`COLUMNS_FROM`) is compared one by one. *assignees* (uid -> its annotators) stands for the store's
    assignments (``{}``: every decision counts, each example's labellers are who decided it); *examples* may
    hold examples already built (by row index)."""
    with _no_cycle_collection():
        return _round_table(dataset, store, columns_from, assignees, examples)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused: comparing a large round makes objects that live on (rounds, units,
    labels, none of them in a cycle), and the collector's passes over them were a fifth of the round's time."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _round_table(
    dataset: Dataset,
    store: LabelStore,
    columns_from: int | None,
    assignees: Mapping[str, tuple[str, ...]] | None,
    examples: Mapping[int, Example] | None,
) -> RoundTable:
    columns_from = COLUMNS_FROM if columns_from is None else columns_from
    assignees = store.team.assignments.assigned() if assignees is None else assignees
    done_at = decided_at(store)
    done = {uid: list(who) for uid, who in done_at.items()}
    rows = sorted(i for i in map(dataset.index_of, set(assignees) | set(done)) if i is not None)
    everyone = dataset.uids
    uids = [everyone[i] for i in rows]
    n = len(rows)
    on = np.zeros(n, bool)
    units, true, judged = np.zeros((n, 4), np.int64), np.zeros((n, 3), np.int64), np.zeros(n, bool)
    changed = store.team.adjudications.label_changed_uids()
    if n and n >= columns_from:
        counts = loaded_counts(dataset)
        at = np.asarray(rows, np.int64)
        aside = changed | set(store.team.adjudications.settlements()) | store.judge.judged_uids()
        on = counts.exact[at] & np.fromiter((uid not in aside for uid in uids), bool, n)
        units = np.stack([counts.n_context[at], counts.n_context[at], counts.n_response[at], counts.n_response[at]], 1)
        true = np.stack([counts.n_relevant[at], counts.n_utilized[at], counts.n_supported[at]], 1)
        judged = counts.judged[at]
    one_by_one = [i for i, o in zip(rows, on.tolist()) if not o]
    only_changed = all(everyone[i] in changed for i in one_by_one)  # else every example's events are read
    events = events_by_example(store, label_changed=only_changed)
    built = {i: examples[i] for i in one_by_one if i in examples} if examples else {}
    built.update(key_examples(dataset, [i for i in one_by_one if i not in built]))
    compared = rounds_at(dataset, store, one_by_one, assignees, done, events, built)
    labellers = [assignees.get(uid, ()) for uid in uids]
    times = [
        max((t for w, t in done_at.get(uid, {}).items() if t and w in (mine or done_at[uid])), default=None)
        if o
        else None
        for uid, mine, o in zip(uids, labellers, on.tolist())
    ]
    return RoundTable(
        tuple(uids),
        tuple(labellers),
        tuple(tuple(sorted(done.get(uid, ()))) for uid in uids),
        compared,
        on,
        units,
        true,
        judged,
        bool(assignees),
        tuple(times),
    )


_KEPT: list[tuple[weakref.ref, weakref.ref, tuple[int, ...], RoundTable]] = []
_KEPT_LOCK = threading.Lock()


def current_round_table(dataset: Dataset, store: LabelStore) -> RoundTable:
    """:func:`round_table` of *dataset* and *store*, kept per round version
    (:meth:`ragviz.store.team.Team.round_version`): computed again only when a decision, a judge label set, an
    assignment or an adjudication was written since. The Team page, the gold label set and the CLI share it."""
    version = store.team.round_version()
    with _KEPT_LOCK:
        for data, labels, kept_version, table in _KEPT:
            if data() is dataset and labels() is store and kept_version == version:
                return table
    table = round_table(dataset, store)  # a write meanwhile: kept under the older version, so computed again next
    with _KEPT_LOCK:
        _KEPT.insert(0, (weakref.ref(dataset), weakref.ref(store), version, table))
        del _KEPT[2:]
    return table
