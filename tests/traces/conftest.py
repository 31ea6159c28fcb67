"""The Phoenix server the trace tests share: started once per test session, skipped with the reason when it is
not installed or does not come up (tests/traces/phoenix_server.py). ``$RAGVIZ_TEST_PHOENIX_URL`` names a running
server to use instead (a quicker loop while working)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.traces.phoenix_server import phoenix_or_reason, start_phoenix


@pytest.fixture(scope="session")
def phoenix_url() -> Iterator[str]:
    if os.environ.get("RAGVIZ_TEST_PHOENIX_URL"):
        yield os.environ["RAGVIZ_TEST_PHOENIX_URL"]
        return
    executable, reason = phoenix_or_reason()
    if executable is None:
        pytest.skip(reason)
    try:
        server = start_phoenix(executable)
    except RuntimeError as exc:
        pytest.skip(f"the Phoenix server did not start: {str(exc)[:300]}")
    try:
        yield server.url
    finally:
        server.stop()
