"""The PostgreSQL backend: a ``postgresql://`` URL, psycopg 3, a small pool of autocommit connections
(:mod:`psycopg_pool`) whose write transactions are opened explicitly (``BEGIN``, then the store's advisory
write lock; see :data:`ragviz.store.dialect.POSTGRES`). Commits are durable under PostgreSQL's
defaults (``synchronous_commit = on``; a not-durable write: :data:`RELAXED`). Every message names the URL with its
password masked.

The pool checks each connection before handing it out (one empty statement) and drops a broken one, so a restarted
server or a dropped network costs the statements running then and nothing after (a connection used within
:data:`FRESH_S` is not pinged; a read that finds it broken runs once more). Reconnecting is retried for at most
:data:`RECONNECT_TIMEOUT_S` in the background, then on the next request; a request waits at most
:data:`POOL_TIMEOUT_S` for a connection (the database is then unavailable: :func:`is_unavailable`).
"""

from __future__ import annotations

from time import monotonic
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "CONNECT_TIMEOUT_S",
    "FRESH_S",
    "POOL_MAX",
    "POOL_TIMEOUT_S",
    "RECONNECT_TIMEOUT_S",
    "RELAXED",
    "SCHEMES",
    "connect",
    "errors",
    "is_unavailable",
    "is_url",
    "mask_url",
    "open_pool",
    "scrub",
]


SCHEMES = ("postgresql://", "postgres://")
CONNECT_TIMEOUT_S = 10
POOL_MAX = 8  # connections per open store: sessions run in threads and read at once
POOL_TIMEOUT_S = 3.0  # how long a statement waits for a working connection before the database is "unavailable"
RECONNECT_TIMEOUT_S = 2.0  # a background reconnect gives up after this; the next request starts another
FRESH_S = 1.0  # a connection that ran a statement this recently is handed out without a ping
# A write asked for as not durable (StoreConnection.write(durable=False): where an annotator was, not a decision) runs
# this in its transaction, for that transaction only: the database server's crash may lose it, never half of it.
RELAXED = "SET LOCAL synchronous_commit = off"


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
        return psycopg.connect(url, **_connection_options())
    except psycopg.Error as exc:
        detail = " ".join(str(exc).split())
        raise error(f"{shown}: cannot open {what}: {scrub(detail, url)}") from None
    except (ValueError, TypeError) as exc:  # a malformed URL (bad port, bad option)
        raise error(f"{shown}: not a valid PostgreSQL URL: {scrub(str(exc), url)}") from None


def _connection_options() -> dict[str, Any]:
    return {"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S, "application_name": "ragviz"}


def open_pool(url: str, error: type[Exception], what: str = "label store") -> Any:
    """A :class:`psycopg_pool.ConnectionPool` of autocommit connections to *url*, health-checked on every
    checkout. One connection is made first, so a wrong URL, password or database is raised at once as
    *error* (as :func:`connect` words it), not as a pool timeout later."""
    connect(url, error, what).close()
    try:
        from psycopg_pool import ConnectionPool
    except ImportError:
        raise error(f"{mask_url(url)}: the PostgreSQL pool is not installed: pip install psycopg-pool") from None
    return ConnectionPool(
        url,
        kwargs=_connection_options(),
        min_size=1,
        max_size=POOL_MAX,
        timeout=POOL_TIMEOUT_S,
        reconnect_timeout=RECONNECT_TIMEOUT_S,
        check=_check,
        num_workers=2,
        name="ragviz",
        open=True,
    )


def _check(conn: Any) -> None:
    """The pool's health check: a ping (an empty statement), skipped for a connection that ran a statement
    within :data:`FRESH_S` (:class:`ragviz.store.database.Database` marks it; its reads run once more on a
    checked connection should it be broken after all). Raises when the connection is broken."""
    from psycopg_pool import ConnectionPool

    if conn.broken or conn.closed:
        raise _broken()
    if monotonic() - getattr(conn, "_ragviz_used", 0.0) >= FRESH_S:
        ConnectionPool.check_connection(conn)


def _broken() -> Exception:
    import psycopg

    return psycopg.OperationalError("the connection is broken")


def is_unavailable(exc: BaseException) -> bool:
    """Whether *exc* says the database cannot be reached or used just now (a restart, a killed server, a
    dropped connection, no connection within the pool's timeout, a full disk), not that a statement is wrong."""
    import psycopg

    return isinstance(exc, psycopg.OperationalError)


def errors() -> tuple[type[Exception], ...]:
    """The driver's exception classes (a failing statement), for callers that translate them."""
    import psycopg

    return (psycopg.Error,)
