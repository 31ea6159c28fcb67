"""Talking to a Batch API (OpenAI, Azure OpenAI global-batch deployments, any server of that shape).

Every step is idempotent against the server, so a ragviz killed between two steps and run again finds what
it already did instead of doing it twice: an upload is looked up by its content-addressed file name before
uploading, a batch by its input file id before creating one. The ``openai`` package's own client carries
every call (its ``files`` and ``batches``); the API key stays in it and every error text is redacted.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import openai

from ragviz.errors import RagvizError
from ragviz.judge.batch.ledger import BatchFile, BatchRecord
from ragviz.judge.cache import utc_now
from ragviz.judge.client import JudgeSettings, redact
from ragviz.judge.settings import DEFAULT_AZURE_API_VERSION

__all__ = [
    "BatchServiceError",
    "COMPLETION_WINDOW",
    "batch_client",
    "cancel_batch",
    "create_batch",
    "download",
    "record_of",
    "retrieve_batch",
    "upload_file",
]


COMPLETION_WINDOW: Literal["24h"] = "24h"
_LOOKBACK = 3600  # seconds before a file's recording that a batch made from it may claim to be created


class BatchServiceError(RagvizError, RuntimeError):
    """A Batch API call failed; the message says which step, with the key redacted."""


def batch_client(settings: JudgeSettings) -> openai.OpenAI:
    """The sync ``openai`` client for *settings* (Azure OpenAI's for an Azure endpoint)."""
    settings.check()
    key = settings.resolved_api_key()
    if settings.azure_endpoint:
        return openai.AzureOpenAI(
            azure_endpoint=settings.azure_endpoint.strip().rstrip("/"),
            api_version=settings.api_version or os.environ.get("OPENAI_API_VERSION") or DEFAULT_AZURE_API_VERSION,
            api_key=key,
            max_retries=3,
            timeout=max(settings.timeout, 600.0),
        )
    return openai.OpenAI(base_url=settings.endpoint, api_key=key, max_retries=3, timeout=max(settings.timeout, 600.0))


def _fail(step: str, exc: Exception, client: openai.OpenAI, azure: bool) -> BatchServiceError:
    text = redact(f"{step}: {type(exc).__name__}: {exc}", getattr(client, "api_key", None))
    if azure and isinstance(exc, (openai.NotFoundError, openai.BadRequestError)):
        text += (
            " (Azure OpenAI runs batches only on a Global Batch or Data Zone Batch deployment, with API version"
            " 2024-10-21 or later; this endpoint or deployment does not offer /files and /batches for batch:"
            " label live instead, or create a batch deployment)"
        )
    return BatchServiceError(text)


def upload_file(client: openai.OpenAI, file: BatchFile, *, azure: bool = False) -> str:
    """The server's id of *file*: an upload under its content-addressed name found first, else a new upload."""
    try:
        for found in client.files.list(purpose="batch"):
            if found.filename == file.remote_name and found.bytes == file.n_bytes:
                return found.id
        with open(file.local_path, "rb") as handle:
            created = client.files.create(file=(file.remote_name, handle), purpose="batch")
        return created.id
    except FileNotFoundError:
        raise BatchServiceError(
            f"request file {file.local_path} is gone before it was uploaded; nothing was sent for it"
        ) from None
    except openai.OpenAIError as exc:
        raise _fail(f"uploading {file.local_path}", exc, client, azure) from None


def record_of(batch: Any, file_id: int) -> BatchRecord:
    """A server's batch object as the ledger keeps it."""
    counts = batch.request_counts
    return BatchRecord(
        batch_id=batch.id,
        file_id=file_id,
        status=batch.status,
        created_at=_iso(batch.created_at),
        expires_at=_iso(batch.expires_at) if batch.expires_at else None,
        counts={
            "total": counts.total if counts else 0,
            "completed": counts.completed if counts else 0,
            "failed": counts.failed if counts else 0,
        },
        output_file_id=batch.output_file_id,
        error_file_id=batch.error_file_id,
        refreshed_at=utc_now(),
        collected_at=None,
    )


def _iso(seconds: int | float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(seconds))


def create_batch(
    client: openai.OpenAI, file: BatchFile, url: str, recorded_at: float, *, azure: bool = False
) -> BatchRecord:
    """The batch over *file*'s upload: one the server already has for that input file, else a new one
    (``completion_window="24h"``). *recorded_at* (epoch seconds) bounds how far back the listing is read."""
    assert file.remote_file_id is not None
    try:
        for found in client.batches.list(limit=100):
            if found.input_file_id == file.remote_file_id:
                return record_of(found, file.id)
            if found.created_at < recorded_at - _LOOKBACK:
                break  # newest first: older batches cannot be made from this upload
        created = client.batches.create(
            input_file_id=file.remote_file_id,
            endpoint=url,  # type: ignore[arg-type]
            completion_window=COMPLETION_WINDOW,
            metadata={"ragviz_request_file": file.remote_name},
        )
        return record_of(created, file.id)
    except openai.OpenAIError as exc:
        raise _fail(f"creating the batch for {file.remote_name}", exc, client, azure) from None


def retrieve_batch(client: openai.OpenAI, batch_id: str, file_id: int) -> BatchRecord:
    try:
        return record_of(client.batches.retrieve(batch_id), file_id)
    except openai.OpenAIError as exc:
        raise _fail(f"reading batch {batch_id}", exc, client, False) from None


def cancel_batch(client: openai.OpenAI, batch_id: str, file_id: int) -> BatchRecord:
    try:
        return record_of(client.batches.cancel(batch_id), file_id)
    except openai.OpenAIError as exc:
        raise _fail(f"cancelling batch {batch_id}", exc, client, False) from None


@contextmanager
def download(client: openai.OpenAI, remote_file_id: str, what: str) -> Iterator[Path]:
    """A server file streamed to a temporary file (deleted afterwards); never held in memory whole."""
    handle, name = tempfile.mkstemp(prefix="ragviz-batch-", suffix=".jsonl")
    os.close(handle)
    path = Path(name)
    try:
        try:
            with client.files.with_streaming_response.content(remote_file_id) as response:
                response.stream_to_file(path)
        except openai.OpenAIError as exc:
            raise _fail(f"downloading {what} {remote_file_id}", exc, client, False) from None
        yield path
    finally:
        path.unlink(missing_ok=True)
