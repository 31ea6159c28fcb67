"""Labelling guidelines, versioned (migration ``014_team``): every save is a new version; each decision
records the version in force when it was made (``label_actions.guideline_version``, migration ``015``).

:class:`TeamGuidelines` is ``store.team.guidelines`` (:mod:`ragviz.store.team`); it owns this SQL.
:func:`guideline_in_force` runs inside a decision's transaction (the core records the version in force).
"""

from __future__ import annotations

from dataclasses import dataclass

from ragviz.errors import BadInput
from ragviz.store.connection import Query, SqlStore
from ragviz.store.events import now_iso

__all__ = [
    "Guidelines",
    "GuidelinesError",
    "MAX_GUIDELINES_BYTES",
    "TeamGuidelines",
    "guideline_in_force",
]


MAX_GUIDELINES_BYTES = 1_000_000


class GuidelinesError(BadInput, ValueError):
    """Guidelines that cannot be saved, in one sentence (the earlier versions stay as they were)."""


@dataclass(frozen=True)
class Guidelines:
    """One saved version: its number (1, 2, ...), the Markdown text, who wrote it and when."""

    version: int
    text: str
    author: str
    ts: str


def _current(q: Query) -> Guidelines | None:
    row = q("SELECT id, text, author, ts FROM team_guidelines ORDER BY id DESC LIMIT 1").fetchone()
    return None if row is None else Guidelines(int(row[0]), row[1], row[2], row[3])


def guideline_in_force(q: Query) -> int | None:
    """The number of the guidelines version in force (inside a read or write; ``None`` before the first save):
    what each decision records (:mod:`ragviz.store.label_store` calls it inside the decision's transaction)."""
    row = q("SELECT MAX(id) FROM team_guidelines").fetchone()
    return None if row is None or row[0] is None else int(row[0])


class TeamGuidelines:
    """The guideline versions of one label store's team (see the module docstring): ``store.team.guidelines``."""

    def __init__(self, store: SqlStore):
        self._store = store

    def save_guidelines(self, text: str, author: str) -> Guidelines:
        """Store *text* as the newest version, written by *author* (an admin: the callers check the role).
        Refused over 1 MB (UTF-8) or by nobody; text equal to the current version is not stored again."""
        if not author or not author.strip():
            raise GuidelinesError("guidelines need the name of the admin writing them")
        size = len(text.encode("utf-8"))
        if size > MAX_GUIDELINES_BYTES:
            raise GuidelinesError(
                f"guidelines are {size:,} bytes, over the 1 MB limit ({MAX_GUIDELINES_BYTES:,} bytes):"
                " shorten them or link to a longer document. Nothing was saved; the current version stays."
            )

        def save(q: Query) -> Guidelines:
            now = _current(q)
            if now is not None and now.text == text:
                return now
            ts = now_iso()
            row = q(
                "INSERT INTO team_guidelines (text, author, ts) VALUES (?, ?, ?) RETURNING id", (text, author, ts)
            ).fetchone()
            return Guidelines(int(row[0]), text, author, ts)

        return self._store.write(save)

    def current_guidelines(self) -> Guidelines | None:
        """The version in force, ``None`` before the first save."""
        return self._store.read(_current)

    def guideline_history(self) -> list[tuple[int, str, str, int]]:
        """Every version as ``(version, author, time, size in bytes)``, newest first (the texts stay in the store)."""
        rows = self._store.query("SELECT id, author, ts, text FROM team_guidelines ORDER BY id DESC")
        return [(int(r[0]), r[1], r[2], len(r[3].encode("utf-8"))) for r in rows]

    def decision_versions(self) -> dict[tuple[str, str], int | None]:
        """``(uid, annotator)`` -> the guideline version in force at the annotator's last decision on the
        example (``None``: no guidelines were written yet then)."""
        rows = self._store.query("SELECT example_uid, annotator, guideline_version FROM label_actions ORDER BY id")
        return {(uid, who): (None if v is None else int(v)) for uid, who, v in rows}
