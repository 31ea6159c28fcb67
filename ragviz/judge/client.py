"""Talking to a chat-completions server: settings, retries with backoff, response-format fallback.

The ``openai`` client is created with ``max_retries=0``; retrying is done here so it is testable and
honours ``Retry-After``. The API key lives only in :class:`JudgeSettings` (never in its repr) and in
the client object; every error text that leaves this module goes through :func:`redact`.
"""

from __future__ import annotations

import asyncio
import email.utils
import functools
import json
import os
import random
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import openai

try:  # the HTTP library the installed openai release is built on
    import httpx2 as httpx
except ImportError:  # pragma: no cover - openai releases before httpx2
    import httpx  # type: ignore[no-redef]

from ragviz.judge.prompt import RESPONSE_FORMAT_JSON_OBJECT, RESPONSE_FORMAT_JSON_SCHEMA

DEFAULT_BASE_URL = "https://api.openai.com/v1"
API_KEY_ENV = "OPENAI_API_KEY"
# Servers that need no key (local vLLM, Ollama, llama.cpp) still get a non-empty value from the client.
NO_KEY_PLACEHOLDER = "no-key"

FORMAT_MODES = ("json_schema", "json_object", "text")
# A server asking for a longer pause than this is treated as asking for this long.
MAX_RETRY_AFTER = 60.0
DEFAULT_TIMEOUT = 60.0  # seconds per call, the whole request (connect, send, wait, read)
MAX_ANSWER_BYTES = 1_000_000  # a larger answer is refused: not parsed, not stored, not sent back in a fix-up
_SECRET_LOOKING = re.compile(r"\b(sk-[A-Za-z0-9_\-*]{4,})")


class JudgeConfigError(ValueError):
    """The settings cannot work (no key for the OpenAI API, bad concurrency, ...)."""


class _TooLarge(Exception):
    def __init__(self, size: int):
        super().__init__(size)
        self.size = size


class JudgeRequestError(RuntimeError):
    """A request failed for good (retries exhausted or an error that retrying cannot fix)."""

    def __init__(self, message: str, attempts: int, raw: str | None = None):
        super().__init__(message)
        self.attempts = attempts
        self.raw = raw


@dataclass(frozen=True)
class JudgeSettings:
    """How to reach the judge model. ``api_key`` ``None`` means: use env ``OPENAI_API_KEY``."""

    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    concurrency: int = 8
    timeout: float = DEFAULT_TIMEOUT
    max_attempts: int = 6  # HTTP attempts per call (429 / 5xx / timeout / connection errors)
    max_fix_attempts: int = 2  # extra calls after an invalid answer, with the problems fed back
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    temperature: float | None = 0.0
    response_format: str = "json_schema"  # first mode tried; falls back along FORMAT_MODES

    @property
    def endpoint(self) -> str:
        """The base URL as used in the cache key (default OpenAI URL, no trailing slash)."""
        return (self.base_url or DEFAULT_BASE_URL).rstrip("/")

    def resolved_api_key(self) -> str:
        key = self.api_key or os.environ.get(API_KEY_ENV) or ""
        if key:
            return key
        if self.base_url and self.endpoint != DEFAULT_BASE_URL:
            return NO_KEY_PLACEHOLDER
        raise JudgeConfigError(
            f"no API key: set {API_KEY_ENV} or enter a key (only servers given by --base-url may go without)"
        )

    def check(self) -> None:
        if not self.model.strip():
            raise JudgeConfigError("model: must not be empty")
        if self.concurrency < 1:
            raise JudgeConfigError(f"concurrency: must be >= 1, got {self.concurrency}")
        if self.timeout <= 0:
            raise JudgeConfigError(f"timeout: must be > 0, got {self.timeout}")
        if self.response_format not in FORMAT_MODES:
            raise JudgeConfigError(f"response_format: must be one of {', '.join(FORMAT_MODES)}")


def redact(text: str, secret: str | None) -> str:
    """*text* with *secret* and anything shaped like an OpenAI key replaced by ``***``."""
    if secret and secret != NO_KEY_PLACEHOLDER:
        text = text.replace(secret, "***")
    return _SECRET_LOOKING.sub("***", text)


def retry_after_seconds(headers: Any, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value:
        try:
            return max(0.0, float(value) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass
class Completion:
    """One successful chat completion."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int


def _completion_fields(data: Any) -> tuple[str, Any] | None:
    """``(first choice's text, usage)`` of a decoded chat-completion body ("" for a refusal or an empty
    message); ``None`` when *data* is not shaped like a chat completion (another API's JSON, ...)."""
    if not isinstance(data, dict):
        return None
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    usage = data.get("usage")
    return (content if isinstance(content, str) else ""), (usage if isinstance(usage, dict) else {})


def request_body(settings: JudgeSettings, messages: list[dict[str, str]], format_kwargs: dict[str, Any]) -> bytes:
    """The chat-completions request as UTF-8 JSON, as the ``openai`` client would serialize it."""
    body: dict[str, Any] = {"model": settings.model, "messages": messages, **format_kwargs}
    if settings.temperature is not None:
        body["temperature"] = settings.temperature
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _is_format_rejection(exc: openai.APIStatusError) -> bool:
    if exc.status_code not in (400, 422):
        return False
    message = str(exc).lower()
    return "response_format" in message or "json_schema" in message or "json_object" in message


@functools.lru_cache(maxsize=1)
def _ssl_context() -> Any:
    """The default verifying TLS context, built once per process (loading the CA store costs ~60 ms)."""
    return httpx.create_ssl_context()


def _http_client(timeout: float) -> Any:
    """openai's default client, plus TCP_NODELAY: the HTTP layer writes headers and body separately,
    and with Nagle's algorithm the body waits for the server's delayed ACK (milliseconds per call)."""
    transport = httpx.AsyncHTTPTransport(
        verify=_ssl_context(),
        limits=httpx.Limits(max_connections=1000, max_keepalive_connections=100),
        socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
    )
    return openai.DefaultAsyncHttpxClient(transport=transport, timeout=timeout)


class ChatCaller:
    """An ``AsyncOpenAI`` client plus the retry policy and the current response-format mode.

    ``requests`` counts HTTP requests sent (a cached run must leave it at 0).
    """

    def __init__(self, settings: JudgeSettings, sleep: Callable[[float], Any] = asyncio.sleep):
        settings.check()
        self.settings = settings
        self._api_key = settings.resolved_api_key()
        self.client = openai.AsyncOpenAI(
            base_url=settings.endpoint,
            api_key=self._api_key,
            max_retries=0,
            timeout=settings.timeout,
            http_client=_http_client(settings.timeout),
        )
        self.format_mode = settings.response_format
        self.requests = 0
        self._sleep = sleep
        self.waiting_until = 0.0  # time.monotonic() until which a call waits as the server asked (Retry-After)

    def retry_wait_left(self) -> float:
        """Seconds left of the longest Retry-After wait under way (0 when none), for the progress line."""
        return max(0.0, self.waiting_until - time.monotonic())

    async def _wait_as_asked(self, seconds: float) -> None:
        self.waiting_until = max(self.waiting_until, time.monotonic() + seconds)
        await self._sleep(seconds)

    async def _post(self, content: bytes) -> bytes:
        """One HTTP request; the whole of it (answer read included) within ``settings.timeout``
        (:class:`TimeoutError` else)."""
        return await asyncio.wait_for(self._post_and_read(content), self.settings.timeout)

    async def _post_and_read(self, content: bytes) -> bytes:
        response = await self.client.post("/chat/completions", content=content, cast_to=httpx.Response)
        size = int(response.headers.get("content-length") or 0)
        if size > MAX_ANSWER_BYTES:
            await response.aclose()
            raise _TooLarge(size)
        data = b""
        async for chunk in response.aiter_bytes():
            data += chunk
            if len(data) > MAX_ANSWER_BYTES:
                await response.aclose()
                raise _TooLarge(len(data))
        return data

    def redact(self, text: str) -> str:
        return redact(text, self._api_key)

    async def close(self) -> None:
        await self.client.close()

    def _backoff(self, attempt: int) -> float:
        delay = min(self.settings.backoff_max, self.settings.backoff_base * 2 ** (attempt - 1))
        return delay * (0.5 + random.random() / 2)  # jitter so parallel calls do not retry in lockstep

    def _format_kwargs(self) -> dict[str, Any]:
        if self.format_mode == "json_schema":
            return {"response_format": RESPONSE_FORMAT_JSON_SCHEMA}
        if self.format_mode == "json_object":
            return {"response_format": RESPONSE_FORMAT_JSON_OBJECT}
        return {}

    async def complete(self, messages: list[dict[str, str]]) -> Completion:
        """One completion, retrying 429 / 5xx / timeouts / connection errors with backoff.

        A 400/422 that blames the response format switches to the next mode (json_schema ->
        json_object -> plain text parsing) for this and every later call; that does not count as an
        attempt.
        """
        attempt = 0
        while True:
            attempt += 1
            sent_mode = self.format_mode
            content = request_body(self.settings, messages, self._format_kwargs())
            self.requests += 1
            try:
                # The client's generic POST with the body serialized here and the response read as
                # plain JSON: same auth, timeout, status errors and error types as
                # chat.completions.create, without re-walking the typed params and building pydantic
                # models on every call (~1 ms of CPU per call on a RAGBench-sized prompt).
                # (Content-Type: application/json is one of the client's default headers.)
                data = await self._post(content)
            except _TooLarge as exc:
                raise JudgeRequestError(
                    f"answer refused: {exc.size:,} bytes or more, over the {MAX_ANSWER_BYTES:,}-byte limit", attempt
                ) from None
            except openai.APIStatusError as exc:
                if _is_format_rejection(exc) and sent_mode != "text":
                    # A concurrent call may have stepped down already; never step back up.
                    next_mode = FORMAT_MODES[FORMAT_MODES.index(sent_mode) + 1]
                    if FORMAT_MODES.index(next_mode) > FORMAT_MODES.index(self.format_mode):
                        self.format_mode = next_mode
                    attempt -= 1
                    continue
                retryable = exc.status_code in (408, 409, 429) or exc.status_code >= 500
                if not retryable or attempt >= self.settings.max_attempts:
                    raise JudgeRequestError(self.redact(f"HTTP {exc.status_code}: {exc}"), attempt) from None
                wait = retry_after_seconds(exc.response.headers)
                if wait is None:
                    await self._sleep(self._backoff(attempt))
                else:
                    await self._wait_as_asked(min(wait, MAX_RETRY_AFTER))
                continue
            except (openai.APITimeoutError, openai.APIConnectionError, asyncio.TimeoutError) as exc:
                if attempt >= self.settings.max_attempts:
                    timed_out = isinstance(exc, (openai.APITimeoutError, asyncio.TimeoutError))
                    why = f"no complete answer within {self.settings.timeout:g} s" if timed_out else str(exc)
                    kind = "timed out" if timed_out else "connection failed"
                    raise JudgeRequestError(
                        self.redact(f"request {kind} after {attempt} attempts: {why}"), attempt
                    ) from None
                await self._sleep(self._backoff(attempt))
                continue
            except Exception as exc:  # a body the client cannot read, ...: fail this example, not the run
                raise JudgeRequestError(
                    self.redact(f"unusable response: {type(exc).__name__}: {exc}"), attempt
                ) from None
            fields = None
            try:
                fields = _completion_fields(json.loads(data))
            except ValueError:
                pass
            if fields is None:
                raw = data.decode("utf-8", errors="replace")
                raise JudgeRequestError(
                    self.redact(f"the server's answer is not a chat completion: {raw[:200]}"),
                    attempt,
                    raw=self.redact(raw),
                )
            text, usage = fields
            return Completion(
                text=text,
                prompt_tokens=_int(usage.get("prompt_tokens", 0)),
                completion_tokens=_int(usage.get("completion_tokens", 0)),
                attempts=attempt,
            )
