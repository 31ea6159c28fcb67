"""RERANKER spans (issue 37 follow-up, item 3): when a trace's reranker records output documents, the row's
documents are those (what the answer was given), in their re-ranked order; ``--retriever-span`` still chooses."""

from __future__ import annotations

import json

from ragviz.cli.main import main
from ragviz.data.formats.openinference import SIDECAR, Skipped, Span, span_documents, trace_row
from tests.traces.test_mapping import T, llm, retriever, root


def reranker(span_id: str, start: int, inputs: tuple[str, ...], outputs: tuple[str, ...], name: str = "rerank") -> Span:
    attrs: dict = {"openinference.span.kind": "RERANKER", "reranker.model_name": "cross-encoder", "reranker.top_k": 2}
    for prefix, texts in (("reranker.input_documents", inputs), ("reranker.output_documents", outputs)):
        for i, text in enumerate(texts):
            attrs[f"{prefix}.{i}.document.content"] = text
            attrs[f"{prefix}.{i}.document.id"] = f"{prefix[9:11]}{i}"
            attrs[f"{prefix}.{i}.document.score"] = 0.5 + i / 10
    return Span(T, span_id, "r", name, "RERANKER", start, attrs)


RETRIEVED = ("Grass is green.", "Sky is blue.", "Snow is white.")
RERANKED = ("Sky is blue.", "Grass is green.")


def test_the_rerankers_output_documents_are_the_rows_documents():
    spans = [root(), retriever("a", 1, *RETRIEVED), reranker("k", 2, RETRIEVED, RERANKED), llm(3)]
    row = trace_row(spans)
    assert not isinstance(row, Skipped)
    assert row["documents"] == list(RERANKED)  # re-ranked order: document 0 is the reranker's first
    side = row[SIDECAR]
    assert (side["retriever_span_id"], side["retriever_span_name"]) == ("k", "rerank")
    assert [(d["position"], d["id"], d["score"]) for d in side["documents"]] == [(0, "ou0", 0.5), (1, "ou1", 0.6)]


def test_a_reranker_without_output_documents_or_after_the_answer_and_the_named_span():
    no_output = reranker("k", 2, RETRIEVED, ())
    row = trace_row([root(), retriever("a", 1, *RETRIEVED), no_output, llm(3)])
    assert not isinstance(row, Skipped) and row["documents"] == list(RETRIEVED)  # the retriever's, as before
    early, late = reranker("k1", 2, RETRIEVED, RERANKED), reranker("k2", 9, RETRIEVED, ("Snow is white.",))
    row = trace_row([root(), retriever("a", 1, *RETRIEVED), early, llm(3), late])
    assert not isinstance(row, Skipped) and row["documents"] == list(RERANKED)  # the last one before the LLM span
    named = trace_row([root(), retriever("a", 1, *RETRIEVED), early, llm(3)], retriever_span="retrieve")
    assert not isinstance(named, Skipped) and named["documents"] == list(RETRIEVED)
    named = trace_row([root(), retriever("a", 1, *RETRIEVED), early, llm(3)], retriever_span="rerank")
    assert not isinstance(named, Skipped) and named["documents"] == list(RERANKED)


def test_a_reranker_alone_and_a_reranked_document_without_content():
    row = trace_row([root(), reranker("k", 2, RETRIEVED, RERANKED), llm(3)])
    assert not isinstance(row, Skipped) and row["documents"] == list(RERANKED)
    broken = reranker("k", 2, RETRIEVED, ("Sky is blue.", " "))
    assert span_documents(broken) == "reranker span 'rerank' (k): document 1 has no content"
    assert trace_row([root(), retriever("a", 1, *RETRIEVED), broken, llm(3)]) == Skipped(
        T, "reranker span 'rerank' (k): document 1 has no content"
    )


def test_otlp_import_of_a_reranked_trace(tmp_path, capsys):
    spans = [root(), retriever("a", 1, *RETRIEVED), reranker("k", 2, RETRIEVED, RERANKED), llm(3)]
    records = [
        {"trace_id": s.trace_id, "span_id": s.span_id, "parent_id": s.parent_id, "name": s.name,
         "start_time": s.start, "attributes": dict(s.attributes)}
        for s in spans
    ]  # fmt: skip
    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "rows.jsonl"
    assert main(["import", "otlp", str(path), "-o", str(out)]) == 0
    row = json.loads(out.read_text())
    assert row["documents"] == list(RERANKED) and row[SIDECAR]["retriever_span_name"] == "rerank"
    capsys.readouterr()
