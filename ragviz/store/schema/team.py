"""The ``team`` migration set: a labelling team's round (:mod:`ragviz.store.team`), the guideline version each decision
records (015 alters core's ``label_actions``) and one name per person (020 rewrites names in every set's tables:
this set runs last). 020's rules are frozen here and in :mod:`ragviz.store.schema.frozen`, never imported."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

from ragviz.store.dialect import Dialect
from ragviz.store.schema.base import MigrationSet, RunSQL
from ragviz.store.schema.frozen import identity_name_020, recount_status

__all__ = ["TEAM"]

_log = logging.getLogger("ragviz.store")


def _m014_team(run: RunSQL, d: Dialect) -> None:
    # A labelling team's round: assignment rounds (who set which overlap over which pool) and their assignments,
    # append-only ("+" assigns, "-" takes back: the newest row of an example and annotator is where it stands);
    # adjudications of examples whose annotators disagree (the settled field values, what the adjudicator was
    # shown, undo as one more row); guideline versions.
    run(
        f"""CREATE TABLE team_rounds (
            id {d.identity},
            kind TEXT NOT NULL,
            overlap INTEGER NOT NULL,
            pool TEXT NOT NULL,
            sample_id BIGINT,
            created_by TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )
    run(
        f"""CREATE TABLE team_assignments (
            id {d.identity},
            round_id BIGINT NOT NULL REFERENCES team_rounds (id),
            example_uid TEXT NOT NULL,
            annotator TEXT NOT NULL,
            op TEXT NOT NULL)"""
    )
    run("CREATE INDEX team_assignments_by_example ON team_assignments (example_uid, annotator, id)")
    run(
        f"""CREATE TABLE team_adjudications (
            id {d.identity},
            example_uid TEXT NOT NULL,
            adjudicator TEXT NOT NULL,
            ts TEXT NOT NULL,
            kind TEXT NOT NULL,
            settled TEXT,
            seen TEXT NOT NULL,
            undoes BIGINT)"""
    )
    run("CREATE INDEX team_adjudications_by_example ON team_adjudications (example_uid, id)")
    run(
        f"""CREATE TABLE team_guidelines (
            id {d.identity},
            text TEXT NOT NULL,
            author TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )


def _m015_decision_guidelines(run: RunSQL, d: Dialect) -> None:
    # Each decision records the guideline version in force when it was made (NULL: none written yet).
    run("ALTER TABLE label_actions ADD COLUMN guideline_version BIGINT")


# (table, column) holding a person's name, rewritten in place; example_status, annotator_positions and
# team_rounds.pool are folded apart (a primary key per person, a JSON list).
_FOLDED_COLUMNS = (
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
_IMPLIED = {"label_events", "example_status", "audit_sample_members", "chosen_data.scope"}


def _said(spelling: str, address: str, rows: dict[str, int]) -> str:
    """The log line's phrase, as ``ragviz team status`` words it (ragviz.store.identity_folds.IdentityFold)."""
    parts = []
    for table, n in rows.items():
        if n and table not in _IMPLIED:
            one, many = _WORDS.get(table, (f"{table} row", f"{table} rows"))
            parts.append(f"{n:,} {one if n == 1 else many}")
    return f"{spelling} -> {address}: {', '.join(parts) or 'nothing stored'}"


def _spellings(run: RunSQL, table: str, column: str) -> list[str]:
    return [r[0] for r in run(f"SELECT DISTINCT {column} FROM {table}").fetchall() if r[0] is not None]


def _recount_statuses(run: RunSQL, spellings: set[str]) -> dict[str, int]:
    """example_status: the rows of *spellings* replaced by one per address and example, recounted over the merged
    decisions (label_events already folded). Returns rows removed per spelling."""
    removed: dict[str, int] = {}
    pairs: set[tuple[str, str]] = set()
    for name in spellings:
        uids = [r[0] for r in run("SELECT example_uid FROM example_status WHERE annotator = ?", (name,)).fetchall()]
        removed[name] = len(uids)
        pairs.update((identity_name_020(name), uid) for uid in uids)
        run("DELETE FROM example_status WHERE annotator = ?", (name,))
    for address, uid in sorted(pairs):
        reviewed, corrected, last_ts, last_action = recount_status(run, address, uid)
        run("DELETE FROM example_status WHERE annotator = ? AND example_uid = ?", (address, uid))
        run(
            "INSERT INTO example_status (annotator, example_uid, reviewed, corrected, last_ts, last_action_id)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (address, uid, int(reviewed), int(corrected), last_ts, last_action),
        )
    return removed


def _fold_positions(run: RunSQL, spellings: set[str]) -> dict[str, int]:
    """annotator_positions: one row per address, the latest of its spellings' positions."""
    moved: dict[str, int] = {}
    for name in sorted(spellings):
        row = run("SELECT example_uid, ts FROM annotator_positions WHERE annotator = ?", (name,)).fetchone()
        if row is None:
            continue
        address = identity_name_020(name)
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


def _fold_pools(run: RunSQL) -> dict[str, int]:
    """team_rounds.pool: each round's pool with its names folded (each once, in order)."""
    touched: dict[str, int] = {}
    for round_id, pool in run("SELECT id, pool FROM team_rounds").fetchall():
        names = json.loads(pool)
        folded = list(dict.fromkeys(identity_name_020(n) for n in names))
        if folded != names:
            run("UPDATE team_rounds SET pool = ? WHERE id = ?", (json.dumps(folded), round_id))
            for n in names:
                if identity_name_020(n) != n:
                    touched[n] = touched.get(n, 0) + 1
    return touched


def _m020_fold_emails(run: RunSQL, d: Dialect) -> None:
    # One person, one name (ragviz.store.identity_folds): what an older ragviz stored under other spellings of one
    # e-mail address is rewritten under the case-folded address, and each spelling's rows counted in identity_folds
    # and logged.
    run(
        f"""CREATE TABLE identity_folds (id {d.identity}, spelling TEXT NOT NULL, address TEXT NOT NULL,
            folded TEXT NOT NULL, ts TEXT NOT NULL)"""
    )
    counts: dict[str, dict[str, int]] = {}

    def count(spelling: str, what: str, n: int) -> None:
        if n:
            per = counts.setdefault(spelling, {})
            per[what] = per.get(what, 0) + n

    for table, column in _FOLDED_COLUMNS:
        for name in _spellings(run, table, column):
            address = identity_name_020(name)
            if address != name:
                n = run(f"SELECT COUNT(*) FROM {table} WHERE {column} = ?", (name,)).fetchone()[0]
                run(f"UPDATE {table} SET {column} = ? WHERE {column} = ?", (address, name))
                count(name, table if column != "scope" else "chosen_data.scope", int(n))
    status_names = {n for n in _spellings(run, "example_status", "annotator") if identity_name_020(n) != n}
    for name, n in _recount_statuses(run, status_names).items():
        count(name, "example_status", n)
    position_names = {n for n in _spellings(run, "annotator_positions", "annotator") if identity_name_020(n) != n}
    for name, n in _fold_positions(run, position_names).items():
        count(name, "annotator_positions", n)
    for name, n in _fold_pools(run).items():
        count(name, "team_rounds.pool", n)
    ts = datetime.now(timezone.utc).isoformat(timespec="microseconds")
    for spelling in sorted(counts):
        address = identity_name_020(spelling)
        run(
            "INSERT INTO identity_folds (spelling, address, folded, ts) VALUES (?, ?, ?, ?)",
            (spelling, address, json.dumps(counts[spelling]), ts),
        )
        _log.warning("migration 020_fold_emails folded %s", _said(spelling, address, counts[spelling]))


TEAM = MigrationSet(
    "team",
    (
        ("014_team", _m014_team),
        ("015_decision_guidelines", _m015_decision_guidelines),
        ("020_fold_emails", _m020_fold_emails),
    ),
)
