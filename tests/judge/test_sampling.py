"""The judge asked N times per example (``--samples N``) against the stub server whose answers vary across
samples: each sample cached like any answer, the sentence agreement and the metric confidences stored."""

from __future__ import annotations

import pytest

from ragviz.judge import PROMPT_VERSION, JudgeCache
from ragviz.judge.sampling.agreement import metric_confidence
from ragviz.judge.sampling.run import judge_with_samples
from ragviz.judge.settings import JudgeConfigError
from ragviz.store.judge_confidence import example_confidence, example_confidences
from ragviz.store.label_store import LabelStore
from tests.judge.test_server import make_example, settings_for
from tests.openai_stub_server import StubServer


@pytest.fixture
def server():
    with StubServer(vary=True) as stub:
        yield stub


def sampled(examples, server, db, samples, sample_mode="n", confidence="samples", **overrides):
    with LabelStore(db) as store, JudgeCache(db) as cache:
        result = judge_with_samples(
            examples,
            settings_for(server, **overrides),
            cache,
            store,
            samples=samples,
            sample_mode=sample_mode,
            confidence=confidence,
        )
        stored = {e.uid: example_confidence(store, e.uid) for e in examples}
        kept = {e.uid: store.judge.labels(e.uid) for e in examples}
    return result, stored, kept


@pytest.mark.parametrize(("mode", "requests"), [("separate", 9), ("n", 6)])
def test_three_samples_store_the_share_that_agrees_and_each_metric_confidence(server, tmp_path, mode, requests):
    examples = [make_example(n) for n in range(3)]
    result, stored, kept = sampled(examples, server, tmp_path / "s.db", samples=3, sample_mode=mode)
    # the kept answer at temperature 0, then two samples at 1: the first of them varies (stub), the second not
    # (separate: one request per sample; n: one request with n=2 per example, its two choices the two samples)
    assert [c.body.get("temperature") for c in server.calls[:3]] == [0.0, 0.0, 0.0]
    assert {c.body.get("temperature") for c in server.calls[3:]} == {1.0}
    assert len(server.calls) == requests and result.requests == requests
    assert {c.body.get("n") for c in server.calls[3:]} == ({None} if mode == "separate" else {2})
    assert result.notes == []
    for example in examples:
        conf = stored[example.uid]
        assert conf is not None and conf.n_samples == 3
        # kept: 0a, 0b relevant; the varied sample drops 0b; the third agrees again
        assert conf.sentences["relevant"] == {"0a": 1.0, "0b": pytest.approx(2 / 3), "1a": 1.0, "1b": 1.0}
        assert conf.sentences["utilized"] == {"0a": 1.0, "0b": 1.0, "1a": 1.0, "1b": 1.0}
        # kept: a, b supported, c not; the varied sample calls a unsupported
        assert conf.sentences["supported"] == {"a": pytest.approx(2 / 3), "b": 1.0, "c": 1.0}
        # adherence 0, 0, 0 (c unsupported in every sample); relevance 2/4, 1/4, 2/4
        assert conf.metrics["adherence"] == 1.0
        assert conf.metrics["relevance"] == pytest.approx(metric_confidence([0.5, 0.25, 0.5]))
        assert 0 < conf.metrics["relevance"] < 1
        # completeness (utilized among relevant) 1/2, 1/1, 1/2: the least sure metric is the example's confidence
        assert conf.metrics["completeness"] == pytest.approx(metric_confidence([0.5, 1.0, 0.5]))
        assert conf.overall == pytest.approx(conf.metrics["completeness"]) == pytest.approx(1 - 2 * 0.2357, abs=1e-4)
        assert kept[example.uid].relevant_keys == ("0a", "0b")  # the kept answer stays the judge's labels
        assert kept[example.uid].provenance.prompt_version == PROMPT_VERSION


def test_a_rerun_asks_nothing_and_one_more_sample_asks_only_that_one(server, tmp_path):
    db = tmp_path / "s.db"
    examples = [make_example(n) for n in range(2)]
    sampled(examples, server, db, samples=2)
    assert len(server.calls) == 4
    again, stored, _ = sampled(examples, server, db, samples=2)
    assert len(server.calls) == 4 and again.requests == 0
    assert stored[examples[0].uid].sentences["relevant"]["0b"] == 0.5
    more, stored, _ = sampled(examples, server, db, samples=3)
    assert len(server.calls) == 6 and more.requests == 2  # sample 3 of each example, the rest cached
    assert stored[examples[0].uid].n_samples == 3


def test_judged_again_without_samples_the_old_confidence_is_gone(server, tmp_path):
    from ragviz.judge import judge_examples

    db = tmp_path / "s.db"
    examples = [make_example(0)]
    sampled(examples, server, db, samples=2)
    with LabelStore(db) as store, JudgeCache(db) as cache:
        assert set(example_confidences(store)) == {examples[0].uid}
        judge_examples(examples, settings_for(server), cache, store, force=True)
        assert example_confidences(store) == {}


@pytest.mark.parametrize("samples", [0, -2, 21])
def test_samples_out_of_range_is_one_clear_message(server, tmp_path, samples):
    with pytest.raises(JudgeConfigError, match="samples: must be a whole number from 1 to 20"):
        sampled([make_example(0)], server, tmp_path / "s.db", samples=samples)
    assert server.calls == []


def test_samples_at_temperature_zero_are_refused_before_any_call(server, tmp_path):
    with pytest.raises(JudgeConfigError, match="temperature 0 would all be the same answer"):
        sampled([make_example(0)], server, tmp_path / "s.db", samples=3, temperature=0.0)
    assert server.calls == []


def test_an_endpoint_that_refuses_temperature_is_one_clear_message_and_the_kept_answers_stay(tmp_path):
    db = tmp_path / "s.db"
    examples = [make_example(0), make_example(1)]
    with StubServer(vary=True, reasoning_models=("house-model",)) as stub:
        with pytest.raises(JudgeConfigError, match="refused a temperature of 1 for house-model"):
            sampled(examples, stub, db, samples=2, model="house-model")
    with LabelStore(db) as store:
        assert all(store.judge.labels(e.uid) is not None for e in examples)
        assert example_confidences(store) == {}
