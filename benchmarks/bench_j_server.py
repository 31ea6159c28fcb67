"""The server's own time per J on the Review page (issue 38), timed inside the server, in headless chromium.

Starts the app (and, with ``--baseline DIR``, another ragviz source tree's: ``git archive <commit> | tar -x -C DIR``)
with a ``sitecustomize`` hook that times every script run of the server (Streamlit's ``ScriptRunner._run_script``:
from the run's start to its end, the fragment's and the page's work, wall and the thread's CPU), presses J ``--steps``
times per run on each alternately, and prints per tree the medians per J over ``--runs`` runs (and the CPU of the
component mounts' data work: Streamlit's search of the data for dataframes, its JSON, the identity hash). The wall time in the
browser swings 2x on a shared machine; the server's run is what this branch changes, and its CPU time is steadier.

    .venv/bin/python benchmarks/bench_j_server.py [--data sample|100k|ragbench] [--runs 3] [--steps 5] [--baseline DIR]
        [--decisions N] [--profile DIR] [--queries [--calls]]

``--key a`` presses A (Accept, moving on to the next unreviewed: a decision stored and the whole page drawn again)
instead of J, each run on examples of its own; ``browser s`` is the seconds from the press until the next example is
drawn whole. ``--decisions N`` starts each tree's store with N examples the annotator already reviewed (every third corrected: its
relevant keys cleared), none of them the examples J walks: a J's cost must not grow with the decisions a person made
(an annotator's day is thousands).

``--queries`` lists what each J's fragment run does on the server: its store statements (``Database.execute`` and
the write's begin and commit, with their ms), and the ms from the run's start to the messages it queues
(``new_session`` first, then the text's delta and ``script_finished``): the server's flush loop sends what is queued
whenever the script thread lets go of the GIL (SQLite's step does, file reads do), so the fewer such calls and the
shorter the run before the delta, the likelier a J's messages leave together. ``--calls`` adds the C calls made in
the run that may let go of the GIL (a profiler hook: it slows the run, so its times are not the J's).

``--profile DIR`` (needs pyinstrument importable, e.g. ``pip install --target /tmp/pyi pyinstrument`` and
``PYTHONPATH=/tmp/pyi``; never a dependency) writes each tree's J runs, sampled every 0.2 ms, to ``DIR/<tree>.txt``
(wall time: on a loaded machine it counts the script thread's waits for the GIL where they fall). ``--cprofile``
writes ``DIR/<tree>.pstats`` instead: cProfile timing the thread's CPU (its per-call cost inflates small calls).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_floor import CHROMIUM, SETTLE_MS, Target, _cpu_seconds, _data_path, _rows, serve  # noqa: E402

__all__ = ["HOOK", "main", "seed_reviews"]

# Loaded by every Python process started with its folder first on PYTHONPATH (only the servers this script starts).
HOOK = textwrap.dedent(
    """
    import os, time

    _LOG = os.environ.get("RAGVIZ_J_LOG")
    _PROFILE = os.environ.get("RAGVIZ_J_PROFILE")
    if _LOG:
        from streamlit.runtime.scriptrunner import script_runner as _sr

        _run = _sr.ScriptRunner._run_script
        _profiler = None
        if _PROFILE and _PROFILE.endswith(".pstats"):  # the thread's CPU per function (GIL waits left out)
            import cProfile

            _profiler = cProfile.Profile(timer=time.thread_time)
        elif _PROFILE:
            from pyinstrument import Profiler

            _profiler = Profiler(interval=0.0002)

        def _timed(self, rerun_data):
            fragment = bool(getattr(rerun_data, "fragment_id_queue", None))
            profiling = _profiler is not None and fragment
            if profiling and _PROFILE.endswith(".pstats"):
                _profiler.enable()
            elif profiling:
                _profiler.start()
            wall, cpu = time.perf_counter(), time.thread_time()
            _mounts[0] = 0.0
            try:
                return _run(self, rerun_data)
            finally:
                wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
                if profiling and _PROFILE.endswith(".pstats"):
                    _profiler.disable()
                    _profiler.dump_stats(_PROFILE)
                elif profiling:
                    _profiler.stop()
                    with open(_PROFILE, "w") as f:
                        f.write(_profiler.output_text(unicode=True, show_all=False))
                with open(_LOG, "a") as f:
                    f.write(f"{int(fragment)} {wall * 1000:.3f} {cpu * 1000:.3f} {_mounts[0] * 1000:.3f}\\n")

        _sr.ScriptRunner._run_script = _timed

        # the components' data work inside a run: Streamlit's dataframe search + JSON, and the identity hash
        import streamlit.components.v2.bidi_component.main as _bidi

        _mounts = [0.0]

        def _counted(fn):
            def counted(*args, **kwargs):
                cpu = time.thread_time()
                try:
                    return fn(*args, **kwargs)
                finally:
                    _mounts[0] += time.thread_time() - cpu

            return counted

        _bidi.serialize_mixed_data = _counted(_bidi.serialize_mixed_data)
        _bidi.BidiComponentMixin._build_bidi_identity_kwargs = _counted(
            _bidi.BidiComponentMixin._build_bidi_identity_kwargs
        )

    _TRACE = os.environ.get("RAGVIZ_J_TRACE")
    if _LOG and _TRACE:  # per fragment run: its store statements and messages, ms from the run's start
        import json, sys, threading

        from streamlit.runtime import app_session as _app, runtime as _rt

        _cur = [None]  # the fragment run traced last: its start (perf_counter), thread, events
        _CALLS = os.environ.get("RAGVIZ_J_CALLS") == "1"
        # C calls that may release the GIL (sqlite3's step, hashlib over 2 KB, file and socket I/O, waits)
        _RELEASING = {"sqlite3", "_sqlite3", "_hashlib", "posix", "_io", "io", "_socket", "select", "zlib"}
        _HOLDING = {"fspath", "_path_normpath", "cpu_count", "getpid"}  # posix's that keep the GIL

        def _add(kind, what, took=0.0, start=None):
            run = _cur[0]
            if run is not None:
                at = (time.perf_counter() - run["t0"]) * 1000
                run["events"].append((kind, at if start is None else start, took, what))

        def _mine():
            run = _cur[0]
            return run is not None and run["open"] and threading.current_thread() is run["thread"]

        def _kind(msg):
            kind = msg.WhichOneof("type")
            return "delta:" + msg.delta.WhichOneof("type") if kind == "delta" else kind

        def _patch_store():
            from ragviz.store import database as _db

            def wrap(name):
                fn = getattr(_db.Database, name)

                def traced(self, *args, **kwargs):
                    if not _mine():
                        return fn(self, *args, **kwargs)
                    t0 = time.perf_counter()
                    try:
                        return fn(self, *args, **kwargs)
                    finally:
                        took = (time.perf_counter() - t0) * 1000
                        what = " ".join(str(args[0]).split())[:90] if args else ""
                        _add("sql", f"{name} {what}".strip(), took, (t0 - _cur[0]["t0"]) * 1000)

                setattr(_db.Database, name, traced)

            for name in ("execute", "executemany", "begin_write", "commit"):
                wrap(name)

        _queued = _sr.ScriptRunner._enqueue_forward_msg  # the script thread hands a message to the event loop

        def _traced_queued(self, msg):
            if _mine():  # with the thread's CPU ms since the run's start
                _add("queued", _kind(msg), (time.thread_time() - _cur[0]["cpu0"]) * 1000)
            return _queued(self, msg)

        _sr.ScriptRunner._enqueue_forward_msg = _traced_queued
        _enqueue = _app.AppSession._enqueue_forward_msg  # the event loop puts it in the browser's queue

        def _traced_enqueue(self, msg):
            _add("loop", _kind(msg))
            return _enqueue(self, msg)

        _app.AppSession._enqueue_forward_msg = _traced_enqueue
        _send = _rt.Runtime._send_message  # the flush loop writes it to the websocket

        def _traced_send(self, info, msg):
            _add("sent", _kind(msg))
            return _send(self, info, msg)

        _rt.Runtime._send_message = _traced_send

        def _profile(frame, event, arg):
            if event != "c_call":
                return
            if arg is time.sleep:
                _add("call", f"time.sleep <- {frame.f_code.co_name}")
            elif getattr(arg, "__name__", "") in _HOLDING:
                return
            elif (getattr(arg, "__module__", None) or "").split(".")[0] in _RELEASING:
                name = getattr(arg, "__qualname__", None) or getattr(arg, "__name__", "?")
                _add("call", f"{arg.__module__}.{name} <- {frame.f_code.co_name}")
            elif type(getattr(arg, "__self__", None)).__module__ in _RELEASING:
                _add("call", f"{type(arg.__self__).__qualname__}.{arg.__name__}")

        def _write(run):
            with open(_TRACE, "a") as f:
                f.write(json.dumps({"end": run["end"], "events": run["events"]}) + "\\n")

        _timed_inner = _sr.ScriptRunner._run_script
        _patched = []

        def _traced(self, rerun_data):
            if not getattr(rerun_data, "fragment_id_queue", None):
                return _timed_inner(self, rerun_data)
            if not _patched:
                _patch_store()
                _patched.append(True)
            run = {"t0": time.perf_counter(), "cpu0": time.thread_time(), "thread": threading.current_thread()}
            run["events"], run["open"] = [], True
            _cur[0] = run
            if _CALLS:
                sys.setprofile(_profile)
            try:
                return _timed_inner(self, rerun_data)
            finally:
                if _CALLS:
                    sys.setprofile(None)
                run["end"], run["open"] = (time.perf_counter() - run["t0"]) * 1000, False
                threading.Timer(0.2, _write, (run,)).start()  # the messages sent after the run's end too
        _sr.ScriptRunner._run_script = _traced
    """
)


def _lines(log: Path) -> list[tuple[int, float, float, float]]:
    if not log.exists():
        return []
    return [
        (int(a), float(b), float(c), float(d)) for a, b, c, d in (ln.split() for ln in log.read_text().splitlines())
    ]


def _traces(path: Path) -> list[dict]:
    """The fragment runs' traces (``RAGVIZ_J_TRACE``): per run its end and its events ``(kind, ms, ms, what)``."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def _print_traces(name: str, runs: list[dict], calls: bool) -> None:
    """Per fragment run (a J): its store statements, and ms from the run's start to its messages being queued by the
    script and sent by the flush loop (medians); how many J's ``new_session`` left before the text's delta was
    queued (the browser then redraws twice)."""
    if not runs:
        print(f"{name}: no fragment run traced")
        return
    marks: dict[str, list[float]] = collections.defaultdict(list)
    statements: collections.Counter[str] = collections.Counter()
    released: collections.Counter[str] = collections.Counter()
    counts, store_ms, between, split = [], [], [], 0
    handed: collections.Counter[str] = collections.Counter()
    for run in runs:
        events = run["events"]
        at = {}  # (kind, message) -> ms: the first new_session, the last delta
        for kind, ms, _took, what in events:
            if kind in ("queued", "loop", "sent"):
                if what == "new_session":
                    at.setdefault((kind, what), ms)
                else:
                    at[(kind, what)] = ms
        for (kind, what), label in (
            (("loop", "new_session"), "new_session queued"),
            (("sent", "new_session"), "new_session sent"),
            (("queued", "delta:new_element"), "the delta queued"),
            (("sent", "delta:new_element"), "the delta sent"),
            (("loop", "script_finished"), "script_finished queued"),
        ):
            if (kind, what) in at:
                marks[label].append(at[(kind, what)])
        marks["run end"].append(run["end"])
        cpu = [e[2] for e in events if e[0] == "queued" and e[3] == "delta:new_element"]
        marks["CPU to the delta queued"] += cpu[-1:]
        sql = [e for e in events if e[0] == "sql"]
        counts.append(sum(e[3].startswith("execute") for e in sql))
        store_ms.append(sum(e[2] for e in sql))
        statements.update(e[3] for e in sql)
        first, delta = at.get(("loop", "new_session")), at.get(("queued", "delta:new_element"))
        if first is not None and delta is not None:
            between.append(sum(first <= e[1] <= delta for e in events if e[0] in ("sql", "call")))
            split += at.get(("sent", "new_session"), delta) < delta
        released.update(e[3] for e in events if e[0] == "call")
        if first is not None:  # what the script thread did last before the loop took the GIL for new_session
            before = [e for e in events if e[0] in ("sql", "call", "queued") and e[1] + (e[0] == "sql") * e[2] <= first]
            handed[f"{before[-1][0]} {before[-1][3][:60]}" if before else "(nothing: the run's start)"] += 1
    n = len(runs)
    kinds = "store statements and C calls" if calls else "store statements"
    print(
        f"\n{name}: {n} fragment runs; store statements per J: median {statistics.median(counts)}"
        f" ({statistics.median(store_ms):.2f} ms in them); {kinds} between new_session and the delta queued:"
        f" median {statistics.median(between) if between else '-'}; new_session sent before the delta was"
        f" queued: {split} of {len(between)} J"
    )
    print(
        "  ms from the run's start (medians): " + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in marks.items())
    )
    for statement, count in statements.most_common():
        print(f"  {count / n:5.1f}/J  {statement}")
    print("  the script thread's last call before the event loop queued new_session (J):")
    for what, count in handed.most_common(8):
        print(f"  {count:5d}  {what}")
    print("  the last J, in order (ms from the run's start):")
    for kind, ms, took, what in runs[-1]["events"]:
        if kind != "call":
            print(f"  {ms:7.2f} {kind:6s} {what}" + (f" ({'CPU ' * (kind == 'queued')}{took:.2f} ms)" if took else ""))
    if calls:
        print("  C calls that may let go of the GIL (per J; the profiler slows the run):")
        for call, count in released.most_common(25):
            print(f"  {count / n:5.1f}/J  {call}")


def _presses(
    browser, target: Target, log: Path, steps: int, key: str = "j", browser_s: list[float] | None = None
) -> list[tuple[float, float, float, float]]:
    """Per press of *key* (J, or A: Accept, moving on to the next unreviewed): the server's run time (wall, CPU ms)
    and its components' data work (CPU ms) summed over the runs the press started, and the whole server process's CPU
    ms (its event loop's work on the messages too) from the press until the page is drawn; with *browser_s*, the
    seconds from the press until the next example is drawn whole are appended to it."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(target.start_url())
    target.wait_drawn(page, 0)
    page.wait_for_timeout(SETTLE_MS + 300)
    out = []
    for step in range(1, steps + 1):
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        before, cpu = len(_lines(log)), _cpu_seconds(target.pid)
        pressed = time.monotonic()
        page.keyboard.press(key)
        page.wait_for_timeout(20)
        target.wait_drawn(page, step)
        if browser_s is not None:
            browser_s.append(time.monotonic() - pressed)
        page.wait_for_timeout(SETTLE_MS)
        process = (_cpu_seconds(target.pid) - cpu) * 1000
        runs = _lines(log)[before:]
        out.append((sum(r[1] for r in runs), sum(r[2] for r in runs), sum(r[3] for r in runs), process))
    context.close()
    return out


def seed_reviews(data: str, db: Path, n: int, walked: set[str], who: str = "bench") -> int:
    """*n* examples reviewed by *who* in the store *db* (every third corrected), taken from the end of *data* and
    none of *walked*; returns how many."""
    from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change
    from ragviz.data.load import load
    from ragviz.store.label_store import LabelStore

    ds = load([data]).dataset
    done = 0
    with LabelStore(db) as store:
        for row in range(len(ds) - 1, -1, -1):
            if done >= n:
                break
            ex = ds.example(row)
            if ex.uid in walked:
                continue
            changes = [Change(REVIEW_FIELD, None, REVIEWED)]
            if done % 3 == 0 and ex.labels is not None and ex.labels.relevant_keys:
                changes.insert(0, Change("relevant_keys", list(ex.labels.relevant_keys), []))
            store.record(ex.uid, who, changes, example=ex)
            done += 1
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="sample")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--baseline", type=Path, default=None)
    parser.add_argument("--decisions", type=int, default=0, help="examples already reviewed in each store")
    parser.add_argument("--key", choices=("j", "a"), default="j", help="the key pressed: J, or A (Accept)")
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--cprofile", action="store_true", help="with --profile: cProfile on the thread's CPU time")
    parser.add_argument("--queries", action="store_true", help="list each J's store statements and message times")
    parser.add_argument("--calls", action="store_true", help="with --queries: the C calls that may release the GIL")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    path = _data_path(args.data)
    # Accept reviews what it walks: each run (and the warm-up) starts where the one before stopped
    per_run = args.steps if args.key == "a" else 0
    uids, _ = _rows(args.data, path, args.steps + per_run * (args.runs + 1))
    trees = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    found: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name in trees}
    seen: dict[str, list[float]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p, contextlib.ExitStack() as stack:
        work = Path(tmp)
        hook = work / "hook"
        hook.mkdir()
        (hook / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        targets = []
        for name, root in trees.items():
            if args.decisions:
                seed_reviews(path, work / f"{name}.db", args.decisions, set(uids))
            log = work / f"{name}.log"
            extra = [str(hook), str(root)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
            env = {
                "RAGVIZ_DATA": path,
                "RAGVIZ_DB": str(work / f"{name}.db"),
                "RAGVIZ_ANNOTATOR": "bench",
                "PYTHONPATH": os.pathsep.join(extra),
                "RAGVIZ_J_LOG": str(log),
            }
            if args.queries:
                env["RAGVIZ_J_TRACE"] = str(work / f"{name}.trace")
                env["RAGVIZ_J_CALLS"] = "1" if args.calls else "0"
            if args.profile:
                args.profile.mkdir(parents=True, exist_ok=True)
                suffix = "pstats" if args.cprofile else "txt"
                env["RAGVIZ_J_PROFILE"] = str(args.profile.resolve() / f"{name}.{suffix}")
            url, pid = stack.enter_context(serve(root / "app.py", env, work, root))
            targets.append((name, Target("review", url, pid, uids), log))
        for _name, target, log in targets:  # warm: data loaded, modules imported
            _presses(browser, target, log, 1, args.key)
        warm = {name: len(_traces(work / f"{name}.trace")) for name in trees}
        for run in range(1, args.runs + 1):
            for name, target, log in targets:
                walk = Target("review", target.url, target.pid, uids[per_run * run :])
                found[name] += _presses(browser, walk, log, args.steps, args.key, seen[name])
        browser.close()
        traces = {name: _traces(work / f"{name}.trace") for name in trees}
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    k = args.key.upper()
    print(f"data {args.data}; {args.runs} runs x {args.steps} {k}; {args.decisions} decisions in the store; {load}")
    print(
        f"{'tree':10s} {f'run wall ms/{k}':>14s} {f'run CPU ms/{k}':>13s} {'mounts CPU':>11s}"
        f" {f'process CPU ms/{k}':>17s} {'browser s':>10s}  n"
    )
    for name, per_j in found.items():  # medians; the process's CPU a mean (/proc counts 10 ms ticks)
        wall, cpu, mounts = (statistics.median(v[i] for v in per_j) for i in range(3))
        process = statistics.fmean(v[3] for v in per_j)
        drawn = statistics.median(seen[name])
        print(f"{name:10s} {wall:14.1f} {cpu:13.1f} {mounts:11.2f} {process:17.1f} {drawn:10.3f}  {len(per_j)}")
    if args.queries:
        for name in trees:
            _print_traces(name, traces[name][warm[name] :], args.calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
