"""Sending examples to a Batch API: which need asking, request files written and recorded, uploads, batches.

Order, each step recorded in the ledger before the next starts: (1) the request files are written and fsynced,
then recorded with their lines; (2) each is uploaded, its file id recorded; (3) a batch is created from it,
its id recorded. :func:`send_recorded_files` resumes from whatever step a killed run reached: an upload or a
batch the server already holds for a file is found, never made twice.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import openai

from ragviz.data.model import Example
from ragviz.judge.batch import ledger
from ragviz.judge.batch.ledger import BatchFile, BatchRecord
from ragviz.judge.batch.remote import batch_client, create_batch, upload_file
from ragviz.judge.batch.requests import (
    MAX_FILE_BYTES,
    MAX_REQUESTS_PER_FILE,
    OversizedRequest,
    batch_url,
    build_request,
    write_request_files,
)
from ragviz.judge.cache import JudgeCache, cache_key
from ragviz.judge.client import AUTO, FORMAT_MODES, ChatCaller, JudgeSettings
from ragviz.judge.probe import resolve_format
from ragviz.judge.prompt import SHIPPED_PROMPT, JudgePrompt, content_hash
from ragviz.judge.run import run_sync

__all__ = ["BatchPlan", "WrittenBatch", "batch_format", "iter_todo", "plan_batch", "send_recorded_files", "write_batch"]


@dataclass
class BatchPlan:
    """What a batch would ask: the examples to send (``todo``, kept only by :func:`plan_batch`) and the
    others counted: cached, already waiting in a batch sent before, a uid seen again."""

    todo: list[Example] = field(default_factory=list)
    n_examples: int = 0
    n_cached: int = 0
    n_waiting: int = 0
    n_todo: int = 0
    duplicates: list[str] = field(default_factory=list)


def iter_todo(
    examples: Iterable[Example],
    settings: JudgeSettings,
    cache: JudgeCache,
    plan: BatchPlan,
    *,
    force: bool = False,
    prompt: JudgePrompt = SHIPPED_PROMPT,
) -> Iterator[Example]:
    """The examples to send, streamed (the cache asked a chunk at a time), counting the others in *plan*:
    not cached under the judge version's *prompt* (unless *force*), not pending in a batch already sent,
    each uid once."""
    waiting = ledger.pending_keys(cache)
    seen: set[str] = set()
    chunk: list[Example] = []

    def flush() -> Iterator[Example]:
        keys = [cache_key(settings.model, settings.endpoint, prompt.version, content_hash(e)) for e in chunk]
        cached = set() if force else set(cache.get_many(keys))
        for example, key in zip(chunk, keys):
            plan.n_examples += 1
            if key in cached:
                plan.n_cached += 1
            elif key in waiting:
                plan.n_waiting += 1
            elif example.uid in seen:
                plan.duplicates.append(example.uid)
            else:
                seen.add(example.uid)
                plan.n_todo += 1
                yield example
        chunk.clear()

    for example in examples:
        chunk.append(example)
        if len(chunk) >= 2000:
            yield from flush()
    yield from flush()


def plan_batch(
    examples: Iterable[Example],
    settings: JudgeSettings,
    cache: JudgeCache,
    *,
    force: bool = False,
    prompt: JudgePrompt = SHIPPED_PROMPT,
) -> BatchPlan:
    """:func:`iter_todo` with the examples to send kept in ``todo``."""
    plan = BatchPlan()
    plan.todo = list(iter_todo(examples, settings, cache, plan, force=force, prompt=prompt))
    return plan


def batch_format(settings: JudgeSettings, cache: JudgeCache, *, probe: bool = True) -> str:
    """The response format the requests ask for, as the live judge would pick it: fixed by the settings,
    else remembered for the endpoint and model, else one probe (*probe*), else ``json_schema``."""
    if settings.response_format != AUTO:
        return settings.response_format
    known = cache.endpoint_format(settings.endpoint, settings.model)
    if known is not None or not probe:
        return known or FORMAT_MODES[0]

    async def find() -> str:
        caller = ChatCaller(settings)
        try:
            return await resolve_format(caller, cache)
        finally:
            await caller.close()

    return run_sync(find)


@dataclass
class WrittenBatch:
    """The request files one submission wrote (already in the ledger) and the requests left out."""

    files: list[int] = field(default_factory=list)
    n_requests: int = 0
    oversized: list[OversizedRequest] = field(default_factory=list)


def write_batch(
    examples: Iterable[Example],
    settings: JudgeSettings,
    cache: JudgeCache,
    directory: str | os.PathLike,
    *,
    format_mode: str,
    sources: Sequence[str],
    offline: bool = False,
    retried_keys: Iterable[str] = (),
    max_requests: int = MAX_REQUESTS_PER_FILE,
    max_bytes: int = MAX_FILE_BYTES,
    stem: str | None = None,
    prompt: JudgePrompt = SHIPPED_PROMPT,
) -> WrittenBatch:
    """Write the requests of *examples* under the judge version's *prompt* into files under *directory* and
    record each file and its lines as soon as it is complete (``offline``: one file ``{directory}/{stem}.jsonl``
    for a runner of the same shape, never uploaded)."""
    written = WrittenBatch()
    stem = stem or "ragviz-batch-" + datetime.now().strftime("%Y%m%d-%H%M%S")
    requests = (build_request(e, settings, format_mode, prompt) for e in examples)
    retried = list(retried_keys)
    for request_file in write_request_files(
        requests,
        directory,
        stem,
        max_requests=max_requests,
        max_bytes=max_bytes,
        oversized=written.oversized,
        single=offline,
    ):
        file_id = ledger.add_file(
            cache,
            request_file,
            model=settings.model,
            endpoint=settings.endpoint,
            prompt_version=prompt.version,
            response_format=format_mode,
            sources=sources,
            state=ledger.OFFLINE if offline else ledger.WRITTEN,
            retried_keys=retried,
        )
        retried = []
        written.files.append(file_id)
        written.n_requests += len(request_file.requests)
    return written


def _epoch(iso: str) -> float:
    return datetime.fromisoformat(iso).timestamp()


def send_recorded_files(
    settings: JudgeSettings, cache: JudgeCache, client: openai.OpenAI | None = None
) -> tuple[list[BatchRecord], list[BatchFile]]:
    """Upload every recorded file of *settings*' endpoint not uploaded yet and create a batch for every
    uploaded one without (then delete the local request file); returns the batches created (or found) and
    the files of other endpoints left."""
    waiting = ledger.files(cache, (ledger.WRITTEN, ledger.UPLOADED))
    mine = [f for f in waiting if f.endpoint == settings.endpoint and f.model == settings.model]
    others = [f for f in waiting if f not in mine]
    created: list[BatchRecord] = []
    if not mine:
        return created, others
    client = client or batch_client(settings)
    azure = bool(settings.azure_endpoint)
    for file in mine:
        if file.state == ledger.WRITTEN:
            remote_id = upload_file(client, file, azure=azure)
            ledger.record_upload(cache, file.id, remote_id)
            file = BatchFile(**{**file.__dict__, "remote_file_id": remote_id, "state": ledger.UPLOADED})
        record = create_batch(client, file, batch_url(settings), _epoch(file.created_at), azure=azure)
        ledger.record_batch(cache, record)
        # the server holds the file now and the ledger every line of it: the local copy is not read again
        Path(file.local_path).unlink(missing_ok=True)
        created.append(record)
    return created, others
