"""The ``judge`` migration set: the judge's Batch API ledger, judge versions, the judge's confidence, and the judge
cache's own tables (answers, runs, failures, endpoint formats; :mod:`ragviz.judge.cache`), whose two migrations kept
the names they had in that cache's former ``judge_migrations`` table."""

from __future__ import annotations

from ragviz.store.dialect import Dialect
from ragviz.store.schema.base import MigrationSet, RunSQL

__all__ = ["JUDGE"]


def _m012_judge_batches(run: RunSQL, d: Dialect) -> None:
    # The judge's Batch API work (ragviz.judge.batch): every request file written, uploaded and submitted,
    # every batch created from one, and every request line with where it stands, so a killed or restarted
    # ragviz (or another replica) resumes from the stored ids without sending a request twice.
    run(
        f"""CREATE TABLE judge_batch_files (
            id {d.identity},
            created_at TEXT NOT NULL,
            model TEXT NOT NULL,
            endpoint TEXT NOT NULL,
            prompt_version TEXT NOT NULL,
            response_format TEXT NOT NULL,
            sources TEXT NOT NULL,
            local_path TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            n_requests INTEGER NOT NULL,
            n_bytes BIGINT NOT NULL,
            remote_file_id TEXT,
            state TEXT NOT NULL)"""
    )
    run(
        """CREATE TABLE judge_batches (
            batch_id TEXT NOT NULL PRIMARY KEY,
            file_id BIGINT NOT NULL REFERENCES judge_batch_files (id),
            status TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT,
            counts_json TEXT NOT NULL,
            output_file_id TEXT,
            error_file_id TEXT,
            refreshed_at TEXT NOT NULL,
            collected_at TEXT)"""
    )
    run(
        """CREATE TABLE judge_batch_requests (
            file_id BIGINT NOT NULL REFERENCES judge_batch_files (id),
            line INTEGER NOT NULL,
            custom_id TEXT NOT NULL,
            example_uid TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            cache_key TEXT NOT NULL,
            state TEXT NOT NULL,
            error TEXT,
            PRIMARY KEY (file_id, line),
            UNIQUE (file_id, custom_id))"""
    )
    run("CREATE INDEX judge_batch_requests_by_key ON judge_batch_requests (cache_key, state)")
    run("CREATE INDEX judge_batch_requests_by_state ON judge_batch_requests (state, file_id)")


def _m013_judge_versions(run: RunSQL, d: Dialect) -> None:
    # Judge versions (ragviz.store.judge_versions): named, immutable (never updated nor deleted) judge
    # configurations, and every promotion of one to the team's judge (the newest promotion is the judge).
    run(
        f"""CREATE TABLE judge_versions (id {d.identity}, name TEXT NOT NULL UNIQUE, prompt_version TEXT NOT NULL
            UNIQUE, spec_json TEXT NOT NULL, created_by TEXT NOT NULL, ts TEXT NOT NULL)"""
    )
    run(
        f"""CREATE TABLE judge_promotions (id {d.identity}, version_name TEXT NOT NULL, promoted_by TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )


def _m018_judge_confidence(run: RunSQL, d: Dialect) -> None:
    # The judge's confidence from N samples (ragviz.store.judge_confidence): per example the share of samples that
    # agree with each sentence label kept and 1 - 2 sd of each TRACe metric; tied to the judge label set measured.
    run(
        f"""CREATE TABLE judge_confidence (id {d.identity}, example_uid TEXT NOT NULL, label_set_id INTEGER NOT NULL,
            n_samples INTEGER NOT NULL, metrics_json TEXT NOT NULL, sentences_json TEXT NOT NULL, ts TEXT NOT NULL)"""
    )
    run("CREATE INDEX judge_confidence_uid ON judge_confidence (example_uid, id)")


def _judge_0001_create(run: RunSQL, d: Dialect) -> None:
    # The judge cache: one accepted answer per cache key (model, base URL, prompt version, example content hash),
    # committed as soon as it is accepted so a killed run resumes with only the missing examples; one row per run
    # (counts, requests, tokens, cost); answers that stayed invalid or calls that failed for good, raw output kept.
    run(
        """CREATE TABLE judge_results (
            cache_key TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            endpoint TEXT NOT NULL,
            prompt_version TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            example_uid TEXT NOT NULL,
            labels_json TEXT NOT NULL,
            raw_output TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            run_id INTEGER,
            created_at TEXT NOT NULL
        )"""
    )
    run("CREATE INDEX judge_results_uid ON judge_results (example_uid)")
    run(
        f"""CREATE TABLE judge_runs (
            id {d.identity},
            started_at TEXT NOT NULL,
            finished_at TEXT,
            model TEXT NOT NULL,
            endpoint TEXT NOT NULL,
            prompt_version TEXT NOT NULL,
            n_examples INTEGER NOT NULL,
            n_cached INTEGER NOT NULL DEFAULT 0,
            n_judged INTEGER NOT NULL DEFAULT 0,
            n_failed INTEGER NOT NULL DEFAULT 0,
            requests INTEGER NOT NULL DEFAULT 0,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd DOUBLE PRECISION,
            status TEXT NOT NULL
        )"""
    )
    run(
        f"""CREATE TABLE judge_failures (
            id {d.identity},
            run_id INTEGER,
            example_uid TEXT NOT NULL,
            cache_key TEXT NOT NULL,
            error TEXT NOT NULL,
            raw_output TEXT,
            attempts INTEGER NOT NULL,
            created_at TEXT NOT NULL
        )"""
    )
    run("CREATE INDEX judge_failures_run ON judge_failures (run_id)")


def _judge_0002_endpoint_formats(run: RunSQL, d: Dialect) -> None:
    # The response format each endpoint and model was found to support (ragviz.judge.probe).
    run(
        """CREATE TABLE judge_endpoint_formats (
            endpoint TEXT NOT NULL,
            model TEXT NOT NULL,
            response_format TEXT NOT NULL,
            probed_at TEXT NOT NULL,
            PRIMARY KEY (endpoint, model)
        )"""
    )


JUDGE = MigrationSet(
    "judge",
    (
        ("012_judge_batches", _m012_judge_batches),
        ("013_judge_versions", _m013_judge_versions),
        ("018_judge_confidence", _m018_judge_confidence),
        ("judge_0001_create", _judge_0001_create),
        ("judge_0002_endpoint_formats", _judge_0002_endpoint_formats),
    ),
)
