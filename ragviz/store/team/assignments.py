"""Assignments with overlap: which annotators label which example (migration ``014_team``).

An admin sets how many annotators label each example (the *overlap*, 1-5) and who is in the *pool*;
:func:`plan_assignments` gives every example that many distinct annotators, each time the ones with the
fewest assignments so far, so queues started together differ in size by at most one. Assignments are
append-only rows: ``+`` assigns, ``-`` takes back; the newest row of an example and annotator says where
it stands. Every :meth:`~Assignments.assign` or :meth:`~Assignments.reassign_leaver` is one *round* (who, when,
overlap, pool). A leaver's open assignments go to the least-loaded pool member not on them; decided ones stay theirs.

:class:`Assignments` is ``store.team.assignments`` (:mod:`ragviz.store.team`); it owns this SQL and builds on the
core's statuses (who decided what) through :class:`TeamCore`, without importing the core.
"""

from __future__ import annotations

import heapq
import json
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from ragviz.errors import BadInput
from ragviz.store.connection import Query, SqlStore
from ragviz.store.events import now_iso
from ragviz.store.roles import identity_name

__all__ = [
    "ASSIGN",
    "AssignmentError",
    "Assignments",
    "MAX_OVERLAP",
    "REASSIGN",
    "Round",
    "TeamCore",
    "check_pool",
    "plan_assignments",
]


MAX_OVERLAP = 5
ASSIGN = "assign"
REASSIGN = "reassign"


class TeamCore(SqlStore, Protocol):
    """What the team's parts need of the label store: its read / write interface and its statuses."""

    def reviewed_uids(self, annotator: str) -> set[str]: ...


class AssignmentError(BadInput, ValueError):
    """An assignment that cannot be made, in one sentence (nothing was stored)."""


@dataclass(frozen=True)
class Round:
    """One stored assignment round: what an admin asked for and how many assignments it added."""

    id: int
    kind: str
    overlap: int
    pool: tuple[str, ...]
    sample_id: int | None
    created_by: str
    ts: str
    added: int = 0


def check_pool(pool: Iterable[str], overlap: int) -> tuple[str, ...]:
    """The pool's names (as people are named: :func:`~ragviz.store.roles.identity_name`; each once, in the
    order given), checked against *overlap*.

    >>> check_pool([" ana", "bo", "ana", "Bo@X.org", "bo@x.org"], 2)
    ('ana', 'bo', 'bo@x.org')
    >>> check_pool(["ana"], 2)
    Traceback (most recent call last):
    ...
    ragviz.store.team.assignments.AssignmentError: overlap 2 is larger than the pool of 1 annotator (ana): each example needs 2 different annotators
    """
    names = tuple(dict.fromkeys(identity_name(n) for n in pool if n and n.strip()))
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 1 <= overlap <= MAX_OVERLAP:
        raise AssignmentError(f"overlap must be a whole number from 1 to {MAX_OVERLAP}, got {overlap!r}")
    if not names:
        raise AssignmentError("the pool is empty: name the annotators who label (--pool ana,bo,...)")
    if "*" in names:
        raise AssignmentError("'*' is not an annotator's name")
    if overlap > len(names):
        who = ", ".join(names)
        plural = "annotator" if len(names) == 1 else "annotators"
        raise AssignmentError(
            f"overlap {overlap} is larger than the pool of {len(names)} {plural} ({who}):"
            f" each example needs {overlap} different annotators"
        )
    return names


def plan_assignments(
    uids: Sequence[str],
    overlap: int | Mapping[str, int],
    pool: Sequence[str],
    current: Mapping[str, Sequence[str]],
) -> list[tuple[str, str]]:
    """The ``(uid, annotator)`` pairs to add so each of *uids* has *overlap* annotators: an example
    keeps the ones it has (*current*), and each missing place goes to the pool member with the fewest
    assignments (counting *current*) not already on it; ties go to the earlier in *pool* at first, then
    in a seeded random order. *overlap* may
    be given per uid (a mapping).

    >>> pairs = plan_assignments(["a", "b", "c"], 2, ["x", "y", "z"], {})
    >>> pairs[:3], sorted(n for _, n in pairs)
    ([('a', 'x'), ('a', 'y'), ('b', 'z')], ['x', 'x', 'y', 'y', 'z', 'z'])
    """
    order = {name: i for i, name in enumerate(pool)}
    load = dict.fromkeys(pool, 0)
    for names in current.values():
        for name in names:
            if name in load:
                load[name] += 1
    # heap of (load, tie-break, name): equal loads are taken in a seeded random order, so the same people
    # are not always paired (pairwise agreement needs mixed pairs); the balance does not depend on it
    rng = random.Random(0)
    heap = [(load[n], float(order[n]), n) for n in pool]
    heapq.heapify(heap)
    out: list[tuple[str, str]] = []
    for uid in uids:
        have = set(current.get(uid, ()))
        need = (overlap if isinstance(overlap, int) else overlap[uid]) - len(have)
        if need <= 0:
            continue
        skipped = []
        while need > 0 and heap:
            entry = heapq.heappop(heap)
            name = entry[2]
            if name in have:
                skipped.append(entry)
                continue
            out.append((uid, name))
            have.add(name)
            need -= 1
            heapq.heappush(heap, (entry[0] + 1, rng.random() * len(pool), name))
        for entry in skipped:
            heapq.heappush(heap, entry)
    return out


def _new_round(q: Query, kind: str, overlap: int, pool: Sequence[str], sample_id: int | None, by: str) -> Round:
    ts = now_iso()
    row = q(
        "INSERT INTO team_rounds (kind, overlap, pool, sample_id, created_by, ts) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
        (kind, overlap, json.dumps(list(pool)), sample_id, by, ts),
    ).fetchone()
    return Round(int(row[0]), kind, overlap, tuple(pool), sample_id, by, ts)


def _insert(q: Query, round_id: int, pairs: Sequence[tuple[str, str]], op: str) -> None:
    if pairs:
        q.many(
            "INSERT INTO team_assignments (round_id, example_uid, annotator, op) VALUES (?, ?, ?, ?)",
            [(round_id, uid, name, op) for uid, name in pairs],
        )


def _check_by(by: str) -> None:
    if not by or not by.strip():
        raise AssignmentError("an assignment needs the name of the admin making it")


def _names(current: Mapping[str, Sequence[str]]) -> set[str]:
    return {n for names in current.values() for n in names}


class Assignments:
    """The assignments and rounds of one label store's team (see the module docstring): ``store.team.assignments``."""

    def __init__(self, store: TeamCore):
        self._store = store

    def assigned(self) -> dict[str, tuple[str, ...]]:
        """uid -> the annotators it is assigned to now (in the order assigned); examples with none left out."""
        rows = self._store.query("SELECT example_uid, annotator, op FROM team_assignments ORDER BY id")
        state: dict[str, dict[str, bool]] = {}
        for uid, name, op in rows:
            state.setdefault(uid, {})[name] = op == "+"
        out = {}
        for uid, names in state.items():
            active = tuple(n for n, on in names.items() if on)
            if active:
                out[uid] = active
        return out

    def assigned_with_status(self) -> dict[str, tuple[tuple[str, bool], ...]]:
        """uid -> ``(annotator, decided?)`` for each annotator it is assigned to now: the assignments joined with
        the review status in one query (what progress counts)."""
        rows = self._store.query(
            "SELECT a.example_uid, a.annotator, a.op, s.reviewed FROM team_assignments a LEFT JOIN example_status s"
            " ON s.annotator = a.annotator AND s.example_uid = a.example_uid ORDER BY a.id"
        )
        state: dict[str, dict[str, tuple[bool, bool]]] = {}
        for uid, name, op, reviewed in rows:
            state.setdefault(uid, {})[name] = (op == "+", bool(reviewed))
        out = {}
        for uid, names in state.items():
            active = tuple((n, done) for n, (on, done) in names.items() if on)
            if active:
                out[uid] = active
        return out

    def assigned_to(self, uid: str) -> tuple[str, ...]:
        """The annotators *uid* is assigned to now (one indexed query)."""
        rows = self._store.query("SELECT annotator, op FROM team_assignments WHERE example_uid = ? ORDER BY id", (uid,))
        state: dict[str, bool] = {}
        for name, op in rows:
            state[name] = op == "+"
        return tuple(n for n, on in state.items() if on)

    def assignment_version(self) -> int:
        """Changes whenever an assignment is written (the largest row id): a cache key."""
        return int(self._store.query("SELECT MAX(id) FROM team_assignments")[0][0] or 0)

    def latest_round(self) -> Round | None:
        """The newest assignment round, ``None`` before the first."""
        rows = self._store.query(
            "SELECT id, kind, overlap, pool, sample_id, created_by, ts FROM team_rounds ORDER BY id DESC LIMIT 1"
        )
        if not rows:
            return None
        row = rows[0]
        return Round(int(row[0]), row[1], int(row[2]), tuple(json.loads(row[3])), row[4], row[5], row[6])

    def assign(
        self,
        uids: Sequence[str],
        overlap: int,
        pool: Iterable[str],
        by: str,
        sample_id: int | None = None,
    ) -> Round:
        """Give every one of *uids* (the loaded data, or an audit sample's members) *overlap* annotators from
        *pool* (:func:`plan_assignments`), in one transaction; examples already assigned keep their annotators
        and are topped up. Someone with open assignments left out of *pool* is refused: that is a leave
        (:meth:`reassign_leaver`), never a silent drop."""
        names = check_pool(pool, overlap)
        _check_by(by)
        by = identity_name(by)
        uids = list(dict.fromkeys(uids))
        if not uids:
            raise AssignmentError("no examples to assign: load data first (or name an audit sample with members)")

        def write(q: Query) -> Round:
            current = self.assigned()
            outside = self._open_counts(current, {n for n in _names(current) if n not in names})
            if outside:
                listed = ", ".join(f"{n} ({k:,} open)" for n, k in sorted(outside.items()))
                raise AssignmentError(
                    f"not in the pool but holding open assignments: {listed}; hand them out first"
                    " (ragviz team reassign --leave NAME) or keep them in the pool. Nothing was assigned."
                )
            pairs = plan_assignments(uids, overlap, names, current)
            made = _new_round(q, ASSIGN, overlap, names, sample_id, by)
            _insert(q, made.id, pairs, "+")
            return Round(**{**made.__dict__, "added": len(pairs)})

        return self._store.write(write)

    def _open_counts(self, current: Mapping[str, Sequence[str]], names: set[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for name in names:
            done = self._store.reviewed_uids(name)
            n_open = sum(1 for uid, who in current.items() if name in who and uid not in done)
            if n_open:
                out[name] = n_open
        return out

    def reassign_leaver(self, leaver: str, by: str) -> Round:
        """*leaver* leaves the pool: each example they were assigned and have not decided is taken back from
        them and given to the least-loaded other member of the latest round's pool not already on it. Refused,
        with nothing changed, when someone's open example would have nobody left to take it."""
        _check_by(by)
        leaver, by = identity_name(leaver), identity_name(by)

        def write(q: Query) -> Round:
            last = self.latest_round()
            current = self.assigned()
            done = self._store.reviewed_uids(leaver)
            open_uids = [uid for uid, who in current.items() if leaver in who and uid not in done]
            if last is None or not any(leaver in who for who in current.values()):
                raise AssignmentError(f"{leaver!r} has no assignments: nothing to hand out")
            pool = tuple(n for n in (*last.pool, *sorted(_names(current))) if n != leaver)
            pool = tuple(dict.fromkeys(pool))
            kept = {uid: tuple(n for n in who if n != leaver) for uid, who in current.items()}
            wanted = {uid: len(current[uid]) for uid in open_uids}
            blocked = [uid for uid in open_uids if wanted[uid] > len(pool)]
            if blocked:
                raise AssignmentError(
                    f"{len(blocked):,} of {leaver}'s open examples need {wanted[blocked[0]]} annotators and only"
                    f" {len(pool)} others are in the pool ({', '.join(pool) or 'none'}): add someone to the pool"
                    " first. Nothing was changed."
                )
            pairs = plan_assignments(open_uids, wanted, pool, kept)
            made = _new_round(q, REASSIGN, last.overlap, pool, last.sample_id, by)
            _insert(q, made.id, [(uid, leaver) for uid in open_uids], "-")
            _insert(q, made.id, pairs, "+")
            return Round(**{**made.__dict__, "added": len(pairs)})

        return self._store.write(write)

    def is_blind(self) -> bool:
        """Whether a blind round is on: the latest round gives examples more than one annotator (then an
        annotator sees no one else's labels until an example is adjudicated)."""
        last = self.latest_round()
        return last is not None and last.overlap > 1

    def round_open(self) -> bool:
        """Whether a blind round (:meth:`is_blind`) is still open: someone has an assigned example they have not
        decided. Until it closes an annotator sees no gold labels (whether an example of hers has gold would
        tell her whether her partner agreed); once every assignment is decided she may."""
        if not self.is_blind():
            return False
        return any(not done for pairs in self.assigned_with_status().values() for _, done in pairs)
