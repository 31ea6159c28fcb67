"""Langfuse observations (``GET /api/public/v2/observations``, camelCase JSON) as OpenInference
:class:`~ragviz.data.formats.openinference.Span` s, so a Langfuse trace maps to a row by the same rules.

- type ``GENERATION`` is an LLM span (``model`` → ``llm.model_name``), ``RETRIEVER`` a retriever, the rest as named;
- ``input`` / ``output`` (JSON text or values) → ``input.value`` / ``output.value``; a JSON object keeps its JSON
  text with mime type ``application/json``, so the mapping reads its ``query`` / ``output``-like key;
- a retriever's ``output`` is its documents: a JSON list (or an object with a ``documents`` list) whose items are
  strings or objects with ``page_content`` (LangChain), ``content``, ``text`` or ``document``, and optionally
  ``id``, ``score`` and ``metadata`` (LangChain keeps the id in ``metadata.id``). Position N = the list's item N.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ragviz.data.formats.openinference import Span, start_nanos

__all__ = ["KINDS", "documents_attributes", "observation_span"]

#: Langfuse observation types that are an OpenInference kind under another name.
KINDS = {"GENERATION": "LLM"}
_CONTENT_KEYS = ("page_content", "pageContent", "content", "text", "document")


def _parsed(value: Any) -> Any:
    """*value*, JSON text parsed; text that is not JSON (or is nested too deep to read) as it is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _io(attributes: dict[str, Any], name: str, value: Any) -> None:
    if value is None:
        return
    parsed = _parsed(value)
    if isinstance(parsed, str):
        attributes[f"{name}.value"] = parsed
    else:
        attributes[f"{name}.value"] = json.dumps(parsed, ensure_ascii=False)
        attributes[f"{name}.mime_type"] = "application/json"


def documents_attributes(output: Any) -> dict[str, Any]:
    """A retriever observation's output as ``retrieval.documents.N.document.*`` attributes (none when the output is
    not a list of documents; an item without text gets no content, so the trace is skipped, naming the position)."""
    parsed = _parsed(output)
    if isinstance(parsed, Mapping) and isinstance(parsed.get("documents"), list):
        parsed = parsed["documents"]
    if not isinstance(parsed, list):
        return {}
    out: dict[str, Any] = {}
    for i, item in enumerate(parsed):
        prefix = f"retrieval.documents.{i}.document"
        if isinstance(item, str):
            out[f"{prefix}.content"] = item
            continue
        if not isinstance(item, Mapping):
            continue
        content = next((item[k] for k in _CONTENT_KEYS if isinstance(item.get(k), str)), None)
        if content is not None:
            out[f"{prefix}.content"] = content
        metadata = item.get("metadata")
        doc_id = item.get("id")
        if doc_id is None and isinstance(metadata, Mapping):
            doc_id = metadata.get("id")
        if doc_id is not None:
            out[f"{prefix}.id"] = str(doc_id)
        if isinstance(item.get("score"), (int, float)):
            out[f"{prefix}.score"] = float(item["score"])
        if metadata is not None:
            out[f"{prefix}.metadata"] = json.dumps(metadata, sort_keys=True, ensure_ascii=False)
    return out


def observation_span(record: Mapping[str, Any], project: str | None = None) -> Span:
    """One observation as a span (``KeyError`` when it lacks ``id`` or ``traceId``); its project is *project*,
    else the observation's ``projectId``."""
    kind = str(record.get("type") or "").upper()
    kind = KINDS.get(kind, kind)
    attributes: dict[str, Any] = {"openinference.span.kind": kind}
    _io(attributes, "input", record.get("input"))
    if kind == "RETRIEVER":
        attributes.update(documents_attributes(record.get("output")))
    else:
        _io(attributes, "output", record.get("output"))
    if record.get("model"):
        attributes["llm.model_name"] = str(record["model"])
    parent = record.get("parentObservationId")
    return Span(
        trace_id=str(record["traceId"]),
        span_id=str(record["id"]),
        parent_id=str(parent) if parent else None,
        name=str(record.get("name") or ""),
        kind=kind,
        start=start_nanos(record.get("startTime")),
        attributes=attributes,
        project=project or (str(record["projectId"]) if record.get("projectId") else None),
    )
