"""Samples 2..N asked as ONE request with ``n`` = N - 1 (``sample_mode="n"``) against the stub server through the real
``openai`` client: one request per example for the samples, the same confidences as one request per sample, each
choice cached under the separate samples' keys, and a fallback said once when the endpoint ignores or refuses ``n``."""

from __future__ import annotations

import pytest

from ragviz.judge import JudgeCache
from ragviz.judge.sampling.run import judge_with_samples
from ragviz.store.judge_confidence import example_confidences
from ragviz.store.label_store import LabelStore
from tests.judge.test_server import make_example, settings_for
from tests.openai_stub_server import StubServer

EXAMPLES = [make_example(n) for n in range(4)]


def run(stub, db, mode, samples=3, examples=EXAMPLES):
    with LabelStore(db) as store, JudgeCache(db) as cache:
        result = judge_with_samples(examples, settings_for(stub), cache, store, samples=samples, sample_mode=mode)
        stored = example_confidences(store)
        ledger = cache.runs()
    return result, stored, ledger


def test_one_request_per_example_stores_what_one_request_per_sample_stores(tmp_path):
    with StubServer(vary=True) as separate_stub:
        separate, by_sample, _ = run(separate_stub, tmp_path / "separate.db", "separate")
    with StubServer(vary=True) as n_stub:
        one, by_request, ledger = run(n_stub, tmp_path / "n.db", "n")
    assert len(separate_stub.calls) == 4 + 4 * 2  # the kept answer, then one request per sample
    sample_calls = n_stub.calls[4:]
    assert len(n_stub.calls) == 4 + 4 and one.requests == 8  # the kept answer, then one request per example
    assert [c.body["n"] for c in sample_calls] == [2, 2, 2, 2] and {c.body["temperature"] for c in sample_calls} == {1}
    assert one.notes == []
    assert set(by_request) == {e.uid for e in EXAMPLES}
    assert by_request == by_sample  # the same shares and metric confidences, sample for sample
    assert any(c.overall is not None and c.overall < 1 for c in by_request.values())  # the varied choices count
    # the ledger: the n step is one run row with one request per example; the prompt is paid once per request
    n_row = ledger[0]
    assert n_row.requests == 4 and n_row.n_judged == 4 and n_row.prompt_version.endswith("(one request each)")
    assert one.prompt_tokens == 2 * one.kept.prompt_tokens < separate.prompt_tokens == 3 * separate.kept.prompt_tokens
    assert one.completion_tokens == separate.completion_tokens
    assert n_row.prompt_tokens == one.kept.prompt_tokens  # four prompts, one per request
    assert n_row.completion_tokens == one.completion_tokens - one.kept.completion_tokens  # every choice's


@pytest.mark.parametrize(("first", "then"), [("n", "separate"), ("separate", "n")])
def test_either_mode_reuses_the_other_s_answers(tmp_path, first, then):
    db = tmp_path / "s.db"
    with StubServer(vary=True) as stub:
        _, before, _ = run(stub, db, first)
        asked = len(stub.calls)
        again, after, _ = run(stub, db, then)
        assert len(stub.calls) == asked and again.requests == 0  # every sample cached under the same key
        assert after == before


def test_one_more_sample_in_n_mode_asks_only_the_missing_one(tmp_path):
    db = tmp_path / "s.db"
    with StubServer(vary=True) as stub:
        run(stub, db, "n", samples=2)
        asked = len(stub.calls)
        more, stored, _ = run(stub, db, "n", samples=4)
        new = stub.calls[asked:]
        assert len(new) == 4 and [c.body["n"] for c in new] == [2] * 4  # samples 3 and 4 of each example
        assert {c.n_samples for c in stored.values()} == {4}


@pytest.mark.parametrize("n_mode", ["ignore", "refuse"])
def test_an_endpoint_without_n_falls_back_to_separate_requests_said_once(tmp_path, n_mode):
    with StubServer(vary=True) as reference:
        _, expected, _ = run(reference, tmp_path / "ref.db", "separate")
    with StubServer(vary=True, n_mode=n_mode) as stub:
        result, stored, _ = run(stub, tmp_path / "s.db", "n")
    with_n = [c for c in stub.calls if c.body.get("n")]
    assert len(with_n) == 1  # only the first example's request tried n; the rest never did
    if n_mode == "ignore":
        # its one choice is sample 2 of the first example; the other 3 + 4 samples asked one by one
        assert len(stub.calls) == 4 + 1 + 3 + 4 and result.requests == 12
        assert result.notes == [
            "samples: the endpoint ignored n=2 (it sent 1 answer per request); the samples are asked one request each"
        ]
    else:
        assert with_n[0].status == 400 and len(stub.calls) == 4 + 1 + 8 and result.requests == 13
        assert len(result.notes) == 1 and result.notes[0].startswith("samples: the endpoint refused n=2 (400")
    assert stored == expected


def test_a_choice_that_is_not_a_valid_answer_is_asked_again_on_its_own(tmp_path):
    example = make_example(0)
    # the stub spoils the first choice of the request with n=2; the second is sample 3
    with StubServer(vary=True, script={example.question: ["valid", "malformed"]}) as stub:
        result, stored, _ = run(stub, tmp_path / "s.db", "n", examples=[example])
    assert [c.body.get("n") for c in stub.calls] == [None, 2, None]  # kept, both samples, sample 2 again
    assert stored[example.uid].n_samples == 3 and result.n_sample_failures == 0
