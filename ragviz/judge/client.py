"""Talking to a chat-completions server: the request, retries with backoff, the answer's limits.

The ``openai`` package's own client (``AsyncOpenAI``, or ``AsyncAzureOpenAI`` for an Azure OpenAI
deployment) and its own HTTP client and transport carry every call (:func:`make_client`), so ``HTTPS_PROXY`` /
``HTTP_PROXY`` / ``NO_PROXY``, ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` and its timeouts apply as in any ``openai``
program; retrying is done here (:class:`ChatCaller`). The API key lives only in :class:`JudgeSettings` (never in
its repr) and in the client object; every error text that leaves this module goes through :func:`redact`.

Temperature follows :meth:`JudgeSettings.sent_temperature` (:mod:`ragviz.judge.settings`; a server that refuses
it: :meth:`ChatCaller.complete`); ``reasoning_effort`` is sent only when set. The response format is chosen by
:mod:`ragviz.judge.probe` (``auto``) or fixed by the settings.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import openai

from ragviz.errors import RagvizError

__all__ = [
    "API_KEY_ENV",
    "AUTO",
    "AZURE_KEY_ENV",
    "ChatCaller",
    "Completion",
    "DEFAULT_BASE_URL",
    "DEFAULT_TIMEOUT",
    "FORMAT_MODES",
    "JudgeConfigError",
    "JudgeRequestError",
    "JudgeSettings",
    "MAX_ANSWER_BYTES",
    "MAX_RETRY_AFTER",
    "NO_KEY_PLACEHOLDER",
    "REASONING_EFFORTS",
    "RESPONSE_FORMATS",
    "completion_fields",
    "format_kwargs",
    "make_client",
    "redact",
    "request_body",
    "retry_after_seconds",
]


try:  # the HTTP library the installed openai release is built on
    import httpx2 as httpx
except ImportError:  # pragma: no cover - openai releases before httpx2
    import httpx  # type: ignore[no-redef]

from ragviz.judge.prompt import RESPONSE_FORMAT_JSON_OBJECT, RESPONSE_FORMAT_JSON_SCHEMA
from ragviz.judge.settings import (  # noqa: F401 - re-exported: ragviz.judge.client has always offered them
    API_KEY_ENV,
    AUTO,
    AZURE_KEY_ENV,
    DEFAULT_AZURE_API_VERSION,
    DEFAULT_BASE_URL,
    DEFAULT_TIMEOUT,
    FORMAT_MODES,
    NO_KEY_PLACEHOLDER,
    REASONING_EFFORTS,
    RESPONSE_FORMATS,
    JudgeConfigError,
    JudgeSettings,
    is_reasoning_model,
)

# A server asking for a longer pause than this is treated as asking for this long.
MAX_RETRY_AFTER = 60.0
MAX_ANSWER_BYTES = 1_000_000  # a larger answer is refused: not parsed, not stored, not sent back in a fix-up
_SECRET_LOOKING = re.compile(r"\b(sk-[A-Za-z0-9_\-*]{4,})")


class _TooLarge(Exception):
    def __init__(self, size: int):
        super().__init__(size)
        self.size = size


class JudgeRequestError(RagvizError, RuntimeError):
    """A request failed for good (retries exhausted or an error that retrying cannot fix); ``status`` is
    the HTTP status when the server answered with an error."""

    def __init__(
        self, message: str, attempts: int, raw: str | None = None, status: int | None = None, param: str | None = None
    ):
        super().__init__(message)
        self.attempts = attempts
        self.raw = raw
        self.status = status
        self.param = param  # the request parameter a 400 names in its error object ("n", "logprobs", ...)


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
    """One successful chat completion: the first choice's *text*; ``choices`` every choice's text (a request
    with ``n`` > 1 has several); ``logprobs`` the first choice's ``logprobs.content`` list when the server sent
    one (each item a dict with ``token``, ``logprob``, ``bytes``, ``top_logprobs``), else ``None``."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int
    choices: tuple[str, ...] = ()
    logprobs: list[Any] | None = None


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


completion_fields = _completion_fields  # the Batch API's output lines carry the same bodies


def _choices_and_logprobs(data: Any) -> tuple[tuple[str, ...], list[Any] | None]:
    """Every choice's text of a chat completion (in ``index`` order) and the first choice's token logprobs."""
    choices = [c for c in data["choices"] if isinstance(c, dict)]
    choices.sort(key=lambda c: int(c["index"]) if isinstance(c.get("index"), int) else 0)
    texts = []
    for choice in choices:
        message = choice.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        texts.append(content if isinstance(content, str) else "")
    logprobs = choices[0].get("logprobs") if choices else None
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    return tuple(texts), (content if isinstance(content, list) and content else None)


def request_body(
    settings: JudgeSettings,
    messages: list[dict[str, str]],
    format_kwargs: dict[str, Any],
    *,
    send_temperature: bool = True,
    n: int | None = None,
) -> bytes:
    """The chat-completions request as UTF-8 JSON, as the ``openai`` client would serialize it:
    temperature per :meth:`JudgeSettings.sent_temperature` (none when *send_temperature* is False),
    ``reasoning_effort`` when set, ``logprobs``/``top_logprobs`` when ``settings.top_logprobs`` is set,
    ``n`` (answers in one request) when above 1."""
    body: dict[str, Any] = {"model": settings.model, "messages": messages, **format_kwargs}
    temperature = settings.sent_temperature() if send_temperature else None
    if temperature is not None:
        body["temperature"] = temperature
    if settings.reasoning_effort is not None:
        body["reasoning_effort"] = settings.reasoning_effort
    if settings.top_logprobs is not None:
        body["logprobs"] = True
        body["top_logprobs"] = settings.top_logprobs
    if n is not None and n > 1:
        body["n"] = n
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def format_kwargs(mode: str) -> dict[str, Any]:
    """The ``response_format`` request field of a format mode (none for ``text``)."""
    if mode == "json_schema":
        return {"response_format": RESPONSE_FORMAT_JSON_SCHEMA}
    if mode == "json_object":
        return {"response_format": RESPONSE_FORMAT_JSON_OBJECT}
    return {}


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _rejected_param(exc: openai.APIStatusError) -> str | None:
    """The request parameter a 400 names in its structured error object (``"param"``), if any."""
    if exc.status_code != 400:
        return None
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    param = body.get("param") if isinstance(body, dict) else None
    return param if isinstance(param, str) else None


def make_client(settings: JudgeSettings, api_key: str) -> openai.AsyncOpenAI:
    """The ``openai`` package's async client for *settings*, on its own default HTTP client (environment
    proxies and CA settings honoured), without its retries (:class:`ChatCaller` retries).

    It is created with ``max_retries=0``: retrying is done here so it is testable and honours a capped
    ``Retry-After``."""
    if settings.azure_endpoint:
        return openai.AsyncAzureOpenAI(
            azure_endpoint=settings.azure_endpoint.strip().rstrip("/"),
            azure_deployment=settings.deployment,
            api_version=settings.api_version or os.environ.get("OPENAI_API_VERSION") or DEFAULT_AZURE_API_VERSION,
            api_key=api_key,
            max_retries=0,
            timeout=settings.timeout,
        )
    return openai.AsyncOpenAI(base_url=settings.endpoint, api_key=api_key, max_retries=0, timeout=settings.timeout)


class ChatCaller:
    """An ``AsyncOpenAI`` client plus the retry policy and the current response-format mode.

    ``requests`` counts HTTP requests sent (a cached run must leave it at 0).
    """

    def __init__(self, settings: JudgeSettings, sleep: Callable[[float], Any] = asyncio.sleep):
        settings.check()
        self.settings = settings
        self._api_key = settings.resolved_api_key()
        self.client = make_client(settings, self._api_key)
        # "auto" is resolved by ragviz.judge.probe before the first call; json_schema until then
        self.format_mode = settings.response_format if settings.response_format != AUTO else FORMAT_MODES[0]
        # False once the server refused `temperature` (only when the settings leave it unset)
        self.send_temperature = True
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

    async def complete(self, messages: list[dict[str, str]], mode: str | None = None, *, n: int = 1) -> Completion:
        """One completion in format *mode* (default: :attr:`format_mode`), retrying 429 / 5xx /
        timeouts / connection errors with backoff; *n* above 1 asks for that many choices in the one request
        (what the server sent back is in ``choices``: one when it ignores ``n``).

        A 400 naming ``temperature`` as its parameter (``"param": "temperature"`` in its error object), for
        settings that leave the temperature unset, drops it for this and every later call of the run; that does
        not count as an attempt.
        """
        attempt = 0
        while True:
            attempt += 1
            sent_temperature = self.send_temperature
            content = request_body(
                self.settings,
                messages,
                format_kwargs(mode or self.format_mode),
                send_temperature=sent_temperature,
                n=n,
            )
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
                if (
                    sent_temperature
                    and self.settings.temperature is None
                    and self.settings.sent_temperature() is not None
                    and _rejected_param(exc) == "temperature"
                ):
                    self.send_temperature = False  # a reasoning model under a name the rule does not know
                    attempt -= 1
                    continue
                retryable = exc.status_code in (408, 409, 429) or exc.status_code >= 500
                if not retryable or attempt >= self.settings.max_attempts:
                    raise JudgeRequestError(
                        self.redact(f"HTTP {exc.status_code}: {exc}"),
                        attempt,
                        status=exc.status_code,
                        param=_rejected_param(exc),
                    ) from None
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
            fields = decoded = None
            try:
                decoded = json.loads(data)
                fields = _completion_fields(decoded)
            except (ValueError, RecursionError):  # not JSON, or nested too deep to read: not a chat completion
                pass
            if fields is None:
                raw = data.decode("utf-8", errors="replace")
                raise JudgeRequestError(
                    self.redact(f"the server's answer is not a chat completion: {raw[:200]}"),
                    attempt,
                    raw=self.redact(raw),
                )
            text, usage = fields
            choices, logprobs = _choices_and_logprobs(decoded)
            return Completion(
                text=text,
                prompt_tokens=_int(usage.get("prompt_tokens", 0)),
                completion_tokens=_int(usage.get("completion_tokens", 0)),
                attempts=attempt,
                choices=choices,
                logprobs=logprobs,
            )
