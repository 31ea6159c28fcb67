"""Open every page of the app in both themes and two window sizes and write one PNG each.

    .venv/bin/python scripts/screenshot_walk.py [--data sample_data] [--out artifacts/walk] [--page review ...] [--db FILE] [--query uid=...]

Starts one throw-away server per theme (light, dark) on free ports with a fresh label store (a copy of
``--db FILE`` when given, to show decisions and audit samples), waits for
``/_stcore/health``, then drives Debian's chromium (``/usr/bin/chromium``) through Playwright and saves
``<out>/<theme>-<width>x<height>-<page>.png`` (full page). Look at every picture: blank drawings, cut-off
labels and wrong colours are bugs whatever the tests say.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("home", "data", "review", "export", "label", "judge", "dashboard", "explainer", "compare", "claims", "team")
SIZES = ((1280, 800), (1920, 1080))
TABS = {"team": ("Adjudication", "Annotators", "Guidelines")}  # pages whose other tabs get a picture each
OPEN = {"claims": "Open RagChecker's example"}  # a button pressed first, when there, so the page shows something
THEMES = ("light", "dark")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def server(theme: str, data: str, workdir: Path, db: str | None = None) -> Iterator[str]:
    port = free_port()
    if db:
        import shutil

        shutil.copyfile(db, workdir / f"{theme}.db")
    log = open(workdir / f"server-{theme}.log", "w")  # noqa: SIM115 - closed below
    env = {**os.environ, "RAGVIZ_DATA": data, "RAGVIZ_DB": str(workdir / f"{theme}.db"), "PYTHONPATH": str(ROOT)}
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "serve.py"),
        "--server.address", "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
        "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit(f"server did not start; see {workdir / f'server-{theme}.log'}") from None
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


MAX_HEIGHT = 8000  # px: a longer page is cut here (the 1,056-sentence example would be ~56,000)


def wait_until_drawn(page, quiet_ms: int = 800, timeout_s: float = 60) -> None:
    """Until Streamlit shows no running indicator and no skeleton for *quiet_ms* in a row."""
    busy = '[data-testid="stStatusWidget"], [data-testid="stSkeleton"]'
    deadline = time.monotonic() + timeout_s
    quiet_since = None
    while time.monotonic() < deadline:
        if page.locator(busy).count():
            quiet_since = None
        elif quiet_since is None:
            quiet_since = time.monotonic()
        elif (time.monotonic() - quiet_since) * 1000 >= quiet_ms:
            return
        page.wait_for_timeout(100)


def walk(url: str, theme: str, pages: tuple[str, ...], out: Path, query: str = "") -> list[Path]:
    from playwright.sync_api import sync_playwright

    shots = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        for width, height in SIZES:
            # the theme as a person's system asks for it: with config.toml's [theme.light], --theme.base dark
            # drew the light theme
            page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=theme)
            for name in pages:
                page.set_viewport_size({"width": width, "height": height})
                page.goto((f"{url}/" if name == "home" else f"{url}/{name}") + (f"?{query}" if query else ""))
                page.wait_for_selector('[data-testid="stSidebar"]', timeout=60_000)
                wait_until_drawn(page)
                if name in OPEN and page.get_by_role("button", name=OPEN[name]).count():
                    page.get_by_role("button", name=OPEN[name]).click()
                    wait_until_drawn(page)
                # the app scrolls inside its main container: grow the window to show all of it
                full = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
                page.set_viewport_size({"width": width, "height": min(max(height, int(full)), MAX_HEIGHT)})
                wait_until_drawn(page)
                path = out / f"{theme}-{width}x{height}-{name}.png"
                page.screenshot(path=str(path))
                shots.append(path)
                for tab in TABS.get(name, ()):
                    page.get_by_role("tab", name=tab).click()
                    wait_until_drawn(page)
                    full = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
                    page.set_viewport_size({"width": width, "height": min(max(height, int(full)), MAX_HEIGHT)})
                    path = out / f"{theme}-{width}x{height}-{name}-{tab.lower()}.png"
                    page.screenshot(path=str(path))
                    shots.append(path)
            page.close()
        browser.close()
    return shots


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT / "sample_data"), help="what RAGVIZ_DATA opens")
    parser.add_argument("--out", default=str(ROOT / "artifacts" / "walk"), help="folder for the PNGs")
    parser.add_argument("--page", action="append", choices=PAGES, help="only these pages (repeatable)")
    parser.add_argument("--db", help="an SQLite label store to start each server from (copied, never written)")
    parser.add_argument(
        "--query", default="", help="URL query for every page, e.g. uid=expertqa_test/expertqa_206/ExpertQA"
    )
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pages = tuple(args.page or PAGES)
    with tempfile.TemporaryDirectory() as tmp:
        for theme in THEMES:
            with server(theme, args.data, Path(tmp), args.db) as url:
                for shot in walk(url, theme, pages, out, args.query):
                    print(shot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
