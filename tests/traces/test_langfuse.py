"""Langfuse through its SDK (issue 37, item 4), against a fixture server (pytest-httpserver on 127.0.0.1): no
Langfuse server runs here (it needs PostgreSQL and ClickHouse). The observations are a fixture written in the
shape ``GET /api/public/v2/observations`` answers (tests/fixtures/langfuse/), and the test asserts the exact
requests the SDK sends: the paged reads and the scores ``POST /api/public/scores``."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from werkzeug import Response

from ragviz.cli.main import main
from ragviz.data.formats.openinference import SIDECAR
from ragviz.data.labels import Change, field_value, toggle_key
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore

FIXTURES = Path(__file__).parents[1] / "fixtures" / "langfuse"
PUBLIC, SECRET = "pk-lf-test-1a2b", "sk-lf-test-secret-9z8y"
T1 = "a1b2c3d4e5f60718293a4b5c6d7e8f90"
AUTH = "Basic " + base64.b64encode(f"{PUBLIC}:{SECRET}".encode()).decode()


def serve_observations(httpserver) -> None:
    pages = [json.loads((FIXTURES / f"observations_page{i}.json").read_text()) for i in (1, 2)]

    def answer(request):
        assert request.headers["Authorization"] == AUTH
        assert request.args["fields"] == "core,basic,io,model,metadata" and request.args["limit"] == "1000"
        page = pages[1] if request.args.get("cursor") == "Y3Vyc29yLTE=" else pages[0]
        return Response(json.dumps(page), content_type="application/json")

    httpserver.expect_request("/api/public/v2/observations", method="GET").respond_with_handler(answer)


def import_rows(httpserver, tmp_path: Path, *extra: str) -> Path:
    out = tmp_path / "rows.jsonl"
    args = ["import", "langfuse", "--url", httpserver.url_for("/"), "--public-key", PUBLIC, "--secret-key", SECRET]
    assert main([*args, "-o", str(out), *extra]) == 0
    return out


def test_import_reads_every_page_and_maps_observations(httpserver, tmp_path, capsys):
    serve_observations(httpserver)
    rows = [json.loads(line) for line in import_rows(httpserver, tmp_path).read_text().splitlines()]
    err = capsys.readouterr().err
    assert "imported 2 traces" in err and "trace 99999999999999999999999999999999: skipped: no retriever span" in err
    assert [r["id"] for r in rows] == [T1, "0f1e2d3c4b5a69788796a5b4c3d2e1f0"]
    first, second = rows
    assert first["question"] == "Where is the Eiffel Tower?"  # the root's JSON input, its "question"
    assert first["response"] == "The Eiffel Tower is in Paris. It was built in 1889."
    assert first["documents"] == [
        "The Eiffel Tower stands in Paris. It opened in 1889.",
        "Paris is the capital of France.",
    ]
    assert [(d["position"], d["id"]) for d in first[SIDECAR]["documents"]] == [(0, "kb-17"), (1, "kb-3")]
    assert (first["dataset_name"], first["generation_model_name"]) == ("cm-project-7", "gpt-4o-mini")
    assert second["response"] == "It is 330 metres tall."  # the root has no output: the generation's content
    assert second[SIDECAR]["response_span_id"] == "obs-gen-2" and second[SIDECAR]["retriever_span_id"] == "obs-ret-2"
    assert [r.query_string.decode().count("cursor") for r, _ in httpserver.log] == [0, 1]


def test_push_sends_exactly_these_scores_once(httpserver, tmp_path, capsys):
    serve_observations(httpserver)
    rows = import_rows(httpserver, tmp_path, "--limit", "2")  # the newest two: one is chit-chat
    assert [json.loads(line)["id"] for line in rows.read_text().splitlines()] == ["0f1e2d3c4b5a69788796a5b4c3d2e1f0"]
    rows = import_rows(httpserver, tmp_path)
    dataset = load([str(rows)]).dataset
    ex = dataset.example(0)
    db = tmp_path / "labels.db"
    with LabelStore(str(db)) as store:
        store.sources.register(str(rows))
        changes = [
            Change("relevant_keys", field_value(ex.labels, "relevant_keys"), ["0a", "0b"]),
            Change("utilized_keys", field_value(ex.labels, "utilized_keys"), ["0a"]),
        ]
        changes += [
            Change(
                f"support:{s.key}", None, {"supporting_keys": ["0a"] if s.key == "a" else [], "supported": s.key == "a"}
            )
            for s in ex.response_sentences
        ]
        store.record(ex.uid, "carol", changes, example=ex)
    sent: list = []

    def accept(request):
        assert request.headers["Authorization"] == AUTH
        sent.append(json.loads(request.data))
        return Response(json.dumps({"message": "Accepted"}), status=202, content_type="application/json")

    httpserver.expect_request("/api/public/scores", method="POST").respond_with_handler(accept)
    push = ["push", "langfuse", "--url", httpserver.url_for("/"), "--db", str(db), "--public-key", PUBLIC]
    capsys.readouterr()
    assert main([*push, "--secret-key", SECRET]) == 0
    assert "pushed 1 examples" in capsys.readouterr().err and len(sent) == 1
    scores = {(s["name"], s.get("metadata", {}).get("position")): s for s in sent[0]}
    adherence = scores[("ragviz.adherence", None)]
    assert adherence["traceId"] == T1 and adherence["observationId"] == "obs-root-1"
    assert (adherence["value"], adherence["dataType"]) == ("unsupported", "CATEGORICAL")
    assert adherence["comment"] == "It was built in 1889."
    assert {
        k: scores[(k, None)]["value"] for k in ("ragviz.relevance", "ragviz.utilization", "ragviz.completeness")
    } == {
        "ragviz.relevance": pytest.approx(2 / 3),
        "ragviz.utilization": pytest.approx(1 / 3),
        "ragviz.completeness": pytest.approx(0.5),
    }
    relevant0 = scores[("ragviz.relevant", 0)]
    assert (
        relevant0["observationId"] == "obs-ret-1" and relevant0["value"] == 1.0 and relevant0["dataType"] == "NUMERIC"
    )
    assert relevant0["metadata"]["document_id"] == "kb-17" and scores[("ragviz.relevant", 1)]["value"] == 0.0
    assert len(sent[0]) == 4 + 2 * 2 and len({s["id"] for s in sent[0]}) == 8
    assert all(s["metadata"]["reviewer"] == "carol" for s in sent[0])
    first_ids = sorted(s["id"] for s in sent[0])
    assert main([*push, "--secret-key", SECRET]) == 0  # nothing changed: nothing sent
    assert len(sent) == 1 and "1 unchanged" in capsys.readouterr().err
    with LabelStore(str(db)) as store:  # carol changes her mind: the same score ids are sent again (replaced)
        store.record(ex.uid, "carol", [Change("utilized_keys", ["0a"], toggle_key(["0a"], "0b"))], example=ex)
    assert main([*push, "--secret-key", SECRET]) == 0
    assert len(sent) == 2 and sorted(s["id"] for s in sent[1]) == first_ids
    for path in tmp_path.iterdir():  # the keys are only ever the requests' basic auth
        assert SECRET.encode() not in path.read_bytes()


def test_rejected_scores_name_the_example_and_a_refused_key_is_one_line(httpserver, tmp_path, capsys):
    serve_observations(httpserver)
    rows = import_rows(httpserver, tmp_path)
    ex = load([str(rows)]).dataset.example(0)
    db = tmp_path / "labels.db"
    with LabelStore(str(db)) as store:
        store.sources.register(str(rows))
        store.record(
            ex.uid, "carol", [Change("relevant_keys", field_value(ex.labels, "relevant_keys"), ["0a"])], example=ex
        )
    partial = {"accepted": 0, "rejected": 8, "errors": [{"message": "observation obs-ret-1 not found"}]}
    httpserver.expect_request("/api/public/scores", method="POST").respond_with_json(partial, status=207)
    push = ["push", "langfuse", "--url", httpserver.url_for("/"), "--db", str(db)]
    capsys.readouterr()
    assert main([*push, "--public-key", PUBLIC, "--secret-key", SECRET]) == 1
    err = capsys.readouterr().err
    assert f"refused: {T1}: Langfuse rejected its scores: observation obs-ret-1 not found" in err
    assert "pushed 0 examples" in err
    httpserver.clear()
    httpserver.expect_request("/api/public/v2/observations").respond_with_json(
        {"message": "Invalid credentials"}, status=401
    )
    out = tmp_path / "again.jsonl"
    args = ["import", "langfuse", "--url", httpserver.url_for("/"), "--public-key", PUBLIC, "--secret-key", "wrong"]
    assert main([*args, "-o", str(out)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].endswith("HTTP 401: Langfuse refused the keys; give them with --public-key / --secret-key or "
                              "$LANGFUSE_PUBLIC_KEY / $LANGFUSE_SECRET_KEY") and not out.exists()  # fmt: skip


def test_json_text_nested_too_deep_stays_text():
    """An observation's input or a retriever's output nested past Python's recursion limit raised RecursionError."""
    from ragviz.data.formats.langfuse_observations import documents_attributes, observation_span

    deep = "[" * 100_000 + "]" * 100_000
    span = observation_span({"id": "o", "traceId": "t", "type": "SPAN", "input": deep, "output": deep})
    assert span.attributes["input.value"] == deep and span.attributes["output.value"] == deep
    assert documents_attributes(deep) == {}
