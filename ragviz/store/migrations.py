"""The store schema as named migrations, each applied once in one transaction with the row that records it; SQL written once and adapted per backend by a :class:`Dialect`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    """What differs between database engines: placeholders, identity columns, how a write
    transaction starts. Statements in this module use ``?`` and are translated by :meth:`sql`."""

    name: str
    paramstyle: str  # "qmark" or "format"
    identity: str  # column definition of an auto-increment primary key
    begin_write: str

    def sql(self, statement: str) -> str:
        if self.paramstyle == "qmark":
            return statement
        return statement.replace("?", "%s")


# Runs one SQL statement; a migration ignores what it returns (a cursor, for sqlite3).
RunSQL = Callable[[str], object]

SQLITE = Dialect(
    name="sqlite", paramstyle="qmark", identity="INTEGER PRIMARY KEY AUTOINCREMENT", begin_write="BEGIN IMMEDIATE"
)


def _m001_label_events(run: RunSQL, d: Dialect) -> None:
    run(
        f"""CREATE TABLE label_actions (
            id {d.identity},
            example_uid TEXT NOT NULL,
            annotator TEXT NOT NULL,
            ts TEXT NOT NULL,
            kind TEXT NOT NULL)"""
    )
    run(
        f"""CREATE TABLE label_events (
            id {d.identity},
            action_id BIGINT NOT NULL REFERENCES label_actions (id),
            example_uid TEXT NOT NULL,
            annotator TEXT NOT NULL,
            ts TEXT NOT NULL,
            field TEXT NOT NULL,
            old_value TEXT,
            new_value TEXT)"""
    )
    run("CREATE INDEX label_events_by_example ON label_events (example_uid, annotator, id)")
    run("CREATE INDEX label_events_by_annotator ON label_events (annotator, id)")
    run(
        """CREATE TABLE example_status (
            annotator TEXT NOT NULL,
            example_uid TEXT NOT NULL,
            reviewed INTEGER NOT NULL,
            corrected INTEGER NOT NULL,
            last_ts TEXT,
            last_action_id BIGINT,
            PRIMARY KEY (annotator, example_uid))"""
    )
    run("CREATE INDEX example_status_reviewed ON example_status (annotator, reviewed, example_uid)")
    run("CREATE INDEX example_status_corrected ON example_status (annotator, corrected, example_uid)")


def _m002_positions_and_sources(run: RunSQL, d: Dialect) -> None:
    run(
        """CREATE TABLE annotator_positions (
            annotator TEXT NOT NULL PRIMARY KEY,
            example_uid TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )
    run(
        f"""CREATE TABLE data_sources (
            id {d.identity},
            path TEXT NOT NULL UNIQUE,
            ts TEXT NOT NULL)"""
    )


def _m003_judge_label_sets(run: RunSQL, d: Dialect) -> None:
    run(
        f"""CREATE TABLE judge_label_sets (
            id {d.identity},
            example_uid TEXT NOT NULL,
            ts TEXT NOT NULL,
            judge TEXT NOT NULL,
            prompt_version TEXT,
            labels_json TEXT NOT NULL)"""
    )
    run("CREATE INDEX judge_label_sets_by_example ON judge_label_sets (example_uid, id)")


def _m004_example_status_by_action(run: RunSQL, d: Dialect) -> None:
    # Lets a process pick up only the statuses other processes changed since it last looked.
    run("CREATE INDEX example_status_by_action ON example_status (last_action_id)")


MIGRATIONS: tuple[tuple[str, Callable[[RunSQL, Dialect], None]], ...] = (
    ("001_label_events", _m001_label_events),
    ("002_positions_and_sources", _m002_positions_and_sources),
    ("003_judge_label_sets", _m003_judge_label_sets),
    ("004_example_status_by_action", _m004_example_status_by_action),
)
