"""Langfuse, through its Python SDK's API client (``langfuse`` v3+): a project's observations in
(``GET /api/public/v2/observations``, cursor-paged) and people's labels out as scores (``POST /api/public/scores``).

:func:`fetch_observations` reads the observations, :func:`langfuse_scores` makes one reviewed example's scores
(which, and how a re-push replaces them: its docstring) and :func:`send_scores` posts them. The keys (public and
secret) are only the HTTP basic auth of the requests.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ragviz.data.errors import BadInput
from ragviz.data.formats.langfuse_observations import observation_span
from ragviz.data.formats.openinference import SIDECAR, Span, group_traces
from ragviz.export.rows import ExportedExample
from ragviz.export.traces.annotations import phoenix_annotations

if TYPE_CHECKING:
    from langfuse.api import LangfuseAPI

__all__ = [
    "FIELDS",
    "PUBLIC_KEY_ENV",
    "SECRET_KEY_ENV",
    "LangfuseScores",
    "fetch_observations",
    "langfuse_api",
    "langfuse_errors",
    "langfuse_scores",
    "send_scores",
]

PUBLIC_KEY_ENV = "LANGFUSE_PUBLIC_KEY"
SECRET_KEY_ENV = "LANGFUSE_SECRET_KEY"
FIELDS = "core,basic,io,model,metadata"
_PAGE = 1000
Progress = Callable[[int], None]


def langfuse_api(url: str, public_key: str, secret_key: str) -> LangfuseAPI:
    """The SDK's API client for *url* (BadInput when the ``langfuse`` package is not installed)."""
    try:
        from langfuse.api import LangfuseAPI
    except ImportError:
        raise BadInput("the Langfuse SDK is not installed: pip install 'ragviz[langfuse]' (or langfuse)") from None

    return LangfuseAPI(
        base_url=url.rstrip("/"),
        username=public_key,
        password=secret_key,
        x_langfuse_public_key=public_key,
        x_langfuse_sdk_name="ragviz",
        timeout=60,
    )


@contextmanager
def langfuse_errors(url: str) -> Iterator[None]:
    """HTTP failures inside as one-line BadInput naming *url*."""
    import httpx
    from langfuse.api.core.api_error import ApiError

    try:
        yield
    except ApiError as exc:
        if exc.status_code in (401, 403):
            raise BadInput(
                f"HTTP {exc.status_code}: Langfuse refused the keys; give them with --public-key / --secret-key or "
                f"${PUBLIC_KEY_ENV} / ${SECRET_KEY_ENV}",
                path=url,
            ) from None
        raise BadInput(f"HTTP {exc.status_code}: {str(exc.body)[:300]}", path=url) from None
    except httpx.TransportError as exc:
        raise BadInput(f"cannot reach Langfuse: {type(exc).__name__}: {exc or 'no answer'}", path=url) from None


def fetch_observations(
    api: LangfuseAPI, since: datetime | None = None, limit: int | None = None, progress: Progress | None = None
) -> list[Span]:
    """Every observation (started at or after *since*), paged; the spans of the newest *limit* traces."""
    spans: list[Span] = []
    cursor: str | None = None
    while True:
        page = api.observations.get_many(fields=FIELDS, limit=_PAGE, cursor=cursor, from_start_time=since)
        spans.extend(observation_span(o.model_dump(by_alias=True, mode="json")) for o in page.data)
        _ = progress and progress(len(spans))
        cursor = page.meta.cursor if page.meta is not None else None
        if not cursor or not page.data:
            break
    if limit is None:
        return spans
    traces = group_traces(spans)
    newest = sorted(traces, key=lambda t: traces[t][0].start, reverse=True)[:limit]
    return [s for t in newest for s in traces[t]]


@dataclass(frozen=True)
class LangfuseScores:
    """One example's scores (Langfuse's ``CreateScoreRequest`` fields, camelCase) and their fingerprint."""

    uid: str
    example_id: str
    identifier: str
    scores: list[dict[str, Any]]
    fingerprint: str


def _score_id(uid: str, reviewer: str, name: str, position: int | None = None) -> str:
    return hashlib.sha256(json.dumps([uid, reviewer, name, position]).encode()).hexdigest()[:32]


def langfuse_scores(item: ExportedExample) -> LangfuseScores | str:
    """*item*'s Langfuse scores, or why it has none (the same rules as the Phoenix push). Each score has a
    deterministic id (a hash of the ragviz uid, the reviewer, the score's name and the document position) and the
    review's time as its timestamp, so a re-push replaces them (Langfuse replaces a score when id, name and the date
    of its timestamp match):

    - on the response observation: ``ragviz.adherence`` CATEGORICAL ``supported`` / ``unsupported`` (comment = the
      unsupported sentences), ``ragviz.relevance`` / ``.utilization`` / ``.completeness`` NUMERIC;
    - on the retriever observation, per document: ``ragviz.relevant`` and ``ragviz.utilized`` NUMERIC 1 / 0 with the
      position and the document id in the metadata.
    """
    made = phoenix_annotations(item)
    if isinstance(made, str):
        return made
    side = item.row[SIDECAR]
    reviewer = made.identifier.removeprefix("ragviz:")
    timestamp = item.reviewed_at
    scores: list[dict[str, Any]] = []
    for a in made.span_annotations:
        name, result = a["name"], a["result"]
        score: dict[str, Any] = {
            "id": _score_id(made.uid, reviewer, name),
            "traceId": made.example_id,
            "observationId": made.response_span_id,
            "name": name,
            "metadata": a["metadata"],
        }
        if name == "ragviz.adherence":
            score.update(value=result["label"], dataType="CATEGORICAL")
            if "explanation" in result:
                score["comment"] = result["explanation"]
        else:
            score.update(value=result["score"], dataType="NUMERIC")
        scores.append(score)
    documents = side.get("documents") or []
    for a in made.document_annotations:
        position = a["document_position"]
        doc_id = documents[position].get("id") if position < len(documents) else None
        scores.append(
            {
                "id": _score_id(made.uid, reviewer, a["name"], position),
                "traceId": made.example_id,
                "observationId": made.retriever_span_id,
                "name": a["name"],
                "value": a["result"]["score"],
                "dataType": "NUMERIC",
                "metadata": {**a["metadata"], "document_id": doc_id},
            }
        )
    if timestamp:
        for score in scores:
            score["timestamp"] = timestamp
    fingerprint = hashlib.sha256(json.dumps(scores, sort_keys=True).encode()).hexdigest()
    return LangfuseScores(made.uid, made.example_id, made.identifier, scores, fingerprint)


def send_scores(api: LangfuseAPI, scores: list[dict[str, Any]]) -> list[str]:
    """POST *scores* in one request; the messages of the scores Langfuse rejected (HTTP 207), empty when it took
    all (202)."""
    from langfuse.api.scores.types.create_score_request import CreateScoreRequest

    requests = [CreateScoreRequest.model_validate(s) for s in scores]
    response = api.scores.create(request=requests)
    rejected = int(getattr(response, "rejected", 0) or 0)
    if not rejected:
        return []
    return [str(e.message) for e in getattr(response, "errors", [])] or [f"{rejected} scores rejected"]
