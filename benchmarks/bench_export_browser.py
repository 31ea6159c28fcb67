"""The Export page's download as a person gets it, measured in a real browser (Debian chromium via Playwright).

A fresh `streamlit run app.py` on --data (default: 100,000 synthetic rows, ``make_synthetic.py``). Per run, a
new browser session opens ``/export``, picks --format, presses "Build labels (JSONL)" (or Parquet) and watches the progress bar until the
download button is there, then downloads the file. Meanwhile a second session (another user) presses J on
the Review page again and again. Prints, each the median over --runs:

* **build**: from the press to the download button; how many distinct ``rows done / total`` texts the bar
  showed and the longest time it went without a new one (a frozen page would show one long gap);
* **download**: from the click to the file saved; its size and rows (checked against the data);
* **the other user's J** during the build: median and worst, against J with nothing else running;
* the server's resident memory after the runs.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_export_browser.py --data /tmp/syn100k.parquet [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_review_browser import CHROMIUM, DRAWN_JS, server

PROGRESS_JS = """() => {
  const bar = document.querySelector('[data-testid="stProgress"]');
  return bar ? bar.innerText.trim() : null;
}"""


def server_rss_mb(port: int) -> float:
    pids = subprocess.run(["pgrep", "-f", f"server.port {port}"], capture_output=True, text=True).stdout.split()
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


class OtherUser:
    """A second browser session on the Review page pressing J, timed from the key to the next example drawn."""

    def __init__(self, browser, url: str) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 800})
        self.page = self.context.new_page()
        self.page.set_default_timeout(300_000)
        self.page.goto(f"{url}/review")
        self.page.wait_for_function(DRAWN_JS, arg=None, polling="raf")

    def press_j(self) -> float:
        before = self.page.evaluate("() => new URLSearchParams(location.search).get('uid')")
        t0 = time.monotonic()
        self.page.keyboard.press("j")
        self.page.wait_for_function(
            "(before) => new URLSearchParams(location.search).get('uid') !== before", arg=before, polling="raf"
        )
        self.page.wait_for_function(DRAWN_JS, arg=None, polling="raf")
        return time.monotonic() - t0


FORMATS = {"jsonl": "labels (JSONL)", "parquet": "labels (Parquet)"}  # the buttons' words


def build_and_download(browser, url: str, fmt: str, out: Path, other: OtherUser) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(300_000)
    page.goto(f"{url}/export")
    page.get_by_text("L" + FORMATS[fmt][1:], exact=True).click()  # the format's radio option
    build = page.get_by_role("button", name=f"Build {FORMATS[fmt]}")
    build.wait_for()
    seen: list[tuple[float, str]] = []
    other_times: list[float] = []
    # Playwright's sync API is single-threaded: the other user's presses interleave with the looks at the bar
    t0 = time.monotonic()
    build.click()
    download = page.get_by_role("button", name=f"Download {FORMATS[fmt]}")
    while not download.is_visible():
        text = page.evaluate(PROGRESS_JS)
        if text and (not seen or seen[-1][1] != text):
            seen.append((time.monotonic() - t0, text))
        if len(other_times) < 20:
            other_times.append(other.press_j())
        else:
            page.wait_for_timeout(50)
    built = time.monotonic() - t0
    gaps = [b[0] - a[0] for a, b in zip([(0.0, "")] + seen, seen + [(built, "")], strict=False)]
    t1 = time.monotonic()
    with page.expect_download(timeout=300_000) as info:
        download.click()
    started = time.monotonic() - t1
    info.value.save_as(out)
    downloaded = time.monotonic() - t1
    if fmt == "parquet":
        import pyarrow.parquet as pq

        rows = pq.read_metadata(out).num_rows
    else:
        with out.open("rb") as f:
            rows = sum(1 for _ in f)
    context.close()
    return {
        "build": built,
        "texts": len(seen),
        "longest_gap": max(gaps),
        "last_text": seen[-1][1] if seen else "",
        "download": downloaded,
        "started": started,
        "size_mb": out.stat().st_size / 2**20,
        "rows": rows,
        "other": other_times,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/tmp/syn100k.parquet")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--format", choices=FORMATS, default="jsonl")
    parser.add_argument("--port", type=int, default=8794)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        with server(args.data, args.port, Path(tmp)) as (url, _):
            other = OtherUser(browser, url)
            quiet = [other.press_j() for _ in range(10)]
            results = [
                build_and_download(browser, url, args.format, Path(tmp) / f"export-{i}.{args.format}", other)
                for i in range(args.runs)
            ]
            rss = server_rss_mb(args.port)
        browser.close()
    med = lambda key: statistics.median(r[key] for r in results)  # noqa: E731
    during = [t for r in results for t in r["other"]]
    print(f"data: {args.data}; format: {args.format}; runs: {args.runs}")
    print(
        f"build (press to download button): median {med('build'):.2f} s "
        f"(runs {', '.join(format(r['build'], '.2f') for r in results)})"
    )
    print(
        f"progress: median {med('texts'):.0f} distinct rows done / total texts; longest without a new one "
        f"median {med('longest_gap'):.2f} s, worst {max(r['longest_gap'] for r in results):.2f} s; "
        f"last: {results[-1]['last_text']!r}"
    )
    print(
        f"download: click to the browser's download starting median {med('started'):.2f} s, to the file saved "
        f"median {med('download'):.2f} s; "
        f"{results[-1]['size_mb']:.1f} MB, {results[-1]['rows']:,} rows"
    )
    print(
        f"other user's J: quiet median {statistics.median(quiet):.2f} s (worst {max(quiet):.2f}); "
        f"during the builds median {statistics.median(during):.2f} s (worst {max(during):.2f}, n={len(during)})"
    )
    print(f"server RSS after the runs: {rss:,.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
