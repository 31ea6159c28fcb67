"""The database goes away under a served app, in a real browser (issue 34): PostgreSQL stopped with
``pg_ctl stop -m fast``, killed with SIGKILL, or cut off by a network partition (a TCP proxy that drops
every connection) under two app replicas; an SQLite store's disk full. Through all of it no page shows a
traceback, a path or SQL; a click made during the outage says "Not saved ..." with a Retry that stores it
once; reads show one calm message; within 5 s of the database returning both replicas — a new session
included — draw their pages again, with no restart."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from ragviz.store.label_store import LabelStore
from tests.browser_wait import expect, metric_value, open_review, sentence, settle
from tests.conftest import StreamlitServer
from tests.tcp_proxy import TcpProxy

pytestmark = pytest.mark.browser

RECOVERY_S = 5.0
NOT_SAVED = "Not saved: the database is unavailable — your change is kept on this page, retry"
LEAKS = ("Traceback", "psycopg", "sqlite3", 'File "', "SELECT ", "INSERT ", "/ragviz/", "Ask Google")
SERVED = {"RAGVIZ_SERVED": "1"}  # served mode: Streamlit's error details off


def _no_leak(page) -> None:
    """Nothing of a traceback, a driver, a path or SQL on the page, and no Streamlit exception box."""
    expect()(page.locator('[data-testid="stException"]')).to_have_count(0)
    text = page.locator("body").inner_text()
    for leak in LEAKS:
        assert leak not in text, f"{leak!r} shown in the browser"


def _accepts(where: str, who: str) -> int:
    """How many Accept clicks of *who* the store holds."""
    with LabelStore(where) as store:
        return store.db.execute(
            "SELECT COUNT(*) FROM label_actions WHERE annotator = ? AND kind = 'accept'", (who,)
        ).fetchone()[0]


def _accept(page) -> None:
    settle(page)
    page.get_by_role("button", name="Accept as shown").click()
    settle(page)


def _until_drawn(page, url: str, since: float) -> float:
    """Open *url* in a new run until the Review page is drawn again; seconds since *since*."""
    while True:
        page.goto(url)
        try:
            page.wait_for_function(
                "() => document.querySelector('[data-testid=stMetric], .rv-metric') || document.querySelector('.rv-outage')",
                timeout=30_000,
            )
        except Exception:
            pass
        if metric_value(page, "Adherence").count():
            return time.monotonic() - since
        _no_leak(page)
        assert time.monotonic() - since < RECOVERY_S + 30, "the page did not recover"


@pytest.fixture(scope="module")
def fault_pg():
    from tests.pg_server import PostgresServer, find_bindir

    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not found")
    server = PostgresServer(bindir)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def proxy(fault_pg):
    p = TcpProxy(fault_pg.port)
    yield p
    p.close()


def _replicas(db: str, tmp_path) -> list[StreamlitServer]:
    servers = []
    for name in ("one", "two"):
        home, cwd = tmp_path / name / "home", tmp_path / name / "cwd"
        home.mkdir(parents=True)
        cwd.mkdir()
        servers.append(
            StreamlitServer(db=db, home=home, cwd=cwd, log=tmp_path / f"{name}.log", annotator=name, env=SERVED)
        )
    return servers


@pytest.mark.parametrize("fault", ["stop -m fast", "SIGKILL", "network partition"])
def test_two_replicas_survive_postgresql_going_away(fault_pg, proxy, chromium_browser, tmp_path, fault):
    url = fault_pg.new_database()
    through = url.replace(f":{fault_pg.port}/", f":{proxy.port}/") if fault == "network partition" else url
    servers = _replicas(through, tmp_path)
    contexts = [chromium_browser.new_context(viewport={"width": 1280, "height": 900}) for _ in servers]
    try:
        for server in servers:
            server.start()
        pages = [c.new_page() for c in contexts]
        review = [f"{s.url}/review?id=ml-vs-programming" for s in servers]
        for pg, link in zip(pages, review):
            pg.set_default_timeout(30_000)
            open_review(pg, link)
        _accept(pages[0])
        assert _accepts(url, "one") == 1
        healthy = _until_drawn(pages[1], review[1], time.monotonic())  # a new session's page, database up

        {"stop -m fast": fault_pg.stop_fast, "SIGKILL": fault_pg.kill_hard, "network partition": proxy.partition}[
            fault
        ]()
        # a click during the outage: not saved, said so, kept with a Retry
        pages[0].get_by_role("button", name="Accept as shown").click()
        expect()(pages[0].get_by_text(NOT_SAVED)).to_be_visible()
        expect()(pages[0].get_by_role("button", name="Retry")).to_be_visible()
        _no_leak(pages[0])
        # a read during the outage on the other replica, in a new session: one calm message
        pages[1].goto(review[1])
        expect()(pages[1].locator(".rv-outage")).to_contain_text("The label database is unavailable just now")
        _no_leak(pages[1])
        # Retry while it is still down: still kept, nothing stored
        pages[0].get_by_role("button", name="Retry").click()
        settle(pages[0])
        expect()(pages[0].get_by_text(NOT_SAVED)).to_be_visible()
        _no_leak(pages[0])

        if fault == "network partition":
            proxy.heal()
        else:
            fault_pg.restart()
        back = time.monotonic()
        recovered = [_until_drawn(pages[1], review[1], back)]  # replica two, a new session
        print(
            f"{fault}: replica two drew the Review page {recovered[0]:.2f} s after the database returned"
            f" (a new session's page with the database up: {healthy:.2f} s)"
        )
        # within 5 s of the database returning, plus the time this machine takes to draw a new session's
        # page at all (measured above on the same replica, database up): drawing is not recovering
        assert recovered[0] <= RECOVERY_S + healthy
        pages[0].get_by_role("button", name="Retry").click()  # replica one: the kept click, stored once
        expect()(pages[0].get_by_text(NOT_SAVED)).to_have_count(0)
        expect()(metric_value(pages[0], "Adherence")).to_be_visible()
        _no_leak(pages[0])
        assert _accepts(url, "one") == 2
        _accept(pages[1])
        assert _accepts(url, "two") == 1
    finally:
        for c in contexts:
            c.close()
        for server in servers:
            server.stop()
        if fault != "network partition":
            try:
                fault_pg.restart()
            except subprocess.CalledProcessError:
                pass  # it is running


@pytest.fixture
def small_disk(tmp_path):
    """A 4 MB tmpfs (mounting needs root; skipped without it)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_a_full_disk_under_sqlite_says_not_saved_and_retry_stores_once(small_disk, chromium_browser, tmp_path):
    db = small_disk / "labels.db"
    home = tmp_path / "home"
    home.mkdir()
    server = StreamlitServer(db=db, home=home, log=tmp_path / "app.log", annotator="one", env=SERVED).start()
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.set_default_timeout(30_000)
        link = f"{server.url}/review?id=ml-vs-programming"
        open_review(page, link)
        _accept(page)
        filler = small_disk / "filler"
        with open(filler, "wb") as out:  # fill the disk to the last byte
            try:
                while True:
                    out.write(b"\0" * 65536)
                    out.flush()
            except OSError:
                pass
        page.get_by_role("button", name="Accept as shown").click()
        expect()(page.get_by_text(NOT_SAVED)).to_be_visible()
        _no_leak(page)
        # reads still work on a full disk: a sentence click (stored inside the page's run) is told at once too
        key = page.locator('.rv-sent[data-state="neither"]').first.get_attribute("data-key")
        settle(page)
        sentence(page, key).click()
        expect()(page.locator(".rv-unsaved")).to_contain_text("edit on")
        expect()(sentence(page, key)).to_have_attribute("data-state", "neither")  # the stored label, drawn
        _no_leak(page)
        filler.unlink()
        page.get_by_role("button", name="Retry").click()
        expect()(page.get_by_text(NOT_SAVED)).to_have_count(0)
        expect()(sentence(page, key)).to_have_attribute("data-state", "relevant")
        _no_leak(page)
        assert _accepts(str(db), "one") == 2
        with LabelStore(db) as store:
            edits = store.db.execute("SELECT COUNT(*) FROM label_actions WHERE kind = 'edit'").fetchone()[0]
        assert edits == 1
    finally:
        context.close()
        server.stop()
