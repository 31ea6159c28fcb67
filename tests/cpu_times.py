"""Per-test CPU seconds, for finding where the suite's time goes on a shared machine (wall time there is noise).

``pytest --cpu-times=FILE`` appends one JSON line per test to ``FILE`` (``FILE.<worker>`` under pytest-xdist):
the test's node id, the worker, the CPU seconds of the test process (user + system, setup and teardown included)
plus those of the child processes it waited for, and the wall seconds. A server a module fixture keeps running is
counted when the fixture stops it; chromium's work is not counted (Playwright's driver is waited for at the end of
the session). ``benchmarks/bench_test_suite.py --cpu-report FILE`` sums them.
"""

from __future__ import annotations

import json
import os
import resource
import time
from pathlib import Path

import pytest

__all__ = ["cpu_now", "pytest_addoption", "pytest_runtest_protocol"]


def cpu_now() -> float:
    """CPU seconds so far of this process and of its waited-for children."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cpu-times", metavar="FILE", default=None, help="append each test's CPU seconds to FILE (JSON lines)"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    target = item.config.getoption("--cpu-times")
    if not target:
        yield
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    cpu, wall = cpu_now(), time.monotonic()
    yield
    line = {"test": item.nodeid, "worker": worker, "cpu": cpu_now() - cpu, "wall": time.monotonic() - wall}
    path = Path(f"{target}.{worker}")
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")
