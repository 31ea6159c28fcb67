"""Soak: every Accept click of 3 annotators on 2 app replicas (one PostgreSQL), at load >= 8, counted
against the store (issue 34 item 11: "two Accept clicks stored nothing" was seen once at load 13-16).

    .venv/bin/python benchmarks/bench_soak_clicks.py [--annotators 3] [--replicas 2] [--clicks 500]
        [--burners 8] [--nice 19] [--db sqlite]

Two ``streamlit run`` replicas on one throw-away PostgreSQL server (``tests/pg_server.py``; ``--db sqlite``:
one SQLite file), one headless chromium with a tab per annotator and replica (each tab types its
annotator's name on the Data page, then walks to Review in the same session), and ``--burners`` CPU
burners (``nice -n NICE``: they raise the load average without starving the machine's other users;
``--nice 0`` to compete fully). Each tab clicks "Accept as shown" ``--clicks`` times, each once the page
has settled from the click before (a person's pace, however slow the machine is); a click after which the
page says "Not saved" is counted as reported and retried with the page's Retry.

Printed per annotator: clicks made, accept actions stored, reported not saved, and the two failures the
soak looks for: dropped (clicked, not reported, not stored) and doubled (stored more than clicked);
then the load average sampled every 5 s (min / mean / max) and the wall time. ``--minutes`` stops every tab
clicking after that long (the counts then cover the clicks made). ``--impatient`` clicks twice at once each
time, the second while the first one's run is still going (a person double-clicking on a slow machine).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the tests' real servers: conftest.StreamlitServer, pg_server

from conftest import CHROMIUM, CHROMIUM_ARGS, StreamlitServer  # noqa: E402

from ragviz.store.label_store import LabelStore  # noqa: E402

NOT_SAVED = "Not saved: the database is unavailable"
SETTLED = (
    "() => !document.querySelector('[data-testid=stStatusWidget]') && !document.querySelector('[data-stale=true]')"
)


async def _settle(page) -> None:
    await page.wait_for_timeout(150)
    await page.wait_for_function(SETTLED, timeout=120_000)


async def _annotator_tab(
    browser, server: StreamlitServer, who: str, clicks: int, out: dict, until: float, impatient: bool
) -> None:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(120_000)
    await page.goto(f"{server.url}/data")
    name = page.get_by_label("Your name (labels are kept per annotator)")
    await name.fill(who)
    await name.press("Enter")
    await _settle(page)
    await page.locator("nav.rv-nav a").filter(has_text="Review").click()
    await page.get_by_role("button", name="Accept as shown").wait_for()
    await _settle(page)
    made = reported = 0
    for n in range(clicks):
        if time.monotonic() > until:
            print(f"{who} on {server.url}: stopped at the time limit after {made} clicks", flush=True)
            break
        if n and n % 50 == 0:
            print(f"{who} on {server.url}: {n} clicks", flush=True)
        await page.get_by_role("button", name="Accept as shown").click()
        made += 1
        if impatient:  # a second click at once, while the first one's run is still going
            await page.get_by_role("button", name="Accept as shown").first.click()
            made += 1
        await _settle(page)
        if await page.get_by_text(NOT_SAVED).count():
            reported += 1
            await page.get_by_role("button", name="Retry").click()
            await _settle(page)
    out[who]["made"] += made
    out[who]["reported"] += reported
    await context.close()


async def _clicks(servers: list[StreamlitServer], names: list[str], clicks: int, until: float, impatient: bool) -> dict:
    from playwright.async_api import async_playwright

    out = {who: {"made": 0, "reported": 0} for who in names}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        await asyncio.gather(
            *(_annotator_tab(browser, s, who, clicks, out, until, impatient) for s in servers for who in names)
        )
        await browser.close()
    return out


def _sample_load(samples: list[float], stop: threading.Event) -> None:
    while not stop.wait(5):
        samples.append(os.getloadavg()[0])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--annotators", type=int, default=3)
    ap.add_argument("--replicas", type=int, default=2)
    ap.add_argument("--clicks", type=int, default=500, help="per annotator per replica")
    ap.add_argument("--burners", type=int, default=8)
    ap.add_argument("--nice", type=int, default=19)
    ap.add_argument("--db", choices=["postgresql", "sqlite"], default="postgresql")
    ap.add_argument("--minutes", type=float, default=0, help="stop clicking after this long (0: no limit)")
    ap.add_argument(
        "--impatient", action="store_true", help="click twice at once, the second during the first one's run"
    )
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="ragviz-soak-"))
    pg = None
    if args.db == "postgresql":
        from pg_server import PostgresServer, find_bindir

        bindir = find_bindir()
        if bindir is None:
            print("no PostgreSQL binaries (initdb, pg_ctl)", file=sys.stderr)
            return 2
        pg = PostgresServer(bindir)
        pg.start()
        db = pg.new_database()
    else:
        db = str(tmp / "labels.db")
    servers = []
    for r in range(args.replicas):
        home, cwd = tmp / f"r{r}" / "home", tmp / f"r{r}" / "cwd"
        home.mkdir(parents=True)
        cwd.mkdir()
        servers.append(StreamlitServer(db=db, home=home, cwd=cwd, log=tmp / f"r{r}.log").start(timeout=180))
    burn = [sys.executable, "-c", "while True: pass"]
    burners = [subprocess.Popen(["nice", "-n", str(args.nice), *burn]) for _ in range(args.burners)]
    names = [f"soak{a}" for a in range(args.annotators)]
    samples: list[float] = [os.getloadavg()[0]]
    stop = threading.Event()
    threading.Thread(target=_sample_load, args=(samples, stop), daemon=True).start()
    t0 = time.monotonic()
    try:
        until = t0 + args.minutes * 60 if args.minutes else float("inf")
        out = asyncio.run(_clicks(servers, names, args.clicks, until, args.impatient))
    finally:
        wall = time.monotonic() - t0
        stop.set()
        for b in burners:
            b.kill()
        for s in servers:
            s.stop()
    with LabelStore(db) as store:
        for who in names:
            out[who]["stored"] = store.db.execute(
                "SELECT COUNT(*) FROM label_actions WHERE annotator = ? AND kind = 'accept'", (who,)
            ).fetchone()[0]
    if pg is not None:
        pg.stop()
    print(
        f"soak: {args.annotators} annotators x {args.replicas} replicas x {args.clicks} clicks, {args.db},"
        f" {args.burners} burners at nice {args.nice}"
    )
    bad = 0
    for who in names:
        o = out[who]
        # a reported click was retried until stored: it is stored once, like any other
        dropped = max(0, o["made"] - o["stored"])
        doubled = max(0, o["stored"] - o["made"])
        bad += dropped + doubled
        print(
            f"{who:>8}: clicked {o['made']:5d}  stored {o['stored']:5d}  reported not saved {o['reported']:3d}"
            f"  dropped {dropped}  doubled {doubled}"
        )
    print(
        f"load average (1 min): min {min(samples):.1f}  mean {sum(samples) / len(samples):.1f}  max {max(samples):.1f}"
        f"  over {len(samples)} samples;  wall {wall:.0f} s"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
