"""The judge through a Batch API: requests as live calls, ledger, submit, collect, resume; the real openai
client against tests/judge/batch_server.py on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragviz.data.load import load
from ragviz.judge import JudgeCache, JudgeSettings, judge_examples
from ragviz.judge.batch import ledger
from ragviz.judge.batch.collect import SourceExamples, collect, import_results
from ragviz.judge.batch.requests import build_request, custom_id
from ragviz.judge.batch.submit import plan_batch, send_recorded_files, write_batch
from ragviz.judge.client import format_kwargs, request_body
from ragviz.judge.prompt import build_messages
from ragviz.store.label_store import LabelStore
from tests.judge.batch_server import BatchServer
from tests.openai_stub_server import StubServer
from tests.sample import SAMPLE_JSONL


def examples():
    result = load([SAMPLE_JSONL])
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
        plan.todo, settings, cache, tmp_path / "requests", format_mode="json_schema", sources=[str(SAMPLE_JSONL)], **kw
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
        assert list((tmp_path / "requests").iterdir()) == []  # uploaded and recorded: no local copy kept
        report = collect(settings_for(server.base_url), cache, store, SourceExamples())
        assert report.problems == [] and report.failures == [] and report.applied == len(exs)
        batch_labels = {e.uid: store.judge.labels(e.uid) for e in exs}
        # the answers are the live judge's cache entries: a live run afterwards asks nothing
        asked = len(server.chat.requests)
        summary = judge_examples(exs, settings_for(server.base_url), cache, store)
        assert summary.n_cached == len(exs) and len(server.chat.requests) == asked
    with StubServer() as live:
        live_store, live_cache = open_db(tmp_path / "live.db")
        summary = judge_examples(exs, settings_for(live.base_url), live_cache, live_store)
        assert summary.n_judged == len(exs)
        live_labels = {e.uid: live_store.judge.labels(e.uid) for e in exs}

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


def label_count(store: LabelStore) -> int:
    return len(store.judge.judged_uids())


def lines_of(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


@pytest.mark.parametrize(
    "mangle,expected",
    [
        (lambda d: d[: len(d) - 40], "line 22: the file ends in the middle of this line (truncated)"),
        (lambda d: d + lines_of(d)[3], "line 23: custom_id '"),  # answered twice
        (
            lambda d: d.replace(b"@ragviz-judge-v1", b"@ragviz-judge-v0", 1),
            "belongs to judge version 'ragviz-judge-v0'",
        ),
        (lambda d: d.replace(b'"custom_id": "', b'"custom_id": "zz-', 1), "is not a request of this batch"),
        (lambda d: b"<html>gateway</html>\n" + d, "line 1: not JSON"),
        (lambda d: b"[" * 100_000 + b"\n" + d, "line 1: nested too deep to read"),  # was a RecursionError
    ],
    ids=["truncated", "duplicated", "other-version", "unknown", "not-json", "too-deep"],
)
def test_a_bad_output_file_is_named_by_batch_and_line_and_nothing_is_applied(tmp_path, mangle, expected):
    with BatchServer(mangle=mangle) as server:
        store, cache = open_db(tmp_path / "b.db")
        settings = settings_for(server.base_url)
        submit(examples(), settings, cache, tmp_path)
        report = collect(settings, cache, store, SourceExamples())
        assert report.applied == 0 and report.collected == []
        assert any(
            expected in str(p) and str(p).startswith("batch batch_00001 output file file-") for p in report.problems
        ), [str(p) for p in report.problems]
        assert label_count(store) == 0 and cache.count_results() == 0
        # still not collected: a later --collect reads it again (and refuses it again)
        assert collect(settings, cache, store, SourceExamples()).problems


def test_error_lines_and_invalid_answers_fail_their_examples_only(tmp_path):
    exs = examples()
    script = {exs[0].question: ["500"], exs[1].question: ["bad_keys"]}
    with BatchServer() as server:
        server.chat.script.update(script)
        store, cache = open_db(tmp_path / "b.db")
        settings = settings_for(server.base_url)
        submit(exs, settings, cache, tmp_path)
        report = collect(settings, cache, store, SourceExamples())
        by_uid = {f.example_uid: f for f in report.failures}
        assert set(by_uid) == {exs[0].uid, exs[1].uid} and report.applied == len(exs) - 2
        assert "error file" in by_uid[exs[0].uid].where and "HTTP 500" in by_uid[exs[0].uid].error
        assert (
            "output file" in by_uid[exs[1].uid].where and "'9zz' names no context sentence" in by_uid[exs[1].uid].error
        )
        assert store.judge.labels(exs[0].uid) is None and store.judge.labels(exs[1].uid) is None
        assert [r.example_uid for r in ledger.failed_requests(cache)] == [exs[0].uid, exs[1].uid]


def test_an_expired_half_done_batch_applies_its_answers_and_the_rest_can_be_sent_again(tmp_path):
    exs = examples()
    with BatchServer(outcome="expired", answer_limit=5) as server:
        store, cache = open_db(tmp_path / "b.db")
        settings = settings_for(server.base_url)
        submit(exs, settings, cache, tmp_path)
        report = collect(settings, cache, store, SourceExamples())
        assert report.applied == 5 and len(report.failures) == len(exs) - 5
        assert all("batch_expired" in f.error and "error file" in f.where for f in report.failures)
        # sent again as a new batch: only the 17 unanswered, and the failed ones are no longer listed
        server.outcome = "completed"
        failed = ledger.failed_requests(cache)
        again = write_batch(
            [e for e in exs[5:]],
            settings,
            cache,
            tmp_path / "requests",
            format_mode="json_schema",
            sources=[str(SAMPLE_JSONL)],
            retried_keys=[r.cache_key for r in failed],
        )
        assert again.n_requests == len(exs) - 5 and ledger.failed_requests(cache) == []
        send_recorded_files(settings, cache)
        assert collect(settings, cache, store, SourceExamples()).applied == len(exs) - 5
        assert label_count(store) == len(exs)
        assert sorted(server.answered) == sorted({*server.answered}) and len(server.answered) == len(exs)


def test_files_split_at_the_request_and_byte_limits_and_one_oversized_request_is_refused(tmp_path):
    exs = examples()
    with BatchServer() as server:
        store, cache = open_db(tmp_path / "b.db")
        settings = settings_for(server.base_url)
        sizes = sorted(len(build_request(e, settings, "json_schema").line) for e in exs)
        plan = plan_batch(exs, settings, cache)
        written = write_batch(
            plan.todo,
            settings,
            cache,
            tmp_path / "r",
            format_mode="json_schema",
            sources=[str(SAMPLE_JSONL)],
            max_requests=8,
            max_bytes=sizes[-2],
        )
        assert len(written.oversized) == 1 and "over the" in str(written.oversized[0])
        assert written.n_requests == len(exs) - 1
        files = ledger.files(cache)
        assert all(f.n_requests <= 8 and f.n_bytes <= sizes[-2] for f in files) and len(files) >= 3
        created, _ = send_recorded_files(settings, cache)
        assert len(created) == len(files) == len(server.batches)
        assert collect(settings, cache, store, SourceExamples()).applied == len(exs) - 1


def test_a_failed_batch_fails_every_request_naming_the_batch(tmp_path):
    with BatchServer(outcome="failed") as server:
        store, cache = open_db(tmp_path / "b.db")
        settings = settings_for(server.base_url)
        submit(examples(), settings, cache, tmp_path)
        report = collect(settings, cache, store, SourceExamples())
        assert report.applied == 0 and len(report.failures) == len(examples())
        assert "batch batch_00001 ended failed without answering it" in report.failures[0].error
        assert label_count(store) == 0


def test_import_refuses_a_results_file_of_unknown_requests(tmp_path):
    store, cache = open_db(tmp_path / "b.db")
    settings = settings_for("http://127.0.0.1:9/v1")
    write_batch(
        examples()[:3],
        settings,
        cache,
        tmp_path,
        format_mode="json_schema",
        sources=[str(SAMPLE_JSONL)],
        offline=True,
        stem="requests",
    )
    results = tmp_path / "results.jsonl"
    results.write_text(
        json.dumps({"custom_id": "nobody@ragviz-judge-v1", "response": {"status_code": 200, "body": {}}}) + "\n"
    )
    report = import_results(results, cache, store, SourceExamples())
    assert [str(p) for p in report.problems] == [
        f"{results} line 1: custom_id 'nobody@ragviz-judge-v1' is not a request of this batch"
    ]
    assert report.applied == 0 and label_count(store) == 0


def test_batch_price_is_genai_prices_batch_price_or_half_the_list_price_said_so():
    from ragviz.judge.batch.cost import BATCH_DISCOUNT_RULE, batch_cost
    from ragviz.judge.cost import estimate_cost

    url = "https://api.openai.com/v1"
    live = estimate_cost("gpt-4o-mini", 100_000, 10_000, calls=10, endpoint=url)
    batch, rule = batch_cost("gpt-4o-mini", 100_000, 10_000, calls=10, endpoint=url)
    assert batch == pytest.approx(live / 2) and "batch price" in rule and "genai-prices" in rule
    live = estimate_cost("mistral-large-latest", 100_000, 10_000, calls=10, endpoint=url)
    assert batch_cost("mistral-large-latest", 100_000, 10_000, calls=10, endpoint=url) == (
        pytest.approx(live / 2),
        BATCH_DISCOUNT_RULE,
    )
    assert batch_cost("my-local-llama", 1000, 100, calls=1, endpoint=url)[0] is None


def azure_settings(server: BatchServer) -> JudgeSettings:
    return JudgeSettings(
        model="gpt-4o-mini",
        azure_endpoint=server.root_url,
        azure_deployment="judge-global-batch",
        api_key="azure-key",
        response_format="json_schema",
    )


def test_azure_openai_batch_deployment_through_the_same_client(tmp_path):
    exs = examples()[:4]
    with BatchServer() as server:
        store, cache = open_db(tmp_path / "b.db")
        settings = azure_settings(server)
        plan = plan_batch(exs, settings, cache)
        write_batch(plan.todo, settings, cache, tmp_path, format_mode="json_schema", sources=[str(SAMPLE_JSONL)])
        lines = [json.loads(x) for x in Path(ledger.files(cache)[0].local_path).read_text().splitlines()]
        assert {(x["url"], x["body"]["model"]) for x in lines} == {("/chat/completions", "judge-global-batch")}
        created, _ = send_recorded_files(settings, cache)
        assert created[0].batch_id in server.batches
        assert server.batches[created[0].batch_id]["endpoint"] == "/chat/completions"
        assert collect(settings, cache, store, SourceExamples()).applied == 4


def test_an_azure_deployment_without_batch_says_so_and_keeps_the_file_for_later(tmp_path):
    from ragviz.judge.batch.remote import BatchServiceError

    with BatchServer(azure_batch=False) as server:
        store, cache = open_db(tmp_path / "b.db")
        settings = azure_settings(server)
        write_batch(examples()[:2], settings, cache, tmp_path, format_mode="json_schema", sources=[str(SAMPLE_JSONL)])
        with pytest.raises(BatchServiceError, match="Global Batch") as caught:
            send_recorded_files(settings, cache)
        assert "azure-key" not in str(caught.value)
        assert [f.state for f in ledger.files(cache)] == [ledger.WRITTEN]


def test_the_ledger_works_on_sqlite_and_postgresql_and_a_second_process_resumes(db_target, tmp_path):
    exs = examples()[:6]
    with BatchServer(step_seconds=3600) as server:
        settings = settings_for(server.base_url)
        store = LabelStore(db_target)
        cache = JudgeCache(store.reopen_database())
        plan = plan_batch(exs, settings, cache)
        write_batch(plan.todo, settings, cache, tmp_path, format_mode="json_schema", sources=[str(SAMPLE_JSONL)])
        send_recorded_files(settings, cache)
        cache.close()
        store.close()
        # another replica, another connection: the same batch, nothing sent again, collected when done
        server.step_seconds = 0
        other = LabelStore(db_target)
        other_cache = JudgeCache(other.reopen_database())
        assert plan_batch(exs, settings, other_cache).n_waiting == 6
        assert [r.batch_id for r in ledger.batch_records(other_cache)] == ["batch_00001"]
        assert collect(settings, other_cache, other, SourceExamples()).applied == 6
        assert len(other.judge.judged_uids()) == 6 and len(server.batches) == 1
        other_cache.close()
        other.close()
