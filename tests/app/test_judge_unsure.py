"""The judge's confidence on the Review page (issue 23 item 1): after ``ragviz label --samples 3`` against a judge
whose answers vary across samples, Review marks the judge labels its samples disagreed on and the filter "Judge
unsure" walks exactly the examples whose least sure metric is below 0.75; the audit draw form offers the
confidence columns and draws an active sample from them."""

from __future__ import annotations

import pytest

from ragviz.analysis.audits.judge_confidence import UNSURE_BELOW, unsure_sentences, unsure_uids
from ragviz.cli.main import main
from ragviz.data.load import load
from ragviz.store.judge_confidence import example_confidence, example_confidences
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, open_queue, press, text_editor, toolbar_button
from tests.openai_stub_server import StubServer
from tests.sample import SAMPLE_DATA


@pytest.fixture
def sampled(app_env, monkeypatch):
    """Every sample row judged 3 times (the stub varies the 2nd sample), into the app's store."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unsure-0000")
    out = app_env["tmp"] / "judged.jsonl"
    with StubServer(vary=True) as stub:
        code = main(
            ["label", str(SAMPLE_DATA), "--model", "gpt-4o-mini", "--base-url", stub.base_url, "--samples", "3"]
            + ["--db", str(app_env["db"]), "--response-format", "json_object", "-o", str(out)]
            # one request per sample: the stub varies every other request per question, so examples that share a
            # question come out sure and unsure alike (in one request per example each gets one varied choice);
            # one call at a time, so which example of a question gets the varied answers never depends on a race
            + ["--sample-mode", "separate", "--concurrency", "1"]
        )
    assert code == 0
    with LabelStore(app_env["db"]) as store:
        unsure = unsure_uids(store)
        confidences = example_confidences(store)
    assert 0 < len(unsure) < len(confidences) == len(load([SAMPLE_DATA]).dataset)
    return unsure


def _walk(at) -> list[str]:
    seen = [at.query_params["uid"]]
    while not toolbar_button(at, "next")["disabled"]:
        press(at, "next")
        assert not at.exception, [e.value for e in at.exception]
        seen.append(at.query_params["uid"])
    return seen


def test_judge_unsure_filter_walks_the_unsure_examples_and_marks_their_labels(sampled, app_env):
    at = open_page("pages/review.py")
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.toggle(key="review.f_unsure").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    walked = _walk(at)
    assert walked and set(walked) == sampled  # every unsure example and nothing else
    with LabelStore(app_env["db"]) as store:
        item = example_confidence(store, walked[-1])
    assert item is not None and item.overall is not None and item.overall < UNSURE_BELOW
    marks = unsure_sentences(item)
    context, response = text_editor(at, "context"), text_editor(at, "response")
    assert context["unsure"] == marks.context and response["unsure"] == marks.response
    assert marks.context or marks.response  # a sure-looking page would mark nothing
    assert all("of 3 samples agree" in said for said in [*marks.context.values(), *marks.response.values()])

    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.toggle(key="review.f_unsure").set_value(False).run()  # the filter off: every example again
    everything = load([SAMPLE_DATA]).dataset.uids
    assert _walk(open_page("pages/review.py", uid=everything[0])) == everything


def test_the_draw_form_offers_the_judges_confidence_and_draws_an_active_sample_from_it(sampled, app_env):
    at = open_page("pages/review.py")
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.radio(key="review.queue").set_value("Audit sample").run()
    at.radio(key="audit.design").set_value("active").run()
    assert not at.exception, [e.value for e in at.exception]
    picker = next(w for w in at.selectbox if w.key == "audit.confidence")
    assert {"judge_confidence", "judge_confidence_relevance", "judge_confidence_adherence"} <= set(picker.options)
    picker.set_value("judge_confidence_completeness").run()
    next(b for b in at.button if b.key == "audit.draw").click().run()
    assert not at.exception, [e.value for e in at.exception]
    with LabelStore(app_env["db"]) as store:
        [sample] = store.audits.list_samples()
        confidence = {u: c.metrics["completeness"] for u, c in example_confidences(store).items()}
    assert sample.design == "active" and sample.params["confidence"] == "judge_confidence_completeness"
    # the less sure the judge on completeness, the likelier the example is drawn
    probs = dict(zip(sample.members, (m.inclusion_probability for m in sample.member_details())))
    by_conf = sorted(probs, key=lambda u: confidence[u])
    assert [probs[u] for u in by_conf] == sorted(probs.values(), reverse=True)


def test_the_label_pages_samples_store_the_confidence_and_temperature_zero_is_one_message(app_env, monkeypatch):
    from ragviz.judge.settings import API_KEY_ENV

    monkeypatch.delenv(API_KEY_ENV, raising=False)
    with StubServer(vary=True) as stub:
        at = open_page("pages/label.py")
        at.text_input(key="label.model").set_value("gpt-4o-mini")
        at.text_input(key="label.base_url").set_value(stub.base_url)
        at.text_input(key="label.api_key").set_value("sk-test-label-samples")
        at.segmented_control(key="label.selection").set_value("first_k").run()
        at.number_input(key="label.k").set_value(3).run()
        at.number_input(key="label.samples").set_value(3).run()
        assert any("ONE request per example with n=2" in c.value for c in at.caption)
        at.number_input(key="label.temperature").set_value(0.0).run()
        at.button(key="label.run").click().run(timeout=60)
        assert any("temperature 0 would all be the same answer" in e.value for e in at.error)
        assert stub.calls == [] and not at.exception

        at.number_input(key="label.temperature").set_value(0.7).run()  # samples at 0.7
        at.button(key="label.run").click().run(timeout=60)
        assert not at.exception, [e.value for e in at.exception]
        # the kept answers, then samples 2 and 3 of each example in one request (n=2): the default
        assert len(stub.calls) == 6 and {c.body["temperature"] for c in stub.calls} == {0.7}
        assert [c.body.get("n") for c in stub.calls[3:]] == [2, 2, 2]
    assert any("confidence is stored for 3 examples" in c.value for c in at.caption)
    assert any("With the samples: 7 requests" in c.value for c in at.caption)  # 6 + the response-format probe
    with LabelStore(app_env["db"]) as store:
        stored = example_confidences(store)
    assert len(stored) == 3 and all(c.n_samples == 3 for c in stored.values())


def test_the_label_page_reads_the_confidence_from_logprobs_or_says_in_one_line_that_none_came(app_env, monkeypatch):
    from ragviz.judge.settings import API_KEY_ENV

    monkeypatch.delenv(API_KEY_ENV, raising=False)
    with StubServer(token_probs={"fully_supported:a": 0.6}) as stub:
        at = open_page("pages/label.py")
        at.text_input(key="label.model").set_value("gpt-4o-mini")
        at.text_input(key="label.base_url").set_value(stub.base_url)
        at.text_input(key="label.api_key").set_value("sk-test-label-logprobs")
        at.segmented_control(key="label.selection").set_value("first_k").run()
        at.number_input(key="label.k").set_value(3).run()
        at.selectbox(key="label.confidence_from").set_value("logprobs").run()
        assert any("Confidence from token probabilities" in c.value for c in at.caption)
        at.button(key="label.run").click().run(timeout=60)
        assert not at.exception, [e.value for e in at.exception]
        assert len(stub.calls) == 3 and all(c.body["logprobs"] is True for c in stub.calls)
    assert any("confidence is stored for 3 examples" in c.value for c in at.caption)
    with LabelStore(app_env["db"]) as store:
        stored = example_confidences(store)
    assert len(stored) == 3 and all(c.n_samples == 1 for c in stored.values())
    assert all(c.sentences["supported"]["a"] == pytest.approx(0.6) for c in stored.values())

    with StubServer(logprobs_mode="none") as stub:
        at.text_input(key="label.base_url").set_value(stub.base_url).run()
        at.number_input(key="label.k").set_value(4).run()
        at.button(key="label.run").click().run(timeout=60)
        assert not at.exception, [e.value for e in at.exception]
    notes = [i.value for i in at.info if "sent no logprobs" in i.value]
    assert len(notes) == 1
