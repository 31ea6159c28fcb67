"""Batch API request lines, built exactly as the live judge sends them, streamed into files within the limits.

One line per example: ``{"custom_id": "<uid>@<prompt version>", "method": "POST", "url": "/v1/chat/completions",
"body": <the live call's body>}``; the body is :func:`ragviz.judge.client.request_body` over
:func:`ragviz.judge.prompt.build_messages`, byte for byte what :class:`~ragviz.judge.client.ChatCaller` posts.
A file holds at most :data:`MAX_REQUESTS_PER_FILE` lines and :data:`MAX_FILE_BYTES` bytes (OpenAI's limits);
more starts the next file. ``vllm run-batch`` reads the same shape.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ragviz.data.model import Example
from ragviz.judge.cache import cache_key
from ragviz.judge.client import JudgeSettings, format_kwargs, request_body
from ragviz.judge.prompt import (
    PROMPT_VERSION,
    SHIPPED_PROMPT,
    JudgePrompt,
    build_messages,
    content_hash,
    render_user_prompt,
)

__all__ = [
    "BatchRequest",
    "CUSTOM_ID_SEPARATOR",
    "MAX_FILE_BYTES",
    "MAX_REQUESTS_PER_FILE",
    "OversizedRequest",
    "RequestFile",
    "batch_url",
    "build_request",
    "custom_id",
    "split_custom_id",
    "write_request_files",
]


MAX_REQUESTS_PER_FILE = 50_000
MAX_FILE_BYTES = 200_000_000  # OpenAI's "200 MB", counted in decimal megabytes to stay under it either way
CUSTOM_ID_SEPARATOR = "@"


def custom_id(example_uid: str, prompt_version: str = PROMPT_VERSION) -> str:
    """``uid@version``: which example and which judge version a batch line answers.

    >>> custom_id("covidqa/12", "ragviz-judge-v1")
    'covidqa/12@ragviz-judge-v1'
    """
    return f"{example_uid}{CUSTOM_ID_SEPARATOR}{prompt_version}"


def split_custom_id(text: str) -> tuple[str, str]:
    """``(uid, version)`` of a custom_id (the uid may itself hold the separator; the version never does).

    >>> split_custom_id("a@b@ragviz-judge-v1")
    ('a@b', 'ragviz-judge-v1')
    """
    uid, _, version = text.rpartition(CUSTOM_ID_SEPARATOR)
    return uid, version


def batch_url(settings: JudgeSettings) -> str:
    """The ``url`` of every line: ``/v1/chat/completions`` (Azure OpenAI: ``/chat/completions``)."""
    return "/chat/completions" if settings.azure_endpoint else "/v1/chat/completions"


@dataclass(frozen=True)
class BatchRequest:
    """One example's request: its ids for the ledger and the JSONL line (newline included)."""

    custom_id: str
    example_uid: str
    content_hash: str
    cache_key: str
    line: bytes


_PLACEHOLDER = "\x00ragviz-user-prompt\x00"


@lru_cache(maxsize=16)
def _body_around_user_prompt(settings: JudgeSettings, format_mode: str, prompt: JudgePrompt) -> tuple[bytes, bytes]:
    """The request body before and after the JSON string of the user prompt. A JSON string encodes the
    same wherever it stands, so prefix + json(prompt) + suffix is exactly :func:`request_body`'s bytes."""
    sent = dataclasses.replace(settings, model=settings.deployment) if settings.azure_endpoint else settings
    messages = [
        m if m["role"] == "system" else {**m, "content": _PLACEHOLDER} for m in build_messages(_EMPTY, prompt=prompt)
    ]
    body = request_body(sent, messages, format_kwargs(format_mode))
    before, after = body.split(json.dumps(_PLACEHOLDER).encode("utf-8"))
    return before, after


_EMPTY = Example(
    id="", dataset="", question="", documents=(), document_sentences=(), response="", response_sentences=()
)


def build_request(
    example: Example, settings: JudgeSettings, format_mode: str, prompt: JudgePrompt = SHIPPED_PROMPT
) -> BatchRequest:
    """The live call for *example* under the judge version's *prompt* as one batch line, with the live
    run's cache key (the version's prompt version in it and in the custom_id).

    Azure OpenAI's batch lines name the deployment as the model; the key stays the live run's."""
    chash = content_hash(example)
    key = cache_key(settings.model, settings.endpoint, prompt.version, chash)
    before, after = _body_around_user_prompt(settings, format_mode, prompt)
    user = json.dumps(render_user_prompt(example), ensure_ascii=False).encode("utf-8")
    cid = custom_id(example.uid, prompt.version)
    head = json.dumps({"custom_id": cid, "method": "POST", "url": batch_url(settings)}, ensure_ascii=False)
    line = b"".join((head[:-1].encode("utf-8"), b', "body": ', before, user, after, b"}\n"))
    return BatchRequest(cid, example.uid, chash, key, line)


@dataclass(frozen=True)
class OversizedRequest:
    """A request that alone exceeds a file's byte limit: never written, never sent."""

    example_uid: str
    n_bytes: int
    limit: int

    def __str__(self) -> str:
        return (
            f"example {self.example_uid}: its request is {self.n_bytes:,} bytes, over the {self.limit:,}-byte limit"
            " of one batch file; not sent (label it live, or shorten its documents)"
        )


@dataclass
class RequestFile:
    """One finished request file: where, its sha256 and size, and per line ``(custom_id, uid, content hash,
    cache key)``, line numbers from 1."""

    path: Path
    sha256: str
    n_bytes: int
    requests: list[tuple[str, str, str, str]] = field(default_factory=list)

    @property
    def remote_name(self) -> str:
        """The name it is uploaded under; content-addressed, so a rerun finds an upload it did not record."""
        return f"ragviz-batch-{self.sha256[:20]}.jsonl"


class _Writer:
    def __init__(self, directory: Path, stem: str, index: int | None):
        name = f"{stem}.jsonl" if index is None else f"{stem}-{index:03d}.jsonl"
        self.part = directory / f"{name}.part"
        self.final = directory / name
        self.handle = open(self.part, "wb")
        self.digest = hashlib.sha256()
        self.file = RequestFile(self.final, "", 0)

    def add(self, request: BatchRequest) -> None:
        self.handle.write(request.line)
        self.digest.update(request.line)
        self.file.n_bytes += len(request.line)
        self.file.requests.append((request.custom_id, request.example_uid, request.content_hash, request.cache_key))

    def finish(self) -> RequestFile:
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.handle.close()
        os.replace(self.part, self.final)
        self.file.sha256 = self.digest.hexdigest()
        return self.file


def write_request_files(
    requests: Iterable[BatchRequest],
    directory: str | os.PathLike,
    stem: str,
    *,
    max_requests: int = MAX_REQUESTS_PER_FILE,
    max_bytes: int = MAX_FILE_BYTES,
    oversized: list[OversizedRequest] | None = None,
    single: bool = False,
) -> Iterator[RequestFile]:
    """Stream *requests* into ``{directory}/{stem}-NNN.jsonl`` files of at most *max_requests* lines and
    *max_bytes* bytes (*single*: everything in ``{directory}/{stem}.jsonl``, no limits), yielding each file once it is complete and on disk (fsynced, renamed from ``.part``).
    A request larger than *max_bytes* by itself goes to *oversized* instead."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    writer: _Writer | None = None
    index = 0
    try:
        for request in requests:
            size = len(request.line)
            if size > max_bytes and not single:
                if oversized is not None:
                    oversized.append(OversizedRequest(request.example_uid, size, max_bytes))
                continue
            if (
                writer is not None
                and not single
                and (len(writer.file.requests) >= max_requests or writer.file.n_bytes + size > max_bytes)
            ):
                yield writer.finish()
                writer = None
            if writer is None:
                index += 1
                writer = _Writer(folder, stem, None if single else index)
            writer.add(request)
        if writer is not None:
            yield writer.finish()
            writer = None
    finally:
        if writer is not None:  # interrupted: the half-written file is not a request file
            writer.handle.close()
            writer.part.unlink(missing_ok=True)
