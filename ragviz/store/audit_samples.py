"""Audit samples in the label store: uniformly random (or designed) samples of the loaded examples for people to review.

People's labels on a random sample correct the judge's means without bias (:mod:`ragviz.analysis.estimates.ppi`).
A sample is stored once for every annotator and replica: its seed, who drew it and when, a fingerprint of the
examples it was drawn from (it grows only over those), its members in draw order. The draw order is a seeded
permutation: each uid ranks by the SHA-256 of ``"<seed>:<uid>"`` (:func:`draw_order`), so a sample of *n* is the first
*n* of that order and growing it appends the next ones: still uniformly random. Which sample is the team's is an
admin's recorded choice (:meth:`AuditSamples.choose_team_sample`); until then the newest is used.

:class:`AuditSamples` is a part composed into :class:`ragviz.store.label_store.LabelStore` as ``store.audits``; it owns
this SQL and reaches the database through the store's read / write interface (:mod:`ragviz.store.connection`).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragviz.errors import BadInput
from ragviz.store.connection import Query, SqlStore
from ragviz.store.events import now_iso

__all__ = [
    "AuditSample",
    "AuditSampleError",
    "AuditSamples",
    "MAX_SEED",
    "SampleMember",
    "TeamChoice",
    "default_sample",
    "draw_order",
    "new_seed",
    "population_fingerprint",
]


MAX_SEED = 2**31 - 1


class AuditSampleError(BadInput, ValueError):
    """A sample that cannot be drawn or grown, in one line."""


@dataclass(frozen=True)
class SampleMember:
    """One member of a designed sample (migration ``017_audit_designs``): its stratum (stratified designs), its
    inclusion probability and, for active designs, its selection weight (:mod:`ragviz.analysis.audits.designs`)."""

    uid: str
    inclusion_probability: float
    stratum: str | None = None
    selection_weight: float | None = None


@dataclass(frozen=True)
class AuditSample:
    """One stored audit sample. ``members`` are uids in draw order (position 1 first); ``design`` is
    ``uniform``, ``stratified`` or ``active`` (:mod:`ragviz.analysis.audits.designs`), ``params`` what its
    estimator needs of the design, ``details`` each member's stratum and inclusion probability in the same order."""

    id: int
    seed: int
    population: str
    population_size: int
    created_by: str
    created_at: str
    members: tuple[str, ...]
    design: str = "uniform"
    params: dict[str, Any] = field(default_factory=dict, compare=False)
    details: tuple[SampleMember, ...] = ()

    @property
    def size(self) -> int:
        return len(self.members)

    def member_details(self) -> tuple[SampleMember, ...]:
        """Each member's stratum and inclusion probability (a sample drawn before designs existed: uniform,
        probability size / examples)."""
        if self.details:
            return self.details
        share = self.size / self.population_size if self.population_size else 0.0
        return tuple(SampleMember(uid, share) for uid in self.members)

    def label(self, with_who: bool = True) -> str:
        """``"Sample 3 · 50 examples · seed 12345 · drawn by ana"``: how pickers name it (without the
        name for someone who may see no one's identity)."""
        drawn_by = f" · drawn by {self.created_by}" if with_who else ""
        design = "" if self.design == "uniform" else f" · {self.design}"
        return f"Sample {self.id}{design} · {self.size:,} examples · seed {self.seed}{drawn_by}"


@dataclass(frozen=True)
class TeamChoice:
    """The admin's choice of the team's audit sample: which, who chose it, when."""

    sample_id: int
    chosen_by: str
    chosen_at: str


def _rank(seed: int, uid: str, salt: str = "") -> bytes:
    return hashlib.sha256(f"{salt}{seed}:{uid}".encode()).digest()


def draw_order(uids: Iterable[str], seed: int, salt: str = "") -> list[str]:
    """Every uid once, in the seeded random order samples are drawn in (see the module docstring). *salt*
    (e.g. ``"stratified:"``) goes before the seed in the hash, so a design drawn with the seed of another
    design's sample does not take the same examples; uniform samples hash without one.

    >>> order = draw_order(["a", "b", "c", "d"], 7)
    >>> sorted(order) == ["a", "b", "c", "d"], order == draw_order(["d", "c", "b", "a"], 7)
    (True, True)
    """
    return sorted(set(uids), key=lambda uid: _rank(seed, uid, salt))


def population_fingerprint(uids: Iterable[str]) -> str:
    """A short fingerprint of a set of uids (order and repeats do not matter).

    >>> population_fingerprint(["b", "a"]) == population_fingerprint(["a", "b", "a"])
    True
    """
    ordered = sorted(set(uids))  # hashed as each distinct uid followed by a newline, in one update
    return hashlib.sha256(("\n".join(ordered) + "\n" if ordered else "").encode()).hexdigest()[:16]


def new_seed() -> int:
    """A fresh random seed (recorded with the sample, so the draw can be redone)."""
    return secrets.randbelow(MAX_SEED) + 1


def _check_size(n: int, population: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise AuditSampleError(f"sample size must be a whole number of at least 1, got {n!r}")
    if n > population:
        raise AuditSampleError(f"sample size {n:,} is larger than the {population:,} loaded examples")


def _insert_members(q: Query, sample_id: int, members: Sequence[str], start: int, annotator: str, ts: str) -> None:
    for position, uid in enumerate(members[start:], start=start + 1):
        q(
            "INSERT INTO audit_sample_members (sample_id, position, example_uid, added_by, ts) VALUES (?, ?, ?, ?, ?)",
            (sample_id, position, uid, annotator, ts),
        )


def _check_population(found: AuditSample, population: Sequence[str]) -> None:
    if found.population != population_fingerprint(population):
        raise AuditSampleError(
            f"sample {found.id} was drawn from {found.population_size:,} other examples than the "
            f"{len(population):,} loaded: load the same data to grow it, or draw a new sample"
        )


def _insert_details(
    q: Query, sample_id: int, members: Sequence[SampleMember], start: int, annotator: str, ts: str
) -> None:
    for position, m in enumerate(members[start:], start=start + 1):
        q(
            "INSERT INTO audit_sample_members (sample_id, position, example_uid, added_by, ts, stratum,"
            " inclusion_probability, selection_weight) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (sample_id, position, m.uid, annotator, ts, m.stratum, m.inclusion_probability, m.selection_weight),
        )


def _sample(q: Query, sample_id: int) -> AuditSample | None:
    row = q(
        "SELECT id, seed, population, population_size, created_by, ts, design, design_json FROM audit_samples"
        " WHERE id = ?",
        (sample_id,),
    ).fetchone()
    if row is None:
        return None
    rows = q(
        "SELECT example_uid, inclusion_probability, stratum, selection_weight FROM audit_sample_members"
        " WHERE sample_id = ? ORDER BY position",
        (sample_id,),
    ).fetchall()
    members = tuple(r[0] for r in rows)
    details = (
        tuple(SampleMember(r[0], float(r[1]), r[2], None if r[3] is None else float(r[3])) for r in rows)
        if rows and all(r[1] is not None for r in rows)
        else ()
    )
    design = row[6] or "uniform"
    return AuditSample(
        int(row[0]),
        int(row[1]),
        row[2],
        int(row[3]),
        row[4],
        row[5],
        members,
        design,
        json.loads(row[7] or "{}"),
        details,
    )


class AuditSamples:
    """The audit samples of one label store and the team's choice among them (see the module docstring)."""

    def __init__(self, store: SqlStore):
        self._store = store

    def draw_sample(self, uids: Sequence[str], n: int, annotator: str, seed: int | None = None) -> AuditSample:
        """Draw and store a uniformly random sample of *n* of *uids*: the first *n* of :func:`draw_order`
        with *seed* (a fresh one when ``None``), recorded with *annotator* as the one who drew it."""
        population = sorted(set(uids))
        _check_size(n, len(population))
        if not annotator or not annotator.strip():
            raise AuditSampleError("an audit sample needs the name of the person drawing it")
        seed = new_seed() if seed is None else int(seed)
        if not 0 <= seed <= MAX_SEED:
            raise AuditSampleError(f"seed must lie between 0 and {MAX_SEED}, got {seed}")
        members = draw_order(population, seed)[:n]
        ts = now_iso()

        def insert(q: Query) -> int:
            row = q(
                "INSERT INTO audit_samples (seed, population, population_size, created_by, ts)"
                " VALUES (?, ?, ?, ?, ?) RETURNING id",
                (seed, population_fingerprint(population), len(population), annotator, ts),
            ).fetchone()
            _insert_members(q, int(row[0]), members, 0, annotator, ts)
            return int(row[0])

        sample_id = self._store.write(insert)
        found = self.get_sample(sample_id)
        assert found is not None
        return found

    def grow_sample(self, sample_id: int, uids: Sequence[str], n: int, annotator: str) -> AuditSample:
        """Grow sample *sample_id* to *n* members: the next uids of its draw order over *uids*, which must be
        the examples it was drawn from. A sample already at least *n* large is left as it is."""
        population = sorted(set(uids))
        _check_size(n, len(population))

        def grow(q: Query) -> None:
            found = _sample(q, sample_id)
            if found is None:
                raise AuditSampleError(f"no audit sample {sample_id} in {self._store.location}")
            _check_population(found, population)
            if found.design != "uniform":
                raise AuditSampleError(
                    f"sample {sample_id} is {found.design}: grow it with its design (ragviz audit draw --grow, or the "
                    "Review page), which keeps each member's inclusion probability right"
                )
            if n > found.size:
                order = draw_order(population, found.seed)
                _insert_members(q, sample_id, order[:n], found.size, annotator, now_iso())

        self._store.write(grow)
        grown = self.get_sample(sample_id)
        assert grown is not None
        return grown

    def save_designed_sample(
        self,
        uids: Sequence[str],
        members: Sequence[SampleMember],
        design: str,
        params: dict[str, Any],
        annotator: str,
        seed: int,
    ) -> AuditSample:
        """Store a sample drawn by a design (:mod:`ragviz.analysis.audits.designs` draws it; this only keeps it):
        its members in review order with their strata and inclusion probabilities, the design and its *params*."""
        population = sorted(set(uids))
        if not members:
            raise AuditSampleError("the design drew no example: raise the sample size")
        if not annotator or not annotator.strip():
            raise AuditSampleError("an audit sample needs the name of the person drawing it")
        if not 0 <= seed <= MAX_SEED:
            raise AuditSampleError(f"seed must lie between 0 and {MAX_SEED}, got {seed}")
        ts = now_iso()

        def insert(q: Query) -> int:
            row = q(
                "INSERT INTO audit_samples (seed, population, population_size, created_by, ts, design, design_json)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (seed, population_fingerprint(population), len(population), annotator, ts, design, json.dumps(params)),
            ).fetchone()
            _insert_details(q, int(row[0]), members, 0, annotator, ts)
            return int(row[0])

        sample_id = self._store.write(insert)
        found = self.get_sample(sample_id)
        assert found is not None
        return found

    def extend_designed_sample(
        self,
        sample_id: int,
        uids: Sequence[str],
        members: Sequence[SampleMember],
        params: dict[str, Any],
        annotator: str,
    ) -> AuditSample:
        """Grow a designed sample to *members* (its design redrawn larger with the same seed): every current member
        must be among them (a grown sample keeps its members); the new ones are appended in their order, every
        member's stratum and inclusion probability and the design's *params* are updated."""
        population = sorted(set(uids))

        def extend(q: Query) -> None:
            found = _sample(q, sample_id)
            if found is None:
                raise AuditSampleError(f"no audit sample {sample_id} in {self._store.location}")
            _check_population(found, population)
            by_uid = {m.uid: m for m in members}
            lost = [u for u in found.members if u not in by_uid]
            if lost:
                raise AuditSampleError(
                    f"growing sample {sample_id} would drop {len(lost):,} members (first: {lost[0]}): the stratifying "
                    "column or the judge's confidence changed since it was drawn; draw a new sample"
                )
            have = set(found.members)
            added = [m for m in members if m.uid not in have]
            ts = now_iso()
            for uid in found.members:
                m = by_uid[uid]
                q(
                    "UPDATE audit_sample_members SET stratum = ?, inclusion_probability = ?, selection_weight = ?"
                    " WHERE sample_id = ? AND example_uid = ?",
                    (m.stratum, m.inclusion_probability, m.selection_weight, sample_id, uid),
                )
            _insert_details(q, sample_id, [*(by_uid[u] for u in found.members), *added], found.size, annotator, ts)
            q("UPDATE audit_samples SET design_json = ? WHERE id = ?", (json.dumps(params), sample_id))

        self._store.write(extend)
        grown = self.get_sample(sample_id)
        assert grown is not None
        return grown

    def get_sample(self, sample_id: int) -> AuditSample | None:
        """The stored sample, ``None`` when there is no such id."""
        return self._store.read(lambda q: _sample(q, sample_id))

    def list_samples(self, uids: Iterable[str] | None = None) -> list[AuditSample]:
        """Every stored sample, newest first; with *uids*, only those drawn from exactly these examples."""
        wanted = population_fingerprint(uids) if uids is not None else None

        def every(q: Query) -> list[AuditSample]:
            ids = [int(r[0]) for r in q("SELECT id, population FROM audit_samples ORDER BY id DESC").fetchall()]
            return [s for s in (_sample(q, i) for i in ids) if s is not None]

        samples = self._store.read(every)
        return [s for s in samples if wanted is None or s.population == wanted]

    def audit_members(self) -> set[str]:
        """The uids in any stored audit sample (one query)."""
        return {r[0] for r in self._store.query("SELECT DISTINCT example_uid FROM audit_sample_members")}

    def choose_team_sample(self, sample_id: int, admin: str) -> TeamChoice:
        """Record that *admin* made sample *sample_id* the team's (every earlier choice stays in the store).
        Only admins may call this: the callers check the role (:attr:`ragviz.store.roles.Access.can_choose_sample`)."""
        if not admin or not admin.strip():
            raise AuditSampleError("choosing the team's audit sample needs the name of the admin choosing it")
        ts = now_iso()

        def choose(q: Query) -> None:
            if _sample(q, sample_id) is None:
                raise AuditSampleError(f"no audit sample {sample_id} in {self._store.location}")
            q("INSERT INTO audit_sample_choices (sample_id, chosen_by, ts) VALUES (?, ?, ?)", (sample_id, admin, ts))

        self._store.write(choose)
        return TeamChoice(sample_id, admin, ts)

    def team_choice(self) -> TeamChoice | None:
        """The newest admin's choice of the team's sample, ``None`` when no admin chose one."""
        rows = self._store.query("SELECT sample_id, chosen_by, ts FROM audit_sample_choices ORDER BY id DESC LIMIT 1")
        return TeamChoice(int(rows[0][0]), rows[0][1], rows[0][2]) if rows else None


def default_sample(samples: Sequence[AuditSample], choice: TeamChoice | None) -> AuditSample | None:
    """The sample to use when none is named: the team's (when among *samples*, newest first), else the newest.

    >>> s = [AuditSample(i, 1, "p", 9, "a", "t", ()) for i in (3, 2, 1)]
    >>> default_sample(s, TeamChoice(2, "lead", "t")).id, default_sample(s, None).id, default_sample([], None)
    (2, 3, None)
    """
    if choice is not None:
        for sample in samples:
            if sample.id == choice.sample_id:
                return sample
    return samples[0] if samples else None
