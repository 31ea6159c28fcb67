"""A throw-away Arize Phoenix server on 127.0.0.1 for the trace tests and benchmarks.

The server package (``arize-phoenix``, ~850 MB with its dependencies) lives in a venv of its own,
``.venv-phoenix`` at the repository root (``scripts/phoenix_venv.sh`` builds it; ``.ci/run`` calls that), so its
pins never touch ragviz's environment; ``$RAGVIZ_PHOENIX`` may name another ``phoenix`` executable. It runs with
SQLite under a temporary ``PHOENIX_WORKING_DIR``, telemetry off, on free ports, and is ready once ``/healthz``
answers (37-143 s on a fresh database here). :func:`phoenix_or_reason` says why not when it cannot run.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.sample import ROOT

__all__ = ["PhoenixServer", "free_port", "phoenix_executable", "phoenix_or_reason", "start_phoenix"]

READY_SECONDS = 400


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PhoenixServer:
    url: str
    process: subprocess.Popen
    workdir: str

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        shutil.rmtree(self.workdir, ignore_errors=True)


def phoenix_executable() -> str | None:
    named = os.environ.get("RAGVIZ_PHOENIX")
    if named:
        return named if Path(named).is_file() else None
    local = ROOT / ".venv-phoenix" / "bin" / "phoenix"
    return str(local) if local.is_file() else shutil.which("phoenix")


def start_phoenix(executable: str) -> PhoenixServer:
    """Start ``phoenix serve`` and wait until it is healthy (RuntimeError with its log's tail if it never is)."""
    workdir = tempfile.mkdtemp(prefix="ragviz-phoenix-")
    port = free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": workdir,
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(free_port()),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    env.pop("PHOENIX_API_KEY", None)
    env.pop("PHOENIX_COLLECTOR_ENDPOINT", None)
    log = open(Path(workdir) / "server.log", "wb")  # noqa: SIM115  # closed with the process
    process = subprocess.Popen([executable, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return PhoenixServer(url, process, workdir)
        except OSError:
            pass
        time.sleep(1)
    process.kill()
    tail = (Path(workdir) / "server.log").read_text(errors="replace")[-2000:]
    shutil.rmtree(workdir, ignore_errors=True)
    raise RuntimeError(f"phoenix serve was not healthy within {READY_SECONDS} s: {tail}")


def phoenix_or_reason() -> tuple[str | None, str]:
    """The executable, or None and why the Phoenix tests skip."""
    executable = phoenix_executable()
    if executable is None:
        return None, "no Phoenix server installed (run scripts/phoenix_venv.sh, or set RAGVIZ_PHOENIX)"
    return executable, ""
