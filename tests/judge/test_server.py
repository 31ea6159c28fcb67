"""The judge against a real HTTP server on 127.0.0.1 (tests/openai_stub_server.py), through the real
``openai`` client: what lands in the store and the judge tables for each scripted behaviour."""

from __future__ import annotations

import sqlite3
import time

import pytest

from ragviz.data.model import Example, Sentence
from ragviz.judge import (
    PROMPT_VERSION,
    JudgeCache,
    JudgeSettings,
    judge_example,
    judge_examples,
)
from ragviz.store.label_store import LabelStore
from tests.openai_stub_server import StubServer

KEY = "sk-test-DoNotLeak-7f3a9c1e5b"


def make_example(n: int, n_response: int = 3) -> Example:
    docs = (
        (Sentence("0a", f"Fact one about topic {n}."), Sentence("0b", "Fact two.\nWith a line break.")),
        (Sentence("1a", "Another document."), Sentence("1b", "Unrelated text.")),
    )
    response = tuple(Sentence(chr(ord("a") + j), f"Claim {j} of answer {n}.") for j in range(n_response))
    return Example(
        id=f"q{n}",
        dataset="stubset",
        question=f"What is topic {n}?",
        documents=("d0", "d1"),
        document_sentences=docs,
        response=" ".join(s.text for s in response),
        response_sentences=response,
        generation_model="gen",
    )


@pytest.fixture
def server():
    with StubServer() as stub:
        yield stub


@pytest.fixture
def db(tmp_path):
    return tmp_path / "ragviz.db"


def settings_for(server: StubServer, **overrides) -> JudgeSettings:
    values = dict(
        model="gpt-4o-mini",
        base_url=server.base_url,
        api_key=KEY,
        concurrency=4,
        timeout=5.0,
        max_attempts=3,
        max_fix_attempts=2,
        backoff_base=0.01,
        backoff_max=0.05,
        response_format="json_schema",  # a fixed format: no probe request in the counts (auto: test_judge_endpoints.py)
    )
    values.update(overrides)
    return JudgeSettings(**values)


def run(examples, server, db, **overrides):
    with LabelStore(db) as store, JudgeCache(db) as cache:
        summary = judge_examples(examples, settings_for(server, **overrides), cache, store)
        stored = {e.uid: store.judge.labels(e.uid) for e in examples}
        failures = cache.failures(summary.run_id)
        runs = cache.runs()
    return summary, stored, failures, runs


def test_valid_labels_land_in_store_with_prompt_version(server, db):
    examples = [make_example(i) for i in range(3)]
    summary, stored, failures, runs = run(examples, server, db)
    assert (summary.n_judged, summary.n_failed, summary.requests) == (3, 0, 3)
    assert failures == []
    labels = stored[examples[0].uid]
    assert labels.relevant_keys == ("0a", "0b") and labels.utilized_keys == ("0a",)
    assert [s.key for s in labels.support] == ["a", "b", "c"]
    assert [s.supported for s in labels.support] == [True, True, False]
    assert labels.provenance.source == "llm" and labels.provenance.name == "gpt-4o-mini"
    assert labels.provenance.prompt_version == PROMPT_VERSION and labels.provenance.time
    assert runs[0].status == "done" and runs[0].n_judged == 3 and runs[0].requests == 3
    assert runs[0].prompt_tokens > 0 and runs[0].cost_usd is not None and runs[0].cost_usd > 0
    # The request carried the keyed prompt, a JSON-schema response format, and the key only as a header.
    body = server.requests[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert "0b. Fact two. With a line break." in body["messages"][1]["content"]
    assert server.requests[0].authorization == f"Bearer {KEY}"


def test_second_run_makes_zero_requests(server, db):
    examples = [make_example(i) for i in range(4)]
    run(examples, server, db)
    first = len(server.requests)
    summary, stored, _, runs = run(examples, server, db)
    assert len(server.requests) == first == 4
    assert (summary.requests, summary.n_cached, summary.n_judged) == (0, 4, 0)
    assert all(stored.values())
    # Another prompt-visible change (the question) is a cache miss for that example only.
    changed = [examples[0].__class__(**{**examples[0].__dict__, "question": "A new question?"}), *examples[1:]]
    summary, *_ = run(changed, server, db)
    assert (summary.requests, summary.n_cached, summary.n_judged) == (1, 3, 1)


def test_malformed_json_is_retried_with_the_problem_fed_back(server, db):
    ex = make_example(1)
    server.script[ex.question] = ["malformed"]
    summary, stored, failures, _ = run([ex], server, db)
    assert summary.n_judged == 1 and failures == []
    second = server.requests_for(ex.question)[1].body["messages"]
    assert second[2]["role"] == "assistant" and second[2]["content"].startswith('{"relevance_explanation": "cut off"')
    assert "not valid JSON" in second[3]["content"]
    assert stored[ex.uid] is not None


def test_malformed_every_time_is_a_failure_with_raw_output_never_applied(server, db):
    ex = make_example(1)
    server.script[ex.question] = ["malformed"] * 3
    summary, stored, failures, runs = run([ex], server, db)
    assert summary.n_failed == 1 and len(server.requests) == 3  # 1 + max_fix_attempts
    assert stored[ex.uid] is None
    [failure] = failures
    assert failure.example_uid == ex.uid and "not valid JSON" in failure.error and failure.attempts == 3
    assert failure.raw_output.startswith('{"relevance_explanation": "cut off"')
    assert runs[0].n_failed == 1
    with JudgeCache(db) as cache:
        assert cache.count_results() == 0


def test_keys_naming_no_sentence_are_rejected(server, db):
    ex = make_example(2)
    server.script[ex.question] = ["bad_keys"] * 3
    summary, stored, failures, _ = run([ex], server, db)
    assert stored[ex.uid] is None
    error = failures[0].error
    assert "all_relevant_sentence_keys: '9zz' names no context sentence" in error
    assert "sentence_support_information[0].supporting_sentence_keys: '7q' names no context sentence" in error
    assert '"9zz"' in failures[0].raw_output


def test_bad_keys_once_then_fixed(server, db):
    ex = make_example(2)
    server.script[ex.question] = ["bad_keys"]
    summary, stored, failures, _ = run([ex], server, db)
    assert summary.n_judged == 1 and failures == [] and "9zz" not in stored[ex.uid].relevant_keys
    assert "'9zz' names no context sentence" in server.requests[1].body["messages"][3]["content"]


def test_missing_response_sentence_is_rejected(server, db):
    ex = make_example(3)
    server.script[ex.question] = ["missing_sentence"] * 3
    summary, stored, failures, _ = run([ex], server, db)
    assert stored[ex.uid] is None
    assert "no entry for response sentence(s) 'c'" in failures[0].error


def test_429_honours_retry_after(server, db):
    ex = make_example(4)
    server.script[ex.question] = ["429:1"]
    summary, stored, failures, _ = run([ex], server, db)
    first, second = server.requests_for(ex.question)
    assert first.status == 429 and second.status == 200
    assert second.time - first.time >= 0.95  # Retry-After: 1, although backoff_max is 0.05 s
    assert summary.n_judged == 1 and stored[ex.uid] is not None


def test_500_is_retried_then_given_up(server, db):
    ok, broken = make_example(5), make_example(6)
    server.script[ok.question] = ["500", "500"]
    server.script[broken.question] = ["500"] * 3
    summary, stored, failures, _ = run([ok, broken], server, db)
    assert stored[ok.uid] is not None and stored[broken.uid] is None
    assert len(server.requests_for(ok.question)) == 3 and len(server.requests_for(broken.question)) == 3
    [failure] = failures
    assert failure.example_uid == broken.uid and failure.error.startswith("HTTP 500") and failure.attempts == 3
    assert failure.raw_output is None


def test_slow_answer_past_timeout_is_retried(server, db):
    ex = make_example(7)
    server.script[ex.question] = ["slow:2"]
    t0 = time.perf_counter()
    summary, stored, failures, _ = run([ex], server, db, timeout=0.5)
    assert time.perf_counter() - t0 < 1.8  # did not wait for the slow answer
    assert len(server.requests_for(ex.question)) == 2
    assert summary.n_judged == 1 and stored[ex.uid] is not None


def test_timeout_every_time_is_a_failure(server, db):
    ex = make_example(7)
    server.script[ex.question] = ["slow:1"] * 3
    summary, stored, failures, _ = run([ex], server, db, timeout=0.3)
    assert stored[ex.uid] is None and "timed out after 3 attempts" in failures[0].error


def test_auto_format_probes_once_per_endpoint_and_model_and_remembers(server, db):
    server.reject_formats = ("json_schema",)
    summary, stored, *_ = run([make_example(1), make_example(2)], server, db, response_format="auto")
    assert summary.n_judged == 2 and summary.format_mode == "json_object"
    probes = [r for r in server.requests if r.question == ""]
    assert [p.body["response_format"]["type"] for p in probes] == ["json_schema", "json_object"]
    assert server.requests[-1].body["response_format"] == {"type": "json_object"}
    with JudgeCache(db) as cache:
        assert cache.endpoint_format(server.base_url, "gpt-4o-mini") == "json_object"

    before = len(server.requests)
    summary, *_ = run([make_example(3)], server, db, response_format="auto")  # remembered: no probe
    assert len(server.requests) == before + 1 and summary.format_mode == "json_object"

    server.reject_formats = ("json_schema", "json_object")
    ex = make_example(4)
    server.script[ex.question] = ["prose"]
    summary, stored, failures, _ = run([ex], server, db, response_format="auto", model="other-model")
    assert summary.format_mode == "text" and failures == [] and stored[ex.uid] is not None
    assert "response_format" not in server.requests[-1].body


def test_a_fixed_format_is_used_as_set_and_a_refusal_is_an_error(server, db):
    server.reject_formats = ("json_schema",)
    summary, _, failures, _ = run([make_example(1)], server, db, response_format="json_schema")
    assert summary.n_failed == 1 and "HTTP 400" in failures[0].error and len(server.requests) == 1
    summary, stored, _, _ = run([make_example(2)], server, db, response_format="text")
    assert summary.n_judged == 1 and "response_format" not in server.requests[-1].body


def test_cancel_keeps_accepted_answers(server, db):
    server.latency = 0.05
    examples = [make_example(i) for i in range(10)]
    with LabelStore(db) as store, JudgeCache(db) as cache:
        seen = []
        summary = judge_examples(
            examples,
            settings_for(server, concurrency=1),
            cache,
            store,
            on_progress=seen.append,
            should_cancel=lambda: len(seen) >= 3,
        )
        assert summary.cancelled and summary.n_judged == 3
        assert cache.runs()[0].status == "cancelled"
        assert sum(store.judge.labels(e.uid) is not None for e in examples) == 3
        assert cache.count_results() == 3
    assert len(server.requests) == 3


def test_concurrency_is_bounded_and_overlaps(server, db):
    server.latency = 0.2
    examples = [make_example(i) for i in range(8)]
    summary, *_ = run(examples, server, db, concurrency=4)
    # the server saw calls overlap, never more than asked (a wall-clock bound failed on a loaded machine)
    assert summary.n_judged == 8 and 2 <= server.max_in_flight <= 4


def test_judge_example_rejudges_and_becomes_the_store_base(server, db):
    ex = make_example(8)
    with LabelStore(db) as store:
        first = judge_example(ex, settings_for(server), store)
        second = judge_example(ex, settings_for(server), store)  # force: a fresh call
        assert first.status == second.status == "judged" and len(server.requests) == 2
        assert store.judge.labels(ex.uid) == second.labels
        assert store.base_labels(ex) == second.labels
        cached = judge_example(ex, settings_for(server), store, force=False)
        assert cached.status == "cached" and len(server.requests) == 2


def test_key_never_written_even_when_the_server_echoes_it(server, db):
    ex = make_example(9)
    server.script[ex.question] = ["401"]
    summary, stored, failures, _ = run([ex, make_example(10)], server, db)
    assert summary.n_failed == 1 and "Incorrect API key provided: ***" in failures[0].error
    assert KEY not in failures[0].error and KEY not in repr(settings_for(server))
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(FULL)")
    for f in db.parent.iterdir():
        assert KEY.encode() not in f.read_bytes(), f


class Interrupt(BaseException):
    """Like Streamlit's rerun request raised inside a progress update when the person clicks Cancel."""


def test_interrupt_from_progress_callback_keeps_accepted_answers(server, db):
    server.latency = 0.05
    examples = [make_example(i) for i in range(8)]
    with LabelStore(db) as store, JudgeCache(db) as cache:

        def on_progress(p):
            if p.done == 2:
                raise Interrupt()

        with pytest.raises(Interrupt):
            judge_examples(examples, settings_for(server, concurrency=1), cache, store, on_progress=on_progress)
        assert cache.runs()[0].status == "interrupted"
        assert cache.count_results() == 2
        assert sum(store.judge.labels(e.uid) is not None for e in examples) == 2
        resumed = judge_examples(examples, settings_for(server, concurrency=4), cache, store)
    assert (resumed.n_cached, resumed.n_judged, resumed.requests) == (2, 6, 6)


def test_a_non_chat_answer_fails_that_example_only(server, db):
    bad, good = make_example(11), make_example(12)
    server.script[bad.question] = ["html"]
    summary, stored, failures, _ = run([bad, good], server, db)
    assert stored[bad.uid] is None and stored[good.uid] is not None
    [failure] = failures
    assert "not a chat completion" in failure.error and "Bad gateway" in failure.raw_output


def test_json_that_is_not_a_chat_completion_fails_that_example_only(server, db):
    bad, good = make_example(13), make_example(14)
    server.script[bad.question] = ["other_json"]
    summary, stored, failures, _ = run([bad, good], server, db)
    assert stored[bad.uid] is None and stored[good.uid] is not None
    [failure] = failures
    assert "not a chat completion" in failure.error and '"object": "list"' in failure.raw_output


def test_json_nested_too_deep_fails_that_example_only(server, db):
    """A body, or an answer, nested past Python's recursion limit raised RecursionError out of the judge."""
    body, answer, good = make_example(15), make_example(16), make_example(17)
    server.script[body.question] = ["deep_json"]
    server.script[answer.question] = ["deep", "deep", "deep", "deep"]
    summary, stored, failures, _ = run([body, answer, good], server, db)
    assert stored[body.uid] is None and stored[answer.uid] is None and stored[good.uid] is not None
    errors = {f.example_uid: f.error for f in failures}
    assert "not a chat completion" in errors[body.uid]
    assert "nested too deep to read" in errors[answer.uid]


def test_stub_latency_includes_its_own_work(db):
    # The benchmark's "100 ms per call" is the time the stub holds a request, its JSON work included.
    with StubServer(latency=0.05) as stub:
        summary, stored, _, _ = run([make_example(i) for i in range(3)], stub, db, concurrency=1)
    assert summary.n_judged == 3
    assert 3 * 0.05 <= stub.held_seconds < 3 * 0.05 + 1.0
