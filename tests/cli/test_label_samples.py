"""``ragviz label --samples N`` end to end against the stub server whose answers vary across samples: the judge's
confidence lands in OUT and the store, and ``ragviz audit draw --confidence`` draws an active sample from it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragviz.cli.main import main
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.store.judge_confidence import example_confidences
from ragviz.store.label_store import LabelStore
from tests.judge.test_endpoints import no_proxy_env  # noqa: F401 - a fixture
from tests.openai_stub_server import StubServer

SAMPLE_DATA = Path(__file__).resolve().parents[2] / "sample_data" / "ragviz_sample.jsonl"
KEY = "sk-test-samples-1234"


@pytest.fixture
def server():
    with StubServer(vary=True) as stub:
        yield stub


def _label(capsys, server, tmp_path, *extra) -> tuple[int, str]:
    code = main(
        ["label", str(SAMPLE_DATA), "--model", "gpt-4o-mini", "--base-url", server.base_url, "--limit", "6"]
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
        ["audit", "draw", str(SAMPLE_DATA), "--db", str(tmp_path / "l.db"), "--design", "active", "--size", "3"]
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
