"""``ragviz import phoenix`` against a real Phoenix server (issue 37, items 1, 2, 6): traces logged through
OpenTelemetry with OpenInference attributes come back as the same rows, byte for byte, as the OTLP JSON file of
the same spans; bad input is one line."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from ragviz.cli.main import main
from ragviz.data.formats.openinference import SIDECAR
from tests.traces.trace_log import journey_traces, log_traces, otlp_json

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def logged(phoenix_url, tmp_path_factory):
    """The journey traces in a project of their own, and their OTLP JSON file."""
    project = f"shop-{uuid.uuid4().hex[:8]}"
    spans = log_traces(phoenix_url, project, journey_traces())
    path = tmp_path_factory.mktemp("otlp") / "spans.json"
    path.write_text(otlp_json(spans))
    wait_for_traces(phoenix_url, project, 7)
    return phoenix_url, project, path


def wait_for_traces(url: str, project: str, n: int, timeout: float = 60) -> None:
    """Phoenix ingests spans asynchronously: wait until the project has *n* root spans."""
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = httpx.get(f"{url}/v1/projects/{project}/spans", params={"parent_id": "null", "limit": 1000})
        if response.status_code == 200 and len(response.json()["data"]) >= n:
            return
        time.sleep(0.5)
    raise AssertionError(f"Phoenix did not show {n} traces of {project} within {timeout} s")


def test_phoenix_rows_equal_the_otlp_files_rows_byte_for_byte(logged, tmp_path, capsys):
    url, project, otlp = logged
    assert main(["import", "phoenix", "--url", url, "--project", project, "-o", str(tmp_path / "p.jsonl")]) == 0
    from_phoenix = capsys.readouterr().err
    assert main(["import", "otlp", str(otlp), "-o", str(tmp_path / "o.jsonl")]) == 0
    from_file = capsys.readouterr().err
    assert (tmp_path / "p.jsonl").read_bytes() == (tmp_path / "o.jsonl").read_bytes()
    rows = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert [r["question"] for r in rows] == [t.question for t in journey_traces()[:5]]
    assert all(r["dataset_name"] == project for r in rows)
    for text in (from_phoenix, from_file):
        assert "imported 5 traces" in text and "2 skipped" in text
        assert "skipped: no retriever span" in text and "has no documents" in text
    two = rows[1]  # two retrievers: the last one before the LLM span
    assert two[SIDECAR]["retriever_span_name"] == "keyword-search" and len(two["documents"]) == 3
    assert rows[3]["documents"][0] == rows[3]["documents"][1]  # a repeated document stays
    assert rows[2]["response"] == journey_traces()[2].answer  # from the LLM span


def test_limit_dataset_and_retriever_span(logged, tmp_path, capsys):
    url, project, _ = logged
    out = tmp_path / "rows.jsonl"
    args = ["import", "phoenix", "--url", url, "--project", project, "-o", str(out)]
    assert main([*args, "--retriever-span", "vector-search", "--dataset", "mine"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["question"] for r in rows] == ["Who wrote the novel Moby-Dick?"]
    assert rows[0]["dataset_name"] == "mine" and len(rows[0]["documents"]) == 2
    assert capsys.readouterr().err.count("skipped: no span named 'vector-search'") == 6
    assert main([*args, "--limit", "3"]) == 0
    assert "reading traces: 3/3" in capsys.readouterr().err  # the newest three: two of them skipped
    assert main([*args, "--since", "2999-01-01"]) == 2
    assert (
        capsys.readouterr().err.strip().endswith(f"project {project!r} has no traces since 2999-01-01T00:00:00+00:00")
    )


def test_bad_input_is_one_line_and_writes_nothing(logged, tmp_path, capsys):
    url, _, _ = logged
    out = tmp_path / "rows.jsonl"
    cases = [
        (["--url", url, "--project", "no-such-project"], "no project 'no-such-project' on this Phoenix server"),
        (["--url", "http://127.0.0.1:9", "--project", "p"], "cannot reach Phoenix: ConnectError"),
        (["--url", url, "--project", "p", "--since", "yesterday"], "--since: not an ISO 8601 time: 'yesterday'"),
        (["--url", url, "--project", "p", "--limit", "0"], "--limit: must be at least 1, got 0"),
    ]
    for extra, message in cases:
        assert main(["import", "phoenix", *extra, "-o", str(out)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], err
    assert not out.exists()


def test_existing_llm_evaluations_come_in_read_only(phoenix_url, tmp_path, capsys):
    """Phoenix evaluations of kind LLM on a trace's root / response / LLM span come along as the read-only column
    source_evaluations (people's annotations and ragviz's own stay out); rows without any have no such column."""
    import httpx

    from ragviz.data.formats.openinference import EVALUATIONS

    project = f"evals-{uuid.uuid4().hex[:8]}"
    spans = log_traces(phoenix_url, project, journey_traces()[:2])
    wait_for_traces(phoenix_url, project, 2)
    root = next(s for s in spans if s.parent is None)
    root_id = format(root.context.span_id, "016x")
    annotations = [
        {"name": "hallucination", "annotator_kind": "LLM", "span_id": root_id,
         "result": {"label": "factual", "score": 1.0, "explanation": "The answer follows from document 0."}},
        {"name": "note-by-a-person", "annotator_kind": "HUMAN", "span_id": root_id, "result": {"label": "ok"}},
        {"name": "ragviz.adherence", "annotator_kind": "LLM", "span_id": root_id, "result": {"score": 0.0}},
    ]  # fmt: skip
    response = httpx.post(f"{phoenix_url}/v1/span_annotations", params={"sync": "true"}, json={"data": annotations})
    assert response.status_code == 200, response.text
    out = tmp_path / "rows.jsonl"
    assert main(["import", "phoenix", "--url", phoenix_url, "--project", project, "-o", str(out)]) == 0
    rows = {json.loads(line)["id"]: json.loads(line) for line in out.read_text().splitlines()}
    with_evals = rows.pop(format(root.context.trace_id, "032x"))
    assert with_evals[EVALUATIONS] == [
        {"span_id": root_id, "name": "hallucination", "label": "factual", "score": 1.0,
         "explanation": "The answer follows from document 0."}
    ]  # fmt: skip
    assert all(EVALUATIONS not in r for r in rows.values())
    assert main(["validate", str(out)]) == 0
    capsys.readouterr()
