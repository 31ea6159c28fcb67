"""``ragviz app`` runs Streamlit as its child: a SIGTERM to ``ragviz app`` alone (``kill PID``, a supervisor that
signals the process it started, systemd's ``KillMode=process``) stops that child too, so the port is free again;
it used to leave the server running, orphaned, on the port."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request

from tests import reaper
from tests.conftest import free_port
from tests.sample import ROOT, SAMPLE_DATA


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


def test_sigterm_to_ragviz_app_stops_the_streamlit_server_it_started(tmp_path):
    port, log = free_port(), tmp_path / "app.log"
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env |= {"HOME": str(tmp_path), "RAGVIZ_DB": str(tmp_path / "labels.db")}
    command = [sys.executable, "-m", "ragviz", "app", str(SAMPLE_DATA), "--port", str(port), "--host", "127.0.0.1"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [*command, "--headless"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: the finally below stops whatever is left of it
        )
    reaper.record("streamlit", proc.pid, group=True)
    try:
        deadline = time.monotonic() + 90
        while not _healthy(url):
            assert proc.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, "not healthy in time: " + log.read_text()[-3000:]
            time.sleep(0.3)

        proc.send_signal(signal.SIGTERM)  # ragviz app alone, not its process group
        proc.wait(30)
        deadline = time.monotonic() + 30
        while _healthy(url) and time.monotonic() < deadline:
            time.sleep(0.3)
        assert not _healthy(url), "the Streamlit server outlived ragviz app: " + log.read_text()[-3000:]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        reaper.forget("streamlit", proc.pid)
