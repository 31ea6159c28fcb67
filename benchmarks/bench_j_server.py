"""The server's own time per J on the Review page (issue 38), timed inside the server, in headless chromium.

Starts the app (and, with ``--baseline DIR``, another ragviz source tree's: ``git archive <commit> | tar -x -C DIR``)
with a ``sitecustomize`` hook that times every script run of the server (Streamlit's ``ScriptRunner._run_script``:
from the run's start to its end, the fragment's and the page's work, wall and the thread's CPU), presses J ``--steps``
times per run on each alternately, and prints per tree the medians per J over ``--runs`` runs (and the CPU of the
component mounts' data work: Streamlit's search of the data for dataframes, its JSON, the identity hash). The wall time in the
browser swings 2x on a shared machine; the server's run is what this branch changes, and its CPU time is steadier.

    .venv/bin/python benchmarks/bench_j_server.py [--data sample|100k|ragbench] [--runs 3] [--steps 5] [--baseline DIR]
        [--profile DIR]

``--profile DIR`` (needs pyinstrument importable, e.g. ``pip install --target /tmp/pyi pyinstrument`` and
``PYTHONPATH=/tmp/pyi``; never a dependency) writes each tree's J runs, sampled every 0.2 ms, to ``DIR/<tree>.txt``
(wall time: on a loaded machine it counts the script thread's waits for the GIL where they fall). ``--cprofile``
writes ``DIR/<tree>.pstats`` instead: cProfile timing the thread's CPU (its per-call cost inflates small calls).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_floor import CHROMIUM, SETTLE_MS, Target, _cpu_seconds, _data_path, _rows, serve  # noqa: E402

__all__ = ["HOOK", "main"]

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
    """
)


def _lines(log: Path) -> list[tuple[int, float, float, float]]:
    if not log.exists():
        return []
    return [
        (int(a), float(b), float(c), float(d)) for a, b, c, d in (ln.split() for ln in log.read_text().splitlines())
    ]


def _presses(browser, target: Target, log: Path, steps: int) -> list[tuple[float, float, float, float]]:
    """Per J: the server's run time (wall, CPU ms) and its components' data work (CPU ms) summed over the runs the
    press started, and the whole server process's CPU ms (its event loop's work on the messages too) from the press
    until the page is drawn."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(target.start_url())
    target.wait_drawn(page, 0)
    page.wait_for_timeout(SETTLE_MS + 300)
    out = []
    for step in range(1, steps + 1):
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
        before, cpu = len(_lines(log)), _cpu_seconds(target.pid)
        page.keyboard.press("j")
        page.wait_for_timeout(20)
        target.wait_drawn(page, step)
        page.wait_for_timeout(SETTLE_MS)
        process = (_cpu_seconds(target.pid) - cpu) * 1000
        runs = _lines(log)[before:]
        out.append((sum(r[1] for r in runs), sum(r[2] for r in runs), sum(r[3] for r in runs), process))
    context.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="sample")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--baseline", type=Path, default=None)
    parser.add_argument("--profile", type=Path, default=None)
    parser.add_argument("--cprofile", action="store_true", help="with --profile: cProfile on the thread's CPU time")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    path = _data_path(args.data)
    uids, _ = _rows(args.data, path, args.steps)
    trees = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    found: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p, contextlib.ExitStack() as stack:
        work = Path(tmp)
        hook = work / "hook"
        hook.mkdir()
        (hook / "sitecustomize.py").write_text(HOOK, encoding="utf-8")
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        targets = []
        for name, root in trees.items():
            log = work / f"{name}.log"
            extra = [str(hook), str(root)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
            env = {
                "RAGVIZ_DATA": path,
                "RAGVIZ_DB": str(work / f"{name}.db"),
                "RAGVIZ_ANNOTATOR": "bench",
                "PYTHONPATH": os.pathsep.join(extra),
                "RAGVIZ_J_LOG": str(log),
            }
            if args.profile:
                args.profile.mkdir(parents=True, exist_ok=True)
                suffix = "pstats" if args.cprofile else "txt"
                env["RAGVIZ_J_PROFILE"] = str(args.profile.resolve() / f"{name}.{suffix}")
            url, pid = stack.enter_context(serve(root / "app.py", env, work, root))
            targets.append((name, Target("review", url, pid, uids), log))
        for _name, target, log in targets:  # warm: data loaded, modules imported
            _presses(browser, target, log, 1)
        for _ in range(args.runs):
            for name, target, log in targets:
                found[name] += _presses(browser, target, log, args.steps)
        browser.close()
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"data {args.data}; {args.runs} runs x {args.steps} J; {load}")
    print(f"{'tree':10s} {'run wall ms/J':>14s} {'run CPU ms/J':>13s} {'mounts CPU':>11s} {'process CPU ms/J':>17s}  n")
    for name, per_j in found.items():  # medians; the process's CPU a mean (/proc counts 10 ms ticks)
        wall, cpu, mounts = (statistics.median(v[i] for v in per_j) for i in range(3))
        process = statistics.fmean(v[3] for v in per_j)
        print(f"{name:10s} {wall:14.1f} {cpu:13.1f} {mounts:11.2f} {process:17.1f}  {len(per_j)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
