"""How long the test suite takes (issue 35: ``make test-fast`` at most 3 minutes, ``make test`` at most 10 minutes on
a 2-core machine): each part's wall time, its CPU time (user + system of pytest and every process it started) and
the load average beside it, printed as one line per part.

    .venv/bin/python benchmarks/bench_test_suite.py [--part fast,browser,all] [--jobs auto] [-- PYTEST_ARGS]

* ``fast``: what ``make test-fast`` runs (no browser, no PostgreSQL, not ``slow``), spread over ``--jobs`` workers;
* ``browser``: the browser tests alone, spread the way ``make test`` spreads them (``--dist loadscope``);
* ``all``: what ``make test`` runs after the linters (the whole suite, ``--dist loadscope``).

Measure on a quiet machine for the wall times; on a shared one compare CPU times (they hardly move with load) and
say the load average. ``--jobs 0`` runs a part in one process, for the before / after of the spreading itself.
``--cpu-report FILE`` (after a run with ``-- --cpu-times=FILE``, ``tests/cpu_times.py``) prints where the CPU went:
per worker (the balance), the costliest modules and the costliest tests.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["PARTS", "cpu_report", "main", "run_part"]

ROOT = Path(__file__).resolve().parents[1]
PARTS = {
    "fast": ["-q", "--dist", "loadscope", "-m", "not browser and not slow", "-k", "not postgresql"],
    "browser": ["-q", "-m", "browser", "--dist", "loadscope"],
    "all": ["-q", "--dist", "loadscope"],
}


def run_part(part: str, jobs: str, extra: list[str]) -> tuple[float, float, int]:
    """Run one part; its wall seconds, CPU seconds (children included) and pytest's exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", jobs, *PARTS[part], *extra], cwd=ROOT)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def cpu_report(prefix: str, top: int = 40) -> str:
    """Where the CPU went, from the ``--cpu-times`` files ``prefix.<worker>``: per worker, per module, per test."""
    rows = []
    where = Path(prefix)
    for path in sorted([*where.parent.glob(where.name + ".gw*"), *where.parent.glob(where.name + ".main")]):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not rows:
        return f"no --cpu-times files at {prefix}.*"
    total = sum(r["cpu"] for r in rows)
    lines = [f"{len(rows)} tests, {total:,.0f} s CPU in the tests (collection and start-up not included)"]
    workers: dict[str, list[float]] = {}
    modules: dict[str, list[float]] = {}
    for r in rows:
        workers.setdefault(r["worker"], []).append(r["cpu"])
        modules.setdefault(r["test"].split("::")[0], []).append(r["cpu"])
    lines += [f"  {w}: {len(c)} tests, {sum(c):,.0f} s CPU" for w, c in sorted(workers.items())]
    lines.append(f"costliest {top} modules (s CPU, tests):")
    for name, c in sorted(modules.items(), key=lambda kv: -sum(kv[1]))[:top]:
        lines.append(f"  {sum(c):8.1f}  {len(c):4d}  {name}")
    lines.append(f"costliest {top} tests (s CPU, s wall):")
    for r in sorted(rows, key=lambda r: -r["cpu"])[:top]:
        lines.append(f"  {r['cpu']:8.1f}  {r['wall']:7.1f}  {r['test']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", default="fast,browser", help="comma-separated: fast, browser, all")
    parser.add_argument("--jobs", default="auto", help="pytest-xdist workers (0: one process)")
    parser.add_argument("--cpu-report", metavar="FILE", help="only print where the CPU of a --cpu-times run went")
    parser.add_argument("pytest_args", nargs="*", help="passed on to pytest (after --)")
    args = parser.parse_args(argv)
    if args.cpu_report:
        print(cpu_report(args.cpu_report))
        return 0
    status = 0
    for part in args.part.split(","):
        wall, cpu, code = run_part(part, args.jobs, args.pytest_args)
        load = os.getloadavg()[0]
        print(
            f"{part}: {wall:,.0f} s wall, {cpu:,.0f} s CPU, -n {args.jobs}, exit {code}, load average {load:.1f}",
            flush=True,
        )
        status = status or code
    return status


if __name__ == "__main__":
    raise SystemExit(main())
