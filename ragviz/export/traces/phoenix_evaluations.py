"""A Phoenix project's existing evaluations of the traces ``ragviz import phoenix`` read: span annotations (REST,
``GET /v1/projects/{p}/span_annotations``) on each row's root, response and LLM span, trace annotations (``GET
/v1/projects/{p}/trace_annotations``) and document annotations on the span the row's documents came from (GraphQL:
the REST API has no reader for them). Only annotations of kind LLM, ragviz's own (``ragviz.*``) left out. They
become the rows' column ``source_evaluations`` (:func:`attach_evaluations`), which
:mod:`ragviz.data.formats.trace_evaluations` maps to judge labels."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragviz.data.errors import BadInput
from ragviz.data.formats.openinference import EVALUATIONS, SIDECAR

if TYPE_CHECKING:
    from phoenix.client import Client

__all__ = [
    "PER_QUERY",
    "PER_REQUEST",
    "attach_evaluations",
    "document_evaluations",
    "evaluation_names",
    "listed_annotations",
]

#: Spans / traces asked for in one REST request.
PER_REQUEST = 100
#: Spans asked for in one GraphQL query (Phoenix 20.26 allows at most 50 aliases a query).
PER_QUERY = 50
_SPAN_KEYS = ("root_span_id", "response_span_id", "llm_span_id")
_DOCUMENTS = "documentEvaluations { name label score explanation annotatorKind documentPosition }"


def _ours(annotation: Mapping[str, Any], kind_key: str = "annotator_kind") -> bool:
    """Kind LLM and not ragviz's own (a push with ``--documents-as llm`` writes ``ragviz.relevant`` as LLM)."""
    return annotation.get(kind_key) == "LLM" and not str(annotation.get("name", "")).startswith("ragviz.")


def _entry(annotation: Mapping[str, Any], where: str, at: str) -> dict[str, Any]:
    result = annotation.get("result") or {}
    return {
        where: at,
        "name": str(annotation.get("name")),
        "label": result.get("label"),
        "score": result.get("score"),
        "explanation": result.get("explanation"),
    }


def listed_annotations(client: Client, project: str, kind: str, ids: Sequence[str]) -> Iterator[dict[str, Any]]:
    """Every annotation of *kind* (``span`` or ``trace``) on these span / trace ids, :data:`PER_REQUEST` ids a
    request, following the cursor."""
    for start in range(0, len(ids), PER_REQUEST):
        cursor: str | None = None
        while True:
            params: dict[str, Any] = {f"{kind}_ids": list(ids[start : start + PER_REQUEST]), "limit": 1000}
            if cursor:
                params["cursor"] = cursor
            response = client._client.get(f"v1/projects/{project}/{kind}_annotations", params=params)  # noqa: SLF001
            if response.status_code == 404 and f"{kind}_ids" in response.text:
                break  # none of these has an annotation
            response.raise_for_status()
            body = response.json()
            yield from body.get("data", [])
            cursor = body.get("next_cursor")
            if not cursor or not body.get("data"):
                break


def document_evaluations(client: Client, node_ids: Mapping[str, str]) -> dict[str, list[dict[str, Any]]]:
    """span id -> its document annotations of kind LLM (entries with ``document_position``), through GraphQL by
    the spans' node ids (*node_ids*: span id -> node id), :data:`PER_QUERY` spans a query; a refused query is
    BadInput."""
    out: dict[str, list[dict[str, Any]]] = {}
    items = list(node_ids.items())
    for start in range(0, len(items), PER_QUERY):
        chunk = items[start : start + PER_QUERY]
        fields = " ".join(
            f"s{i}: node(id: {json.dumps(node)}) {{ ... on Span {{ spanId {_DOCUMENTS} }} }}"
            for i, (_, node) in enumerate(chunk)
        )
        response = client._client.post("graphql", json={"query": f"query {{ {fields} }}"})  # noqa: SLF001
        response.raise_for_status()
        body = response.json()
        if body.get("errors"):
            error = body["errors"][0]
            message = error.get("message", error) if isinstance(error, Mapping) else error
            raise BadInput(f"Phoenix's GraphQL API refused the query for document annotations: {message}")
        for i, (span_id, _) in enumerate(chunk):
            node = (body.get("data") or {}).get(f"s{i}") or {}
            found = [
                {
                    **_entry({"name": d["name"], "result": d}, "span_id", span_id),
                    "document_position": d["documentPosition"],
                }
                for d in node.get("documentEvaluations") or []
                if _ours(d, "annotatorKind")
            ]
            out[span_id] = sorted(found, key=lambda e: (e["document_position"], e["name"]))
    return out


def evaluation_names(client: Client, project: str) -> dict[str, set[str]]:
    """The names of the project's span, trace and document (kind LLM) annotations, ragviz's own left out, in one
    GraphQL query: a kind with none is not read at all (most projects have no document annotations)."""
    response = client._client.get(f"v1/projects/{project}")  # noqa: SLF001
    response.raise_for_status()
    node = json.dumps(str(response.json()["data"]["id"]))
    query = (
        f"query {{ node(id: {node}) {{ ... on Project {{ spanAnnotationNames traceAnnotationNames "
        "documentEvaluationNames } } }"
    )
    answer = client._client.post("graphql", json={"query": query})  # noqa: SLF001
    answer.raise_for_status()
    body = answer.json()
    if body.get("errors"):
        raise BadInput(f"Phoenix's GraphQL API refused the query for annotation names: {body['errors'][0]}")
    found = (body.get("data") or {}).get("node") or {}
    return {
        kind: {n for n in found.get(field) or [] if not str(n).startswith("ragviz.")}
        for kind, field in (
            ("span", "spanAnnotationNames"),
            ("trace", "traceAnnotationNames"),
            ("document", "documentEvaluationNames"),
        )
    }


def attach_evaluations(
    client: Client, project: str, rows: list[dict[str, Any]], node_ids: Mapping[str, str] | None = None
) -> None:
    """Each row's existing evaluations as the column :data:`EVALUATIONS`, on the rows that have any: span
    annotations on its root, response and LLM span, then trace annotations (``trace_id`` instead of ``span_id``),
    then document annotations on its documents span (when *node_ids* has that span's GraphQL id). Only the kinds
    the project has any of (:func:`evaluation_names`) are read."""
    names = evaluation_names(client, project)
    spans: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        for key in _SPAN_KEYS:
            if row[SIDECAR].get(key):
                spans.setdefault(row[SIDECAR][key], [])
    for a in listed_annotations(client, project, "span", list(spans) if names["span"] else []):
        if _ours(a):
            spans.setdefault(str(a["span_id"]), []).append(_entry(a, "span_id", str(a["span_id"])))
    traces: dict[str, list[dict[str, Any]]] = {str(row[SIDECAR]["trace_id"]): [] for row in rows}
    for a in listed_annotations(client, project, "trace", list(traces) if names["trace"] else []):
        if _ours(a):
            traces.setdefault(str(a["trace_id"]), []).append(_entry(a, "trace_id", str(a["trace_id"])))
    wanted = {row[SIDECAR]["retriever_span_id"] for row in rows} if names["document"] else set()
    documents = document_evaluations(client, {s: n for s, n in (node_ids or {}).items() if s in wanted})
    for row in rows:
        side = row[SIDECAR]
        on_spans = dict.fromkeys(side[k] for k in _SPAN_KEYS if side.get(k))
        found = [e for span_id in on_spans for e in sorted(spans.get(span_id, []), key=lambda e: e["name"])]
        found += sorted(traces.get(str(side["trace_id"]), []), key=lambda e: e["name"])
        found += documents.get(side["retriever_span_id"], [])
        if found:
            row[EVALUATIONS] = found
