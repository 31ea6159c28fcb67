"""`ragviz label` as a user runs it: a real process, the real openai client, the local stub server."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragviz.data.load import load
from tests.openai_stub_server import StubServer, valid_answer
from tests.sample import ROOT, SAMPLE_JSONL

KEY = "sk-test-CliSecret-a81d0c77e2"


@pytest.fixture
def server():
    with StubServer() as stub:
        yield stub


def env_with_key(tmp_path: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "OPENAI_API_KEY": KEY,
        "HOME": str(tmp_path / "home"),
        "RAGVIZ_DB": str(tmp_path / "default.db"),
    }
    env.pop("CI_DEBUG", None)
    return env


def label_args(server: StubServer, tmp_path: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "ragviz",
        "label",
        str(SAMPLE_JSONL),
        "--model",
        "gpt-4o-mini",
        "--base-url",
        server.base_url,
        "--db",
        str(tmp_path / "ragviz.db"),
        "-o",
        str(tmp_path / "out.jsonl"),
        *extra,
    ]


def run_label(server, tmp_path, *extra, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        label_args(server, tmp_path, *extra),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env or env_with_key(tmp_path),
        timeout=120,
    )


def sample_examples():
    result = load([str(SAMPLE_JSONL)])
    assert result.ok
    return list(result.dataset)


def test_label_writes_loadable_ragbench_jsonl_and_second_run_is_free(server, tmp_path):
    examples = sample_examples()
    out = run_label(server, tmp_path, "--concurrency", "4")
    assert out.returncode == 0, out.stderr
    assert len(server.calls) == len(examples)
    # requests: one per example plus the one response-format probe (--response-format auto)
    assert f"{len(examples)} judged, 0 cached, 0 failed; {len(examples) + 1} requests" in out.stderr
    assert "estimated cost $" in out.stderr

    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(rows) == len(examples)
    assert all(r["annotating_model_name"] == "gpt-4o-mini" for r in rows)
    reloaded = load([str(tmp_path / "out.jsonl")])
    assert reloaded.ok, reloaded.errors
    for before, after in zip(examples, reloaded.dataset):
        expected = valid_answer(before.context_keys(), before.response_keys())
        assert after.uid == before.uid
        assert list(after.labels.relevant_keys) == expected["all_relevant_sentence_keys"]
        assert [s.supported for s in after.labels.support] == [
            s["fully_supported"] for s in expected["sentence_support_information"]
        ]

    again = run_label(server, tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(server.calls) == len(examples)  # zero new requests
    assert f"0 judged, {len(examples)} cached, 0 failed; 0 requests" in again.stderr


def _settled_request_count(server, quiet: float = 0.5, timeout: float = 10.0) -> int:
    """The number of requests the stub has recorded once no new one arrived for *quiet* seconds."""
    count, changed, start = len(server.requests), time.monotonic(), time.monotonic()
    while time.monotonic() - changed < quiet and time.monotonic() - start < timeout:
        time.sleep(0.05)
        if len(server.requests) != count:
            count, changed = len(server.requests), time.monotonic()
    return count


def test_killed_run_resumes_with_only_the_missing_examples(server, tmp_path):
    server.latency = 0.25
    n = 10
    proc = subprocess.Popen(
        label_args(server, tmp_path, "--limit", str(n), "--concurrency", "2"),
        cwd=ROOT,
        env=env_with_key(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db = tmp_path / "ragviz.db"
    deadline = time.monotonic() + 60
    done_before_kill = 0
    while time.monotonic() < deadline:
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=5) as conn:
                    done_before_kill = conn.execute("SELECT COUNT(*) FROM judge_results").fetchone()[0]
            except sqlite3.OperationalError:
                done_before_kill = 0  # tables not created yet
            if done_before_kill >= 4:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    with sqlite3.connect(db) as conn:
        committed = conn.execute("SELECT COUNT(*) FROM judge_results").fetchone()[0]
    assert 4 <= committed < n

    server.latency = 0.0
    before = _settled_request_count(server)  # requests the killed run had in flight still get recorded
    out = run_label(server, tmp_path, "--limit", str(n))
    assert out.returncode == 0, out.stderr
    assert len(server.requests) - before == n - committed
    assert f"{n - committed} judged, {committed} cached, 0 failed" in out.stderr
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == n


def test_failures_are_reported_left_out_and_the_key_is_written_nowhere(server, tmp_path):
    examples = sample_examples()
    server.script[examples[0].question] = ["401"]
    server.script[examples[1].question] = ["malformed"] * 3
    out = run_label(server, tmp_path, "--max-attempts", "2")
    assert out.returncode == 1
    assert f"{examples[0].source}: judge: HTTP 401" in out.stderr
    assert f"{examples[1].source}: judge: invalid answer after 3 tries: the answer is not valid JSON" in out.stderr
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(rows) == len(examples) - 2
    assert {r["id"] for r in rows}.isdisjoint({examples[0].id, examples[1].id})
    with sqlite3.connect(tmp_path / "ragviz.db") as conn:
        conn.execute("PRAGMA wal_checkpoint(FULL)")
        failures = conn.execute("SELECT error, raw_output FROM judge_failures ORDER BY id").fetchall()
    # the two failing examples are judged concurrently: either may be stored first
    assert len(failures) == 2
    assert any("Incorrect API key provided: ***" in error for error, _ in failures)
    assert any((raw or "").startswith('{"relevance_explanation": "cut off"') for _, raw in failures)
    # The key went over the wire (the server saw it) but is in no file, log or message.
    assert server.requests[0].authorization == f"Bearer {KEY}"
    assert KEY not in out.stdout and KEY not in out.stderr
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert KEY.encode() not in f.read_bytes(), f


def test_bad_input_and_missing_key_are_clear_messages(server, tmp_path):
    env = env_with_key(tmp_path)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragviz",
            "label",
            str(tmp_path / "nope.jsonl"),
            "--model",
            "m",
            "--base-url",
            server.base_url,
            "--db",
            str(tmp_path / "x.db"),
            "-o",
            str(tmp_path / "o.jsonl"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert out.returncode == 2 and "nope.jsonl" in out.stderr and "Traceback" not in out.stderr
    env.pop("OPENAI_API_KEY")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragviz",
            "label",
            str(SAMPLE_JSONL),
            "--model",
            "m",
            "--db",
            str(tmp_path / "x.db"),
            "-o",
            str(tmp_path / "o.jsonl"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert out.returncode == 2 and "no API key: set OPENAI_API_KEY" in out.stderr and "Traceback" not in out.stderr
    assert server.requests == []


def test_a_cached_rerun_makes_no_request_even_when_the_format_probe_failed(tmp_path):
    """The probe answered 500 (so no format was remembered); a re-run whose answers are all cached must not
    probe again: it asks the endpoint nothing at all."""
    examples = sample_examples()
    with StubServer(script={"": ["500"] * 50}) as server:  # "": the probe's question (it has none)
        first = run_label(server, tmp_path, "--concurrency", "4", "--max-attempts", "2")
        assert first.returncode == 0, first.stderr
        assert len(server.calls) == len(examples) and len(server.requests) == len(examples) + 2  # probe: 2 attempts
        before = len(server.requests)
        again = run_label(server, tmp_path)
        assert again.returncode == 0, again.stderr
        assert len(server.requests) == before  # not one request, not even the probe
        assert f"0 judged, {len(examples)} cached, 0 failed; 0 requests" in again.stderr
