"""The judge's confidence read from the kept answer's token probabilities (``confidence="logprobs"``) against the stub
server's OpenAI-format ``logprobs`` through the real ``openai`` client: hand-computed shares and metric confidences,
one request per example, the Review marker's words, and one clear note (no traceback) when no logprobs come back."""

from __future__ import annotations

import itertools
import math

import pytest

from ragviz.analysis.audits.judge_confidence import unsure_sentences
from ragviz.judge import JudgeCache, judge_examples
from ragviz.judge.sampling.logprobs import verdict_shares
from ragviz.judge.sampling.run import judge_with_samples
from ragviz.store.judge_confidence import example_confidences
from ragviz.store.label_store import LabelStore
from tests.judge.test_server import make_example, settings_for
from tests.openai_stub_server import StubServer

EXAMPLES = [make_example(n) for n in range(2)]
# The stub's answer: relevant [0a, 0b], utilized [0a], a and b supported, c not. The probabilities given to the tokens
# that carry: 0b in the relevant list, the relevant and utilized lists' closing brackets, a's and c's verdicts.
PROBS = {
    "all_relevant_sentence_keys:0b": 0.8,
    "all_relevant_sentence_keys:]": 0.9,
    "all_utilized_sentence_keys:]": 0.5,
    "fully_supported:a": 0.6,
    "fully_supported:c": 0.7,
}


def run(stub, db, samples=1, examples=EXAMPLES):
    with LabelStore(db) as store, JudgeCache(db) as cache:
        result = judge_with_samples(examples, settings_for(stub), cache, store, samples=samples, confidence="logprobs")
        return result, example_confidences(store), {e.uid: store.judge.labels(e.uid) for e in examples}


def _completeness_by_enumeration(relevant: list[float], utilized: list[float]) -> float:
    """1 - 2 sd of |R ∩ U| / |R| over all 2^8 label sets of four sentences (independent of the code under test)."""
    mean = square = 0.0
    for r_set in itertools.product((0, 1), repeat=4):
        for u_set in itertools.product((0, 1), repeat=4):
            p = math.prod(
                (r if ri else 1 - r) * (u if ui else 1 - u) for r, u, ri, ui in zip(relevant, utilized, r_set, u_set)
            )
            n_rel = sum(r_set)
            value = 1.0 if n_rel == 0 else sum(a and b for a, b in zip(r_set, u_set)) / n_rel
            mean, square = mean + p * value, square + p * value * value
    return 1 - 2 * math.sqrt(square - mean * mean)


def test_logprobs_give_each_label_its_token_probability_and_each_metric_its_spread(tmp_path):
    with StubServer(token_probs=PROBS) as stub:
        result, stored, kept = run(stub, tmp_path / "l.db")
    # one request per example: the kept answer, at temperature 0, asking logprobs with 5 alternatives; no samples
    assert len(stub.calls) == 2 and result.requests == 2 and result.samples == [] and result.notes == []
    assert all(c.body["logprobs"] is True and c.body["top_logprobs"] == 5 for c in stub.calls)
    assert {c.body["temperature"] for c in stub.calls} == {0.0} and "n" not in stub.calls[0].body
    for example in EXAMPLES:
        assert kept[example.uid].relevant_keys == ("0a", "0b")
        conf = stored[example.uid]
        assert conf.n_samples == 1 and conf.from_logprobs
        # listed keys: the probability they were written; keys left out: the probability the list closed there
        assert conf.sentences["relevant"] == pytest.approx({"0a": 1.0, "0b": 0.8, "1a": 0.9, "1b": 0.9})
        assert conf.sentences["utilized"] == pytest.approx({"0a": 1.0, "0b": 0.5, "1a": 0.5, "1b": 0.5})
        # the probability of the token carrying the kept verdict
        assert conf.sentences["supported"] == pytest.approx({"a": 0.6, "b": 1.0, "c": 0.7})
        # P(relevant) per sentence 1, .8, .1, .1: sd of |R| / 4 = sqrt(.16 + .09 + .09) / 4
        assert conf.metrics["relevance"] == pytest.approx(1 - 2 * math.sqrt(0.34) / 4) == pytest.approx(0.708452)
        # P(utilized) 1, .5, .5, .5: sd = sqrt(3 * .25) / 4
        assert conf.metrics["utilization"] == pytest.approx(0.566987, abs=1e-6)
        # adherence is 1 when all supported: P = .6 * 1 * (1 - .7) = .18, sd = sqrt(.18 * .82)
        assert conf.metrics["adherence"] == pytest.approx(1 - 2 * math.sqrt(0.18 * 0.82)) == pytest.approx(0.231625)
        expected = _completeness_by_enumeration([1, 0.8, 0.1, 0.1], [1, 0.5, 0.5, 0.5])
        assert conf.metrics["completeness"] == pytest.approx(expected) == pytest.approx(0.502997, abs=1e-6)
        assert conf.overall == pytest.approx(conf.metrics["adherence"])
        # Review's faint marker says where the figure comes from
        marks = unsure_sentences(conf)
        assert marks.response == {
            "a": "judge unsure: supported token probability 60%",
            "c": "judge unsure: supported token probability 70%",
        }
        assert marks.context["0b"] == "judge unsure: utilized token probability 50%"
        assert "0a" not in marks.context


def test_a_rerun_asks_nothing_and_a_cached_answer_without_confidence_is_asked_again(tmp_path):
    db = tmp_path / "l.db"
    with StubServer(token_probs=PROBS) as stub:
        with LabelStore(db) as store, JudgeCache(db) as cache:
            judge_examples(EXAMPLES, settings_for(stub), cache, store)  # judged before, without logprobs
        assert len(stub.calls) == 2
        first, stored, _ = run(stub, db)
        assert len(stub.calls) == 4 and first.requests == 2  # the cached answers carry no token probabilities
        assert set(stored) == {e.uid for e in EXAMPLES}
        again, stored_again, _ = run(stub, db)
        assert len(stub.calls) == 4 and again.requests == 0  # kept answers cached, their confidence still current
        assert stored_again == stored and set(again.confidence) == set(stored)


def test_an_endpoint_without_logprobs_is_one_note_and_no_confidence(tmp_path):
    with StubServer(logprobs_mode="none") as stub:
        result, stored, kept = run(stub, tmp_path / "l.db")
    assert stored == {} and result.confidence == {}
    assert all(kept[e.uid] is not None for e in EXAMPLES)  # the kept answers are saved all the same
    assert result.notes == [
        "confidence: the endpoint sent no logprobs for 2 of the answers of gpt-4o-mini; no confidence read from them"
    ]


def test_an_endpoint_that_refuses_logprobs_is_one_note_and_the_answers_are_asked_without(tmp_path):
    with StubServer(logprobs_mode="refuse") as stub:
        result, stored, kept = run(stub, tmp_path / "l.db")
    assert [c.status for c in stub.calls] == [400, 400, 200, 200] and result.requests == 4
    assert "logprobs" not in stub.calls[2].body and result.kept.n_failed == 0
    assert all(kept[e.uid] is not None for e in EXAMPLES) and stored == {}
    assert result.notes == ["confidence: the endpoint refused logprobs for gpt-4o-mini; judged without them"]


def test_an_endpoint_without_logprobs_falls_back_to_samples_when_they_were_asked_too(tmp_path):
    with StubServer(logprobs_mode="none", vary=True) as stub:
        result, stored, _ = run(stub, tmp_path / "l.db", samples=3)
    assert len(result.notes) == 2 and "sent no logprobs" in result.notes[0]
    assert result.notes[1] == "confidence: asking 3 samples of the 2 examples without logprobs"
    assert {c.n_samples for c in stored.values()} == {3}
    assert len(stub.calls) == 2 + 2  # the kept answers, then one request with n=2 per example (kept ones cached)


def test_tokens_that_split_a_character_are_laid_over_the_text_by_their_bytes():
    example = make_example(0)
    text = (
        '{"relevance_explanation": "caf\u00e9", "all_relevant_sentence_keys": ["0a"], '
        '"overall_supported_explanation": "", "overall_supported": true, "sentence_support_information": ['
        '{"response_sentence_key": "a", "explanation": "", "supporting_sentence_keys": [], "fully_supported": true}], '
        '"all_utilized_sentence_keys": []}'
    )
    cut = text.index("\u00e9")
    encoded = text.encode()
    lo = len(text[:cut].encode())
    pieces = [encoded[:lo], encoded[lo : lo + 1], encoded[lo + 1 :]]  # é's two bytes in two tokens
    verdict_at = len(text[: text.rindex("true")].encode()) - len(encoded[: lo + 1])
    third = pieces[2]
    pieces[2:] = [third[:verdict_at], third[verdict_at : verdict_at + 4], third[verdict_at + 4 :]]
    content = [
        {"token": p.decode(errors="replace"), "logprob": math.log(0.25) if p == b"true" else 0.0, "bytes": list(p)}
        for p in pieces
    ]
    shares = verdict_shares(text, content, example)
    assert shares["supported"] == {"a": 0.25}
    with pytest.raises(ValueError, match="do not spell the answer"):
        verdict_shares(text + " ", content, example)
