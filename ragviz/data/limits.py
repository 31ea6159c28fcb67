"""How much the app takes in and shows: the upload size cap and where long texts are cut for display.

Uploads: the smaller of Streamlit's ``server.maxUploadSize`` (MB, default 200; the browser refuses
larger files before sending them) and ragviz's own ``RAGVIZ_MAX_UPLOAD_MB``; a larger upload that
reaches the server anyway is refused with a message naming the file, its size and the cap.

Display: a dynamic text (an id, a name, a judge failure) longer than :data:`SHOWN_CHARS` is shown cut
with a "show all" expander holding it whole up to :data:`WHOLE_CHARS`; a document longer than
:data:`DOCUMENT_SHOWN_CHARS` (1 MB) is cut for display and never sent to the browser whole.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = [
    "DOCUMENT_SHOWN_CHARS",
    "MB",
    "SHOWN_CHARS",
    "STREAMLIT_DEFAULT_UPLOAD_MB",
    "UPLOAD_ENV",
    "WHOLE_CHARS",
    "cut",
    "too_big",
    "upload_limit_mb",
]

UPLOAD_ENV = "RAGVIZ_MAX_UPLOAD_MB"
STREAMLIT_DEFAULT_UPLOAD_MB = 200
SHOWN_CHARS = 300
WHOLE_CHARS = 100_000
DOCUMENT_SHOWN_CHARS = 1_000_000
MB = 1024 * 1024


def upload_limit_mb(server_max_mb: object, environ: Mapping[str, str] | None = None) -> int:
    """The upload cap in MB: the smaller of Streamlit's ``server.maxUploadSize`` and
    ``RAGVIZ_MAX_UPLOAD_MB`` (ignored when not a positive whole number).

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


def cut(text: str, limit: int = SHOWN_CHARS) -> tuple[str, bool]:
    """*text* cut to *limit* characters (``…`` at the end when cut) and whether it was cut.

    >>> cut("abcdef", 4)
    ('abc…', True)
    """
    if len(text) <= limit:
        return text, False
    return text[: limit - 1] + "…", True
