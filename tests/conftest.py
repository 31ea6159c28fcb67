"""Shared fixtures: an isolated app environment, a real `streamlit run` server on 127.0.0.1, and a
headless Debian chromium driven by Playwright.

Browser tests are marked ``browser``. When chromium or Playwright is missing they skip, except in
CI (``CI=true``) where they fail: the browser tests must run there.

Label-store tests take ``db_target``: once an SQLite file, once an empty PostgreSQL database on a
server this session starts from Debian's binaries (``tests/pg_server.py``). Without those binaries
the PostgreSQL variant skips, except in CI where it fails.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests import reaper
from tests.cpu_times import pytest_addoption, pytest_runtest_protocol  # noqa: F401 (hooks: --cpu-times FILE)
from tests.sample import ROOT, SAMPLE_DATA

CHROMIUM = os.environ.get("RAGVIZ_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def skip_or_fail(reason: str) -> None:
    if in_ci():
        pytest.fail(f"{reason} (CI=true: browser tests must run)")
    pytest.skip(reason)


@pytest.fixture
def app_env(tmp_path, monkeypatch):
    """Environment for an AppTest run: a fresh label DB, the sample data, HOME elsewhere."""
    home = tmp_path / "home"
    home.mkdir()
    db = tmp_path / "labels.db"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("RAGVIZ_DB", str(db))
    monkeypatch.setenv("RAGVIZ_DATA", str(SAMPLE_DATA))
    monkeypatch.setenv("RAGVIZ_ANNOTATOR", "tester")
    monkeypatch.setenv("RAGVIZ_SERVED", "0")  # AppTest has no server address; tests of served mode set "1"
    monkeypatch.delenv("RAGVIZ_DATA_ROOT", raising=False)
    return {"db": db, "home": home, "tmp": tmp_path}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Run by the reference venv's Python (glide-py needs 3.12), never imported here: --doctest-modules would.
collect_ignore = ["analysis/audits/glide_reference.py"]


# While a run redraws the page, the elements of the run before stay on screen marked stale; one that the
# new run draws at another place is there twice for a moment, and a strict locator fails at once
# (Playwright's "strict mode violation"; seen under load, e.g. CI's). ``browser_wait.FRESH`` keeps the
# shared locators to the current run; a browser test that still fails that way, and only that way, runs
# again (pytest-rerunfailures), up to twice.
DUPLICATED_ELEMENT = "strict mode violation"


def pytest_sessionstart(session):
    """Stop the PostgreSQL and Streamlit servers that an earlier, killed test run left running (``tests/reaper.py``)."""
    reaped = ", ".join(f"{r.kind} pid {r.pid}" for r in reaper.reap_stale())
    terminal = session.config.pluginmanager.get_plugin("terminalreporter")
    if reaped and terminal is not None:
        terminal.write_line(f"stopped the servers a killed test run left: {reaped}")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.flaky(reruns=2, only_rerun=[DUPLICATED_ELEMENT]))


@dataclass
class StreamlitServer:
    """A `streamlit run serve.py` child process (the app as `ragviz app` serves it) on 127.0.0.1 with its own DB (a file or a PostgreSQL URL),
    HOME, working directory and log file."""

    db: Path | str
    home: Path
    log: Path
    cwd: Path = ROOT
    data: str = str(SAMPLE_DATA)
    annotator: str = "browser-tester"
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None
    env: dict[str, str] = field(default_factory=dict)  # more environment (e.g. RAGVIZ_SERVED)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> StreamlitServer:
        env = {
            **os.environ,
            "HOME": str(self.home),
            "RAGVIZ_DB": str(self.db),
            "RAGVIZ_DATA": self.data,
            "RAGVIZ_ANNOTATOR": self.annotator,
            **self.env,
        }
        cmd = [
            sys.executable, "-m", "streamlit", "run", str(ROOT / "serve.py"),
            "--server.address", "127.0.0.1",
            "--server.port", str(self.port),
            "--server.headless", "true",
            "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none",
        ]  # fmt: skip
        out = open(self.log, "ab")
        self.proc = subprocess.Popen(
            cmd, cwd=self.cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        out.close()
        reaper.record("streamlit", self.proc.pid, group=True)  # stopped by the next session if this one is killed
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"streamlit exited with {self.proc.returncode}; log:\n{self.log.read_text()[-3000:]}"
                )
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"streamlit did not become healthy in {timeout}s; log:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL: no shutdown hook runs (what a crash or the OOM killer does)."""
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        if self.proc:
            reaper.forget("streamlit", self.proc.pid)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.proc:
            reaper.forget("streamlit", self.proc.pid)


@pytest.fixture
def streamlit_server(tmp_path):
    """A running app on the sample data with a fresh DB; restartable (``.kill()`` then ``.start()``)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    server = StreamlitServer(db=tmp_path / "labels.db", home=home, log=tmp_path / "streamlit.log")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def looking_server(tmp_path_factory):
    """One running app on the sample data with a fresh DB for a whole test module whose tests only look: they make
    no decision, write nothing and never restart it, so a fresh server per test would add only its start-up."""
    tmp = tmp_path_factory.mktemp("looking-server")
    home = tmp / "home"
    home.mkdir()
    server = StreamlitServer(db=tmp / "labels.db", home=home, log=tmp / "streamlit.log")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def chromium_browser():
    """A headless Debian chromium driven by Playwright (never `playwright install`)."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        skip_or_fail(f"chromium not found at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("playwright (python) is not installed")
    executable = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium_browser):
    context = chromium_browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    yield pg
    context.close()


@pytest.fixture
def screenshot():
    """``screenshot(page, name)`` saves artifacts/screenshots/<name>.png (the whole scrolled page)."""

    def take(pg, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        pg.wait_for_timeout(300)  # let the last rerun's skeletons settle
        # Streamlit scrolls inside its main container, so grow the viewport to the content first.
        height = pg.evaluate(
            "() => Math.max(...[...document.querySelectorAll('[data-testid=stMain], section.main, body')].map(e => e.scrollHeight))"
        )
        size = pg.viewport_size
        pg.set_viewport_size({"width": size["width"], "height": min(max(height, size["height"]), 6000)})
        pg.screenshot(path=str(path), full_page=True)
        pg.set_viewport_size(size)
        return path

    return take


@pytest.fixture(scope="session")
def postgres_server():
    """A PostgreSQL server for the session (``tests/pg_server.py``); skips (fails in CI) without one."""
    from tests.pg_server import PostgresServer, find_bindir

    bindir = find_bindir()
    if bindir is None:
        if in_ci():
            pytest.fail("PostgreSQL server binaries (initdb, pg_ctl) not found (CI=true: apt-get install postgresql)")
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        if in_ci():
            pytest.fail("psycopg is not installed (CI=true: it is in requirements.txt)")
        pytest.skip("psycopg is not installed")
    server = PostgresServer(bindir)
    server.start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_target(request, tmp_path):
    """Where a fresh label store goes: an SQLite file path, or the URL of an empty PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "labels.db")
    return request.getfixturevalue("postgres_server").new_database()
