"""Phoenix's evaluations as the judge's labels, against a real Phoenix server (issue 37 follow-up, items 1-3):
evaluations logged through the phoenix client (a hallucination span annotation, a QA-correctness trace
annotation, per-document relevance annotations on a retriever and on a reranker span) → ``ragviz import phoenix
--db`` → judge label sets under the judge version ``phoenix-<evaluators>`` → a person's review → the judge-vs-human
agreement counts them → the person's labels pushed back, document annotations on the reranker span included."""

from __future__ import annotations

import json
import uuid

import pytest

from ragviz.analysis.labelsets.named import judge_labels
from ragviz.cli.main import main
from ragviz.data.formats.openinference import EVALUATIONS, SIDECAR
from ragviz.data.labels import Change, field_value, toggle_key
from ragviz.data.load import load
from ragviz.export.traces.phoenix import phoenix_client
from ragviz.judge.versions.registry import judged_by
from ragviz.store.label_store import LabelStore
from tests.traces.test_phoenix_import import wait_for_traces
from tests.traces.test_phoenix_push import document_annotations
from tests.traces.trace_log import RagTrace, journey_traces, log_traces

pytestmark = pytest.mark.slow

RERANKED = RagTrace(
    "Which planet is the largest?",
    "Jupiter is the largest planet. It is a gas giant.",
    (("retrieve", ("Mars is red.", "Jupiter is the largest planet in the solar system.", "Jupiter is a gas giant.")),),
    reranked=("Jupiter is the largest planet in the solar system.", "Jupiter is a gas giant."),
)
VERSION = "phoenix-hallucination_qa_correctness_relevance"


def _hex(value: int, width: int) -> str:
    return format(value, f"0{width}x")


@pytest.fixture(scope="module")
def evaluated(phoenix_url):
    """A journey trace with two retrievers and a reranked one, with evaluations on the first (every kind) and the
    second (documents of the reranker)."""
    project = f"evals-{uuid.uuid4().hex[:8]}"
    spans = log_traces(phoenix_url, project, [journey_traces()[1], RERANKED])
    wait_for_traces(phoenix_url, project, 2)
    traces: dict[int, dict] = {}
    for s in spans:
        kind = s.attributes.get("openinference.span.kind")
        entry = traces.setdefault(s.context.trace_id, {"trace_id": _hex(s.context.trace_id, 32)})
        entry.setdefault(kind, _hex(s.context.span_id, 16))  # the first of each kind
    first, third = sorted(traces.values(), key=lambda t: [s.start_time for s in spans if
                                                              _hex(s.context.trace_id, 32) == t["trace_id"]][0])  # fmt: skip
    client = phoenix_client(phoenix_url, None)
    client.spans.log_span_annotations(
        span_annotations=[
            {"name": "hallucination", "annotator_kind": "LLM", "span_id": first["CHAIN"],
             "result": {"label": "hallucinated", "score": 1.0, "explanation": "1851 is not in the documents."}},
        ],
        sync=True,
    )  # fmt: skip
    client.traces.log_trace_annotations(
        trace_annotations=[{"name": "QA Correctness", "annotator_kind": "LLM", "trace_id": first["trace_id"],
                            "result": {"label": "correct", "score": 1.0}}],
        sync=True,
    )  # fmt: skip
    documents = [
        (first["RETRIEVER"], 0, "LLM", "unrelated"),  # the vector-search retriever: not the row's documents
        (third["RERANKER"], 0, "LLM", "relevant"),
        (third["RERANKER"], 1, "LLM", "unrelated"),
        (third["RERANKER"], 1, "HUMAN", "relevant"),  # a person's: not the judge's
    ]
    client.spans.log_document_annotations(
        document_annotations=[
            {"name": "relevance" if kind == "LLM" else "relevance-by-a-person", "annotator_kind": kind,
             "span_id": span, "document_position": position, "result": {"label": label}}
            for span, position, kind, label in documents
        ],
        sync=True,
    )  # fmt: skip
    # the row's documents of the first trace are the keyword-search retriever's (the last before the LLM span)
    keyword = [s for s in spans if s.name == "keyword-search"][0]
    client.spans.log_document_annotations(
        document_annotations=[
            {"name": "relevance", "annotator_kind": "LLM", "span_id": _hex(keyword.context.span_id, 16),
             "document_position": p, "result": {"label": label, "explanation": f"position {p}"}}
            for p, label in ((0, "relevant"), (1, "unrelated"), (2, "relevant"))
        ],
        sync=True,
    )  # fmt: skip
    return phoenix_url, project, first, third


def test_evaluations_become_the_judges_labels_and_the_agreement_counts_them(evaluated, tmp_path, capsys):
    url, project, first, third = evaluated
    rows, db = tmp_path / "rows.jsonl", tmp_path / "labels.db"
    args = ["import", "phoenix", "--url", url, "--project", project, "-o", str(rows), "--db", str(db)]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert f"1 examples as judge version {VERSION}" in err
    assert "1 examples as judge version phoenix-relevance" in err  # the reranked trace: documents only
    assert "(2 label sets saved, 0 unchanged since the last import)" in err
    dataset = load([str(rows)]).dataset
    by_trace = {dataset.example(i).id: i for i in range(len(dataset))}
    one, three = dataset.example(by_trace[first["trace_id"]]), dataset.example(by_trace[third["trace_id"]])
    assert dataset.row(by_trace[third["trace_id"]])[SIDECAR]["retriever_span_id"] == third["RERANKER"]
    with LabelStore(str(db)) as store:
        assert store.sources.registered() == [str(rows)]
        labels = judge_labels(one, store)
        assert labels is not None and labels.provenance.name == VERSION
        keys = [tuple(s.key for s in d) for d in one.document_sentences]
        assert labels.relevant_keys == (*keys[0], *keys[2])
        assert labels.overall_supported is False and {s.supported for s in labels.support} == {False}
        assert labels.answer_similarity == 5.0
        reranked = judge_labels(three, store)
        assert reranked is not None and reranked.provenance.name == "phoenix-relevance"
        assert reranked.relevant_keys == tuple(s.key for s in three.document_sentences[0])
        assert dict(judged_by(store, [one.uid, three.uid])) == {VERSION: 1, "phoenix-relevance": 1}
        names = {e["name"] for e in dataset.row(by_trace[third["trace_id"]])[EVALUATIONS]}
        assert names == {"relevance"}  # the person's document annotation stays out
        # alice reviews the first: she marks the second document's first sentence relevant too
        old = field_value(labels, "relevant_keys")
        store.record(one.uid, "alice", [Change("relevant_keys", old, toggle_key(old, keys[1][0]))], example=one)
    assert main(["agreement", str(rows), "--db", str(db)]) == 0
    judge = json.loads(capsys.readouterr().out.splitlines()[0])["judge_agreement"]
    assert judge["n"] == 1 and judge["relevant_n"] == one.n_context_sentences
    assert (judge["relevant_fn"], judge["relevant_fp"]) == (1, 0)  # the one sentence alice added against Phoenix's
    assert judge["relevant_tp"] == len(keys[0]) + len(keys[2])
    assert main(args) == 0  # importing again: nothing new
    assert "(0 label sets saved, 2 unchanged since the last import)" in capsys.readouterr().err
    assert main(["convert", str(rows), "--to", "ragbench", "-o", str(tmp_path / "rows.parquet")]) == 0
    capsys.readouterr()


def test_a_push_puts_document_annotations_on_the_reranker_span(evaluated, tmp_path, capsys):
    url, project, _, third = evaluated
    rows, db = tmp_path / "rows.jsonl", tmp_path / "labels.db"
    assert main(["import", "phoenix", "--url", url, "--project", project, "-o", str(rows), "--db", str(db)]) == 0
    dataset = load([str(rows)]).dataset
    three = next(dataset.example(i) for i in range(len(dataset)) if dataset.example(i).id == third["trace_id"])
    with LabelStore(str(db)) as store:
        labels = judge_labels(three, store)
        old = field_value(labels, "utilized_keys")
        store.record(three.uid, "bob", [Change("utilized_keys", old, (three.context_keys()[-1],))], example=three)
    capsys.readouterr()
    assert main(["push", "phoenix", str(rows), "--url", url, "--db", str(db)]) == 0
    assert "pushed 1 examples" in capsys.readouterr().err
    got = {(d["name"], d["documentPosition"]): d for d in document_annotations(url, project, third["RERANKER"])}
    assert got[("ragviz.relevant", 0)]["score"] == 1.0 and got[("ragviz.relevant", 1)]["score"] == 0.0
    assert got[("ragviz.utilized", 1)]["score"] == 1.0 and got[("ragviz.utilized", 0)]["score"] == 0.0
    assert got[("relevance", 0)]["annotatorKind"] == "LLM"  # Phoenix's own evaluations stay beside them


def test_document_annotations_of_many_spans_are_read_in_queries_phoenix_allows(evaluated):
    """Phoenix allows 50 aliases a GraphQL query: 120 spans take three queries, each span's annotations found."""
    import httpx

    from ragviz.export.traces.phoenix_evaluations import document_evaluations

    url, project, _, third = evaluated
    record = httpx.get(f"{url}/v1/projects/{project}/spans", params={"span_id": [third["RERANKER"]]}).json()["data"][0]
    node_ids = {f"{third['RERANKER']}-{i}": record["id"] for i in range(120)}
    found = document_evaluations(phoenix_client(url, None), node_ids)
    assert len(found) == 120
    assert {tuple((e["document_position"], e["label"]) for e in v) for v in found.values()} == {
        ((0, "relevant"), (1, "unrelated"))
    }
