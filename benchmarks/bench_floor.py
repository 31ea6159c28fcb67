"""The Review page against the framework's floor (issue 38), in headless chromium (Debian's, via Playwright).

The floor is ``benchmarks/floor_page.py``: a bare Streamlit page with a title, one ``st.html`` block of the same
example's sentences and a button (shortcut J) that shows the next one. ragviz's Review page (served as ``ragviz app``
serves it: ``serve.py``; opened at ``/review?uid=…``) and the floor (a plain ``streamlit run``, opened at ``/``) are
served side by side from the same data and measured alternately (floor, Review, floor, ...), medians of ``--runs``:

* **cold**: a fresh browser context (nothing cached) opens the page; from ``goto`` until the example is drawn whole
  (its text there, nothing stale, the app idle). JS files fetched and websocket messages received are counted, and
  the seconds the page's renderer was busy until then (script, style, layout, paint: a CPU figure that a loaded
  machine stretches less than the wall time).
* **warm**: a second tab in the same context opens the page again (the JavaScript cached).
* **J**: one press of J (Review: the next example; floor: its button), until the next example is drawn whole;
  websocket messages received per press, and the server process's CPU seconds per press.

Data sets (``--data``, comma-separated): ``sample`` (sample_data/), ``ragbench`` (../shared/ragbench, starting a
few rows before its longest example, 1,056 context sentences), ``100k`` (``/tmp/syn100k.parquet``, made with
``make_synthetic.py 100000 /tmp/syn100k`` when missing).

    .venv/bin/python benchmarks/bench_floor.py [--data sample,ragbench,100k] [--runs 5] [--steps 6]

Prints per data set the medians and the ratios Review / floor, and the load average beside them; then J's ratio run by
run (each run's median J over the same run's floor press): its median and range, how far one run's figure strays on
this machine. ``--baseline DIR``:
another ragviz source tree (``git archive <commit> | tar -x -C DIR``), its Review page measured in the same
alternation.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_review_browser import streamlit_process  # noqa: E402 - a sibling script, found through the line above

RAGBENCH = ROOT.parent / "shared" / "ragbench"
SYNTHETIC = "/tmp/syn100k"
CHROMIUM = os.environ.get("RAGVIZ_CHROMIUM", "/usr/bin/chromium")
SETTLE_MS = 250  # after the page is drawn, late messages (the run's end) are still counted

__all__ = ["Measured", "main", "measure", "quiet_browser", "run_ratios", "serve_targets", "served_script"]

# Drawn whole: the marker of the wanted example there (Review's: the example's response as the text editor drew it;
# the URL names it once that frame is drawn), nothing stale, no run going.
DRAWN_JS = """([kind, want]) => {
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  if (kind === 'floor') return !!document.querySelector(`.floor[data-row="${want}"]`);
  if (!document.querySelector('.rv-doc')) return false;
  if (document.querySelectorAll('[data-testid="stMetric"], .rv-metric').length < 4) return false;
  return (document.querySelector('.rv-response') || {dataset: {}}).dataset.uid === want;
}"""


@dataclass
class Measured:
    """One target's figures over the runs (seconds, counts)."""

    cold: list[float] = field(default_factory=list)
    cold_browser: list[float] = field(default_factory=list)
    warm: list[float] = field(default_factory=list)
    press: list[float] = field(default_factory=list)
    js_files: list[int] = field(default_factory=list)
    cold_messages: list[int] = field(default_factory=list)
    press_messages: list[int] = field(default_factory=list)
    press_bytes: list[int] = field(default_factory=list)
    press_cpu: list[float] = field(default_factory=list)
    press_browser: list[float] = field(default_factory=list)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of *pid* so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def serve(script: Path, env: dict[str, str], workdir: Path, root: Path = ROOT) -> Iterator[tuple[str, int]]:
    """``streamlit run script`` (of the source tree *root*) on a free port; yields its URL and process id once its
    health check answers."""
    port = _free_port()
    full_env = {**os.environ, "HOME": str(workdir), "PYTHONPATH": str(root), **env}
    log_path = workdir / f"server-{port}.log"
    with streamlit_process(script, port, full_env, root, log_path, timeout_s=300, poll=0.05) as (url, proc):
        yield url, proc.pid


def _data_path(name: str) -> str:
    if name == "sample":
        return str(ROOT / "sample_data")
    if name == "ragbench":
        if not RAGBENCH.is_dir():
            raise SystemExit(f"{RAGBENCH}: not found")
        return str(RAGBENCH)
    if name == "100k":
        if not Path(f"{SYNTHETIC}.parquet").exists():
            subprocess.run(
                [sys.executable, str(ROOT / "benchmarks" / "make_synthetic.py"), "100000", SYNTHETIC, "--no-jsonl"],
                check=True,
            )
        return f"{SYNTHETIC}.parquet"
    raise SystemExit(f"unknown data set {name!r}: sample, ragbench or 100k")


def _rows(name: str, path: str, steps: int) -> tuple[list[str], list[dict]]:
    """The uids of the rows J walks (in the dataset's order) and the floor's copy of their sentences."""
    sys.path.insert(0, str(ROOT))
    from ragviz.data.load import load

    ds = load([path]).dataset
    start = 0
    if name == "ragbench":
        longest = max(range(len(ds)), key=lambda i: ds.example(i).n_context_sentences)
        start = max(0, longest - steps // 2)
    rows = list(range(start, min(len(ds), start + steps + 1)))
    examples = []
    for r in rows:
        ex = ds.example(r)
        examples.append(
            {
                "question": ex.question,
                "docs": [[[s.key, s.text] for s in doc] for doc in ex.document_sentences],
                "response": [[s.key, s.text] for s in ex.response_sentences],
            }
        )
    return [ds.uids[r] for r in rows], examples


class Target:
    """A served page and how to tell that a given step of its walk is drawn."""

    def __init__(self, kind: str, url: str, pid: int, uids: list[str]):
        self.kind, self.url, self.pid, self.uids = kind, url, pid, uids

    def start_url(self) -> str:
        return self.url if self.kind == "floor" else f"{self.url}/review?uid={self.uids[0]}"

    def want(self, step: int) -> str:
        return str(step) if self.kind == "floor" else self.uids[step]

    def wait_drawn(self, page, step: int) -> None:
        page.wait_for_function(DRAWN_JS, arg=[self.kind, self.want(step)], polling="raf", timeout=300_000)


class Counter:
    """Websocket messages (and bytes) a page receives, and the JS files it fetches."""

    def __init__(self, page):
        self.messages = 0
        self.bytes = 0
        self.js: set[str] = set()
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        page.on("response", lambda r: self.js.add(r.url) if r.url.split("?")[0].endswith(".js") else None)

    def _frame(self, payload) -> None:
        self.messages += 1
        self.bytes += len(payload)


def open_page(context, target: Target, busy: list[float] | None = None) -> tuple[object, Counter, float]:
    """Open *target*'s first page in *context*; the page, its counter and the seconds until drawn. With *busy*, the
    seconds the page's renderer spent on tasks until drawn are appended to it."""
    page = context.new_page()
    counter = Counter(page)
    cdp = None
    if busy is not None:
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")
    t0 = time.monotonic()
    page.goto(target.start_url())
    target.wait_drawn(page, 0)
    elapsed = time.monotonic() - t0
    if cdp is not None:
        busy.append(_browser_busy(cdp))
    page.wait_for_timeout(SETTLE_MS)
    return page, counter, elapsed


def first_pages(browser, target: Target, out: Measured) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page, counter, cold = open_page(context, target, out.cold_browser)
    out.cold.append(cold)
    out.js_files.append(len(counter.js))
    out.cold_messages.append(counter.messages)
    page.close()
    page, _, warm = open_page(context, target)
    out.warm.append(warm)
    context.close()


def _browser_busy(cdp) -> float:
    """Seconds the page's renderer has spent on tasks (script, style, layout, paint) so far."""
    return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "TaskDuration")


def presses(browser, target: Target, steps: int, out: Measured) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page, counter, _ = open_page(context, target)
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.wait_for_timeout(300)
    for step in range(1, steps + 1):
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        messages, sent, cpu, busy = counter.messages, counter.bytes, _cpu_seconds(target.pid), _browser_busy(cdp)
        t0 = time.monotonic()
        page.keyboard.press("j")
        page.wait_for_timeout(20)  # the key reaches the app before we look
        target.wait_drawn(page, step)
        out.press.append(time.monotonic() - t0)
        page.wait_for_timeout(SETTLE_MS)
        out.press_messages.append(counter.messages - messages)
        out.press_bytes.append(counter.bytes - sent)
        out.press_cpu.append(_cpu_seconds(target.pid) - cpu)
        out.press_browser.append(_browser_busy(cdp) - busy)
    context.close()


def served_script(root: Path) -> Path:
    """The script ``ragviz app`` runs in the source tree *root*: ``serve.py``, or ``app.py`` in a tree before it."""
    return root / "serve.py" if (root / "serve.py").is_file() else root / "app.py"


def serve_targets(
    stack: contextlib.ExitStack, name: str, path: str, steps: int, workdir: Path, baseline: Path | None = None
) -> list[Target]:
    """The floor page and Review on data set *name* (the file *path*), and the *baseline* tree's Review when given,
    each served until *stack* closes; every one walks the same first *steps* + 1 examples."""
    uids, examples = _rows(name, path, steps)
    floor_json = workdir / f"floor-{name}.json"
    floor_json.write_text(json.dumps(examples), encoding="utf-8")
    review_env = {"RAGVIZ_DATA": path, "RAGVIZ_DB": str(workdir / f"review-{name}.db"), "RAGVIZ_ANNOTATOR": "bench"}
    furl, fpid = stack.enter_context(
        serve(ROOT / "benchmarks" / "floor_page.py", {"FLOOR_EXAMPLES": str(floor_json)}, workdir)
    )
    rurl, rpid = stack.enter_context(serve(served_script(ROOT), review_env, workdir))
    targets = [Target("floor", furl, fpid, uids), Target("review", rurl, rpid, uids)]
    if baseline is not None:
        old_env = {**review_env, "RAGVIZ_DB": str(workdir / f"baseline-{name}.db")}
        burl, bpid = stack.enter_context(serve(served_script(baseline), old_env, workdir, baseline))
        targets.append(Target("baseline", burl, bpid, uids))
    return targets


def measure(
    name: str, runs: int, steps: int, browser, workdir: Path, baseline: Path | None = None, path: str | None = None
) -> dict[str, Measured]:
    """Floor and Review (and the *baseline* tree's Review) on data set *name* (or the file *path*), alternately;
    each one's figures."""
    with contextlib.ExitStack() as stack:
        targets = serve_targets(stack, name, path or _data_path(name), steps, workdir, baseline)
        found = {target.kind: Measured() for target in targets}
        for target in targets:  # warm the servers: data loaded, modules imported
            context = browser.new_context()
            open_page(context, target)
            context.close()
        for _ in range(runs):
            for target in targets:
                first_pages(browser, target, found[target.kind])
                presses(browser, target, steps, found[target.kind])
    return found


def _med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def run_ratios(press: list[float], floor: list[float], steps: int) -> list[float]:
    """J over the floor's press run by run: each run's median J over the same run's median floor press (measured
    minutes apart at most, so a machine whose speed drifts over the whole bench moves both).

    >>> run_ratios([2, 2, 4, 4], [1, 1, 2, 2], steps=2)
    [2.0, 2.0]
    """
    runs = min(len(press), len(floor)) // steps
    cut = [slice(r * steps, (r + 1) * steps) for r in range(runs)]
    return [statistics.median(press[c]) / statistics.median(floor[c]) for c in cut]


def report(name: str, found: dict[str, Measured], steps: int | None = None) -> list[str]:
    """The medians and ratios; with *steps* (J presses per run) also J's ratio run by run (:func:`run_ratios`):
    its median and range, the spread a single run's figure has on this machine."""
    floor, review, old = found["floor"], found["review"], found.get("baseline")
    load = os.getloadavg()[0]
    head = "floor / Review / Review over floor" + (" / baseline's Review / over floor" if old else "")
    lines = [f"{name}: load {load:.1f}; {head} (medians)"]
    for label, attr, unit in (
        ("cold first page", "cold", "s"),
        ("browser busy, cold page", "cold_browser", "s"),
        ("warm first page", "warm", "s"),
        ("J (next example)", "press", "s"),
        ("server CPU per J", "press_cpu", "s"),
        ("browser busy per J", "press_browser", "s"),
        ("websocket messages per J", "press_messages", ""),
        ("websocket KB per J", "press_bytes", "KB"),
        ("websocket messages, cold page", "cold_messages", ""),
        ("JS files, cold page", "js_files", ""),
    ):
        f, r = _med(getattr(floor, attr)), _med(getattr(review, attr))
        if attr == "press_bytes":
            f, r = f / 1024, r / 1024
        line = f"  {label:<32} {f:9.3f} {r:9.3f} {r / f if f else float('nan'):7.2f}x"
        if old is not None:
            b = _med(getattr(old, attr)) / (1024 if attr == "press_bytes" else 1)
            line += f" {b:9.3f} {b / f if f else float('nan'):7.2f}x"
        lines.append(f"{line} {unit}")
    if steps:
        for kind, got in (("Review", review), ("baseline's Review", old)):
            if got is not None and (ratios := run_ratios(got.press, floor.press, steps)):
                lines.append(
                    f"  J over floor run by run ({kind}): median {statistics.median(ratios):.2f}x, "
                    f"{min(ratios):.2f}–{max(ratios):.2f}x over {len(ratios)} runs"
                )
    return lines


@contextlib.contextmanager
def quiet_browser() -> Iterator[tuple[object, Path]]:
    """Headless chromium (Debian's) without its background traffic, and a scratch folder for the servers it is
    pointed at; both gone afterwards."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        try:
            yield browser, Path(tmp)
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="sample,ragbench,100k")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=6, help="J presses per run")
    parser.add_argument(
        "--baseline", type=Path, default=None, help="another source tree (git archive <commit> | tar -x -C DIR)"
    )
    args = parser.parse_args(argv)
    with quiet_browser() as (browser, workdir):
        for name in filter(None, args.data.split(",")):
            found = measure(name, args.runs, args.steps, browser, workdir, args.baseline)
            print("\n".join(report(name, found, args.steps)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
