"""The Phoenix round trip (issue 37, item 3 and "Done when"): traces logged with OpenTelemetry + OpenInference →
``ragviz import phoenix`` → the judge's labels (the scripted OpenAI-protocol server) → a person's corrections in
the label store → ``ragviz push phoenix`` → read back through Phoenix's REST API (span annotations) and GraphQL
(document annotations) → pushed again: nothing new. Against a real Phoenix server."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import httpx
import pytest

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.cli.main import main
from ragviz.data.formats.openinference import SIDECAR
from ragviz.data.labels import Change, field_value, toggle_key
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.openai_stub_server import StubServer
from tests.traces.test_phoenix_import import wait_for_traces
from tests.traces.trace_log import journey_traces, log_traces

pytestmark = pytest.mark.slow

SPAN_NAMES = {"ragviz.adherence", "ragviz.relevance", "ragviz.utilization", "ragviz.completeness"}
DOCUMENTS_QUERY = """
query ($id: ID!) { node(id: $id) { ... on Span { spanId documentEvaluations {
  name label score annotatorKind documentPosition metadata } } } }
"""


def span_annotations(url: str, project: str, span_ids: list[str]) -> list[dict]:
    response = httpx.get(
        f"{url}/v1/projects/{project}/span_annotations", params={"span_ids": span_ids, "limit": 10000}, timeout=30
    )
    response.raise_for_status()
    return response.json()["data"]


def document_annotations(url: str, project: str, span_id: str) -> list[dict]:
    """A retriever span's document annotations, through GraphQL (the REST API has no reader for them)."""
    spans = httpx.get(f"{url}/v1/projects/{project}/spans", params={"span_id": [span_id]}, timeout=30).json()["data"]
    response = httpx.post(
        f"{url}/graphql", json={"query": DOCUMENTS_QUERY, "variables": {"id": spans[0]["id"]}}, timeout=30
    )
    response.raise_for_status()
    body = response.json()
    assert "errors" not in body, body
    return body["data"]["node"]["documentEvaluations"]


@pytest.fixture
def journey(phoenix_url, tmp_path, monkeypatch):
    """Five traces imported from Phoenix, judged by the fake judge, three of them corrected by alice."""
    project = f"journey-{uuid.uuid4().hex[:8]}"
    log_traces(phoenix_url, project, journey_traces())
    wait_for_traces(phoenix_url, project, 7)
    rows = tmp_path / "rows.jsonl"
    assert main(["import", "phoenix", "--url", phoenix_url, "--project", project, "-o", str(rows)]) == 0
    db, labeled = tmp_path / "labels.db", tmp_path / "labeled.jsonl"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-traces")
    with StubServer() as stub:
        args = ["label", str(rows), "--model", "gpt-4o-mini", "--base-url", stub.base_url, "--db", str(db)]
        assert main([*args, "-o", str(labeled)]) == 0
    dataset = load([str(labeled)]).dataset
    with LabelStore(str(db)) as store:
        store.sources.register(str(labeled))
        corrected = []
        for i in range(3):  # alice reviews three: each time she flips the last context sentence's relevance
            ex = dataset.example(i)
            old = field_value(ex.labels, "relevant_keys")
            new = toggle_key(old, ex.context_keys()[-1])
            store.record(ex.uid, "alice", [Change("relevant_keys", old, new)], example=ex)
            corrected.append(new)
    return phoenix_url, project, db, labeled, dataset, corrected


def push(url: str, db: Path, *extra: str) -> int:
    """``ragviz push phoenix`` of the judged rows (the store also lists the unjudged rows ``ragviz label`` read)."""
    return main(["push", "phoenix", str(db.parent / "labeled.jsonl"), "--url", url, "--db", str(db), *extra])


def test_round_trip_then_a_second_push_adds_nothing(journey, capsys):
    url, project, db, labeled, dataset, corrected = journey
    capsys.readouterr()
    key = "phx-key-never-written-7f3a"
    assert push(url, db, "--api-key", key) == 0  # this server needs none; a key is only ever a header
    err = capsys.readouterr().err
    assert "pushed 3 examples" in err and "12 span annotations" in err and "0 refused" in err and key not in err
    for path in db.parent.iterdir():
        assert key.encode() not in path.read_bytes(), path
    sides = [json.loads(line)[SIDECAR] for line in labeled.read_text().splitlines()]
    for i, side in enumerate(sides[:3]):
        ex = dataset.example(i)
        assert ex.id == side["trace_id"]
        got = span_annotations(url, project, [side["response_span_id"]])
        assert {a["name"] for a in got} == SPAN_NAMES
        assert {a["identifier"] for a in got} == {"ragviz:alice"} and {a["annotator_kind"] for a in got} == {"HUMAN"}
        by_name = {a["name"]: a for a in got}
        relevant = by_name["ragviz.relevance"]["metadata"]["relevant_keys"]
        assert relevant == corrected[i] and by_name["ragviz.adherence"]["metadata"]["ragviz_uid"] == ex.uid
        documents = document_annotations(url, project, side["retriever_span_id"])
        n = len(ex.documents)
        assert sorted((d["name"], d["documentPosition"]) for d in documents) == sorted(
            (name, p) for name in ("ragviz.relevant", "ragviz.utilized") for p in range(n)
        )
        for d in documents:  # the document's position is its keys' document number
            keys = d["metadata"]["keys"]
            assert all(k.startswith(str(d["documentPosition"])) for k in keys)
            assert d["score"] == (1.0 if keys else 0.0) and d["annotatorKind"] == "HUMAN"
        relevant_documents = {d["documentPosition"] for d in documents if d["name"] == "ragviz.relevant" and d["score"]}
        assert relevant_documents == {int(k[0]) for k in corrected[i]}
    for side in sides[3:]:  # not reviewed by people: nothing sent
        assert span_annotations(url, project, [side["response_span_id"]]) == []
    before = span_annotations(url, project, [s["response_span_id"] for s in sides])
    assert push(url, db) == 0
    err = capsys.readouterr().err
    assert "pushed 0 examples" in err and "3 unchanged" in err
    after = span_annotations(url, project, [s["response_span_id"] for s in sides])
    assert sorted(a["id"] for a in after) == sorted(a["id"] for a in before)


def rewrite(path: Path, i: int, change) -> None:
    lines = path.read_text().splitlines()
    row = json.loads(lines[i])
    change(row)
    lines[i] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n")


def test_changed_documents_and_unknown_spans_are_refused_by_name(journey, capsys):
    url, project, db, labeled, dataset, _ = journey
    ids = [dataset.example(i).id for i in range(3)]
    rewrite(labeled, 0, lambda r: r["documents"].__setitem__(0, "A document that changed since."))
    rewrite(labeled, 1, lambda r: r[SIDECAR].__setitem__("response_span_id", "ffffffffffffffff"))
    capsys.readouterr()
    assert push(url, db) == 1
    err = capsys.readouterr().err.splitlines()
    assert f"{url}: refused: {ids[0]}: the trace's documents changed since the import" in "\n".join(err)
    assert f"{url}: refused: {ids[1]}: Phoenix has no span ffffffffffffffff (HTTP 404)" in err
    assert "pushed 1 examples" in err[-1] and "2 refused" in err[-1]
    assert push(url, db) == 1  # the refused ones are not recorded: refused again, the pushed one unchanged
    assert "pushed 0 examples" in capsys.readouterr().err


def test_a_push_that_fails_halfway_is_finished_by_a_rerun(journey, monkeypatch, capsys):
    from ragviz.data.errors import BadInput
    from ragviz.export.traces import push as push_module

    url, project, db, labeled, dataset, _ = journey
    real = push_module.log_document_annotations
    calls = []

    def flaky(client, annotations):
        calls.append(len(annotations))
        if len(calls) == 2:
            raise httpx.ConnectError("connection lost")
        return real(client, annotations)

    monkeypatch.setattr(push_module, "log_document_annotations", flaky)
    with LabelStore(str(db)) as store, pytest.raises(BadInput, match="cannot reach Phoenix: ConnectError"):
        push_module.push_phoenix(
            load([str(labeled)]).dataset, store, url, LabelSelection.of("alice"), batch_size=1, workers=1
        )
    monkeypatch.setattr(push_module, "log_document_annotations", real)
    capsys.readouterr()
    assert push(url, db) == 0
    assert (
        "pushed 2 examples" in capsys.readouterr().err
    )  # the first was recorded; the second's span annotations are updated
    sides = [json.loads(line)[SIDECAR] for line in labeled.read_text().splitlines()]
    got = span_annotations(url, project, [s["response_span_id"] for s in sides])
    assert len(got) == 12 and len({(a["name"], a["span_id"]) for a in got}) == 12


def test_two_reviewers_keep_two_span_annotations_and_documents_as_llm(journey, capsys):
    url, project, db, labeled, dataset, corrected = journey
    ex = dataset.example(0)
    with LabelStore(str(db)) as store:
        old = field_value(ex.labels, "utilized_keys")
        store.record(ex.uid, "bob", [Change("utilized_keys", old, toggle_key(old, ex.context_keys()[0]))], example=ex)
    assert push(url, db, "--annotator", "alice") == 0
    assert push(url, db, "--annotator", "bob", "--documents-as", "llm") == 0
    capsys.readouterr()
    side = json.loads(labeled.read_text().splitlines()[0])[SIDECAR]
    got = span_annotations(url, project, [side["response_span_id"]])
    assert sorted({a["identifier"] for a in got}) == ["ragviz:alice", "ragviz:bob"] and len(got) == 8
    documents = document_annotations(url, project, side["retriever_span_id"])
    assert len(documents) == 2 * len(ex.documents)  # one per (name, position): bob's push overwrote alice's
    assert {d["annotatorKind"] for d in documents} == {"LLM"} and {d["metadata"]["reviewer"] for d in documents} == {
        "bob"
    }


def test_phoenix_refuses_an_identifier_on_document_annotations(journey):
    """The fact the push is built around (Phoenix 20.26): HTTP 422 for a non-empty identifier."""
    url, _, _, labeled, _, _ = journey
    side = json.loads(labeled.read_text().splitlines()[0])[SIDECAR]
    annotation = {"name": "x", "annotator_kind": "HUMAN", "span_id": side["retriever_span_id"], "document_position": 0,
                  "result": {"score": 1.0}, "identifier": "ragviz:alice"}  # fmt: skip
    response = httpx.post(f"{url}/v1/document_annotations", params={"sync": "true"}, json={"data": [annotation]})
    assert response.status_code == 422 and "identifier" in response.text
