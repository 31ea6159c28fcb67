"""`ragviz label --batch / --batch-status / --collect / --batch-file / --import-batch` as a user runs them, a real
process against tests/judge/batch_server.py; killed with SIGKILL at each step and run again: no request sent
twice, no answer lost."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.judge.batch_server import BatchServer
from tests.sample import ROOT, SAMPLE_JSONL

N = 22  # examples in the sample


@pytest.fixture
def server():
    with BatchServer() as srv:
        yield srv


def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": "sk-test-batch-cli", "HOME": str(tmp_path / "home")}


def args(server: BatchServer, tmp_path: Path, *extra: str) -> list[str]:
    return [
        "label",
        "--model",
        "gpt-4o-mini",
        "--base-url",
        server.base_url,
        "--response-format",
        "json_schema",
        "--db",
        str(tmp_path / "ragviz.db"),
        *extra,
    ]


def run(server, tmp_path, *extra, code: str = "") -> subprocess.CompletedProcess:
    if code:  # a patch applied inside the process before the CLI runs
        cmd = [
            sys.executable,
            "-c",
            code + "\nfrom ragviz.cli.main import main\nraise SystemExit(main(sys.argv[1:]))",
            *args(server, tmp_path, *extra),
        ]
    else:
        cmd = [sys.executable, "-m", "ragviz", *args(server, tmp_path, *extra)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env(tmp_path), cwd=ROOT, timeout=120)


def start(server, tmp_path, *extra) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "ragviz", *args(server, tmp_path, *extra)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(tmp_path), cwd=ROOT)


def kill_at(server: BatchServer, step: str, proc: subprocess.Popen) -> None:
    assert server.wait_reached(step), proc.communicate(timeout=5)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    server.release()


def label_sets(tmp_path: Path) -> dict[str, int]:
    with sqlite3.connect(tmp_path / "ragviz.db") as con:
        return dict(con.execute("SELECT example_uid, COUNT(*) FROM judge_label_sets GROUP BY example_uid"))


def test_batch_then_status_then_collect_stores_every_label(server, tmp_path):
    sent = run(server, tmp_path, str(SAMPLE_JSONL), "--batch")
    assert sent.returncode == 0, sent.stderr
    assert f"{N} to send" in sent.stderr and "batch_00001: validating" in sent.stderr
    status = run(server, tmp_path, "--batch-status")
    assert status.returncode == 0 and "batch_00001  completed" in status.stderr, status.stderr
    collected = run(server, tmp_path, "--collect")
    assert collected.returncode == 0, collected.stderr
    assert f"{N} labels stored, 0 failed, 1 batches collected" in collected.stderr
    assert label_sets(tmp_path) == {uid: 1 for uid in label_sets(tmp_path)} and len(label_sets(tmp_path)) == N
    again = run(server, tmp_path, str(SAMPLE_JSONL), "--batch")  # everything cached now: nothing sent
    assert f"{N} cached, 0 already waiting in a batch, 0 to send" in again.stderr and server.uploads == 1


def test_a_second_batch_run_before_collecting_sends_nothing_again(server, tmp_path):
    server.step_seconds = 60
    assert run(server, tmp_path, str(SAMPLE_JSONL), "--batch").returncode == 0
    again = run(server, tmp_path, str(SAMPLE_JSONL), "--batch")
    assert f"0 cached, {N} already waiting in a batch, 0 to send" in again.stderr
    assert len(server.batches) == 1 and server.uploads == 1
    waiting = run(server, tmp_path, "--collect")
    assert "batch_00001: validating, not finished yet" in waiting.stderr and label_sets(tmp_path) == {}


@pytest.mark.parametrize("step", ["batches.list", "batches.create"])
def test_sigkill_between_upload_and_create_sends_one_batch(server, tmp_path, step):
    # batches.list: killed after the upload is recorded, before create; batches.create: killed after the server
    # created the batch, before ragviz heard its id
    server.hold.add(step)
    kill_at(server, step, start(server, tmp_path, str(SAMPLE_JSONL), "--batch"))
    again = run(server, tmp_path, str(SAMPLE_JSONL), "--batch")
    assert again.returncode == 0, again.stderr
    assert f"{N} already waiting in a batch, 0 to send" in again.stderr
    assert len(server.batches) == 1 and server.uploads == 1
    collected = run(server, tmp_path, "--collect")
    assert f"{N} labels stored" in collected.stderr, collected.stderr
    assert sorted(server.answered) == sorted(set(server.answered)) and len(server.answered) == N


def test_sigkill_during_download_loses_nothing(server, tmp_path):
    assert run(server, tmp_path, str(SAMPLE_JSONL), "--batch").returncode == 0
    server.hold.add("content")
    kill_at(server, "content", start(server, tmp_path, "--collect"))
    assert label_sets(tmp_path) == {}
    collected = run(server, tmp_path, "--collect")
    assert f"{N} labels stored, 0 failed" in collected.stderr, collected.stderr
    assert len(label_sets(tmp_path)) == N and len(server.answered) == N


KILL_AFTER = """
import os, signal, sys
from ragviz.judge.batch import collect
collect.APPLY_CHUNK = 5
real = collect.{where}
calls = []
def patched(*a, **k):
    {before}
    result = real(*a, **k)
    {after}
    return result
collect.{where} = patched
"""


@pytest.mark.parametrize(
    "where,before,after",
    [
        # mid-parse: the second chunk's answers are in the cache, not yet in the label store
        ("_save", "calls.append(1)\n    if len(calls) == 2: os.kill(os.getpid(), signal.SIGKILL)", "pass"),
        # the label store has the second chunk, the ledger does not know yet
        ("_save", "calls.append(1)", "if len(calls) == 2: os.kill(os.getpid(), signal.SIGKILL)"),
    ],
)
def test_sigkill_mid_apply_loses_nothing_and_applies_nothing_twice(server, tmp_path, where, before, after):
    assert run(server, tmp_path, str(SAMPLE_JSONL), "--batch").returncode == 0
    killed = run(server, tmp_path, "--collect", code=KILL_AFTER.format(where=where, before=before, after=after))
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert 0 < len(label_sets(tmp_path)) < N
    collected = run(server, tmp_path, "--collect")
    assert collected.returncode == 0, collected.stderr
    assert len(label_sets(tmp_path)) == N and set(label_sets(tmp_path).values()) == {1}
    assert len(server.answered) == N


def test_batch_file_then_import_batch_in_vllm_shape(tmp_path):
    requests = tmp_path / "requests.jsonl"
    with BatchServer() as server:
        out = run(server, tmp_path, str(SAMPLE_JSONL), "--batch-file", str(requests))
        assert out.returncode == 0, out.stderr
        lines = [json.loads(x) for x in requests.read_text().splitlines()]
        assert len(lines) == N and server.uploads == 0
        # answer each line as `vllm run-batch` writes its output file
        results = tmp_path / "results.jsonl"
        with results.open("w") as handle:
            for n, line in enumerate(lines):
                status, _, body, _ = server.chat.answer(line["body"], "")
                handle.write(
                    json.dumps(
                        {
                            "id": f"vllm-{n}",
                            "custom_id": line["custom_id"],
                            "response": {"status_code": status, "request_id": f"vllm-batch-{n}", "body": body},
                            "error": None,
                        }
                    )
                    + "\n"
                )
        imported = run(server, tmp_path, "--import-batch", str(results))
        assert imported.returncode == 0, imported.stderr
        assert f"{N} labels stored, 0 failed" in imported.stderr
        assert len(label_sets(tmp_path)) == N


def test_dry_run_batch_prints_requests_tokens_and_both_prices(server, tmp_path):
    out = run(server, tmp_path, str(SAMPLE_JSONL), "--batch", "--dry-run")
    assert out.returncode == 0, out.stderr
    assert f"{N} requests, about " in out.stderr and " input + " in out.stderr
    assert "live $" in out.stderr and "batch $" in out.stderr and "genai-prices" in out.stderr
    assert "(dry run: nothing written, nothing sent)" in out.stderr
    assert server.uploads == 0 and not (tmp_path / "batches").exists()


def test_failures_are_listed_by_example_and_sent_again_live(server, tmp_path):
    from ragviz.data.load import load

    examples = list(load([SAMPLE_JSONL]).dataset)
    for e in examples[:2]:
        server.chat.script[e.question] = ["500"]
    assert run(server, tmp_path, str(SAMPLE_JSONL), "--batch").returncode == 0
    collected = run(server, tmp_path, "--collect")
    assert collected.returncode == 1
    for e in examples[:2]:
        assert f"failed: {e.uid}: batch batch_00001 error file file-" in collected.stderr
    assert "HTTP 500: internal error" in collected.stderr and f"{N - 2} labels stored, 2 failed" in collected.stderr
    again = run(server, tmp_path, "--retry-failed", "live")
    assert again.returncode == 0, again.stderr
    assert "2 judged live, 0 cached, 0 failed" in again.stderr
    assert len(label_sets(tmp_path)) == N
    assert "no failed requests to send again" in run(server, tmp_path, "--retry-failed", "batch").stderr
