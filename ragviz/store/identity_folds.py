"""One person, one name: migration ``020_fold_emails`` folds the spellings of one e-mail address into one.

Before it, decisions, assignments, positions and sign-ins were stored under the exact spelling a person signed in
or typed (``Annotator@Example.org`` and ``annotator@example.org`` were two people, one with "0 / 30 reviewed" and
no assignments). Now every name is stored as :func:`ragviz.data.roles.identity_name` gives it (an e-mail address
case-folded); this migration rewrites what was stored before under other spellings: decisions (their events and
per-example status, recounted over the merged decisions), assignments and the rounds' pools, adjudications,
positions (the latest one kept), sign-ins, and who drew, chose, wrote or promoted what. Roles themselves live in
``RAGVIZ_ADMINS`` / ``RAGVIZ_ANNOTATORS`` / ``RAGVIZ_ADJUDICATORS`` and were always matched without regard to case.

It says what it folded: one row per spelling in ``identity_folds`` (the spelling, the address, how many rows of
each table), read by :func:`identity_folds` (``ragviz team status`` prints them), and one warning line per spelling
in the log of the process that opened the store.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ragviz.data.roles import identity_name
from ragviz.store.events import Event, effective_events, now_iso, status_of

__all__ = ["FOLDED_COLUMNS", "FOLD_SCHEMA", "IdentityFold", "identity_folds", "m020_fold_emails"]

_log = logging.getLogger("ragviz.store")

# (table, column) holding a person's name, rewritten in place; example_status, annotator_positions and
# team_rounds.pool are folded apart (a primary key per person, a JSON list).
FOLDED_COLUMNS: tuple[tuple[str, str], ...] = (
    ("label_actions", "annotator"),
    ("label_events", "annotator"),
    ("team_assignments", "annotator"),
    ("team_adjudications", "adjudicator"),
    ("team_rounds", "created_by"),
    ("team_guidelines", "author"),
    ("sign_ins", "who"),
    ("audit_samples", "created_by"),
    ("audit_sample_members", "added_by"),
    ("audit_sample_choices", "chosen_by"),
    ("chosen_data", "chosen_by"),
    ("chosen_data", "scope"),
    ("judge_versions", "created_by"),
    ("judge_promotions", "promoted_by"),
)

FOLD_SCHEMA: dict[str, dict[str, tuple[str, ...]]] = {
    "020_fold_emails": {"identity_folds": ("id", "spelling", "address", "folded", "ts")}
}


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


def _spellings(run: Callable[..., Any], table: str, column: str) -> list[str]:
    return [r[0] for r in run(f"SELECT DISTINCT {column} FROM {table}").fetchall() if r[0] is not None]


def _json(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _recount_status(run: Callable[..., Any], spellings: set[str]) -> dict[str, int]:
    """example_status: the rows of *spellings* replaced by one per address and example, recounted over the
    merged decisions (label_events already folded). Returns rows removed per spelling."""
    removed: dict[str, int] = {}
    pairs: set[tuple[str, str]] = set()
    for name in spellings:
        uids = [r[0] for r in run("SELECT example_uid FROM example_status WHERE annotator = ?", (name,)).fetchall()]
        removed[name] = len(uids)
        pairs.update((identity_name(name), uid) for uid in uids)
        run("DELETE FROM example_status WHERE annotator = ?", (name,))
    for address, uid in sorted(pairs):
        rows = run(
            "SELECT e.id, e.action_id, e.ts, e.field, e.old_value, e.new_value, a.kind FROM label_events e"
            " JOIN label_actions a ON a.id = e.action_id WHERE e.example_uid = ? AND e.annotator = ? ORDER BY e.id",
            (uid, address),
        ).fetchall()
        events = [Event(r[0], r[1], uid, address, r[2], r[3], _json(r[4]), _json(r[5]), r[6]) for r in rows]
        status = status_of(effective_events(events))
        last_action = max((e.action_id for e in events), default=None)
        run("DELETE FROM example_status WHERE annotator = ? AND example_uid = ?", (address, uid))
        run(
            "INSERT INTO example_status (annotator, example_uid, reviewed, corrected, last_ts, last_action_id)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (address, uid, int(status.reviewed), int(status.corrected), status.last_ts, last_action),
        )
    return removed


def _fold_positions(run: Callable[..., Any], spellings: set[str]) -> dict[str, int]:
    """annotator_positions: one row per address, the latest of its spellings' positions."""
    moved: dict[str, int] = {}
    for name in sorted(spellings):
        row = run("SELECT example_uid, ts FROM annotator_positions WHERE annotator = ?", (name,)).fetchone()
        if row is None:
            continue
        address = identity_name(name)
        have = run("SELECT ts FROM annotator_positions WHERE annotator = ?", (address,)).fetchone()
        if have is None or str(row[1]) > str(have[0]):
            run("DELETE FROM annotator_positions WHERE annotator = ?", (address,))
            run(
                "INSERT INTO annotator_positions (annotator, example_uid, ts) VALUES (?, ?, ?)",
                (address, row[0], row[1]),
            )
        run("DELETE FROM annotator_positions WHERE annotator = ?", (name,))
        moved[name] = 1
    return moved


def _fold_pools(run: Callable[..., Any]) -> dict[str, int]:
    """team_rounds.pool: each round's pool with its names folded (each once, in order)."""
    touched: dict[str, int] = {}
    for round_id, pool in run("SELECT id, pool FROM team_rounds").fetchall():
        names = json.loads(pool)
        folded = list(dict.fromkeys(identity_name(n) for n in names))
        if folded != names:
            run("UPDATE team_rounds SET pool = ? WHERE id = ?", (json.dumps(folded), round_id))
            for n in names:
                if identity_name(n) != n:
                    touched[n] = touched.get(n, 0) + 1
    return touched


def m020_fold_emails(run: Callable[..., Any], d: Any) -> None:
    """Migration ``020_fold_emails`` (see the module docstring); *run* and *d* as in :mod:`ragviz.store.migrations`."""
    run(
        f"""CREATE TABLE identity_folds (id {d.identity}, spelling TEXT NOT NULL, address TEXT NOT NULL,
            folded TEXT NOT NULL, ts TEXT NOT NULL)"""
    )
    counts: dict[str, dict[str, int]] = {}

    def count(spelling: str, what: str, n: int) -> None:
        if n:
            per = counts.setdefault(spelling, {})
            per[what] = per.get(what, 0) + n

    for table, column in FOLDED_COLUMNS:
        for name in _spellings(run, table, column):
            address = identity_name(name)
            if address != name:
                n = run(f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", (name,)).fetchone()[0]
                run(f"UPDATE {table} SET {column} = ? WHERE {column} = ?", (address, name))
                count(name, table if column != "scope" else "chosen_data.scope", int(n))
    status_names = {n for n in _spellings(run, "example_status", "annotator") if identity_name(n) != n}
    for name, n in _recount_status(run, status_names).items():
        count(name, "example_status", n)
    position_names = {n for n in _spellings(run, "annotator_positions", "annotator") if identity_name(n) != n}
    for name, n in _fold_positions(run, position_names).items():
        count(name, "annotator_positions", n)
    for name, n in _fold_pools(run).items():
        count(name, "team_rounds.pool", n)
    ts = now_iso()
    for spelling in sorted(counts):
        fold = IdentityFold(spelling, identity_name(spelling), counts[spelling], ts)
        run(
            "INSERT INTO identity_folds (spelling, address, folded, ts) VALUES (?, ?, ?, ?)",
            (spelling, fold.address, json.dumps(fold.rows), ts),
        )
        _log.warning("migration 020_fold_emails folded %s", fold.describe())


def identity_folds(q: Callable[..., Any]) -> list[IdentityFold]:
    """What migration ``020_fold_emails`` folded, oldest first (inside ``store.read``: ``store.read(identity_folds)``)."""
    rows: Sequence[Any] = q("SELECT spelling, address, folded, ts FROM identity_folds ORDER BY id").fetchall()
    return [IdentityFold(r[0], r[1], json.loads(r[2]), r[3]) for r in rows]
