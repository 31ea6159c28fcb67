"""The judge's own tables in the label store's database (SQLite file or PostgreSQL): answer cache, runs, failures.

Tables, all prefixed ``judge_`` (migrations in the store's ``judge`` set, :mod:`ragviz.store.schema.judge`, run by
the store's one runner): ``judge_results`` (one accepted answer per :func:`cache_key`), ``judge_runs`` (one row
per run with counts, requests, tokens and estimated cost), ``judge_failures`` (answers that stayed invalid or calls
that failed for good, raw output kept) and ``judge_endpoint_formats`` (the response format each endpoint and model
supports, :mod:`ragviz.judge.probe`, so ``--response-format auto`` asks only once).

The SQL is written once with ``?`` placeholders and runs through the store's
:class:`~ragviz.store.database.Database` seam, like the label store's own. No API key is ever passed to this module.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ragviz.data.model import Labels
from ragviz.store.database import Database, open_database

# The same JSON shape as the label store's judge label sets.
from ragviz.store.events import labels_from_json, labels_to_json
from ragviz.store.schema import migrate

__all__ = [
    "CachedAnswer",
    "JudgeCache",
    "JudgeFailure",
    "JudgeRun",
    "PendingAnswer",
    "PendingFailure",
    "cache_key",
    "utc_now",
]


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def cache_key(model: str, endpoint: str, prompt_version: str, content_hash: str) -> str:
    """The key of one answer in ``judge_results``: (model, base URL, prompt version, example content hash), hashed."""
    data = json.dumps([model, endpoint, prompt_version, content_hash], separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


_RESULT_COLUMNS = (
    "cache_key, model, endpoint, prompt_version, content_hash, example_uid,"
    " labels_json, raw_output, prompt_tokens, completion_tokens, run_id, created_at"
)
# One answer per cache key, the newest wins (SQLite's INSERT OR REPLACE, written portably).
_UPSERT_RESULT = (
    f"INSERT INTO judge_results ({_RESULT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (cache_key) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _RESULT_COLUMNS.replace(" ", "").split(",") if c != "cache_key")
)


@dataclass(frozen=True)
class CachedAnswer:
    labels: Labels
    raw_output: str
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class PendingAnswer:
    """An accepted answer waiting to be written."""

    key: str
    model: str
    endpoint: str
    prompt_version: str
    content_hash: str
    example_uid: str
    labels: Labels
    raw_output: str
    prompt_tokens: int
    completion_tokens: int
    run_id: int | None


@dataclass(frozen=True)
class PendingFailure:
    run_id: int | None
    example_uid: str
    key: str
    error: str
    raw_output: str | None
    attempts: int


@dataclass(frozen=True)
class JudgeFailure:
    id: int
    run_id: int | None
    example_uid: str
    error: str
    raw_output: str | None
    attempts: int
    created_at: str


@dataclass(frozen=True)
class JudgeRun:
    id: int
    started_at: str
    finished_at: str | None
    model: str
    endpoint: str
    prompt_version: str
    n_examples: int
    n_cached: int
    n_judged: int
    n_failed: int
    requests: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    status: str


class JudgeCache:
    """The ``judge_*`` tables of the label store's database at *where* (an SQLite file path or a
    ``postgresql://`` URL; created when missing), or on an open :class:`Database` it then owns."""

    def __init__(self, where: str | os.PathLike | Database):
        self._lock = threading.Lock()  # the runner writes from worker threads
        self._db = where if isinstance(where, Database) else open_database(where, ValueError, "the judge cache")
        self.location = self._db.location
        self.path = self._db.path
        try:
            if self._db.dialect.name == "sqlite":
                # NORMAL in WAL mode survives a killed process (what resuming needs); only an OS crash can
                # lose the last answers, which a rerun asks again. FULL would cost an fsync per answer.
                self._db.execute("PRAGMA synchronous=NORMAL")
            migrate(self._db, ValueError, "the judge cache")  # the store's whole schema, every set
        except ValueError:
            self._db.close()  # a newer or damaged store, refused
            raise
        except self._db.errors as exc:
            self._db.close()
            raise ValueError(f"{self.location}: cannot open the judge cache: {self._db.describe(exc)}") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def read(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        """The rows of one ``?``-placeholder query on the cache's connection (also the batch ledger's reads)."""
        with self._lock:
            return self._db.execute(sql, tuple(params)).fetchall()

    def _write(self, sql: str, params: Iterable[Any] = ()) -> None:
        """One statement in its own (autocommit) transaction."""
        with self._lock:
            self._db.execute(sql, tuple(params))

    def __enter__(self) -> JudgeCache:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- answers ------------------------------------------------------------------------------
    def get_many(self, keys: Iterable[str]) -> dict[str, CachedAnswer]:
        keys = list(dict.fromkeys(keys))
        found: dict[str, CachedAnswer] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.read(
                f"SELECT cache_key, labels_json, raw_output, prompt_tokens, completion_tokens FROM judge_results WHERE cache_key IN ({marks})",
                chunk,
            )
            for key, labels_json, raw, pt, ct in rows:
                found[key] = CachedAnswer(labels_from_json(labels_json), raw, pt, ct)
        return found

    def get(self, key: str) -> CachedAnswer | None:
        return self.get_many([key]).get(key)

    def put(self, key: str, **answer: Any) -> None:
        """One accepted answer (the fields of :class:`PendingAnswer` after *key*, by name)."""
        self.put_many([PendingAnswer(key, **answer)])

    def put_many(
        self, answers: Iterable[PendingAnswer], failures: Iterable[PendingFailure] = (), *, also: Any = None
    ) -> None:
        """Answers and failures in one transaction (group commit), plus whatever ``also(database)`` writes.

        An answer row keeps the parsed labels as RAGBench JSON, the raw answer and the token usage. Each is committed
        as soon as it is accepted, so a killed run resumes with only the missing examples."""
        now = utc_now()
        answer_rows = [
            (
                a.key,
                a.model,
                a.endpoint,
                a.prompt_version,
                a.content_hash,
                a.example_uid,
                labels_to_json(a.labels),
                a.raw_output,
                a.prompt_tokens,
                a.completion_tokens,
                a.run_id,
                now,
            )
            for a in answers
        ]
        failure_rows = [(f.run_id, f.example_uid, f.key, f.error, f.raw_output, f.attempts, now) for f in failures]
        with self._lock:
            self._db.begin_write()
            try:
                self._db.executemany(_UPSERT_RESULT, answer_rows)
                self._db.executemany(
                    "INSERT INTO judge_failures (run_id, example_uid, cache_key, error, raw_output, attempts, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    failure_rows,
                )
                if also is not None:
                    also(self._db)
                self._db.commit()
            except BaseException:
                self._db.rollback()
                raise

    def latest_labels(self, example_uid: str) -> Labels | None:
        """The newest accepted judge labels for *example_uid*, whatever the model."""
        # created_at has whole seconds; the tie-break is the insertion order on SQLite (rowid), the key on PostgreSQL
        tie = "rowid" if self._db.dialect.name == "sqlite" else "cache_key"
        rows = self.read(
            f"SELECT labels_json FROM judge_results WHERE example_uid = ? ORDER BY created_at DESC, {tie} DESC LIMIT 1",
            (example_uid,),
        )
        return labels_from_json(rows[0][0]) if rows else None

    # -- what each endpoint supports --------------------------------------------------------------
    def endpoint_format(self, endpoint: str, model: str) -> str | None:
        """The response format remembered for *endpoint* and *model* (``None``: never probed)."""
        rows = self.read(
            "SELECT response_format FROM judge_endpoint_formats WHERE endpoint = ? AND model = ?", (endpoint, model)
        )
        return str(rows[0][0]) if rows else None

    def remember_endpoint_format(self, endpoint: str, model: str, response_format: str) -> None:
        self._write(
            "INSERT INTO judge_endpoint_formats (endpoint, model, response_format, probed_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (endpoint, model) DO UPDATE SET response_format = excluded.response_format,"
            " probed_at = excluded.probed_at",
            (endpoint, model, response_format, utc_now()),
        )

    # -- runs and failures ----------------------------------------------------------------------
    def start_run(self, model: str, endpoint: str, prompt_version: str, n_examples: int) -> int:
        rows = self.read(
            "INSERT INTO judge_runs (started_at, model, endpoint, prompt_version, n_examples, status)"
            " VALUES (?, ?, ?, ?, ?, 'running') RETURNING id",
            (utc_now(), model, endpoint, prompt_version, n_examples),
        )
        return int(rows[0][0])

    def finish_run(
        self,
        run_id: int,
        *,
        n_cached: int,
        n_judged: int,
        n_failed: int,
        requests: int,
        prompt_tokens: int,
        completion_tokens: int,
        cost_usd: float | None,
        status: str,
    ) -> None:
        counts = (n_cached, n_judged, n_failed, requests, prompt_tokens, completion_tokens, cost_usd, status)
        self._write(
            """UPDATE judge_runs SET finished_at = ?, n_cached = ?, n_judged = ?, n_failed = ?, requests = ?,
               prompt_tokens = ?, completion_tokens = ?, cost_usd = ?, status = ? WHERE id = ?""",
            (utc_now(), *counts, run_id),
        )

    def runs(self, limit: int = 50) -> list[JudgeRun]:
        rows = self.read(
            """SELECT id, started_at, finished_at, model, endpoint, prompt_version, n_examples, n_cached, n_judged, n_failed,
               requests, prompt_tokens, completion_tokens, cost_usd, status FROM judge_runs ORDER BY id DESC LIMIT ?""",
            (limit,),
        )
        return [JudgeRun(*r) for r in rows]

    def record_failure(
        self, run_id: int | None, example_uid: str, key: str, error: str, raw_output: str | None, attempts: int
    ) -> None:
        self._write(
            "INSERT INTO judge_failures (run_id, example_uid, cache_key, error, raw_output, attempts, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (run_id, example_uid, key, error, raw_output, attempts, utc_now()),
        )

    def failures(self, run_id: int | None = None) -> list[JudgeFailure]:
        sql = "SELECT id, run_id, example_uid, error, raw_output, attempts, created_at FROM judge_failures"
        rows = self.read(
            sql + (" WHERE run_id = ? ORDER BY id" if run_id is not None else " ORDER BY id"),
            (() if run_id is None else (run_id,)),
        )
        return [JudgeFailure(*r) for r in rows]

    def count_results(self) -> int:
        return int(self.read("SELECT COUNT(*) FROM judge_results")[0][0])
