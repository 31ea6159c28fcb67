"""The judge through a Batch API: requests as live calls, ledger, submit, collect, resume; the real openai
client against tests/judge/batch_server.py on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

from ragviz.data.load import load
from ragviz.judge import JudgeCache, JudgeSettings, judge_examples
from ragviz.judge.batch.collect import SourceExamples, collect
from ragviz.judge.batch.requests import build_request, custom_id
from ragviz.judge.batch.submit import plan_batch, send_recorded_files, write_batch
from ragviz.judge.client import format_kwargs, request_body
from ragviz.judge.prompt import build_messages
from ragviz.store.label_store import LabelStore
from tests.judge.batch_server import BatchServer
from tests.openai_stub_server import StubServer

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data" / "ragviz_sample.jsonl"


def examples():
    result = load([SAMPLE])
    assert result.ok
    return [result.dataset.example(i) for i in range(len(result.dataset))]


def settings_for(url: str) -> JudgeSettings:
    return JudgeSettings(model="gpt-4o-mini", base_url=url, api_key="sk-test-batch", response_format="json_schema")


def open_db(path: Path) -> tuple[LabelStore, JudgeCache]:
    store = LabelStore(path)
    return store, JudgeCache(store.reopen_database())


def submit(examples_, settings, cache, tmp_path, **kw):
    plan = plan_batch(examples_, settings, cache)
    written = write_batch(
        plan.todo, settings, cache, tmp_path / "requests", format_mode="json_schema", sources=[str(SAMPLE)], **kw
    )
    created, _ = send_recorded_files(settings, cache)
    return plan, written, created


def test_a_batch_line_is_the_live_request_byte_for_byte():
    example = examples()[0]
    settings = settings_for("http://127.0.0.1:9/v1")
    request = build_request(example, settings, "json_schema")
    line = json.loads(request.line)
    assert line["custom_id"] == custom_id(example.uid) == f"{example.uid}@ragviz-judge-v1"
    assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
    live = request_body(settings, build_messages(example), format_kwargs("json_schema"))
    assert request.line == request.line.split(b'"body": ', 1)[0] + b'"body": ' + live + b"}\n"


def test_a_batch_run_stores_exactly_the_labels_a_live_run_stores(tmp_path):
    exs = examples()
    with BatchServer() as server:
        store, cache = open_db(tmp_path / "batch.db")
        plan, written, created = submit(exs, settings_for(server.base_url), cache, tmp_path)
        assert plan.n_cached == 0 and written.n_requests == len(exs) and len(created) == 1
        report = collect(settings_for(server.base_url), cache, store, SourceExamples())
        assert report.problems == [] and report.failures == [] and report.applied == len(exs)
        batch_labels = {e.uid: store.judge_labels(e.uid) for e in exs}
        # the answers are the live judge's cache entries: a live run afterwards asks nothing
        asked = len(server.chat.requests)
        summary = judge_examples(exs, settings_for(server.base_url), cache, store)
        assert summary.n_cached == len(exs) and len(server.chat.requests) == asked
    with StubServer() as live:
        live_store, live_cache = open_db(tmp_path / "live.db")
        summary = judge_examples(exs, settings_for(live.base_url), live_cache, live_store)
        assert summary.n_judged == len(exs)
        live_labels = {e.uid: live_store.judge_labels(e.uid) for e in exs}

    def without_time(labels):
        return labels.__class__(
            **{
                **labels.__dict__,
                "provenance": labels.provenance.__class__(
                    labels.provenance.source, labels.provenance.name, None, labels.provenance.prompt_version
                ),
            }
        )

    assert {u: without_time(v) for u, v in batch_labels.items()} == {u: without_time(v) for u, v in live_labels.items()}
