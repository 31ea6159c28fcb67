"""The PostgreSQL backend: a ``postgresql://`` URL, psycopg 3, one autocommit connection whose write
transactions are opened explicitly (``BEGIN``, then the store's advisory write lock; see
:data:`ragviz.store.migrations.POSTGRES`). Commits are durable under PostgreSQL's defaults
(``synchronous_commit = on``). Every message names the URL with its password masked.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["CONNECT_TIMEOUT_S", "SCHEMES", "connect", "errors", "is_url", "mask_url", "scrub"]


SCHEMES = ("postgresql://", "postgres://")
CONNECT_TIMEOUT_S = 10


def is_url(where: object) -> bool:
    """True for a ``postgresql://`` (or ``postgres://``) URL."""
    return isinstance(where, str) and where.lower().startswith(SCHEMES)


def mask_url(url: str) -> str:
    """*url* with its password replaced by ``***`` (for messages, logs and the sidebar).

    >>> mask_url("postgresql://ann:s3cret@db.example:5432/labels")
    'postgresql://ann:***@db.example:5432/labels'
    >>> mask_url("postgresql://ann@db/labels?password=s3cret")
    'postgresql://ann@db/labels?password=***'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.split("://", 1)[0] + "://***"
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        netloc = f"{user}@{host}"
    query = "&".join(
        f"{k}=***" if k.lower() == "password" else f"{k}={v}" if sep else k
        for k, sep, v in (q.partition("=") for q in parts.query.split("&") if q)
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _secrets(url: str) -> list[str]:
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    found = [parts.password] if parts.password else []
    found += [v for k, _, v in (q.partition("=") for q in parts.query.split("&")) if k.lower() == "password" and v]
    return found


def scrub(text: str, url: str) -> str:
    """*text* with every secret of *url* replaced by ``***`` (a driver message may quote them)."""
    for secret in _secrets(url):
        text = text.replace(secret, "***")
    return text


def connect(url: str, error: type[Exception], what: str = "label store") -> Any:
    """An autocommit psycopg connection to *url*; every failure is raised as *error* with a message
    naming the masked URL and the problem (no such server, wrong password, no such database ...)."""
    shown = mask_url(url)
    try:
        import psycopg
    except ImportError:
        raise error(f"{shown}: the PostgreSQL driver is not installed: pip install 'psycopg[binary]'") from None
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, application_name="ragviz")
    except psycopg.Error as exc:
        detail = " ".join(str(exc).split())
        raise error(f"{shown}: cannot open {what}: {scrub(detail, url)}") from None
    except (ValueError, TypeError) as exc:  # a malformed URL (bad port, bad option)
        raise error(f"{shown}: not a valid PostgreSQL URL: {scrub(str(exc), url)}") from None


def errors() -> tuple[type[Exception], ...]:
    """The driver's exception classes (a failing statement), for callers that translate them."""
    import psycopg

    return (psycopg.Error,)
