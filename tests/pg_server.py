"""A throw-away PostgreSQL server for the tests, started from Debian's binaries in a temp dir.

``initdb`` into a temp folder, ``pg_ctl start`` listening on 127.0.0.1 at a free port (and a Unix
socket in the same folder); run as the ``postgres`` user when the tests run as root (PostgreSQL
refuses root). Each test gets an empty database of its own (:meth:`PostgresServer.new_database`).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    from tests import reaper
except ImportError:  # loaded by its path, outside pytest (tests/fixtures/make_store_of_main.py)
    import importlib.util

    _spec = importlib.util.spec_from_file_location("ragviz_tests_reaper", Path(__file__).with_name("reaper.py"))
    assert _spec is not None and _spec.loader is not None
    reaper = sys.modules["ragviz_tests_reaper"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(reaper)


def find_bindir() -> Path | None:
    """The folder holding ``initdb`` / ``pg_ctl`` / ``postgres``: ``$RAGVIZ_PG_BINDIR``, Debian's
    ``/usr/lib/postgresql/<version>/bin`` (newest), else ``PATH``."""
    env = os.environ.get("RAGVIZ_PG_BINDIR")
    candidates = [env] if env else []
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True)
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(str(Path(on_path).resolve().parent))
    for c in candidates:
        if c and (Path(c) / "initdb").exists() and (Path(c) / "pg_ctl").exists() and (Path(c) / "postgres").exists():
            return Path(c)
    return None


def _ppid(proc: Path) -> int | None:
    try:
        return int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    USER = "ragviz_test"

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.port = _free_port()
        self.root = Path(tempfile.mkdtemp(prefix="ragviz-pg-"))
        self.data = self.root / "data"
        self._run_as: str | None = None
        if os.geteuid() == 0:
            self._run_as = "postgres"
            try:
                pw = pwd.getpwnam(self._run_as)
            except KeyError:
                raise RuntimeError("running as root and no 'postgres' user to run PostgreSQL as") from None
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
        self._names = itertools.count()
        self._postmaster: int | None = None

    def _cmd(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            check=True,
            capture_output=True,
            text=True,
            user=self._run_as,
            cwd=self.root,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"},
        )

    def start(self) -> None:
        self._cmd("initdb", "-D", str(self.data), "-U", self.USER, "--auth=trust", "--locale=C", "-E", "UTF8")
        self._pg_ctl_start()

    def _pg_ctl_start(self) -> None:
        opts = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c max_connections=200"
        self._cmd("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.root / "server.log"), "-w", "start")
        self._forget()
        self._postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        reaper.record("postgres", self._postmaster, self.root)  # stopped by the next session if this one is killed

    def _forget(self) -> None:
        if self._postmaster is not None:
            reaper.forget("postgres", self._postmaster)
            self._postmaster = None

    def stop_fast(self) -> None:
        """``pg_ctl stop -m fast``: every session ended (AdminShutdown), the data kept for :meth:`restart`."""
        self._cmd("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def restart(self) -> None:
        """Start the server again on the same port and data (after :meth:`stop_fast` or :meth:`kill_hard`)."""
        self._pg_ctl_start()

    def kill_hard(self) -> None:
        """SIGKILL to the postmaster and every process it started (what the OOM killer or a crash does);
        the next :meth:`restart` runs crash recovery."""
        import signal
        import time

        pid = int((self.data / "postmaster.pid").read_text().split()[0])
        children = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _ppid(p) == pid]
        for victim in [pid, *children]:
            try:
                os.kill(victim, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(Path(f"/proc/{v}").exists() for v in [pid, *children]):
            time.sleep(0.05)

    def stop(self) -> None:
        try:
            self._cmd("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.root, ignore_errors=True)
        self._forget()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.USER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """The URL of a new, empty database."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)
