"""ragviz against Label Studio on the same RAGBench rows, in headless chromium (issue 38's side by side).

Label Studio is not a dependency of ragviz (never add it to requirements*.txt): give it a venv of its own first,

    python3 -m venv /tmp/lsvenv && /tmp/lsvenv/bin/pip install label-studio==1.23.2

(or the newest label-studio on PyPI; the version is printed beside the figures), then

    .venv/bin/python benchmarks/bench_label_studio.py --label-studio /tmp/lsvenv/bin/label-studio \\
        --data ../shared/ragbench/covidqa/test-00000-of-00001.parquet [--runs 3] [--steps 5]

``--data`` takes any file ragviz reads; synthetic sizes come from ``benchmarks/make_synthetic.py 10000 /tmp/syn10k
--no-jsonl`` (then ``--data /tmp/syn10k.parquet``). Both tools get the same rows: ragviz reads the file; Label Studio
gets one task per row (``title`` = the row's ragviz id, ``question``, ``context`` = every document sentence as
``{"sid", "text"}``, ``response`` = the response sentences), written to JSON before its clock starts, shown by a
labelling config with the question as text, sentence-level labels on the context (relevant / utilized) and on the
response (supported / unsupported) through ``ParagraphLabels``, and an ``adherent`` choice.

Each run starts a fresh server of each tool, alternately (ragviz first in even runs, Label Studio first in odd ones),
and measures in headless chromium (Debian's, via Playwright; a browser started before the clocks):

* **ready**: from starting the server until the first example is drawn and can be labelled in the browser. ragviz:
  ``streamlit run serve.py`` (as ``ragviz app``) on the file, then ``/review`` until the example is drawn whole. Label Studio: ``label-studio
  start`` on a fresh data dir (SQLite; the user and its legacy API token made at start from ``--username`` /
  ``--password`` / ``--user-token``), then a project with the config above and the rows imported through its API (the
  task count polled until every row is there), a sign-in through its login page, and its labelling stream until the
  first task is drawn (its header, the last response sentence, the Submit button).
* **first page**: a fresh browser context (empty cache; Label Studio's with the signed-in session's cookies) opens the
  labelling view of the first example; from ``goto`` until it is drawn.
* **next example**: ragviz: J; Label Studio: Submit (after one untimed click on the ``adherent`` choice, so the
  annotation is not empty); from the key / click until the next example is drawn (``--steps`` per run).
* **memory**: the peak resident memory of the server's whole process tree over the run (sampled every 50 ms).

The server's CPU seconds (its process tree's user + system time) are measured beside ready, first page and next
example, the page's renderer's busy time (Chrome's ``TaskDuration``: script, style, layout, paint) beside first page
and next example, the machine's 1-minute load average beside every run. Prints each run, then the medians and ratios ragviz / Label
Studio (below 1: ragviz ahead).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_floor import DRAWN_JS, _free_port  # noqa: E402 - a sibling script, found through the line above
from bench_review_browser import app_env, streamlit_process, wait_healthy  # noqa: E402

CHROMIUM = os.environ.get("RAGVIZ_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
USER, PASSWORD, TOKEN = "bench@example.com", "bench-password-1", "0123456789abcdef0123456789abcdef01234567"
TIMEOUT_S = 900

__all__ = ["LABEL_CONFIG", "Figures", "ls_tasks", "main"]

LABEL_CONFIG = """<View>
  <Header value="$title"/>
  <Text name="question" value="$question"/>
  <ParagraphLabels name="context_labels" toName="context">
    <Label value="relevant"/>
    <Label value="utilized"/>
  </ParagraphLabels>
  <Paragraphs name="context" value="$context" nameKey="sid" textKey="text"/>
  <ParagraphLabels name="response_labels" toName="response">
    <Label value="supported"/>
    <Label value="unsupported"/>
  </ParagraphLabels>
  <Paragraphs name="response" value="$response" nameKey="sid" textKey="text"/>
  <Choices name="adherent" toName="response" choice="single">
    <Choice value="adherent"/>
    <Choice value="not adherent"/>
  </Choices>
</View>"""

# Label Studio's task *want* drawn: its header, its last response sentence, an enabled Submit button, nothing loading.
LS_DRAWN_JS = """([title, last]) => {
  const headers = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')];
  if (!headers.some((h) => h.textContent.trim() === title)) return false;
  if (!document.body.textContent.includes(last)) return false;
  const submit = document.querySelector('button[name="submit"]');
  if (!submit || submit.disabled) return false;
  return !document.querySelector('.lsf-spin, .ant-spin-spinning, [class*="loading"]');
}"""


@dataclass
class Figures:
    """One tool's figures over the runs (seconds, bytes, load averages)."""

    ready: list[float] = field(default_factory=list)
    ready_cpu: list[float] = field(default_factory=list)
    first: list[float] = field(default_factory=list)
    first_cpu: list[float] = field(default_factory=list)
    first_browser: list[float] = field(default_factory=list)
    step: list[float] = field(default_factory=list)
    step_cpu: list[float] = field(default_factory=list)
    step_browser: list[float] = field(default_factory=list)
    peak_rss: list[int] = field(default_factory=list)
    load: list[float] = field(default_factory=list)


def _tree(root: int) -> list[int]:
    """*root* and every process below it."""
    parents: dict[int, list[int]] = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                ppid = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            parents.setdefault(ppid, []).append(int(p.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(parents.get(pid, []))
    return out


def _rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_cpu(root: int) -> float:
    """User + system CPU seconds of *root*'s process tree so far (its waited-for children included)."""
    total = 0
    for pid in _tree(root):
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])
    return total / os.sysconf("SC_CLK_TCK")


class PeakRss:
    """Samples the resident memory of a process tree every 50 ms in a thread; ``peak`` is the largest sum seen."""

    def __init__(self, root: int):
        self.root, self.peak = root, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, sum(_rss(p) for p in _tree(self.root)))

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def ls_tasks(path: str) -> tuple[list[str], list[dict]]:
    """The file's rows as ragviz reads them: their ids in order, and one Label Studio task (its ``data``) per row."""
    sys.path.insert(0, str(ROOT))
    from ragviz.data.load import load

    ds = load([path]).dataset
    tasks = []
    for i in range(len(ds)):
        ex = ds.example(i)
        tasks.append(
            {
                "title": ds.uids[i],
                "question": ex.question,
                "context": [{"sid": s.key, "text": s.text} for doc in ex.document_sentences for s in doc],
                "response": [{"sid": s.key, "text": s.text} for s in ex.response_sentences],
            }
        )
    return list(ds.uids), tasks


def _launch_context(browser, **kw):
    return browser.new_context(viewport={"width": 1280, "height": 800}, **kw)


# -- ragviz ---------------------------------------------------------------------------------------------------------


def run_ragviz(browser, path: str, uids: list[str], steps: int, workdir: Path, out: Figures) -> None:
    env = app_env(path, workdir / f"ragviz-{time.monotonic_ns()}.db", workdir)
    port = _free_port()
    context = _launch_context(browser)
    page = context.new_page()
    page.goto("about:blank")
    start_url = f"http://127.0.0.1:{port}/review?uid={uids[0]}"

    def drawn(p, step: int) -> None:
        p.wait_for_function(DRAWN_JS, arg=["review", uids[step]], polling="raf", timeout=TIMEOUT_S * 1000)

    t0 = time.monotonic()
    log = workdir / "ragviz.log"
    with streamlit_process(ROOT / "serve.py", port, env, ROOT, log, timeout_s=TIMEOUT_S, poll=0.02) as (_, proc):
        sampler = PeakRss(proc.pid)
        page.goto(start_url)
        drawn(page, 0)
        out.ready.append(time.monotonic() - t0)
        out.ready_cpu.append(tree_cpu(proc.pid))
        context.close()
        _first_and_steps(browser, {}, start_url, lambda p: drawn(p, 0), steps, proc.pid, out, _ragviz_step(drawn))
        out.peak_rss.append(sampler.stop())
    out.load.append(os.getloadavg()[0])


def _ragviz_step(drawn):
    def step(page, i: int) -> None:
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        page.keyboard.press("j")
        page.wait_for_timeout(20)  # the key reaches the app before we look
        drawn(page, i)

    return step


def _first_and_steps(browser, state: dict, url: str, drawn_first, steps: int, pid: int, out: Figures, step) -> None:
    """The first page in a fresh context, then *steps* next examples on it (each timed, with the server's CPU and the
    page's renderer's busy time)."""
    context = _launch_context(browser, **state)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    cpu, busy, t0 = tree_cpu(pid), _browser_busy(cdp), time.monotonic()
    page.goto(url)
    drawn_first(page)
    out.first.append(time.monotonic() - t0)
    out.first_cpu.append(tree_cpu(pid) - cpu)
    out.first_browser.append(_browser_busy(cdp) - busy)
    page.wait_for_timeout(300)
    for i in range(1, steps + 1):
        cpu, busy, t0 = tree_cpu(pid), _browser_busy(cdp), time.monotonic()
        step(page, i)
        out.step.append(time.monotonic() - t0)
        out.step_cpu.append(tree_cpu(pid) - cpu)
        out.step_browser.append(_browser_busy(cdp) - busy)
    context.close()


def _browser_busy(cdp) -> float:
    """Seconds the page's renderer has spent on tasks (script, style, layout, paint) so far."""
    return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "TaskDuration")


# -- Label Studio ---------------------------------------------------------------------------------------------------


def _api(url: str, method: str = "GET", body: bytes | None = None, timeout: float = TIMEOUT_S) -> dict | list:
    req = urllib.request.Request(url, data=body, method=method)
    req.add_header("Authorization", f"Token {TOKEN}")
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        raise SystemExit(f"Label Studio {method} {url}: {e.code} {e.read()[:500]!r}") from None


@contextlib.contextmanager
def label_studio(exe: str, workdir: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """``label-studio start`` on a free port with a fresh data dir under *workdir*; yields its URL and process once
    its health check answers, and stops its process group after."""
    port = _free_port()
    data = Path(tempfile.mkdtemp(prefix="ls-data-", dir=workdir))
    env = {
        **os.environ,
        "HOME": str(data),
        "LABEL_STUDIO_BASE_DATA_DIR": str(data),
        "LABEL_STUDIO_USERNAME": USER,
        "LABEL_STUDIO_PASSWORD": PASSWORD,
        "LABEL_STUDIO_USER_TOKEN": TOKEN,
        "LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN": "true",
        "DATA_UPLOAD_MAX_MEMORY_SIZE": str(4 * 1024**3),
        "DATA_UPLOAD_MAX_NUMBER_FILES": "100",
        "SENTRY_DSN": "",
        "FRONTEND_SENTRY_DSN": "",
        "COLLECT_ANALYTICS": "false",
    }
    env.pop("PYTHONPATH", None)
    cmd = [
        exe, "start", "--no-browser", "--data-dir", str(data), "--database", str(data / "label_studio.sqlite3"),
        "--internal-host", "127.0.0.1", "--port", str(port),
        "--username", USER, "--password", PASSWORD, "--user-token", TOKEN, "--enable-legacy-api-token",
    ]  # fmt: skip
    log_path = workdir / "label-studio.log"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(cmd, cwd=data, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, TIMEOUT_S, log_path, poll=0.05, path="/health")
        yield url, proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, 15)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait(10)


def _ls_project(url: str, tasks_json: bytes, n: int) -> int:
    """A project with :data:`LABEL_CONFIG` and the *n* tasks of *tasks_json* imported; its id."""
    project = _api(f"{url}/api/projects", "POST", json.dumps({"title": "bench", "label_config": LABEL_CONFIG}).encode())
    pid = project["id"]
    _api(f"{url}/api/projects/{pid}/import", "POST", tasks_json)
    deadline = time.monotonic() + TIMEOUT_S
    while _api(f"{url}/api/projects/{pid}")["task_number"] < n:
        if time.monotonic() > deadline:
            raise SystemExit(f"Label Studio: the {n} tasks were not imported in {TIMEOUT_S} s")
        time.sleep(0.1)
    return pid


def _ls_sign_in(page, url: str) -> None:
    page.goto(f"{url}/user/login/")
    page.fill('input[name="email"]', USER)
    page.fill('input[name="password"]', PASSWORD)
    with page.expect_navigation():
        page.click('button[type="submit"], input[type="submit"]')


def run_label_studio(browser, exe: str, tasks: list[dict], steps: int, workdir: Path, out: Figures) -> None:
    tasks_json = json.dumps(tasks).encode()
    last = [t["response"][-1]["text"] if t["response"] else t["question"] for t in tasks]

    def drawn(p, i: int) -> None:
        p.wait_for_function(LS_DRAWN_JS, arg=[tasks[i]["title"], last[i]], polling="raf", timeout=TIMEOUT_S * 1000)

    context = _launch_context(browser)
    page = context.new_page()
    page.goto("about:blank")
    t0 = time.monotonic()
    with label_studio(exe, workdir) as (url, proc):
        sampler = PeakRss(proc.pid)
        project = _ls_project(url, tasks_json, len(tasks))
        _ls_sign_in(page, url)
        stream = f"{url}/projects/{project}/data?labeling=1"
        page.goto(stream)
        drawn(page, 0)
        out.ready.append(time.monotonic() - t0)
        out.ready_cpu.append(tree_cpu(proc.pid))
        state = {"storage_state": context.storage_state()}
        context.close()

        def step(p, i: int) -> None:
            p.locator('.lsf-choices input[name="adherent"]').check()  # not timed apart: a person's click before Submit
            p.locator('button[name="submit"]').click()
            drawn(p, i)

        _first_and_steps(browser, state, stream, lambda p: drawn(p, 0), steps, proc.pid, out, step)
        out.peak_rss.append(sampler.stop())
    out.load.append(os.getloadavg()[0])


def ls_version(exe: str) -> str:
    pip = Path(exe).with_name("pip")
    shown = subprocess.run([str(pip), "show", "label-studio"], capture_output=True, text=True).stdout
    return next((line.split(":", 1)[1].strip() for line in shown.splitlines() if line.startswith("Version:")), "?")


# -- report ---------------------------------------------------------------------------------------------------------


def _med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(name: str, n: int, rv: Figures, ls: Figures) -> list[str]:
    loads = rv.load + ls.load
    lines = [
        f"{name}: {n:,} rows; load {min(loads):.1f}-{max(loads):.1f}; medians (runs: ready / first page {len(rv.ready)}, "
        f"next example {len(rv.step)} presses)",
        f"  {'figure':<28} {'ragviz':>10} {'Label Studio':>13} {'ragviz / LS':>12}",
    ]
    for label, attr, scale, unit in (
        ("ready", "ready", 1, "s"),
        ("server CPU until ready", "ready_cpu", 1, "s"),
        ("first page (fresh context)", "first", 1, "s"),
        ("server CPU, first page", "first_cpu", 1, "s"),
        ("browser busy, first page", "first_browser", 1, "s"),
        ("next example", "step", 1, "s"),
        ("server CPU per next example", "step_cpu", 1, "s"),
        ("browser busy per next example", "step_browser", 1, "s"),
        ("peak RSS, server tree", "peak_rss", 1 / 1e6, "MB"),
    ):
        r, s = _med(getattr(rv, attr)) * scale, _med(getattr(ls, attr)) * scale
        lines.append(f"  {label:<28} {r:10.3f} {s:13.3f} {r / s if s else float('nan'):11.2f}x {unit}")
    return lines


def _run_line(tool: str, f: Figures, steps: int) -> str:
    return (
        f"  {tool:<12} ready {f.ready[-1]:7.2f} s ({f.ready_cpu[-1]:5.1f} s CPU)  "
        f"first page {f.first[-1]:6.2f} s ({f.first_cpu[-1]:.2f} s CPU, browser {f.first_browser[-1]:.2f} s)  "
        f"next {_med(f.step[-steps:]):6.3f} s ({_med(f.step_cpu[-steps:]):.3f} s CPU, "
        f"browser {_med(f.step_browser[-steps:]):.3f} s)  "
        f"peak RSS {f.peak_rss[-1] / 1e6:7.0f} MB  load {f.load[-1]:.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Label Studio's venv: python3 -m venv /tmp/lsvenv && /tmp/lsvenv/bin/pip install label-studio==1.23.2",
    )
    parser.add_argument("--label-studio", required=True, help="the label-studio executable of its own venv")
    parser.add_argument("--data", required=True, help="a file ragviz reads (RAGBench Parquet / JSONL, ...)")
    parser.add_argument("--runs", type=int, default=3, help="fresh servers of each tool, alternately (default 3)")
    parser.add_argument("--steps", type=int, default=5, help="next examples per run (default 5)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the servers' clean-up runs when killed
    if not Path(args.label_studio).exists():
        raise SystemExit(f"{args.label_studio}: not found (see --help for Label Studio's venv)")
    from playwright.sync_api import sync_playwright

    uids, tasks = ls_tasks(args.data)
    if len(uids) <= args.steps:
        raise SystemExit(f"{args.data}: {len(uids)} rows; --steps needs more")
    print(f"Label Studio {ls_version(args.label_studio)}; {args.data}: {len(uids):,} rows", flush=True)
    rv, ls = Figures(), Figures()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for run in range(args.runs):
            order = ("ragviz", "label-studio") if run % 2 == 0 else ("label-studio", "ragviz")
            for tool in order:
                if tool == "ragviz":
                    run_ragviz(browser, args.data, uids, args.steps, Path(tmp), rv)
                    print(_run_line("ragviz", rv, args.steps), flush=True)
                else:
                    run_label_studio(browser, args.label_studio, tasks, args.steps, Path(tmp), ls)
                    print(_run_line("Label Studio", ls, args.steps), flush=True)
        browser.close()
    print("\n".join(report(Path(args.data).name, len(uids), rv, ls)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
