"""Issue 16, the judge under a hostile or hanging server: a per-call timeout (60 s by default, set by
`ragviz label --timeout` and the Label page), Cancel stops calls under way within 2 s, Retry-After is
capped and reported, answers over 1 MB are refused (not stored, not sent back in a fix-up)."""

from __future__ import annotations

import time

import pytest

from ragviz.cli.label import DEFAULT_TIMEOUT as CLI_DEFAULT
from ragviz.cli.main import build_parser
from ragviz.judge import JudgeCache, judge_examples
from ragviz.judge import client as judge_client
from ragviz.judge.client import DEFAULT_TIMEOUT, MAX_ANSWER_BYTES, MAX_RETRY_AFTER, JudgeSettings
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page
from tests.judge.test_server import make_example, settings_for
from tests.openai_stub_server import StubServer


@pytest.fixture
def server():
    with StubServer() as stub:
        yield stub


def test_timeout_defaults_to_60_s_and_is_a_setting_everywhere(app_env):
    assert DEFAULT_TIMEOUT == CLI_DEFAULT == JudgeSettings(model="m").timeout == 60.0
    assert build_parser().parse_args(["label", "x.jsonl", "--model", "m", "-o", "o", "--timeout", "7"]).timeout == 7
    at = open_page("pages/label.py")
    assert at.number_input(key="label.timeout").value == 60


def test_cancel_stops_calls_under_way_within_2_s(server, tmp_path):
    examples = [make_example(i) for i in range(4)]
    for ex in examples:
        server.script[ex.question] = ["slow:30"]
    started = time.perf_counter()
    with LabelStore(tmp_path / "db") as store, JudgeCache(tmp_path / "db") as cache:
        summary = judge_examples(
            examples,
            settings_for(server, timeout=60.0),
            cache,
            store,
            should_cancel=lambda: time.perf_counter() - started > 0.5,
        )
        assert cache.runs()[0].status == "cancelled"
    assert time.perf_counter() - started < 2.5
    assert summary.cancelled and summary.n_judged == 0 and all(o is None for o in summary.outcomes)


class _Stop(BaseException):
    """What Streamlit raises inside a progress update once Cancel is clicked."""


def test_a_progress_update_that_raises_stops_hanging_calls(server, tmp_path):
    ex = make_example(1)
    server.script[ex.question] = ["slow:30"]
    started = time.perf_counter()

    def on_progress(_):
        if time.perf_counter() - started > 0.5:
            raise _Stop

    with LabelStore(tmp_path / "db") as store, JudgeCache(tmp_path / "db") as cache:
        with pytest.raises(_Stop):
            judge_examples([ex], settings_for(server, timeout=60.0), cache, store, on_progress=on_progress)
        assert cache.runs()[0].status == "interrupted"
    assert time.perf_counter() - started < 2.5


def test_retry_after_is_capped_and_reported(server, tmp_path, monkeypatch):
    assert MAX_RETRY_AFTER == 60.0
    monkeypatch.setattr(judge_client, "MAX_RETRY_AFTER", 1.5)  # the cap, shortened for the test
    ex = make_example(2)
    server.script[ex.question] = ["429:100000"]
    seen = []
    started = time.perf_counter()
    with LabelStore(tmp_path / "db") as store, JudgeCache(tmp_path / "db") as cache:
        summary = judge_examples([ex], settings_for(server), cache, store, on_progress=seen.append)
    assert time.perf_counter() - started < 4 and summary.n_judged == 1
    assert any(0 < p.retry_wait <= 1.5 for p in seen)


def test_an_answer_over_1_mb_is_refused_not_stored_not_resent(server, tmp_path):
    ex = make_example(3)
    server.script[ex.question] = [f"huge:{MAX_ANSWER_BYTES + 10}"] * 3
    with LabelStore(tmp_path / "db") as store, JudgeCache(tmp_path / "db") as cache:
        summary = judge_examples([ex], settings_for(server), cache, store)
        [failure] = cache.failures(summary.run_id)
    assert summary.n_failed == 1 and "over the 1,000,000-byte limit" in failure.error
    assert failure.raw_output is None
    assert len(server.requests) == 1  # no fix-up retry carrying it back
