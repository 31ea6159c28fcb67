"""Where exported bytes go: a path written atomically (a temporary file beside it, fsynced, renamed over it,
with the permissions the umask gives), stdout for ``"-"``, or an open binary file."""

from __future__ import annotations

import errno
import io
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = ["binary_output", "checked_target", "current_umask", "write_output"]


@contextmanager
def binary_output(path_or_file: str | os.PathLike | IO[bytes]) -> Iterator[IO[bytes]]:
    """A binary file to write to: a temporary file beside *path* renamed over it on success
    (fsynced first), stdout's buffer for ``"-"``, or the given file object."""
    if not isinstance(path_or_file, (str, os.PathLike)):
        yield path_or_file
        return
    if str(path_or_file) == "-":
        yield sys.stdout.buffer
        sys.stdout.flush()
        return
    target = checked_target(path_or_file)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path_or_file)) from None
    try:
        os.fchmod(fd, 0o666 & ~current_umask())  # mkstemp makes it 0600; a written file follows the umask
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def checked_target(path: str | os.PathLike) -> Path:
    """*path* as a file to write, or an ``OSError`` naming *path* itself (never the temporary file
    written beside it): a folder, a folder that does not exist, or one this process may not write in."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"no folder {parent}", str(path))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, f"cannot write in {parent}", str(path))
    return target


def current_umask() -> int:
    """The process's umask, read from ``/proc/self/status`` (setting it to read it back, the only
    portable way, would race with other threads writing files), else by setting and restoring it."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_output(data: bytes, path_or_file: str | os.PathLike | IO[bytes] | IO[str]) -> None:
    """Write *data* to a path (atomically), ``"-"`` (stdout) or an open file (a text stream gets UTF-8 text)."""
    if isinstance(path_or_file, (str, os.PathLike)):
        with binary_output(path_or_file) as f:  # atomic rename for a path, stdout for "-"
            f.write(data)
        return
    if isinstance(path_or_file, io.TextIOBase):
        path_or_file.write(data.decode("utf-8"))
    else:
        # Any file object that is not a text stream is taken to be binary; IO[str] cannot say which.
        path_or_file.write(data)  # type: ignore[arg-type]
