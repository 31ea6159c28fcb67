"""How long the test suite takes (issue 35: ``make test-fast`` at most 3 minutes, ``make test`` at most 10 minutes on
a 2-core machine): each part's wall time, its CPU time (user + system of pytest and every process it started) and
the load average beside it, printed as one line per part.

    .venv/bin/python benchmarks/bench_test_suite.py [--part fast,browser,all] [--jobs auto] [-- PYTEST_ARGS]

* ``fast``: what ``make test-fast`` runs (no browser, no PostgreSQL, not ``slow``), spread over ``--jobs`` workers;
* ``browser``: the browser tests alone, spread the way ``make test`` spreads them (``--dist loadscope``);
* ``all``: what ``make test`` runs after the linters (the whole suite, ``--dist loadscope``).

Measure on a quiet machine for the wall times; on a shared one compare CPU times (they hardly move with load) and
say the load average. ``--jobs 0`` runs a part in one process, for the before / after of the spreading itself.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["PARTS", "main", "run_part"]

ROOT = Path(__file__).resolve().parents[1]
PARTS = {
    "fast": ["-q", "-m", "not browser and not slow", "-k", "not postgresql"],
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", default="fast,browser", help="comma-separated: fast, browser, all")
    parser.add_argument("--jobs", default="auto", help="pytest-xdist workers (0: one process)")
    parser.add_argument("pytest_args", nargs="*", help="passed on to pytest (after --)")
    args = parser.parse_args(argv)
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
