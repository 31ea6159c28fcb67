"""Uploaded files kept as files: streamed to disk in chunks under a content-hashed name (never a
second copy in memory), mode 0600 in a 0700 folder, one file per content.

A kept upload is named ``<first 16 hex digits of its SHA-256>-<the upload's name reduced to
[A-Za-z0-9._-]>``: the extension stays (loaders pick the format by it), and the same bytes uploaded
again, under any name with the same extension, map to the file already kept.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from pathlib import Path
from typing import BinaryIO

from ragviz.store.sqlite import fsync_dir, private_dir

__all__ = ["CHUNK", "DIGEST_CHARS", "digest_of", "keep_bytes", "keep_stream", "safe_name", "same_content", "shown_name"]


CHUNK = 1 << 20  # bytes read and written at a time
DIGEST_CHARS = 16


def safe_name(name: str) -> str:
    """*name*'s last part with every character outside ``[A-Za-z0-9._-]`` made ``_``.

    >>> safe_name("../../evil name.parquet")
    'evil_name.parquet'
    """
    base = Path(name).name or "upload"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", base).strip("._") or "upload"


def digest_of(stored: str) -> str:
    """The content digest a kept upload's name starts with."""
    return stored[:DIGEST_CHARS]


def shown_name(stored: str) -> str:
    """The upload's own (reduced) name, without the digest.

    >>> shown_name("0123456789abcdef-rows.jsonl")
    'rows.jsonl'
    """
    return stored[DIGEST_CHARS + 1 :] if len(stored) > DIGEST_CHARS + 1 and stored[DIGEST_CHARS] == "-" else stored


def same_content(folder: Path, digest: str, suffix: str) -> Path | None:
    """A file already kept in *folder* with this content digest and extension, if any."""
    if not folder.is_dir():
        return None
    for found in sorted(folder.glob(f"{digest}-*")):
        if found.suffix.lower() == suffix.lower() and found.is_file():
            return found
    return None


def _temp(folder: Path, name: str) -> Path:
    return folder / f".{name}.{os.getpid()}.{threading.get_ident()}.tmp"


def _private_file(path: Path) -> BinaryIO:
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb")


def keep_stream(folder: Path, name: str, source: BinaryIO) -> tuple[Path, bool]:
    """Copy *source* (read from where it is, :data:`CHUNK` bytes at a time) into *folder* under its
    content-hashed name; ``(path, True)`` when the file is new, ``(the file already kept for the same
    content, False)`` when it was there."""
    private_dir(folder)
    safe = safe_name(name)
    tmp = _temp(folder, safe)
    sha = hashlib.sha256()
    try:
        with _private_file(tmp) as out:
            while chunk := source.read(CHUNK):
                sha.update(chunk)
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        digest = sha.hexdigest()[:DIGEST_CHARS]
        existing = same_content(folder, digest, Path(safe).suffix)
        if existing is not None:
            return existing, False
        target = folder / f"{digest}-{safe}"
        os.replace(tmp, target)
        fsync_dir(folder)
        return target, True
    finally:
        tmp.unlink(missing_ok=True)


def keep_bytes(target: Path, data: bytes) -> Path:
    """Write *data* to *target* (mode 0600, its new folders 0700) unless it exists."""
    if not target.exists():
        private_dir(target.parent)
        tmp = _temp(target.parent, target.name)
        try:
            with _private_file(tmp) as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        fsync_dir(target.parent)
    return target
