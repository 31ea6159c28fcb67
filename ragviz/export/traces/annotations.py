"""One reviewed example as Phoenix annotations (pure: no network).

:func:`phoenix_annotations` gives one span annotation per TRACe metric on the response span and one per document
on the retriever span (which names, labels, scores and identifiers: its docstring).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragviz.data.formats.openinference import SIDECAR
from ragviz.data.ragbench import unsupported_keys
from ragviz.export.rows import ExportedExample

__all__ = [
    "DOCUMENT_NAMES",
    "IDENTIFIER_PREFIX",
    "REVIEWED",
    "SPAN_NAMES",
    "PhoenixAnnotations",
    "phoenix_annotations",
]

IDENTIFIER_PREFIX = "ragviz:"
SPAN_NAMES = ("ragviz.adherence", "ragviz.relevance", "ragviz.utilization", "ragviz.completeness")
DOCUMENT_NAMES = ("ragviz.relevant", "ragviz.utilized")
#: Label sources that mean people decided (a push sends only these examples).
REVIEWED = ("human", "agreed", "adjudicated")
_DOC = re.compile(r"^(\d+)")


@dataclass(frozen=True)
class PhoenixAnnotations:
    """What one example sends: its span and document annotations (Phoenix's REST payloads), the spans they are
    on, the documents as imported (to refuse an example whose trace changed since) and a fingerprint of it all."""

    uid: str
    example_id: str
    project: str | None
    identifier: str
    response_span_id: str
    retriever_span_id: str
    documents: tuple[str, ...]
    span_annotations: list[dict[str, Any]]
    document_annotations: list[dict[str, Any]]
    fingerprint: str


def _by_document(keys: Sequence[str], n_documents: int) -> list[list[str]]:
    out: list[list[str]] = [[] for _ in range(n_documents)]
    for key in keys:
        match = _DOC.match(key)
        if match and int(match.group(1)) < n_documents:
            out[int(match.group(1))].append(key)
    return out


def phoenix_annotations(item: ExportedExample, documents_kind: str = "HUMAN") -> PhoenixAnnotations | str:
    """*item*'s annotations, or why it has none to send (not reviewed by people, not from a trace).

    On the response span (the span whose output is the example's response), one span annotation per TRACe metric,
    annotator kind HUMAN, identifier ``ragviz:<reviewer>`` (so a second push updates them, and two reviewers keep two):

    - ``ragviz.adherence``: label ``supported`` / ``unsupported``, score 1 / 0, explanation = the unsupported response
      sentences, one a line;
    - ``ragviz.relevance``, ``ragviz.utilization``, ``ragviz.completeness``: the score;
    - metadata: reviewer, reviewed_at, label_source, the ragviz uid and the sentence-level labels (relevant, utilized
      and unsupported keys).

    On the retriever span, per document position: ``ragviz.relevant`` and ``ragviz.utilized`` (score 1 / 0, label
    ``relevant`` / ``not relevant``, ``utilized`` / ``not utilized``; metadata: reviewer, the document's relevant and
    utilized keys). Phoenix refuses any identifier on document annotations (HTTP 422), so there is one per (name,
    span, position): a second reviewer's push overwrites the first's (the reviewer is in the metadata). Their kind is
    HUMAN, or LLM with ``documents_kind="LLM"``: Phoenix's retrieval metrics (nDCG, precision, hit rate) count only
    document annotations of kind LLM.
    """
    side = item.row.get(SIDECAR)
    if not isinstance(side, dict) or not side.get("response_span_id") or not side.get("retriever_span_id"):
        return "not from a trace (no source_trace side-car)"
    if item.current is None or item.label_source not in REVIEWED:
        return "not reviewed by people"
    labels, scores, example = item.current, item.scores, item.example
    reviewer = item.reviewer or "unknown"
    identifier = IDENTIFIER_PREFIX + reviewer
    unsupported = unsupported_keys(labels)
    texts = {s.key: s.text for s in example.response_sentences}
    metadata = {
        "reviewer": reviewer,
        "reviewed_at": item.reviewed_at,
        "label_source": item.label_source,
        "ragviz_uid": example.uid,
        "relevant_keys": list(labels.relevant_keys),
        "utilized_keys": list(labels.utilized_keys),
        "unsupported_keys": list(unsupported),
    }
    span_id = str(side["response_span_id"])
    span: list[dict[str, Any]] = []
    if scores.adherence is not None:
        result: dict[str, Any] = {
            "label": "supported" if scores.adherence == 1.0 else "unsupported",
            "score": float(scores.adherence),
        }
        if unsupported:
            result["explanation"] = "\n".join(texts.get(k, k) for k in unsupported)
        span.append(_span("ragviz.adherence", span_id, result, metadata, identifier))
    for name, value in (
        ("ragviz.relevance", scores.relevance),
        ("ragviz.utilization", scores.utilization),
        ("ragviz.completeness", scores.completeness),
    ):
        if value is not None:
            span.append(_span(name, span_id, {"score": float(value)}, metadata, identifier))
    retriever = str(side["retriever_span_id"])
    n = len(example.documents)
    relevant, utilized = _by_document(labels.relevant_keys, n), _by_document(labels.utilized_keys, n)
    documents: list[dict[str, Any]] = []
    for position in range(n):
        doc_meta = {"reviewer": reviewer, "ragviz_uid": example.uid, "position": position}
        for name, keys, yes, no in (
            ("ragviz.relevant", relevant[position], "relevant", "not relevant"),
            ("ragviz.utilized", utilized[position], "utilized", "not utilized"),
        ):
            documents.append(
                {
                    "name": name,
                    "annotator_kind": documents_kind,
                    "span_id": retriever,
                    "document_position": position,
                    "result": {"label": yes if keys else no, "score": 1.0 if keys else 0.0},
                    "metadata": {**doc_meta, "keys": keys},
                }
            )
    fingerprint = hashlib.sha256(json.dumps([span, documents], sort_keys=True).encode()).hexdigest()
    return PhoenixAnnotations(
        uid=example.uid,
        example_id=example.id,
        project=side.get("project"),
        identifier=identifier,
        response_span_id=span_id,
        retriever_span_id=retriever,
        documents=tuple(example.documents),
        span_annotations=span,
        document_annotations=documents,
        fingerprint=fingerprint,
    )


def _span(name: str, span_id: str, result: dict[str, Any], metadata: dict[str, Any], identifier: str) -> dict[str, Any]:
    return {
        "name": name,
        "annotator_kind": "HUMAN",
        "span_id": span_id,
        "result": result,
        "metadata": metadata,
        "identifier": identifier,
    }
