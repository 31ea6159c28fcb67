"""Which key goes to which judge server: the server's ``OPENAI_API_KEY`` only ever goes to the server's
configured endpoint (``OPENAI_BASE_URL``, else the OpenAI API); when the server is configured for Azure
OpenAI instead (``AZURE_OPENAI_ENDPOINT`` set, ``OPENAI_BASE_URL`` not), its ``AZURE_OPENAI_API_KEY`` goes
only to that endpoint.

A Base URL a person types that differs from it gets only a key that person typed (locally, none at all
when they typed none: fine for a local vLLM / Ollama); when the app is served to others it must also
start with one of the prefixes in ``RAGVIZ_JUDGE_URLS`` (comma-separated; same scheme and host, the
path on a ``/`` boundary). What such a server answers is shown only as parsed labels or a short error
(:func:`short_error`): pointing the judge at an internal address must not turn the app into a reader
of internal pages.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ragviz.judge.settings import API_KEY_ENV, AZURE_KEY_ENV, DEFAULT_BASE_URL, NO_KEY_PLACEHOLDER, JudgeConfigError

__all__ = [
    "ALLOWLIST_ENV",
    "AZURE_ENDPOINT_ENV",
    "BASE_URL_ENV",
    "EndpointAccess",
    "SHORT_ERROR",
    "allowed_prefixes",
    "endpoint_access",
    "missing_key",
    "normalize_url",
    "on_allowlist",
    "server_endpoint",
    "server_uses_azure",
    "short_error",
]


BASE_URL_ENV = "OPENAI_BASE_URL"
AZURE_ENDPOINT_ENV = "AZURE_OPENAI_ENDPOINT"
ALLOWLIST_ENV = "RAGVIZ_JUDGE_URLS"
SHORT_ERROR = 300  # characters of a foreign server's error text shown


def normalize_url(url: str | None) -> str:
    """*url* without surrounding blanks and trailing slashes (``""`` for none)."""
    return (url or "").strip().rstrip("/")


def server_endpoint(environ: Mapping[str, str] | None = None) -> str:
    """The endpoint the server's key belongs to: ``OPENAI_BASE_URL``, else ``AZURE_OPENAI_ENDPOINT``,
    else the OpenAI API."""
    env = os.environ if environ is None else environ
    return normalize_url(env.get(BASE_URL_ENV)) or normalize_url(env.get(AZURE_ENDPOINT_ENV)) or DEFAULT_BASE_URL


def server_uses_azure(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the server's configured judge is an Azure OpenAI resource (``AZURE_OPENAI_ENDPOINT``
    set and ``OPENAI_BASE_URL`` not)."""
    env = os.environ if environ is None else environ
    return not normalize_url(env.get(BASE_URL_ENV)) and bool(normalize_url(env.get(AZURE_ENDPOINT_ENV)))


def allowed_prefixes(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """``RAGVIZ_JUDGE_URLS`` as a tuple of normalized prefixes."""
    env = os.environ if environ is None else environ
    return tuple(p for p in (normalize_url(x) for x in env.get(ALLOWLIST_ENV, "").split(",")) if p)


def on_allowlist(url: str, prefixes: tuple[str, ...]) -> bool:
    """Whether *url* starts with one of *prefixes*: same scheme and host (port included), and the path
    equal to or below the prefix's path.

    >>> on_allowlist("https://llm.corp/v1", ("https://llm.corp",))
    True
    >>> [on_allowlist(u, ("https://llm.corp/v1",)) for u in ("https://llm.corp/v1x", "https://llm.corp.evil/v1", "http://llm.corp/v1")]
    [False, False, False]
    """
    try:
        target = urlsplit(normalize_url(url))
    except ValueError:
        return False
    for prefix in prefixes:
        p = urlsplit(prefix)
        if (target.scheme.lower(), target.netloc.lower()) != (p.scheme.lower(), p.netloc.lower()):
            continue
        base = p.path.rstrip("/")
        if not base or target.path == base or target.path.startswith(base + "/"):
            return True
    return False


@dataclass(frozen=True)
class EndpointAccess:
    """What to call and with which key. ``own`` is True for the server's configured endpoint (its
    answers may be shown in full); ``api_key`` is never the server's key when ``own`` is False.
    ``azure``: *base_url* is the server's Azure OpenAI resource."""

    base_url: str
    api_key: str | None = field(repr=False)
    own: bool
    azure: bool = False


def endpoint_access(
    typed_url: str | None, typed_key: str | None, *, served: bool, environ: Mapping[str, str] | None = None
) -> EndpointAccess:
    """The endpoint and key for a Base URL and key typed in the app, or :class:`JudgeConfigError`
    saying what is missing (see the module docstring for the rule)."""
    env = os.environ if environ is None else environ
    own_url = server_endpoint(env)
    url = normalize_url(typed_url) or own_url
    key = (typed_key or "").strip() or None
    if url == own_url:
        if server_uses_azure(env):
            return EndpointAccess(url, key or env.get(AZURE_KEY_ENV) or None, own=True, azure=True)
        return EndpointAccess(url, key or env.get(API_KEY_ENV) or None, own=True)
    scheme = urlsplit(url).scheme.lower()
    if scheme not in {"http", "https"}:
        raise JudgeConfigError(f"Base URL: must start with http:// or https://, got {short_error(url, 80)!r}")
    if served and not on_allowlist(url, allowed_prefixes(env)):
        raise JudgeConfigError(
            f"Base URL: {short_error(url, 120)!r} is not among the judge servers this app may call "
            f"({ALLOWLIST_ENV}); leave it empty to use the server's configured judge"
        )
    if key is None and served:
        raise JudgeConfigError(
            "API key: enter your own key for this Base URL; the server's key is only sent to its configured judge"
        )
    return EndpointAccess(url, key or NO_KEY_PLACEHOLDER, own=False)


def missing_key(access: EndpointAccess) -> str | None:
    """What *access* still needs before the judge can run, in plain words for the Label page (``None``:
    nothing): the OpenAI API takes no call without a key, and neither the person nor the server gave one."""
    if access.api_key or access.base_url != DEFAULT_BASE_URL:
        return None
    return (
        "The judge needs an OpenAI API key before it can run. Type your own key in the “API key” field above "
        f"(it stays in this browser session), or ask whoever runs ragviz to set {API_KEY_ENV} on the server and restart it."
    )


def short_error(text: str | None, limit: int = SHORT_ERROR) -> str:
    """*text* cut to *limit* characters (with ``…``), one line."""
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
