"""Judge versions in the label store (migration ``013_judge_versions``): named, immutable judge configurations
and the promotions that make one of them the team's judge.

A version is stored once, as JSON (:mod:`ragviz.judge.versions.spec` reads and writes it), under a unique name
and a unique prompt version (what the judge's cache, runs and label sets record); no statement here updates or
deletes a version. Promotions are appended; the newest one names the judge of the Label page and ``ragviz label``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragviz.errors import BadInput
from ragviz.store.connection import Query
from ragviz.store.events import now_iso
from ragviz.store.label_store import LabelStore

__all__ = [
    "JudgeVersionExists",
    "Promotion",
    "StoredVersion",
    "insert_version",
    "latest_prompt_versions",
    "promote_version",
    "promotions",
    "stored_version",
    "stored_versions",
]


class JudgeVersionExists(BadInput, ValueError):
    """A version of that name (or with that very prompt) is already stored; nothing was written."""


@dataclass(frozen=True)
class StoredVersion:
    """One stored version: its name, prompt version, its configuration as JSON, who made it and when."""

    id: int
    name: str
    prompt_version: str
    spec_json: str
    created_by: str
    created_at: str


@dataclass(frozen=True)
class Promotion:
    """One promotion of a version to the team's judge."""

    version_name: str
    promoted_by: str
    promoted_at: str


_COLUMNS = "id, name, prompt_version, spec_json, created_by, ts"


def _row(r: tuple) -> StoredVersion:
    return StoredVersion(int(r[0]), r[1], r[2], r[3], r[4], r[5])


def insert_version(store: LabelStore, name: str, prompt_version: str, spec_json: str, created_by: str) -> StoredVersion:
    """Store a new version in one transaction; :class:`JudgeVersionExists` when the name or the prompt is taken."""

    def insert(q: Query) -> tuple:
        taken = q(
            "SELECT name, prompt_version FROM judge_versions WHERE name = ? OR prompt_version = ?",
            (name, prompt_version),
        ).fetchone()
        if taken is not None:
            if taken[0] == name:
                raise JudgeVersionExists(
                    f"a judge version named {name!r} exists already: versions never change, pick a new name"
                )
            raise JudgeVersionExists(f"judge version {taken[0]!r} has this very prompt and settings already")
        return q(
            f"INSERT INTO judge_versions (name, prompt_version, spec_json, created_by, ts) VALUES (?, ?, ?, ?, ?)"
            f" RETURNING {_COLUMNS}",
            (name, prompt_version, spec_json, created_by, now_iso()),
        ).fetchone()

    return _row(store.write(insert))


def stored_versions(store: LabelStore) -> list[StoredVersion]:
    """Every stored version, oldest first."""
    return [_row(r) for r in store.query(f"SELECT {_COLUMNS} FROM judge_versions ORDER BY id")]


def stored_version(store: LabelStore, name: str) -> StoredVersion | None:
    rows = store.query(f"SELECT {_COLUMNS} FROM judge_versions WHERE name = ?", (name,))
    return _row(rows[0]) if rows else None


def promote_version(store: LabelStore, name: str, promoted_by: str) -> Promotion:
    """Record that *promoted_by* made *name* the team's judge (the caller checks that the version exists)."""
    ts = now_iso()
    store.write(
        lambda q: q(
            "INSERT INTO judge_promotions (version_name, promoted_by, ts) VALUES (?, ?, ?)", (name, promoted_by, ts)
        )
    )
    return Promotion(name, promoted_by, ts)


def promotions(store: LabelStore) -> list[Promotion]:
    """Every promotion, newest first."""
    rows = store.query("SELECT version_name, promoted_by, ts FROM judge_promotions ORDER BY id DESC")
    return [Promotion(*r) for r in rows]


def latest_prompt_versions(store: LabelStore) -> dict[str, str | None]:
    """example uid -> the prompt version of its latest judge label set (what people review and the
    corrected estimates correct)."""
    rows = store.query(
        "SELECT j.example_uid, j.prompt_version FROM judge_label_sets j WHERE j.id ="
        " (SELECT MAX(k.id) FROM judge_label_sets k WHERE k.example_uid = j.example_uid)"
    )
    return {uid: version for uid, version in rows}
