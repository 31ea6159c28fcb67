"""A killed test run's PostgreSQL and Streamlit servers are stopped by the next session (tests/reaper.py); a live
run's servers and processes that merely reuse a recorded PID are never touched."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from tests import reaper
from tests.sample import ROOT

# A test run in miniature: starts the servers as the fixtures do, says so, then waits to be killed.
OWNER = """
import sys, time, types
from pathlib import Path
sys.path.insert(0, {root!r})
sys.modules["tests"] = types.ModuleType("tests")  # this checkout's tests/, not a package of that name installed
sys.modules["tests"].__path__ = [{root!r} + "/tests"]
from tests.conftest import StreamlitServer
from tests.pg_server import PostgresServer, find_bindir
tmp = Path({tmp!r})
PostgresServer(find_bindir()).start()
StreamlitServer(db=tmp / "labels.db", home=tmp, log=tmp / "streamlit.log").start(timeout=180)
print("started", flush=True)
time.sleep(600)
"""


@pytest.fixture
def registry(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "registry"
    monkeypatch.setenv("RAGVIZ_TEST_SERVERS_DIR", str(path))
    return reaper.registry()


def _records(path: Path) -> list[reaper.Record]:
    return [reaper.Record(**json.loads(p.read_text())) for p in sorted(path.glob("*.json"))]


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_a_killed_runs_postgresql_and_streamlit_servers_are_stopped_by_the_next_session(tmp_path, registry):
    from tests.pg_server import find_bindir

    if find_bindir() is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found")
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER.format(root=str(ROOT), tmp=str(tmp_path))],
        stdout=subprocess.PIPE,
        env={**os.environ, "HOME": str(tmp_path)},
        text=True,
    )
    records: list[reaper.Record] = []
    try:
        assert owner.stdout is not None and owner.stdout.readline().strip() == "started"
        records = _records(registry)
        assert sorted(r.kind for r in records) == ["postgres", "streamlit"]
        assert all(r.owner == owner.pid and r.alive() for r in records)
        owner.send_signal(signal.SIGKILL)  # the run is killed: nothing of its own stops the servers
        owner.wait(10)
        assert all(r.alive() for r in records), "the servers outlive the killed run"
        postgres = next(r for r in records if r.kind == "postgres")
        port = int(next(Path(postgres.root).glob("data/postmaster.pid")).read_text().split()[3])
        assert _listening(port)

        reaped = reaper.reap_stale()

        assert sorted((r.kind, r.pid) for r in reaped) == sorted((r.kind, r.pid) for r in records)
        assert not any(r.alive() for r in records)
        assert not _listening(port)
        assert not Path(postgres.root).exists(), "the killed run's PostgreSQL folder is removed"
        assert not list(registry.iterdir())
    finally:
        owner.kill()
        owner.wait(10)
        for r in records:  # the test failed half way: leave nothing running
            if r.alive():
                os.kill(r.pid, signal.SIGKILL)


def test_a_live_runs_servers_and_a_reused_pid_are_left_alone(tmp_path, registry):
    server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone_start = reaper.start_time(gone.pid)
    gone.wait(10)
    try:
        kept, left = tmp_path / "kept", tmp_path / "left"
        kept.mkdir()
        left.mkdir()
        reaper.record("streamlit", server.pid, kept, group=True)  # owned by this process, which runs
        start = reaper.start_time(server.pid)
        assert start is not None and gone_start is not None
        # A killed run's record naming the same PID with another start time: the PID was reused since.
        reused = reaper.Record("streamlit", server.pid, start - 1, gone.pid, gone_start, str(left), True)
        (registry / "streamlit-reused.json").write_text(json.dumps(asdict(reused)))

        reaped = reaper.reap_stale(timeout=2)

        assert reaped == [reused]
        with pytest.raises(subprocess.TimeoutExpired):  # a process that only reuses a recorded PID is never signalled
            server.wait(0.5)
        assert kept.exists() and not left.exists()
        assert [r.pid for r in _records(registry)] == [server.pid]
        reaper.forget("streamlit", server.pid)
        assert not list(registry.glob("*.json"))
    finally:
        server.kill()
        server.wait(10)
