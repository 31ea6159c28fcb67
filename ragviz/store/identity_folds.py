"""One person, one name: what migration ``020_fold_emails`` (:mod:`ragviz.store.schema.team`) folded, read back.

Before it, names were stored as spelled (``Annotator@Example.org`` and ``annotator@example.org`` were two people);
now every name is stored as :func:`ragviz.store.roles.identity_name` gives it (an e-mail address case-folded), and the
migration rewrote what was stored under other spellings: decisions (events and statuses recounted), assignments and
pools, adjudications, positions, sign-ins, and who drew, chose, wrote or promoted what (roles, set in ``RAGVIZ_*``
variables, were always matched without regard to case). It says what it folded: one row per spelling in
``identity_folds``, read by :func:`identity_folds` (``ragviz team status`` prints them), and one warning line per
spelling in the log of the process that opened the store.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["IdentityFold", "identity_folds"]


@dataclass(frozen=True)
class IdentityFold:
    """One spelling folded into its address by migration ``020_fold_emails``: how many rows of each table."""

    spelling: str
    address: str
    rows: dict[str, int]
    ts: str

    def describe(self) -> str:
        """One line: ``Ana@X.org -> ana@x.org: 12 decisions, 3 assignments``.

        >>> IdentityFold("A@X.org", "a@x.org", {"label_actions": 2, "team_assignments": 1}, "t").describe()
        'A@X.org -> a@x.org: 2 decisions, 1 assignment'
        """
        parts = [_phrase(table, n) for table, n in self.rows.items() if n and table not in _IMPLIED]
        return f"{self.spelling} -> {self.address}: {', '.join(parts) or 'nothing stored'}"


_WORDS = {
    "label_actions": ("decision", "decisions"),
    "team_assignments": ("assignment", "assignments"),
    "team_adjudications": ("adjudication", "adjudications"),
    "annotator_positions": ("position", "positions"),
    "sign_ins": ("sign-in", "sign-ins"),
    "team_rounds.pool": ("round's pool", "rounds' pools"),
    "team_rounds": ("round made", "rounds made"),
    "team_guidelines": ("guideline version", "guideline versions"),
    "audit_samples": ("audit sample drawn", "audit samples drawn"),
    "audit_sample_choices": ("team sample chosen", "team samples chosen"),
    "chosen_data": ("data choice", "data choices"),
    "judge_versions": ("judge version", "judge versions"),
    "judge_promotions": ("judge promotion", "judge promotions"),
}
# rows that follow from the ones above (a decision's events and status, a sample's members): not worth a phrase
_IMPLIED = {"label_events", "example_status", "audit_sample_members", "chosen_data.scope"}


def _phrase(table: str, n: int) -> str:
    one, many = _WORDS.get(table, (f"{table} row", f"{table} rows"))
    return f"{n:,} {one if n == 1 else many}"


def identity_folds(q: Callable[..., Any]) -> list[IdentityFold]:
    """What migration ``020_fold_emails`` folded, oldest first (inside ``store.read``: ``store.read(identity_folds)``)."""
    rows: Sequence[Any] = q("SELECT spelling, address, folded, ts FROM identity_folds ORDER BY id").fetchall()
    return [IdentityFold(r[0], r[1], json.loads(r[2]), r[3]) for r in rows]
