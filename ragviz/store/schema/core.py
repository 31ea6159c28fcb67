"""The ``core`` migration set: label decisions and what every page shares (positions, data sources, uploads, sign-ins,
the chosen data, click ids, the trace-push ledger). Numbers 007 and 016 are missing on purpose (see the package)."""

from __future__ import annotations

from ragviz.store.dialect import Dialect
from ragviz.store.schema.base import MigrationSet, RunSQL
from ragviz.store.schema.frozen import recount_status

__all__ = ["CORE"]


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


def _m005_uploads(run: RunSQL, d: Dialect) -> None:
    # Uploaded files as bytes, so every replica of a shared (PostgreSQL) store reaches them.
    run(f"CREATE TABLE uploads (name TEXT NOT NULL PRIMARY KEY, data {d.blob} NOT NULL, ts TEXT NOT NULL)")


def _m008_recount_example_status(run: RunSQL, d: Dialect) -> None:
    # An edit that ends where it started (a key list with the same keys in another order included) became no
    # correction that marks nothing reviewed: recount the stored rows the old rule wrote, so the Review page's
    # counts agree with a fresh fold (and with an export). The rule is frozen (schema/frozen.py), not imported.
    pairs = run("SELECT annotator, example_uid, reviewed, corrected FROM example_status").fetchall()
    for annotator, uid, reviewed, corrected in pairs:
        now_reviewed, now_corrected, _, _ = recount_status(run, annotator, uid)
        if (bool(reviewed), bool(corrected)) != (now_reviewed, now_corrected):
            run(
                "UPDATE example_status SET reviewed = ?, corrected = ? WHERE annotator = ? AND example_uid = ?",
                (int(now_reviewed), int(now_corrected), annotator, uid),
            )


def _m009_sign_ins(run: RunSQL, d: Dialect) -> None:
    # One row per sign-in (ragviz.store.sign_ins): the login's fingerprint, whose it is, when it was first
    # seen and when it was ended (signing out ends every sign-in of that person, on every replica).
    run(
        """CREATE TABLE sign_ins (
            login TEXT NOT NULL PRIMARY KEY,
            who TEXT NOT NULL,
            started_at TEXT NOT NULL,
            ended_at TEXT)"""
    )
    run("CREATE INDEX sign_ins_by_who ON sign_ins (who)")


def _m011_chosen_data(run: RunSQL, d: Dialect) -> None:
    # Which data is open, remembered in the store (LabelStore.choose_data): per annotator on one machine,
    # the team's (scope "team") when served. Append-only: the newest row of a scope is its choice.
    run(
        f"""CREATE TABLE chosen_data (
            id {d.identity},
            scope TEXT NOT NULL,
            sources TEXT NOT NULL,
            startup TEXT NOT NULL,
            chosen_by TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )
    run("CREATE INDEX chosen_data_by_scope ON chosen_data (scope, id)")


def _m019_action_ids(run: RunSQL, d: Dialect) -> None:
    # A click's own id, made by the page that sent it (LabelStore.record(client_id=...)): a retry after an
    # unknown outcome (the connection broke during COMMIT) finds the stored action instead of storing it twice.
    # Unique where given; older actions have none (NULLs never collide, on both backends).
    run("ALTER TABLE label_actions ADD COLUMN client_id TEXT")
    run("CREATE UNIQUE INDEX label_actions_by_client_id ON label_actions (client_id)")


def _m021_trace_pushes(run: RunSQL, d: Dialect) -> None:
    # What ragviz push sent where (ragviz.store.trace_pushes): per example and identifier the fingerprint of the
    # annotations sent to a URL, their ids there, who pushed and when. Append-only; the newest row counts.
    run(
        f"""CREATE TABLE trace_pushes (
            id {d.identity},
            target TEXT NOT NULL,
            url TEXT NOT NULL,
            example_uid TEXT NOT NULL,
            identifier TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            annotation_ids_json TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )
    run("CREATE INDEX trace_pushes_by_example ON trace_pushes (target, url, example_uid, identifier, id)")
    # Which server a data file's traces were read from (the app's "Open from Phoenix"), for the Review page's
    # links back to each trace: the file's name (an upload's content-hashed name), the server's URL. No key.
    run(
        f"""CREATE TABLE trace_sources (
            id {d.identity},
            file_name TEXT NOT NULL,
            target TEXT NOT NULL,
            url TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )


CORE = MigrationSet(
    "core",
    (
        ("001_label_events", _m001_label_events),
        ("002_positions_and_sources", _m002_positions_and_sources),
        ("003_judge_label_sets", _m003_judge_label_sets),
        ("004_example_status_by_action", _m004_example_status_by_action),
        ("005_uploads", _m005_uploads),
        ("008_recount_example_status", _m008_recount_example_status),
        ("009_sign_ins", _m009_sign_ins),
        ("011_chosen_data", _m011_chosen_data),
        ("019_action_ids", _m019_action_ids),
        ("021_trace_pushes", _m021_trace_pushes),
    ),
)
