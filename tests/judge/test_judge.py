"""Judge pieces without a server: prompt, content hash, answer validation, Retry-After, redaction,
prices, example selection, the cache tables."""

from __future__ import annotations

import json
import re
import time
from email.utils import formatdate

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragviz.data.dataset import Dataset
from ragviz.data.model import Example, Labels, Provenance, Sentence
from ragviz.judge import PROMPT_VERSION, JudgeCache, JudgeSettings, content_hash, cost
from ragviz.judge.cache import PendingAnswer, PendingFailure, cache_key
from ragviz.judge.client import (
    JudgeConfigError,
    _completion_fields,
    redact,
    request_body,
    retry_after_seconds,
)
from ragviz.judge.cost import describe_cost, estimate_cost, run_cost, table_model_prices
from ragviz.judge.prompt import (
    JUDGE_JSON_SCHEMA,
    RESPONSE_FORMAT_JSON_SCHEMA,
    _one_line,
    build_messages,
    count_tokens,
    render_user_prompt,
)
from ragviz.judge.schema import (
    JudgeOutputError,
    extract_json,
    parse_judge_output,
    validate_answer,
)
from ragviz.judge.selection import select_indices, unlabeled_indices
from tests.openai_stub_server import prompt_parts, valid_answer
from tests.sample import SAMPLE_DATA


def example(question: str = "Why is the sky blue?") -> Example:
    docs = (
        (Sentence("0a", "Rayleigh scattering\nscatters blue light."), Sentence("0b", "The sun is white.")),
        (Sentence("1a", "Unrelated <b>html</b>."),),
    )
    resp = (Sentence("a", "Blue light scatters more."), Sentence("b", "So the sky looks blue."))
    return Example(
        id="1",
        dataset="t",
        question=question,
        documents=("x", "y"),
        document_sentences=docs,
        response="r",
        response_sentences=resp,
        generation_model="g",
    )


def answer(**changes) -> dict:
    base = valid_answer(["0a", "0b", "1a"], ["a", "b"])
    base.update(changes)
    return base


PROV = Provenance("llm", "m", "2025-01-01T00:00:00+00:00", PROMPT_VERSION)


def test_prompt_shows_question_and_keyed_sentences_one_per_line():
    text = render_user_prompt(example())
    assert text.startswith("Question:\nWhy is the sky blue?\n")
    assert "0a. Rayleigh scattering scatters blue light.\n" in text
    assert "1a. Unrelated <b>html</b>." in text
    assert "<response>\na. Blue light scatters more.\nb. So the sky looks blue.\n</response>" in text
    assert prompt_parts(text) == ("Why is the sky blue?", ["0a", "0b", "1a"], ["a", "b"])
    messages = build_messages(example(), [("{bad", "- the answer is not valid JSON")])
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert "sentence_support_information" in messages[0]["content"]
    assert set(JUDGE_JSON_SCHEMA["required"]) == set(answer())


def test_content_hash_covers_what_the_prompt_shows_only():
    a = example()
    assert content_hash(a) == content_hash(example())
    assert content_hash(a) != content_hash(example("Why is grass green?"))
    assert content_hash(a) == content_hash(a.with_labels(None).__class__(**{**a.__dict__, "generation_model": "other"}))
    changed = a.__class__(**{**a.__dict__, "response_sentences": (Sentence("a", "Different."),)})
    assert content_hash(changed) != content_hash(a)
    assert (
        len(
            {
                cache_key("m", "u", PROMPT_VERSION, content_hash(a)),
                cache_key("m2", "u", PROMPT_VERSION, content_hash(a)),
                cache_key("m", "u2", PROMPT_VERSION, content_hash(a)),
                cache_key("m", "u", "v0", content_hash(a)),
            }
        )
        == 4
    )


def test_valid_answer_parses_to_labels_with_provenance():
    labels = parse_judge_output(json.dumps(answer()), example(), PROV)
    assert labels.relevant_keys == ("0a", "0b") and labels.utilized_keys == ("0a",)
    assert [(s.key, s.supported, s.supporting_keys) for s in labels.support] == [
        ("a", True, ("0a",)),
        ("b", True, ("0a",)),
    ]
    assert labels.provenance == PROV and labels.unsupported_keys is None


def test_trailing_dots_are_stripped_and_duplicates_dropped():
    a = answer(all_relevant_sentence_keys=["0a.", " 0b ", "0a"])
    a["sentence_support_information"][1]["response_sentence_key"] = "b."
    a["sentence_support_information"][0]["supporting_sentence_keys"] = ["0b.", "0b"]
    labels = parse_judge_output(json.dumps(a), example(), PROV)
    assert labels.relevant_keys == ("0a", "0b") and labels.support[0].supporting_keys == ("0b",)


def test_support_entries_come_back_in_response_order():
    a = answer()
    a["sentence_support_information"].reverse()
    labels = parse_judge_output(json.dumps(a), example(), PROV)
    assert [s.key for s in labels.support] == ["a", "b"]


@pytest.mark.parametrize(
    "bad, problem",
    [
        ({"all_relevant_sentence_keys": ["0a", "2c"]}, "all_relevant_sentence_keys: '2c' names no context sentence"),
        ({"all_utilized_sentence_keys": "0a"}, "all_utilized_sentence_keys: must be a list of key strings"),
        ({"overall_supported": "yes"}, "overall_supported: must be true or false"),
        ({"relevance_explanation": None}, "relevance_explanation: must be a string"),
        ({"sentence_support_information": {}}, "sentence_support_information: must be a list"),
    ],
)
def test_invalid_fields_are_named(bad, problem):
    with pytest.raises(JudgeOutputError) as err:
        validate_answer(answer(**bad), example())
    assert any(p.startswith(problem) for p in err.value.problems), err.value.problems


def test_support_problems_are_named():
    a = answer()
    a["sentence_support_information"] = [
        {**a["sentence_support_information"][0], "fully_supported": None},
        {**a["sentence_support_information"][0]},
        {**a["sentence_support_information"][0], "response_sentence_key": "z"},
    ]
    with pytest.raises(JudgeOutputError) as err:
        validate_answer(a, example())
    problems = err.value.problems
    assert "sentence_support_information[0].fully_supported: must be true or false" in problems
    assert "sentence_support_information[1].response_sentence_key: response sentence 'a' appears twice" in problems
    assert "sentence_support_information[2].response_sentence_key: 'z' names no response sentence" in problems
    assert "sentence_support_information: no entry for response sentence(s) 'b'" in problems


def test_extract_json_from_fences_and_prose_and_clear_errors():
    a = answer()
    assert extract_json("Sure!\n```json\n" + json.dumps(a) + "\n```") == a
    assert extract_json("The labels: " + json.dumps(a) + " Hope this helps.") == a
    with pytest.raises(JudgeOutputError, match="the answer is empty"):
        extract_json("  ")
    with pytest.raises(JudgeOutputError, match="not valid JSON"):
        extract_json('{"a": [1,')
    for deep in ("[" * 100_000 + "]" * 100_000, '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"):  # a RecursionError
        with pytest.raises(JudgeOutputError, match=r"not valid JSON \(nested too deep to read\)"):
            extract_json(deep)
    with pytest.raises(JudgeOutputError, match="must be a JSON object, got list"):
        validate_answer([1], example())


def test_retry_after_seconds_date_and_milliseconds():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "3"}) == 0.25
    now = time.time()
    assert 9 <= retry_after_seconds({"retry-after": formatdate(now + 10, usegmt=True)}, now=now) <= 10
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_redact_and_settings_never_show_the_key():
    key = "sk-proj-abcdefghijklmnop"
    assert redact(f"Incorrect API key provided: {key}.", key) == "Incorrect API key provided: ***."
    assert redact("Incorrect API key provided: sk-abc***xyz", None) == "Incorrect API key provided: ***"
    settings = JudgeSettings(model="m", api_key=key)
    assert key not in repr(settings) and key not in str(settings)


def test_settings_need_a_key_only_for_the_openai_api(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(JudgeConfigError, match="no API key"):
        JudgeSettings(model="m").resolved_api_key()
    assert JudgeSettings(model="m", base_url="http://127.0.0.1:1/v1").resolved_api_key() == "no-key"
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert JudgeSettings(model="m").resolved_api_key() == "from-env"
    with pytest.raises(JudgeConfigError, match="concurrency"):
        JudgeSettings(model="m", concurrency=0).check()


def test_prices_come_from_genai_prices():
    from genai_prices import Usage, calc_price

    assert cost.price_source().startswith("genai-prices ")
    for model in ("gpt-4o-mini", "gpt-4.1", "o3", "o4-mini", "gpt-5", "gpt-4o-2024-08-06"):
        expected = float(
            calc_price(Usage(input_tokens=1000, output_tokens=500), model, provider_id="openai").total_price
        )
        assert estimate_cost(model, 1000, 500) == pytest.approx(expected) and expected > 0
    # a run is priced per call (tiers depend on one request's size): 10 calls of 1,000 + 500 tokens
    assert estimate_cost("gpt-4o-mini", 10_000, 5_000, calls=10) == pytest.approx(
        10 * estimate_cost("gpt-4o-mini", 1000, 500)
    )
    # Azure's own list price for an Azure endpoint
    azure = float(calc_price(Usage(input_tokens=1000, output_tokens=500), "gpt-4o", provider_id="azure").total_price)
    assert estimate_cost(
        "gpt-4o", 1000, 500, endpoint="https://res.openai.azure.com/openai/deployments/d"
    ) == pytest.approx(azure)
    # unknown: no number at all
    for model in ("my-local-llama", "gpt-4o-minix", "llama3.1:8b"):
        assert estimate_cost(model, 10, 10) is None
    assert describe_cost(None, "llama3").startswith("unknown ('llama3' is not in genai-prices")
    assert describe_cost(0.5, "gpt-4o-mini").startswith("$0.5000 (genai-prices")


def test_the_hand_table_is_the_offline_fallback(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "genai_prices", None)  # as if not installed
    cost.price_source.cache_clear()
    cost.call_cost.cache_clear()
    try:
        assert cost.price_source() == cost.HAND_TABLE
        assert table_model_prices("gpt-4o-2024-08-06") == (2.50, 10.00)
        assert table_model_prices("gpt-4o-minix") is None and table_model_prices("gpt-4o-mini-tts") is None
        assert estimate_cost("gpt-4.1", 1000, 500) == pytest.approx((1000 * 2.0 + 500 * 8.0) / 1e6)
        assert estimate_cost("gpt-5", 1000, 500) is None  # not in the old table: unknown, not guessed
        assert "offline table" in describe_cost(1.0, "gpt-4.1")
    finally:
        cost.price_source.cache_clear()
        cost.call_cost.cache_clear()


def test_estimate_and_selection(tmp_path):
    rows = [
        {
            "id": "1",
            "question": "q1",
            "documents": ["d"],
            "documents_sentences": [[["0a", "s"]]],
            "response": "r",
            "response_sentences": [["a", "r"]],
            "all_relevant_sentence_keys": ["0a"],
        },
        {
            "id": "2",
            "question": "q2",
            "documents": ["d"],
            "documents_sentences": [[["0a", "s"]]],
            "response": "r",
            "response_sentences": [["a", "r"]],
            "all_relevant_sentence_keys": None,
        },
        {
            "id": "3",
            "question": "q3",
            "documents": ["d"],
            "documents_sentences": [[["0a", "s"]]],
            "response": "r",
            "response_sentences": [["a", "r"]],
            "all_relevant_sentence_keys": None,
        },
    ]
    ds = Dataset.from_rows(rows, "t", "t.jsonl")
    assert unlabeled_indices(ds) == [1, 2]
    assert unlabeled_indices(ds, {ds.uids[2]}) == [1]
    assert select_indices(ds, "all") == [0, 1, 2]
    assert select_indices(ds, "first_k", first_k=2) == [0, 1]
    assert select_indices(ds, "filtered", filtered=[2]) == [2]
    assert select_indices(ds, "filtered") == [0, 1, 2]
    with pytest.raises(ValueError, match="unknown selection"):
        select_indices(ds, "some")

    examples = list(ds)
    settings = JudgeSettings(model="gpt-4o-mini", base_url="http://127.0.0.1:9/v1")
    tokens = count_tokens(examples[0])
    chars = sum(len(m["content"]) for m in build_messages(examples[0]))
    assert tokens.prompt_tokens == chars // 4 + 1
    with JudgeCache(tmp_path / "db.sqlite") as cache:
        est = run_cost(examples, settings, cache)
        assert (est.calls, est.n_cached) == (3, 0) and est.cost_usd > 0
        labels = parse_judge_output(json.dumps(valid_answer(["0a"], ["a"])), examples[0], PROV)
        key = cache_key(settings.model, settings.endpoint, PROMPT_VERSION, content_hash(examples[0]))
        cache.put_many(
            [
                PendingAnswer(
                    key,
                    "gpt-4o-mini",
                    settings.endpoint,
                    PROMPT_VERSION,
                    content_hash(examples[0]),
                    examples[0].uid,
                    labels,
                    "{}",
                    10,
                    5,
                    None,
                )
            ],
            [PendingFailure(None, examples[1].uid, "k", "boom", "raw", 1)],
        )
        assert run_cost(examples, settings, cache).calls == 2
        assert cache.get(key).labels == labels and cache.latest_labels(examples[0].uid) == labels
        assert [f.error for f in cache.failures()] == ["boom"]
    with JudgeCache(tmp_path / "db.sqlite") as cache:  # migrations are idempotent on reopen
        assert cache.count_results() == 1


def test_unopenable_cache_is_a_clear_error(tmp_path):
    (tmp_path / "dir.db").mkdir()
    with pytest.raises(ValueError, match="dir.db: cannot open the judge cache"):
        JudgeCache(tmp_path / "dir.db")


@given(st.text(alphabet=st.sampled_from(list("ab \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2028\u3000\u200b"))))
def test_one_line_collapses_whitespace_exactly_like_the_regex(text):
    # The prompt (and so PROMPT_VERSION) must not change with the faster implementation.
    assert _one_line(text) == re.sub(r"\s+", " ", text).strip()


def test_request_body_is_compact_utf8_json_of_the_chat_request():
    settings = JudgeSettings(model="m", base_url="http://127.0.0.1:1/v1", temperature=0.0)
    messages = build_messages(example("Warum ist der Himmel blau? \u2014 \U0001f30d"))
    data = request_body(settings, messages, {"response_format": RESPONSE_FORMAT_JSON_SCHEMA})
    assert json.loads(data) == {
        "model": "m",
        "messages": messages,
        "response_format": RESPONSE_FORMAT_JSON_SCHEMA,
        "temperature": 0.0,
    }
    assert "\u2014 \U0001f30d".encode() in data and b'","' in data and b'", "' not in data
    unset = JudgeSettings(model="m", base_url="http://127.0.0.1:1/v1")
    assert json.loads(request_body(unset, messages, {}))["temperature"] == 0.0  # chat models: 0 unless set
    for reasoning in ("o3", "o4-mini", "gpt-5", "gpt-5-mini"):  # they refuse temperature: none unless set
        body = json.loads(request_body(JudgeSettings(model=reasoning), messages, {}))
        assert "temperature" not in body and "reasoning_effort" not in body
    chosen = JudgeSettings(model="o3", temperature=1.0, reasoning_effort="low")
    assert json.loads(request_body(chosen, messages, {})) | {"messages": []} == {
        "model": "o3",
        "messages": [],
        "temperature": 1.0,
        "reasoning_effort": "low",
    }
    assert "temperature" not in json.loads(request_body(unset, messages, {}, send_temperature=False))


def test_completion_fields_of_chat_completions_and_other_json():
    usage = {"prompt_tokens": 3, "completion_tokens": 4}
    ok = {"choices": [{"message": {"role": "assistant", "content": "{}"}}], "usage": usage}
    assert _completion_fields(ok) == ("{}", usage)
    refusal = {"choices": [{"message": {"role": "assistant", "content": None, "refusal": "no"}}]}
    assert _completion_fields(refusal) == ("", {})
    for not_chat in (
        [],
        "text",
        {"object": "list", "data": []},
        {"choices": []},
        {"choices": ["x"]},
        {"choices": [{"message": "x"}]},
    ):
        assert _completion_fields(not_chat) is None


def test_judge_tables_on_both_backends_runs_answers_failures(db_target):
    """The judge's tables through the store's database seam: on SQLite and on PostgreSQL, beside the
    label store's own tables in the same database."""
    from ragviz.store.label_store import LabelStore

    LabelStore(db_target).close()

    from ragviz.data.load import load

    ds = load([SAMPLE_DATA]).dataset
    example = ds.example(0)
    labels = Labels(("0a",), ("0a",), (), provenance=PROV)
    with JudgeCache(db_target) as cache:
        run = cache.start_run("m", "http://x/v1", PROMPT_VERSION, 2)
        assert cache.start_run("m", "http://x/v1", PROMPT_VERSION, 1) == run + 1
        answer = PendingAnswer("k1", "m", "http://x/v1", PROMPT_VERSION, "h", example.uid, labels, "{}", 10, 5, run)
        cache.put_many([answer], [PendingFailure(run, "other", "k2", "bad json", "raw", 3)])
        cache.put_many([answer])  # the same key again: replaced, not duplicated
        cache.finish_run(
            run,
            n_cached=0,
            n_judged=1,
            n_failed=1,
            requests=4,
            prompt_tokens=10,
            completion_tokens=5,
            cost_usd=0.25,
            status="done",
        )
        assert cache.count_results() == 1 and cache.get("k1").labels == labels
        assert cache.latest_labels(example.uid) == labels
        assert [(f.error, f.attempts) for f in cache.failures(run)] == [("bad json", 3)]
        assert [(r.id, r.status, r.cost_usd) for r in cache.runs()][-1] == (run, "done", 0.25)
    with JudgeCache(db_target) as cache, LabelStore(db_target) as store:  # reopen: migrations idempotent
        assert cache.count_results() == 1 and store.n_events() == 0
