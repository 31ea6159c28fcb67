"""``ragviz label --samples N`` end to end against the stub server whose answers vary across samples: the judge's
confidence lands in OUT and the store, and ``ragviz audit draw --confidence`` draws an active sample from it."""

from __future__ import annotations

import json
import math

import pytest

from ragviz.cli.main import main
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.store.judge_confidence import example_confidences
from ragviz.store.label_store import LabelStore
from tests.judge.test_endpoints import no_proxy_env  # noqa: F401 - a fixture
from tests.openai_stub_server import StubServer
from tests.sample import SAMPLE_JSONL

KEY = "sk-test-samples-1234"


@pytest.fixture
def server():
    with StubServer(vary=True) as stub:
        yield stub


def _label(capsys, server, tmp_path, *extra) -> tuple[int, str]:
    code = main(
        ["label", str(SAMPLE_JSONL), "--model", "gpt-4o-mini", "--base-url", server.base_url, "--limit", "6"]
        + ["--db", str(tmp_path / "l.db"), "--response-format", "json_object", "-o", str(tmp_path / "out.jsonl")]
        + [str(e) for e in extra]
    )
    return code, capsys.readouterr().err


def test_samples_put_the_confidence_in_out_and_the_store_and_an_active_draw_reads_it(
    server,
    tmp_path,
    capsys,
    no_proxy_env,  # noqa: F811
):
    no_proxy_env.setenv("OPENAI_API_KEY", KEY)
    code, err = _label(capsys, server, tmp_path, "--samples", 3, "--sample-mode", "separate")
    assert code == 0, err
    assert len(server.calls) == 18 and "6 examples x 3 samples" in err and "confidence stored for 6 examples" in err
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert len(rows) == 6
    for row in rows:
        values = [row["judge_confidence"]] + [row[f"judge_confidence_{m}"] for m in TRACE_METRICS]
        assert all(v is None or 0 <= v <= 1 for v in values)
        assert row["judge_confidence"] == min(v for v in values[1:] if v is not None)
    assert any(row["judge_confidence"] < 1 for row in rows)  # the varied samples disagree somewhere
    with LabelStore(tmp_path / "l.db") as store:
        assert len(example_confidences(store)) == 6

    # the original file has no confidence column: the draw takes it from the store, as the Review page does
    code = main(
        ["audit", "draw", str(SAMPLE_JSONL), "--db", str(tmp_path / "l.db"), "--design", "active", "--size", "3"]
        + ["--confidence", "judge_confidence_relevance", "--seed", "5", "--format", "json", "--annotator", "ana"]
    )
    out, err = capsys.readouterr()
    assert code != 0 and "judge_confidence_relevance" in err  # rows of the file beyond the 6 judged have none
    code = main(
        ["audit", "draw", str(tmp_path / "out.jsonl"), "--db", str(tmp_path / "l.db"), "--design", "active"]
        + ["--size", "3", "--confidence", "judge_confidence_relevance", "--seed", "5", "--format", "json"]
        + ["--annotator", "ana"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    drawn = json.loads(out)
    assert drawn["design"] == "active" and drawn["params"]["confidence"] == "judge_confidence_relevance"
    conf = {row["id"]: row["judge_confidence_relevance"] for row in rows}
    probs = {m["uid"].split("/")[1]: m["inclusion_probability"] for m in drawn["members"]}
    # the less sure the judge, the likelier an example is drawn
    ranked = sorted(probs, key=lambda i: conf[i])
    assert [probs[i] for i in ranked] == sorted(probs.values(), reverse=True)


@pytest.mark.parametrize("samples", ["0", "-1"])
def test_samples_below_one_is_one_clear_message(server, tmp_path, capsys, no_proxy_env, samples):  # noqa: F811
    no_proxy_env.setenv("OPENAI_API_KEY", KEY)
    code, err = _label(capsys, server, tmp_path, "--samples", samples)
    assert code == 2 and "samples: must be a whole number from 1 to 20" in err and "Traceback" not in err
    assert server.calls == []


def test_samples_with_a_batch_option_is_refused(server, tmp_path, capsys, no_proxy_env):  # noqa: F811
    no_proxy_env.setenv("OPENAI_API_KEY", KEY)
    code, err = _label(capsys, server, tmp_path, "--samples", 2, "--batch")
    assert code == 2 and "--samples" in err and "batch" in err


def test_samples_default_to_one_request_per_example_and_say_once_when_the_endpoint_ignores_n(
    tmp_path,
    capsys,
    no_proxy_env,  # noqa: F811
):
    no_proxy_env.setenv("OPENAI_API_KEY", KEY)
    with StubServer(vary=True) as stub:
        code, err = _label(capsys, stub, tmp_path, "--samples", 3)
        assert code == 0, err
        assert len(stub.calls) == 6 + 6 and [c.body.get("n") for c in stub.calls[6:]] == [2] * 6
        assert "12 requests" in err and "confidence stored for 6 examples" in err
        code, err = _label(capsys, stub, tmp_path, "--samples", 3, "--dry-run")
        assert "6 cached, 0 calls needed" in err
    with StubServer(vary=True, n_mode="ignore") as stub:
        (tmp_path / "x").mkdir()
        code, err = _label(capsys, stub, tmp_path / "x", "--samples", 3)
        assert code == 0, err
        assert err.count("ignored n=2") == 1 and "asked one request each" in err
        assert len(stub.calls) == 6 + 1 + 5 + 6  # kept; n tried once (its one choice is a sample); then one each


def test_dry_run_counts_one_request_per_example_for_the_samples_in_n_mode(server, tmp_path, capsys, no_proxy_env):  # noqa: F811
    no_proxy_env.setenv("OPENAI_API_KEY", KEY)
    _, n_err = _label(capsys, server, tmp_path, "--samples", 3, "--dry-run")
    _, separate_err = _label(capsys, server, tmp_path, "--samples", 3, "--dry-run", "--sample-mode", "separate")
    assert "0 cached, 12 calls needed" in n_err and "0 cached, 18 calls needed" in separate_err
    assert server.calls == []


def test_confidence_from_logprobs_lands_in_out_and_no_key_is_written_anywhere(tmp_path, capsys, no_proxy_env):  # noqa: F811
    no_proxy_env.setenv("OPENAI_API_KEY", KEY)
    probs = {"all_relevant_sentence_keys:]": 0.9, "fully_supported:c": 0.7}
    with StubServer(token_probs=probs) as stub:
        code, err = _label(capsys, stub, tmp_path, "--confidence", "logprobs")
        assert code == 0, err
        assert len(stub.calls) == 6 and all(c.body["logprobs"] is True for c in stub.calls)
        assert "confidence read from logprobs for 6 examples" in err and "6 requests" in err
        rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
        # adherence where c is the last of 3 sentences (the stub: unsupported): P(all supported) = 1 - .7 = .3;
        # elsewhere a sentence is surely unsupported, or c is absent: the judge is sure
        adherence = sorted({round(row["judge_confidence_adherence"], 9) for row in rows})
        assert adherence == [round(1 - 2 * math.sqrt(0.3 * 0.7), 9), 1.0]
        with LabelStore(tmp_path / "l.db") as store:
            stored = example_confidences(store)
        assert len(stored) == 6 and all(c.n_samples == 1 for c in stored.values())
        code, err2 = _label(capsys, stub, tmp_path, "--confidence", "logprobs")
        assert code == 0 and len(stub.calls) == 6  # a rerun asks nothing
    assert KEY not in err + err2
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_logprobs_without_logprobs_from_the_endpoint_is_one_line_no_traceback(tmp_path, capsys, no_proxy_env):  # noqa: F811
    no_proxy_env.setenv("OPENAI_API_KEY", KEY)
    with StubServer(logprobs_mode="none") as stub:
        code, err = _label(capsys, stub, tmp_path, "--confidence", "logprobs")
    assert code == 0 and "Traceback" not in err
    assert err.count("sent no logprobs") == 1 and "confidence read from logprobs for 0 examples" in err


def test_logprobs_with_a_batch_option_is_refused(server, tmp_path, capsys, no_proxy_env):  # noqa: F811
    no_proxy_env.setenv("OPENAI_API_KEY", KEY)
    code, err = _label(capsys, server, tmp_path, "--confidence", "logprobs", "--batch")
    assert code == 2 and "--confidence" in err and "batch" in err
