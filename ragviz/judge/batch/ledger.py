"""The batch ledger: every request file, batch and request line the judge sent through a Batch API, in the store.

Tables ``judge_batch_files``, ``judge_batches`` and ``judge_batch_requests`` (migration ``012_judge_batches``
in :mod:`ragviz.store.schema.judge`), read and written on the judge cache's connection so that an answer and the
request it closes are committed in one transaction.

A file moves ``written`` -> ``uploaded`` -> ``submitted`` (``offline`` for ``--batch-file``); a request line
``pending`` -> ``answered`` (its answer is in the cache) -> ``applied`` (its labels are in the label store),
or ``failed`` (with the error), later ``retried`` once it has been sent again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ragviz.judge.batch.requests import RequestFile
from ragviz.judge.cache import JudgeCache, utc_now
from ragviz.store.database import Database

__all__ = [
    "ANSWERED",
    "APPLIED",
    "BatchFile",
    "BatchRecord",
    "FAILED",
    "LedgerRequest",
    "OFFLINE",
    "PENDING",
    "REMOTE_STATES",
    "RETRIED",
    "SUBMITTED",
    "TERMINAL",
    "UPLOADED",
    "WRITTEN",
    "add_file",
    "answered_requests",
    "batch_records",
    "failed_requests",
    "file_requests",
    "files",
    "mark",
    "mark_applied",
    "mark_collected",
    "mark_retried",
    "pending_keys",
    "record_batch",
    "record_upload",
    "request_count",
    "request_counts",
    "update_batch",
    "write",
]


WRITTEN, UPLOADED, SUBMITTED, OFFLINE = "written", "uploaded", "submitted", "offline"
REMOTE_STATES = (WRITTEN, UPLOADED, SUBMITTED)
PENDING, ANSWERED, APPLIED, FAILED, RETRIED = "pending", "answered", "applied", "failed", "retried"
TERMINAL = ("completed", "failed", "expired", "cancelled")  # a batch in these states changes no more


@dataclass(frozen=True)
class BatchFile:
    id: int
    created_at: str
    model: str
    endpoint: str
    prompt_version: str
    response_format: str
    sources: tuple[str, ...]
    local_path: str
    sha256: str
    n_requests: int
    n_bytes: int
    remote_file_id: str | None
    state: str

    @property
    def remote_name(self) -> str:
        return f"ragviz-batch-{self.sha256[:20]}.jsonl"


@dataclass(frozen=True)
class BatchRecord:
    """A batch as last seen on the server; ``counts`` is its ``request_counts`` (total, completed, failed)."""

    batch_id: str
    file_id: int
    status: str
    created_at: str
    expires_at: str | None
    counts: dict[str, int]
    output_file_id: str | None
    error_file_id: str | None
    refreshed_at: str
    collected_at: str | None


@dataclass(frozen=True)
class LedgerRequest:
    file_id: int
    line: int
    custom_id: str
    example_uid: str
    content_hash: str
    cache_key: str
    state: str
    error: str | None


_FILE_COLUMNS = (
    "id, created_at, model, endpoint, prompt_version, response_format, sources, local_path, sha256,"
    " n_requests, n_bytes, remote_file_id, state"
)
_BATCH_COLUMNS = (
    "batch_id, file_id, status, created_at, expires_at, counts_json, output_file_id, error_file_id,"
    " refreshed_at, collected_at"
)
_REQUEST_COLUMNS = "file_id, line, custom_id, example_uid, content_hash, cache_key, state, error"


def write(cache: JudgeCache, work: Callable[[Database], Any]) -> None:
    """Run *work* on the cache's connection in one write transaction (committed when it returns)."""
    cache.put_many((), (), also=work)


def _file(row: Sequence[Any]) -> BatchFile:
    values = list(row)
    values[6] = tuple(json.loads(values[6]))
    return BatchFile(*values)


def _batch(row: Sequence[Any]) -> BatchRecord:
    values = list(row)
    values[5] = json.loads(values[5])
    return BatchRecord(*values)


def add_file(
    cache: JudgeCache,
    written: RequestFile,
    *,
    model: str,
    endpoint: str,
    prompt_version: str,
    response_format: str,
    sources: Sequence[str],
    state: str = WRITTEN,
    retried_keys: Iterable[str] = (),
) -> int:
    """Record a finished request file and its lines (``pending``) in one transaction; requests failed
    before whose keys are in *retried_keys* become ``retried`` in the same transaction. Returns its id."""
    box: list[int] = []
    retried = list(retried_keys)

    def work(db: Database) -> None:
        row = db.execute(
            f"INSERT INTO judge_batch_files ({_FILE_COLUMNS.removeprefix('id, ')}) VALUES"
            " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                utc_now(),
                model,
                endpoint,
                prompt_version,
                response_format,
                json.dumps(list(sources)),
                str(written.path),
                written.sha256,
                len(written.requests),
                written.n_bytes,
                None,
                state,
            ),
        ).fetchone()
        file_id = int(row[0])
        db.executemany(
            f"INSERT INTO judge_batch_requests ({_REQUEST_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
            [
                (file_id, n, cid, uid, chash, key, PENDING)
                for n, (cid, uid, chash, key) in enumerate(written.requests, 1)
            ],
        )
        db.executemany(
            "UPDATE judge_batch_requests SET state = ? WHERE cache_key = ? AND state = ?",
            [(RETRIED, key, FAILED) for key in retried],
        )
        box.append(file_id)

    write(cache, work)
    return box[0]


def files(cache: JudgeCache, states: Sequence[str] = ()) -> list[BatchFile]:
    sql = f"SELECT {_FILE_COLUMNS} FROM judge_batch_files"
    if states:
        sql += f" WHERE state IN ({','.join('?' * len(states))})"
    return [_file(r) for r in cache.read(sql + " ORDER BY id", states)]


def record_upload(cache: JudgeCache, file_id: int, remote_file_id: str) -> None:
    write(
        cache,
        lambda db: db.execute(
            "UPDATE judge_batch_files SET remote_file_id = ?, state = ? WHERE id = ?",
            (remote_file_id, UPLOADED, file_id),
        ),
    )


def _batch_values(record: BatchRecord) -> tuple:
    return (
        record.status,
        record.created_at,
        record.expires_at,
        json.dumps(record.counts, sort_keys=True),
        record.output_file_id,
        record.error_file_id,
        record.refreshed_at,
    )


def record_batch(cache: JudgeCache, record: BatchRecord) -> None:
    """A batch created from a file: stored, and the file marked ``submitted``, in one transaction."""

    def work(db: Database) -> None:
        db.execute(
            f"INSERT INTO judge_batches ({_BATCH_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (record.batch_id, record.file_id, *_batch_values(record)),
        )
        db.execute("UPDATE judge_batch_files SET state = ? WHERE id = ?", (SUBMITTED, record.file_id))

    write(cache, work)


def update_batch(cache: JudgeCache, record: BatchRecord) -> None:
    write(
        cache,
        lambda db: db.execute(
            "UPDATE judge_batches SET status = ?, created_at = ?, expires_at = ?, counts_json = ?, output_file_id = ?,"
            " error_file_id = ?, refreshed_at = ? WHERE batch_id = ?",
            (*_batch_values(record), record.batch_id),
        ),
    )


def mark_collected(cache: JudgeCache, batch_id: str) -> None:
    write(
        cache,
        lambda db: db.execute("UPDATE judge_batches SET collected_at = ? WHERE batch_id = ?", (utc_now(), batch_id)),
    )


def batch_records(cache: JudgeCache) -> list[BatchRecord]:
    return [_batch(r) for r in cache.read(f"SELECT {_BATCH_COLUMNS} FROM judge_batches ORDER BY created_at, batch_id")]


def file_requests(cache: JudgeCache, file_id: int) -> dict[str, LedgerRequest]:
    """The lines of one request file by custom_id."""
    rows = cache.read(
        f"SELECT {_REQUEST_COLUMNS} FROM judge_batch_requests WHERE file_id = ? ORDER BY line", (file_id,)
    )
    return {r[2]: LedgerRequest(*r) for r in rows}


def request_counts(cache: JudgeCache) -> dict[int, dict[str, int]]:
    """Per file id, how many of its lines are in each state."""
    counts: dict[int, dict[str, int]] = {}
    for file_id, state, n in cache.read(
        "SELECT file_id, state, COUNT(*) FROM judge_batch_requests GROUP BY file_id, state"
    ):
        counts.setdefault(int(file_id), {})[state] = int(n)
    return counts


def answered_requests(cache: JudgeCache) -> list[tuple[int, int, str, str]]:
    """``(file id, line, example uid, cache key)`` of requests answered into the cache and not yet applied to the
    label store (a run killed between the two)."""
    rows = cache.read(
        "SELECT r.file_id, r.line, r.example_uid, r.cache_key FROM judge_batch_requests r WHERE r.state = ?",
        (ANSWERED,),
    )
    return [(int(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]


def mark_applied(cache: JudgeCache, lines: Sequence[tuple[int, int]]) -> None:
    """``(file id, line)`` answered requests whose labels the label store now holds become ``applied``."""
    write(
        cache,
        lambda db: db.executemany(
            "UPDATE judge_batch_requests SET state = ? WHERE file_id = ? AND line = ? AND state = ?",
            [(APPLIED, file_id, line, ANSWERED) for file_id, line in lines],
        ),
    )


def request_count(cache: JudgeCache) -> int:
    """How many request lines the ledger holds (in any state): part of a cache key for what a batch would cost."""
    return int(cache.read("SELECT COUNT(*) FROM judge_batch_requests")[0][0])


def mark_retried(cache: JudgeCache, keys: Sequence[str]) -> None:
    """Requests that failed in a batch and were judged live since (*keys*: their cache keys) become ``retried``."""
    write(
        cache,
        lambda db: db.executemany(
            "UPDATE judge_batch_requests SET state = ? WHERE cache_key = ? AND state = ?",
            [(RETRIED, k, FAILED) for k in keys],
        ),
    )


def pending_keys(cache: JudgeCache) -> set[str]:
    """Cache keys of requests sent (or about to be) to a Batch API and not answered yet: not sent again."""
    rows = cache.read(
        "SELECT r.cache_key FROM judge_batch_requests r JOIN judge_batch_files f ON f.id = r.file_id"
        f" WHERE r.state = ? AND f.state IN ({','.join('?' * len(REMOTE_STATES))})",
        (PENDING, *REMOTE_STATES),
    )
    return {r[0] for r in rows}


def failed_requests(cache: JudgeCache) -> list[LedgerRequest]:
    rows = cache.read(
        f"SELECT {_REQUEST_COLUMNS} FROM judge_batch_requests WHERE state = ? ORDER BY file_id, line", (FAILED,)
    )
    return [LedgerRequest(*r) for r in rows]


def mark(db: Database, file_id: int, changes: Iterable[tuple[int, str, str | None]]) -> None:
    """Inside a transaction: set ``(line, state, error)`` of lines of *file_id*."""
    db.executemany(
        "UPDATE judge_batch_requests SET state = ?, error = ? WHERE file_id = ? AND line = ?",
        [(state, error, file_id, line) for line, state, error in changes],
    )
