"""Talking to an Arize Phoenix server through its light client (``arize-phoenix-client``): the spans of a
project's traces (paged, with progress), span and document annotations written synchronously, and every failure
as one line (:class:`~ragviz.data.errors.BadInput`): an unreachable URL, a refused key (401 / 403), an unknown
project, an answer that is not Phoenix's (a proxy's HTML page, a span of another shape). The API key is sent as a bearer header and kept nowhere else."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ragviz.data.errors import BadInput
from ragviz.data.formats.openinference import Mapped, Span, map_traces
from ragviz.data.formats.otlp import span_from_record
from ragviz.errors import RagvizError
from ragviz.export.traces.phoenix_evaluations import attach_evaluations

if TYPE_CHECKING:
    from phoenix.client import Client

__all__ = [
    "API_KEY_ENV",
    "PAGE",
    "TRACES_PER_REQUEST",
    "MissingSpans",
    "fetch_spans",
    "log_document_annotations",
    "log_span_annotations",
    "phoenix_client",
    "phoenix_errors",
    "phoenix_traces",
    "spans_by_id",
    "trace_link",
]

API_KEY_ENV = "PHOENIX_API_KEY"
#: Root spans asked for per request while listing traces (the server's page limit is 1,000).
PAGE = 1000
#: Traces whose spans are asked for in one request.
TRACES_PER_REQUEST = 100
_MISSING = re.compile(r"Spans with IDs (.+) do not exist")
Progress = Callable[[int, int], None]


class _NotPhoenix(Exception):
    """An answer that is not what Phoenix's REST API gives (HTML from a proxy, a span of another shape)."""


class MissingSpans(RagvizError):
    """Phoenix refused a synchronous write because these spans do not exist there (HTTP 404)."""

    def __init__(self, span_ids: set[str]):
        self.span_ids = span_ids
        super().__init__(", ".join(sorted(span_ids)))


def phoenix_client(url: str, api_key: str | None) -> Client:
    """A Phoenix client for *url* (the key, when given, only as the ``Authorization`` header)."""
    from phoenix.client import Client

    return Client(base_url=url.rstrip("/"), api_key=api_key or None)


@contextmanager
def phoenix_errors(url: str, project: str | None = None) -> Iterator[None]:
    """HTTP failures inside as one-line BadInput naming *url* (and *project* on a 404 of its spans)."""
    import httpx

    try:
        yield
    except httpx.HTTPStatusError as exc:
        status = exc.response.status_code
        detail = _detail(exc.response)
        if status in (401, 403):
            raise BadInput(
                f"HTTP {status}: Phoenix refused the request ({detail or 'unauthorized'}); give its API key "
                f"with --api-key or ${API_KEY_ENV}",
                path=url,
            ) from None
        if status == 404 and project is not None and "project" in detail.lower():
            raise BadInput(f"no project {project!r} on this Phoenix server ({detail})", path=url) from None
        raise BadInput(f"HTTP {status} from {exc.request.url.path}: {detail}", path=url) from None
    except httpx.TransportError as exc:
        raise BadInput(f"cannot reach Phoenix: {type(exc).__name__}: {exc or 'no answer'}", path=url) from None
    except _NotPhoenix as exc:
        raise BadInput(f"{exc}: is this Phoenix's address?", path=url) from None


def _detail(response: Any) -> str:
    try:
        body = response.json()
    except ValueError:
        return str(response.text or "").strip()[:300]
    detail = body.get("detail", body) if isinstance(body, Mapping) else body
    return str(detail)[:300]


def _roots(client: Client, project: str, since: datetime | None, limit: int | None) -> list[str]:
    """The trace ids of the project's traces (their root spans), newest first, at most *limit*."""
    ids: list[str] = []
    cursor: str | None = None
    while limit is None or len(ids) < limit:
        page = PAGE if limit is None else min(PAGE, limit - len(ids))
        params: dict[str, Any] = {"limit": page, "parent_id": "null", "sort": "start_time", "order": "desc"}
        if since is not None:
            params["start_time"] = since.isoformat()
        if cursor:
            params["cursor"] = cursor
        body = _get(client, f"v1/projects/{project}/spans", params)
        ids.extend(_read(lambda s: str(s["context"]["trace_id"]), body.get("data", []), "a root span"))
        cursor = body.get("next_cursor")
        if not cursor or not body.get("data"):
            break
    return list(dict.fromkeys(ids))


def _get(client: Client, path: str, params: Mapping[str, Any]) -> dict[str, Any]:
    response = client._client.get(path, params=params, headers={"accept": "application/json"})  # noqa: SLF001
    response.raise_for_status()
    try:
        body = response.json()
    except ValueError:  # a login page, a proxy's page: not JSON
        body = None
    if not isinstance(body, dict) or not isinstance(body.get("data", []), list):
        kind = response.headers.get("content-type") or "no content type"
        raise _NotPhoenix(f"GET /{path} answered {kind}, not Phoenix's JSON ({_detail(response)[:120]!r})")
    return body


def _read(read: Callable[[Any], Any], records: Sequence[Any], what: str) -> list[Any]:
    """*read* of each of *records* (span records of Phoenix's REST API); :class:`_NotPhoenix` naming the first
    that is not of Phoenix's shape."""
    out = []
    for i, record in enumerate(records):
        try:
            out.append(read(record))
        except KeyError as exc:
            raise _NotPhoenix(f"{what} ({i + 1} of a page) has no {exc.args[0]!r}") from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise _NotPhoenix(f"{what} ({i + 1} of a page) is not of Phoenix's shape: {exc}") from None
    return out


def _paged(client: Client, project: str, params: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Every span record the project's span listing gives for *params*, a page (:data:`PAGE`) at a time."""
    cursor: str | None = None
    while True:
        page: dict[str, Any] = {**params, "limit": PAGE}
        if cursor:
            page["cursor"] = cursor
        body = _get(client, f"v1/projects/{project}/spans", page)
        yield from body.get("data", [])
        cursor = body.get("next_cursor")
        if not cursor or not body.get("data"):
            return


def fetch_spans(
    url: str,
    project: str,
    api_key: str | None = None,
    since: datetime | None = None,
    limit: int | None = None,
    progress: Progress | None = None,
    node_ids: dict[str, str] | None = None,
) -> list[Span]:
    """Every span of the project's traces (the newest *limit* traces started at or after *since*), read a page
    at a time; *progress* (traces read, traces listed) after each request; *node_ids* filled with each span's
    GraphQL node id. Failures raise one-line BadInput."""
    client = phoenix_client(url, api_key)
    spans: list[Span] = []
    with phoenix_errors(url, project):
        trace_ids = _roots(client, project, since, limit)
        _ = progress and progress(0, len(trace_ids))
        for start in range(0, len(trace_ids), TRACES_PER_REQUEST):
            chunk = trace_ids[start : start + TRACES_PER_REQUEST]
            for record in _paged(client, project, {"trace_id": chunk}):
                [span] = _read(lambda r: span_from_record({**r, "project": project}), [record], "a span")
                spans.append(span)
                if node_ids is not None and record.get("id"):
                    node_ids[span.span_id] = str(record["id"])
            _ = progress and progress(start + len(chunk), len(trace_ids))
    return spans


def spans_by_id(url: str, project: str, span_ids: Sequence[str], api_key: str | None = None) -> dict[str, Span]:
    """The spans with these ids in *project* (absent ones left out)."""
    client = phoenix_client(url, api_key)
    found: dict[str, Span] = {}
    with phoenix_errors(url, project):
        for start in range(0, len(span_ids), TRACES_PER_REQUEST):
            for record in _paged(client, project, {"span_id": list(span_ids[start : start + TRACES_PER_REQUEST])}):
                [span] = _read(span_from_record, [record], "a span")
                found[span.span_id] = span
    return found


def _missing(exc: Exception) -> MissingSpans | None:
    import httpx

    if isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code == 404:
        match = _MISSING.search(_detail(exc.response))
        if match:
            return MissingSpans({s.strip() for s in match.group(1).split(",")})
    return None


def _log(write: Callable[..., Any], **annotations: list[dict[str, Any]]) -> list[str]:
    """One synchronous write (``sync=true``) through the client's *write*; the Phoenix ids in order. An unknown
    span raises :class:`MissingSpans` (Phoenix writes none of the batch then)."""
    try:
        inserted = write(**annotations, sync=True)
    except Exception as exc:
        missing = _missing(exc)
        if missing is not None:
            raise missing from None
        raise
    return [str(a["id"]) for a in inserted or []]


def log_span_annotations(client: Client, annotations: list[dict[str, Any]]) -> list[str]:
    """Write span annotations synchronously; their Phoenix ids in order (unknown spans: :class:`MissingSpans`)."""
    return _log(client.spans.log_span_annotations, span_annotations=annotations)


def log_document_annotations(client: Client, annotations: list[dict[str, Any]]) -> list[str]:
    """Write document annotations synchronously; their Phoenix ids in order (unknown spans: :class:`MissingSpans`)."""
    return _log(client.spans.log_document_annotations, document_annotations=annotations)


def trace_link(url: str, trace_id: str) -> str:
    """Where Phoenix shows a trace: ``URL/redirects/traces/<trace id>``, which Phoenix's app sends on to
    ``URL/projects/<project id>/traces/<trace id>`` (no project id needed)."""
    return f"{url.rstrip('/')}/redirects/traces/{trace_id}"


def phoenix_traces(
    url: str,
    project: str,
    api_key: str | None = None,
    since: datetime | None = None,
    limit: int | None = None,
    dataset: str | None = None,
    retriever_span: str | None = None,
    progress: Progress | None = None,
) -> Mapped:
    """A Phoenix project's traces as rows (:func:`fetch_spans`, then the mapping); BadInput when it has none."""
    node_ids: dict[str, str] = {}
    spans = fetch_spans(url, project, api_key, since, limit, progress, node_ids)
    if not spans:
        raise BadInput(
            f"project {project!r} has no traces" + (f" since {since.isoformat()}" if since else ""), path=url
        )
    mapped = map_traces(spans, dataset or project, retriever_span)
    with phoenix_errors(url, project):
        attach_evaluations(phoenix_client(url, api_key), project, mapped.rows, node_ids)
    return mapped
