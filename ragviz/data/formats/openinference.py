"""OpenInference traces as ragviz rows: the one mapping every trace source uses (OTLP files, Phoenix, Langfuse).

A trace is its spans (:class:`Span`, attributes flattened to OpenInference's dotted keys); :func:`trace_row` maps
one trace to one row (which span gives which field: its docstring) and :func:`map_traces` maps them all. A trace
that cannot be a row (no retriever span, no documents, a document without content or with a score that is not a
finite number, no question, no response) is :class:`Skipped` with its reason, never an exception.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

__all__ = [
    "DOCUMENTS_PREFIX",
    "EVALUATIONS",
    "RERANKED_PREFIX",
    "SIDECAR",
    "Mapped",
    "Skipped",
    "Span",
    "flatten_attributes",
    "group_traces",
    "map_traces",
    "span_documents",
    "start_nanos",
    "trace_row",
]

#: The side-car column every trace-made row carries (kept by validate, convert and export like any extra column).
SIDECAR = "source_trace"
#: A Phoenix-made row's existing evaluations (span annotations of kind LLM), shown read-only; only on rows with some.
EVALUATIONS = "source_evaluations"
DOCUMENTS_PREFIX = "retrieval.documents."
#: A RERANKER span's documents after re-ranking (OpenInference's ``reranker.output_documents``).
RERANKED_PREFIX = "reranker.output_documents."
_DOCUMENT_KEY = {
    prefix: re.compile(rf"^{re.escape(prefix)}(\d+)\.document\.(content|id|score|metadata)(?:\.(.+))?$")
    for prefix in (DOCUMENTS_PREFIX, RERANKED_PREFIX)
}
_JSON = "application/json"
# In a JSON input / output value (LangChain, LlamaIndex), the text is under one of these keys, in this order.
_QUESTION_KEYS = ("query", "question", "input", "query_str")
_ANSWER_KEYS = ("output", "answer", "response", "result", "text", "content")


@dataclass(frozen=True)
class Span:
    """One span: ids as lower-case hex, its OpenInference kind (``CHAIN``, ``RETRIEVER``, ``LLM``, ...; ``""``
    when unknown), its start in nanoseconds since the epoch, its attributes under dotted keys and the project it
    was logged to when the source says (OTLP's resource attribute ``openinference.project.name``)."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    kind: str
    start: int
    attributes: Mapping[str, Any] = field(default_factory=dict)
    project: str | None = None


@dataclass(frozen=True)
class Skipped:
    """A trace that is not a row, and why (one line)."""

    trace_id: str
    reason: str


@dataclass(frozen=True)
class Mapped:
    """The rows made from some traces and the traces skipped."""

    rows: list[dict[str, Any]]
    skipped: list[Skipped]


def flatten_attributes(value: Any, prefix: str = "") -> dict[str, Any]:
    """Nested attributes (``{"retrieval": {"documents": [{"document": {...}}]}}``) as OpenInference's dotted keys
    (``retrieval.documents.0.document.content``); already-dotted keys stay as they are. A list of objects is
    indexed; a list of plain values is one value."""
    out: dict[str, Any] = {}
    if isinstance(value, Mapping):
        for key, inner in value.items():
            out.update(flatten_attributes(inner, f"{prefix}{key}."))
    elif isinstance(value, list) and any(isinstance(v, Mapping) for v in value):
        for i, inner in enumerate(value):
            out.update(flatten_attributes(inner, f"{prefix}{i}."))
    elif prefix:
        out[prefix[:-1]] = value
    return out


def start_nanos(value: Any) -> int:
    """A span's start as nanoseconds since the epoch: OTLP's ``startTimeUnixNano`` (a number or its text) or an
    ISO 8601 time (Phoenix, OpenTelemetry's console exporter; microseconds kept)."""
    if value is None or value == "":
        return 0
    if isinstance(value, (int, float)) or (isinstance(value, str) and value.isdigit()):
        return int(value)
    moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


def group_traces(spans: Iterable[Span]) -> dict[str, list[Span]]:
    """Spans by trace id, each trace's spans by start (then span id), the traces by their first start (then trace
    id): the same spans in any order give the same traces in the same order."""
    traces: dict[str, list[Span]] = {}
    for span in spans:
        traces.setdefault(span.trace_id, []).append(span)
    ordered = {t: sorted(s, key=lambda x: (x.start, x.span_id)) for t, s in traces.items()}
    return dict(sorted(ordered.items(), key=lambda item: (item[1][0].start, item[0])))


def _text(attributes: Mapping[str, Any], name: str, keys: Sequence[str]) -> str | None:
    """The text of ``<name>.value``; a JSON value (``<name>.mime_type`` application/json, an object) gives its
    first string under *keys*."""
    value = attributes.get(f"{name}.value")
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value)
    if attributes.get(f"{name}.mime_type") == _JSON:
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or nested too deep to read: the text as it is
            return text
        if isinstance(parsed, str):
            return parsed
        if isinstance(parsed, Mapping):
            for key in keys:
                if isinstance(parsed.get(key), str):
                    return str(parsed[key])
    return text


def _llm_answer(span: Span) -> str | None:
    answer = _text(span.attributes, "output", _ANSWER_KEYS)
    if answer is None:
        content = span.attributes.get("llm.output_messages.0.message.content")
        answer = content if isinstance(content, str) else None
    return answer


def _unflatten(flat: Mapping[str, Any]) -> Any:
    """Dotted keys back to nested values; an object whose keys are 0..n-1 becomes a list."""
    nested: dict[str, Any] = {}
    for key, value in flat.items():
        head, _, rest = key.partition(".")
        if rest:
            nested.setdefault(head, {})[rest] = value
        else:
            nested[head] = value
    out = {k: _unflatten(v) if isinstance(v, dict) else v for k, v in nested.items()}
    if out and sorted(out) == [str(i) for i in range(len(out))] and all(k.isdigit() for k in out):
        return [out[str(i)] for i in range(len(out))]
    return out


def _metadata_text(value: Any) -> str | None:
    """A document's metadata as JSON text with sorted keys (a JSON string attribute parsed first), so the same
    metadata reads the same from an OTLP file (a JSON string) and from Phoenix (an object)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or nested too deep to read: the text as it is
            return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _prefix(span: Span) -> str:
    return RERANKED_PREFIX if span.kind == "RERANKER" else DOCUMENTS_PREFIX


def span_documents(span: Span) -> tuple[list[str], list[dict[str, Any]]] | str:
    """A retriever span's documents' texts and their side-car entries (position, id, score, metadata as JSON
    text), in position order (a RERANKER span's: its output documents); a reason (str) when there are none, a
    position has no content or its score is not a finite number."""
    found: dict[int, dict[str, Any]] = {}
    pattern = _DOCUMENT_KEY[_prefix(span)]
    for key, value in span.attributes.items():
        match = pattern.match(key)
        if match and match.group(3):  # metadata an object, flattened (Phoenix)
            document = found.setdefault(int(match.group(1)), {})
            document.setdefault("metadata_parts", {})[match.group(3)] = value
        elif match:
            found.setdefault(int(match.group(1)), {})[match.group(2)] = value
    what = "reranker span" if span.kind == "RERANKER" else "retriever span"
    if not found:
        return f"{what} {span.name!r} ({span.span_id}) has no documents"
    texts, entries = [], []
    for position in range(max(found) + 1):
        document = found.get(position, {})
        content = document.get("content")
        if not isinstance(content, str) or not content.strip():
            return f"{what} {span.name!r} ({span.span_id}): document {position} has no content"
        metadata = document.get("metadata")
        if metadata is None and "metadata_parts" in document:
            metadata = _unflatten(document["metadata_parts"])
        score = _finite(document.get("score"))
        if isinstance(score, str):
            return f"{what} {span.name!r} ({span.span_id}): document {position}: document.score {score}"
        texts.append(content)
        entries.append(
            {
                "position": position,
                "id": None if document.get("id") is None else str(document["id"]),
                "score": score,
                "metadata": _metadata_text(metadata),
            }
        )
    return texts, entries


def _finite(score: Any) -> float | None | str:
    """A document's score as a finite number (``None`` when absent), or why it is not one (a str)."""
    if score is None:
        return None
    try:
        value = float(score)
    except (TypeError, ValueError):
        return f"{score!r} is not a number"
    return value if math.isfinite(value) else f"{score!r} is not a finite number"


def _last_before(spans: Sequence[Span], llm: Span | None) -> Span | None:
    before = [s for s in spans if llm is not None and s.start <= llm.start] or list(spans)
    return before[-1] if before else None


def _retriever(spans: Sequence[Span], llm: Span | None, name: str | None) -> Span | str:
    """The span whose documents are the row's: the named one, else a reranker with output documents, else a
    retriever (each the last that starts before the LLM span, else the last)."""
    if name is not None:
        named = [s for s in spans if s.name == name]
        return named[-1] if named else f"no span named {name!r}"
    rerankers = [s for s in spans if s.kind == "RERANKER" and any(k.startswith(RERANKED_PREFIX) for k in s.attributes)]
    chosen = _last_before(rerankers, llm) or _last_before([s for s in spans if s.kind == "RETRIEVER"], llm)
    return chosen if chosen is not None else "no retriever span"


def _root(spans: Sequence[Span]) -> Span:
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if not s.parent_id or s.parent_id not in ids]
    return (roots or list(spans))[0]


def trace_row(
    spans: Sequence[Span], dataset: str | None = None, retriever_span: str | None = None
) -> dict[str, Any] | Skipped:
    """One trace's row (raw ragviz form plus :data:`SIDECAR`), or why it is skipped. *spans* are one trace's,
    ordered by start (:func:`group_traces`); *dataset* names the rows' data set, else the spans' project, else
    ``traces``.

    - ``question`` = the root span's ``input.value``; ``response`` = the root's ``output.value``, else the answering
      LLM span's (its ``output.value``, else its first output message);
    - ``documents`` = the chosen retriever span's ``retrieval.documents.N.document.content`` in position order (never
      dropped, re-ordered or de-duplicated: document N of the row is Phoenix's ``document_position`` N and the first
      digit of its sentence keys);
    - the answering LLM span is the trace's last LLM span (by start). The documents' span: when a RERANKER span records
      output documents (``reranker.output_documents.N.document.*``), the last such span that starts before the LLM span
      (the last one when none does), and the documents are its output documents (what the answer was given); else the
      last RETRIEVER span that starts before the LLM span (the last one when none does). ``retriever_span`` names the
      span instead (the last span with that name: a reranker's output documents, any other span's
      ``retrieval.documents``);
    - ``id`` = the trace id, ``dataset_name`` = the project (or the name given), ``generation_model_name`` =
      ``llm.model_name``;
    - the side-car column :data:`SIDECAR` keeps the project, the trace, root, response, retriever and LLM span ids and
      each document's id, score and metadata (JSON text), so a push finds every target again.
    """
    trace_id = spans[0].trace_id
    project = next((s.project for s in spans if s.project), None)
    dataset = dataset or project or "traces"
    root = _root(spans)
    llms = [s for s in spans if s.kind == "LLM"]
    llm = llms[-1] if llms else None
    retriever = _retriever(spans, llm, retriever_span)
    if isinstance(retriever, str):
        return Skipped(trace_id, retriever)
    documents = span_documents(retriever)
    if isinstance(documents, str):
        return Skipped(trace_id, documents)
    question = _text(root.attributes, "input", _QUESTION_KEYS)
    if not question or not question.strip():
        return Skipped(trace_id, f"root span {root.name!r} ({root.span_id}) has no input.value (the question)")
    response, response_span = _text(root.attributes, "output", _ANSWER_KEYS), root
    if (not response or not response.strip()) and llm is not None:
        response, response_span = _llm_answer(llm), llm
    if not response or not response.strip():
        return Skipped(trace_id, "no response: neither the root nor an LLM span has output.value")
    model = llm.attributes.get("llm.model_name") if llm is not None else None
    texts, entries = documents
    return {
        "id": trace_id,
        "question": question,
        "documents": texts,
        "response": response,
        "dataset_name": dataset,
        "generation_model_name": None if model is None else str(model),
        SIDECAR: {
            "trace_id": trace_id,
            "project": project,
            "root_span_id": root.span_id,
            "response_span_id": response_span.span_id,
            "retriever_span_id": retriever.span_id,
            "retriever_span_name": retriever.name,
            "llm_span_id": None if llm is None else llm.span_id,
            "documents": entries,
        },
    }


def map_traces(spans: Iterable[Span], dataset: str | None = None, retriever_span: str | None = None) -> Mapped:
    """Every trace among *spans* as a row or a skip, in :func:`group_traces`'s order."""
    rows: list[dict[str, Any]] = []
    skipped: list[Skipped] = []
    for trace in group_traces(spans).values():
        made = trace_row(trace, dataset, retriever_span)
        (skipped if isinstance(made, Skipped) else rows).append(made)  # type: ignore[arg-type]
    return Mapped(rows, skipped)
