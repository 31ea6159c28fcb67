"""How much the app takes in and shows: the upload size cap and where long texts are cut for display.

Uploads: capped by :func:`upload_limit_mb`; a larger upload that reaches the server anyway is refused with a
message naming the file, its size and the cap (:func:`too_big`). The cap counts *decoded* bytes too
(:func:`upload_decoded_limit`). Every other load (the CLI, typed paths, ``RAGVIZ_DATA``) is bounded by
:func:`memory_decoded_limit`: half the memory this process may use.

Display: a dynamic text (an id, a name, a judge failure) longer than :data:`SHOWN_CHARS` is shown cut
with a "show all" expander holding it whole up to :data:`WHOLE_CHARS`; a document longer than
:data:`DOCUMENT_SHOWN_CHARS` (1 MB) is cut for display and never sent to the browser whole.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "DOCUMENT_SHOWN_CHARS",
    "DecodedLimit",
    "MB",
    "SHOWN_CHARS",
    "STREAMLIT_DEFAULT_UPLOAD_MB",
    "UPLOAD_ENV",
    "WHOLE_CHARS",
    "cut",
    "memory_bytes",
    "memory_decoded_limit",
    "over_decoded",
    "size_text",
    "too_big",
    "upload_decoded_limit",
    "upload_limit_mb",
]


UPLOAD_ENV = "RAGVIZ_MAX_UPLOAD_MB"
STREAMLIT_DEFAULT_UPLOAD_MB = 200
SHOWN_CHARS = 300
WHOLE_CHARS = 100_000
DOCUMENT_SHOWN_CHARS = 1_000_000
MB = 1024 * 1024


def upload_limit_mb(server_max_mb: object, environ: Mapping[str, str] | None = None) -> int:
    """The upload cap in MB: the smaller of Streamlit's ``server.maxUploadSize`` (MB, default 200; the browser
    refuses larger files before sending them) and ``RAGVIZ_MAX_UPLOAD_MB`` (ignored when not a positive whole number).

    >>> upload_limit_mb(200, {"RAGVIZ_MAX_UPLOAD_MB": "50"}), upload_limit_mb(20, {"RAGVIZ_MAX_UPLOAD_MB": "50"})
    (50, 20)
    >>> upload_limit_mb(None, {"RAGVIZ_MAX_UPLOAD_MB": "lots"})
    200
    """
    env = os.environ if environ is None else environ
    try:
        server = int(server_max_mb) if server_max_mb is not None else STREAMLIT_DEFAULT_UPLOAD_MB  # type: ignore[call-overload]
    except (TypeError, ValueError):
        server = STREAMLIT_DEFAULT_UPLOAD_MB
    raw = env.get(UPLOAD_ENV, "").strip()
    own = int(raw) if raw.isdigit() and int(raw) > 0 else None
    return max(1, min(server, own) if own is not None else server)


def too_big(name: str, size: int, limit_mb: int) -> str | None:
    """The refusal of an upload of *size* bytes over *limit_mb*, or ``None`` when it fits.

    >>> too_big("rows.jsonl", 3 * MB, 2)
    'rows.jsonl: 3.0 MB is over the upload limit of 2 MB (server.maxUploadSize / RAGVIZ_MAX_UPLOAD_MB); nothing was kept.'
    """
    if size <= limit_mb * MB:
        return None
    return (
        f"{name}: {size / MB:,.1f} MB is over the upload limit of {limit_mb} MB"
        f" (server.maxUploadSize / {UPLOAD_ENV}); nothing was kept."
    )


@dataclass(frozen=True)
class DecodedLimit:
    """How many decoded bytes one input file may hold, and the sentence naming that limit."""

    bytes: int
    named: str


def upload_decoded_limit(limit_mb: int) -> DecodedLimit:
    """The upload cap applied to a file's decoded size.

    A small Parquet file can decode to gigabytes (one long string referenced from every row of a dictionary-encoded
    column), so an upload whose decoded size (read from its Parquet metadata and dictionaries before any row is
    decoded; a text file's own size) is over the cap is refused the same way as a large one."""
    return DecodedLimit(
        limit_mb * MB,
        f"the upload limit of {limit_mb} MB (server.maxUploadSize / {UPLOAD_ENV}; it counts decoded bytes)",
    )


def memory_bytes() -> int:
    """The memory this process may use: the machine's RAM, lowered by an address-space or data-segment
    limit (``ulimit -v`` / ``-d``, a container's setrlimit) when one is set."""
    limits = []
    try:
        limits.append(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        pass
    try:
        import resource

        for kind in (resource.RLIMIT_AS, resource.RLIMIT_DATA):
            soft = resource.getrlimit(kind)[0]
            if soft != resource.RLIM_INFINITY and soft > 0:
                limits.append(soft)
    except (ImportError, OSError, ValueError):
        pass
    return min(limits) if limits else 8 << 30


def memory_decoded_limit() -> DecodedLimit:
    """Half of :func:`memory_bytes`: the decoded columns plus the checks' working copies must fit."""
    half = memory_bytes() // 2
    return DecodedLimit(half, f"the limit of {size_text(half)} (half the memory this process may use)")


def size_text(n: int) -> str:
    """*n* bytes as MB below a gigabyte, else GB.

    >>> size_text(3 * MB), size_text(10 * 1024 * MB)
    ('3.0 MB', '10.0 GB')
    """
    return f"{n / MB:,.1f} MB" if n < 1024 * MB else f"{n / (1024 * MB):,.1f} GB"


def over_decoded(decoded: int, limit: DecodedLimit, how: str) -> str | None:
    """The refusal of a file that decodes to *decoded* bytes (found out *how*), or ``None`` when it fits.

    >>> over_decoded(10 * 1024 * MB, upload_decoded_limit(100), "from its Parquet metadata")
    'decodes to 10.0 GB (from its Parquet metadata), over the upload limit of 100 MB (server.maxUploadSize / RAGVIZ_MAX_UPLOAD_MB; it counts decoded bytes); nothing was read'
    """
    if decoded <= limit.bytes:
        return None
    return f"decodes to {size_text(decoded)} ({how}), over {limit.named}; nothing was read"


def cut(text: str, limit: int = SHOWN_CHARS) -> tuple[str, bool]:
    """*text* cut to *limit* characters (``…`` at the end when cut) and whether it was cut.

    >>> cut("abcdef", 4)
    ('abc…', True)
    """
    if len(text) <= limit:
        return text, False
    return text[: limit - 1] + "…", True
