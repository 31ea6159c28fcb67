"""The Review page's speed as a person feels it, measured in a real browser (Debian chromium via Playwright).

Two figures, each the median of several runs:

* **first example**: a fresh `streamlit run serve.py` (as `ragviz app`) on the sample data; from the moment its
  ``/_stcore/health`` answers, the time until the browser (already started) has opened ``/review`` and
  shows the first example whole: the metric cards, the context documents and no element still drawn
  from an older run. Target <= 2 s. Every run starts a new server (nothing cached).
* **J / K**: one server on the RAGBench shards (``../shared/ragbench``, 2,896 rows); the page opens a
  few rows before the longest example (1,056 context sentences), then J steps over it and K steps back.
  Each press is timed from the key to the moment the new example is drawn whole (its id in the header,
  no stale element, the app idle). Target <= 0.5 s, the longest example included.

    .venv/bin/python benchmarks/bench_review_browser.py [--runs 5] [--steps 6] [--port 8790]

Exits 1 when a median misses its target.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RAGBENCH = ROOT.parent / "shared" / "ragbench"
CHROMIUM = os.environ.get("RAGVIZ_CHROMIUM", "/usr/bin/chromium")
FIRST_TARGET_S = 2.0
STEP_TARGET_S = 0.5

# The page is drawn whole: metric cards and context there, nothing stale, the app not running.
DRAWN_JS = """(want) => {
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  const metrics = document.querySelectorAll('[data-testid="stMetric"], .rv-metric');
  if (metrics.length < 4) return false;
  if (!document.querySelector('.rv-doc')) return false;
  if (want && new URLSearchParams(location.search).get('uid') !== want) return false;
  return true;
}"""


def port_in_use(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_healthy(
    url: str, proc: subprocess.Popen, timeout_s: float, log: Path, poll: float, path: str = "/_stcore/health"
) -> None:
    """Poll *url*'s health check *path* (Streamlit's by default) every *poll* seconds until it answers 200; exit
    naming *log* when the server dies or *timeout_s* passes."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}{path}", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit(f"server did not start; see {log}") from None
            time.sleep(poll)


def app_env(data: str, db: Path, home: Path) -> dict[str, str]:
    """The environment a benchmarked app runs in: this one, with *data* open, a fresh store *db*, the annotator
    ``bench`` and *home* as HOME."""
    return {
        **os.environ,
        "RAGVIZ_DATA": data,
        "RAGVIZ_DB": str(db),
        "RAGVIZ_ANNOTATOR": "bench",
        "HOME": str(home),
        "PYTHONPATH": str(ROOT),
    }


@contextlib.contextmanager
def streamlit_process(
    script: Path, port: int, env: dict[str, str], cwd: Path, log_path: Path, *, timeout_s: float, poll: float
) -> Iterator[tuple[str, subprocess.Popen]]:
    """``streamlit run script`` headless on 127.0.0.1:*port* with *env* (whole), its output appended to *log_path*;
    yields its URL and process once its health check answers, and stops it after."""
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(script),
        "--server.address", "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]  # fmt: skip
    log = open(log_path, "ab")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout_s, log_path, poll=poll)
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


@contextlib.contextmanager
def server(data: str, port: int, workdir: Path) -> Iterator[tuple[str, float]]:
    """A fresh server on *data*; yields its URL and the monotonic time its health check first answered."""
    if port_in_use(port):
        raise SystemExit(f"port {port} is in use; pass --port")
    env = app_env(data, workdir / f"bench-{port}-{time.monotonic_ns()}.db", workdir)
    with streamlit_process(ROOT / "serve.py", port, env, ROOT, workdir / "server.log", timeout_s=120, poll=0.02) as (
        url,
        _,
    ):
        yield url, time.monotonic()


def wait_drawn(page, want_uid: str | None = None, timeout_ms: int = 120_000) -> None:
    page.wait_for_function(DRAWN_JS, arg=want_uid, polling="raf", timeout=timeout_ms)


def first_example_times(browser, runs: int, port: int, workdir: Path) -> list[float]:
    times = []
    for _ in range(runs):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.goto("about:blank")
        with server(str(ROOT / "sample_data"), port, workdir) as (url, up):
            page.goto(f"{url}/review")
            wait_drawn(page)
            times.append(time.monotonic() - up)
        context.close()
    return times


def step_times(browser, steps: int, rounds: int, port: int, workdir: Path) -> tuple[list[float], list[float]]:
    """J over the longest example and K back; returns (all step times, the steps that opened the longest)."""
    sys.path.insert(0, str(ROOT))
    from ragviz.data.load import load

    ds = load([str(RAGBENCH)]).dataset
    longest = max(range(len(ds)), key=lambda i: ds.example(i).n_context_sentences)
    start = max(0, longest - steps // 2)
    rows = list(range(start, min(len(ds), start + steps + 1)))
    all_times: list[float] = []
    longest_times: list[float] = []
    with server(str(RAGBENCH), port, workdir) as (url, _):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.set_default_timeout(120_000)
        page.goto(f"{url}/review?uid={ds.uids[rows[0]]}")
        wait_drawn(page, ds.uids[rows[0]])
        page.wait_for_timeout(500)
        for _ in range(rounds):
            for key, order in (("j", rows[1:]), ("k", list(reversed(rows[:-1])))):
                for row in order:
                    page.evaluate("() => document.activeElement && document.activeElement.blur()")
                    t0 = time.monotonic()
                    page.keyboard.press(key)
                    page.wait_for_timeout(20)  # the keypress reaches the app before we look
                    wait_drawn(page, ds.uids[row])
                    elapsed = time.monotonic() - t0
                    all_times.append(elapsed)
                    if row == longest:
                        longest_times.append(elapsed)
        context.close()
    return all_times, longest_times


def fmt(times: list[float]) -> str:
    return f"median {statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}, n={len(times)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh servers for the first-example figure")
    parser.add_argument("--steps", type=int, default=6, help="J presses per round (then as many K presses)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of J then K")
    parser.add_argument("--port", type=int, default=8790)
    parser.add_argument("--skip-first", action="store_true", help="only the J / K figure")
    parser.add_argument("--skip-steps", action="store_true", help="only the first-example figure")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    failed = False
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        if not args.skip_first:
            first = first_example_times(browser, args.runs, args.port, Path(tmp))
            print(
                f"first example shown after the server is up (sample data): {fmt(first)}; target <= {FIRST_TARGET_S} s"
            )
            failed |= statistics.median(first) > FIRST_TARGET_S
        if not args.skip_steps:
            if not RAGBENCH.is_dir():
                print(f"{RAGBENCH}: not found; J / K figure skipped", file=sys.stderr)
            else:
                steps, longest = step_times(browser, args.steps, args.rounds, args.port + 1, Path(tmp))
                print(f"J / K on the RAGBench shards: {fmt(steps)}; target <= {STEP_TARGET_S} s")
                print(f"J / K onto the longest example (1,056 context sentences): {fmt(longest)}")
                failed |= statistics.median(steps) > STEP_TARGET_S or max(longest) > STEP_TARGET_S
        browser.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
