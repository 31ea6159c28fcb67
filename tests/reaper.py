"""Servers a killed test run left behind, found and stopped by the next run.

A test run starts servers that outlive it when it is killed (a timeout's SIGKILL, a closed terminal): ``pg_ctl``
daemonises PostgreSQL (its parent becomes PID 1) and ``streamlit run`` is started in a session of its own. Each such
server is recorded here when it starts, with the process that owns it (the pytest process, or xdist worker, that
started it) and the folder it lives in; a clean stop forgets it. At the start of every session
(``pytest_sessionstart`` in conftest.py) :func:`reap_stale` stops the servers whose owner is gone and removes their
folders. A server whose owner still runs (another run on the same machine) is never touched, and each process is
identified by its PID *and* start time, so a reused PID is never signalled.

The records are JSON files in ``$RAGVIZ_TEST_SERVERS_DIR``, by default ``<tmp>/ragviz-test-servers``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

__all__ = ["Record", "forget", "reap_stale", "record", "registry", "start_time"]


def registry() -> Path:
    """The folder of the records (made when missing)."""
    path = Path(os.environ.get("RAGVIZ_TEST_SERVERS_DIR") or Path(tempfile.gettempdir()) / "ragviz-test-servers")
    path.mkdir(parents=True, exist_ok=True)
    return path


def start_time(pid: int) -> int | None:
    """*pid*'s start time (clock ticks since boot, ``/proc/<pid>/stat`` field 22); ``None`` when there is no such
    process or it is a zombie (dead, not yet waited for)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else int(fields[19])


@dataclass(frozen=True)
class Record:
    """One running server: its process, the process that owns it, the folder to remove with it, and whether its
    whole process group is signalled (a server started in a session of its own)."""

    kind: str
    pid: int
    start: int
    owner: int
    owner_start: int
    root: str = ""
    group: bool = False

    def alive(self) -> bool:
        return start_time(self.pid) == self.start

    def owner_alive(self) -> bool:
        return start_time(self.owner) == self.owner_start


def _path(kind: str, pid: int) -> Path:
    return registry() / f"{kind}-{pid}.json"


def record(kind: str, pid: int, root: Path | str = "", group: bool = False) -> None:
    """Note that this process started server *pid* (of *kind*: "postgres", "streamlit"), living in *root*."""
    start, owner_start = start_time(pid), start_time(os.getpid())
    if start is None or owner_start is None:
        return
    rec = Record(kind, pid, start, os.getpid(), owner_start, str(root), group)
    tmp = _path(kind, pid).with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(rec)), encoding="utf-8")
    tmp.replace(_path(kind, pid))


def forget(kind: str, pid: int) -> None:
    """Server *pid* was stopped cleanly."""
    _path(kind, pid).unlink(missing_ok=True)


def _signal(rec: Record, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if rec.group and os.getpgid(rec.pid) == rec.pid:
            os.killpg(rec.pid, sig)
        else:
            os.kill(rec.pid, sig)


def _stop(rec: Record, timeout: float) -> None:
    # PostgreSQL: SIGQUIT is the immediate shutdown (its backends end with it); anything else: SIGTERM.
    _signal(rec, signal.SIGQUIT if rec.kind == "postgres" else signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while rec.alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    if rec.alive():
        _signal(rec, signal.SIGKILL)
        while rec.alive() and time.monotonic() < deadline + timeout:
            time.sleep(0.05)


def reap_stale(timeout: float = 10.0) -> list[Record]:
    """Stop every recorded server whose owner is gone, remove its folder and its record; the records reaped.
    Records of servers already gone are dropped the same way (their folders removed)."""
    reaped = []
    for path in sorted(registry().glob("*.json")):
        try:
            rec = Record(**json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            path.unlink(missing_ok=True)
            continue
        if rec.owner_alive():
            continue
        claimed = path.with_suffix(f".reaping-{os.getpid()}")
        try:
            path.rename(claimed)  # one reaper per record when several sessions start at once
        except OSError:
            continue
        if rec.alive():
            _stop(rec, timeout)
        if rec.root:
            shutil.rmtree(rec.root, ignore_errors=True)
        claimed.unlink(missing_ok=True)
        reaped.append(rec)
    return reaped
