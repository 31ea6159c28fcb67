"""Span files as :class:`~ragviz.data.formats.openinference.Span` s, without any server (``ragviz import otlp``).

Read: OTLP JSON as the OpenTelemetry collector's file exporter writes it (``{"resourceSpans": [{"resource": ...,
"scopeSpans": [{"spans": [...]}]}]}``, one such object per line or one per file; ids in hex, or base64 as
protobuf's JSON mapping writes them), and span dumps, one span per JSON line or a JSON list (a Phoenix span as its
REST API returns it, ``{"data": [...]}`` included, or OpenTelemetry's console exporter's ``to_json()``: ``context.
trace_id``/``span_id``, ``parent_id``, ``start_time``, ``attributes`` flat or nested). A line or file that is none
of these raises :class:`~ragviz.data.errors.BadInput` naming the file and line.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ragviz.data.errors import BadInput
from ragviz.data.formats.openinference import Span, flatten_attributes, start_nanos

__all__ = ["PROJECT_ATTRIBUTE", "any_value", "hex_id", "read_span_files", "span_from_record", "spans_from_otlp"]

#: The resource attribute naming the project (Phoenix's ``register(project_name=...)`` sets it).
PROJECT_ATTRIBUTE = "openinference.project.name"
_TOO_DEEP = "nested too deep to read (spans nest a few levels): not an OTLP request or a span"
_HEX = re.compile(r"^(0x)?[0-9a-fA-F]+$")


def hex_id(value: Any) -> str:
    """A trace or span id as lower-case hex: hex as given (``0x`` dropped), else base64 decoded."""
    text = "" if value is None else str(value)
    if _HEX.match(text) and len(text.removeprefix("0x")) in (16, 32):
        return text.removeprefix("0x").lower()
    try:
        return base64.b64decode(text, validate=True).hex()
    except (binascii.Error, ValueError):
        return text.lower()


def any_value(value: Mapping[str, Any]) -> Any:
    """An OTLP ``AnyValue`` as Python (``intValue`` comes as text in OTLP JSON)."""
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [any_value(v) for v in value["arrayValue"].get("values", [])]
    if "kvlistValue" in value:
        return {kv["key"]: any_value(kv.get("value", {})) for kv in value["kvlistValue"].get("values", [])}
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def _attributes(items: Any) -> dict[str, Any]:
    return {kv["key"]: any_value(kv.get("value") or {}) for kv in items or []}


def _kind(attributes: Mapping[str, Any], fallback: Any = None) -> str:
    kind = attributes.get("openinference.span.kind") or fallback or ""
    return str(kind).upper()


def spans_from_otlp(request: Mapping[str, Any]) -> Iterator[Span]:
    """The spans of one OTLP ``ExportTraceServiceRequest`` in JSON."""
    for resource_spans in request.get("resourceSpans") or []:
        resource = _attributes((resource_spans.get("resource") or {}).get("attributes"))
        project = resource.get(PROJECT_ATTRIBUTE)
        for scope_spans in resource_spans.get("scopeSpans") or resource_spans.get("instrumentationLibrarySpans") or []:
            for span in scope_spans.get("spans") or []:
                attributes = flatten_attributes(_attributes(span.get("attributes")))
                parent = span.get("parentSpanId")
                yield Span(
                    trace_id=hex_id(span["traceId"]),
                    span_id=hex_id(span["spanId"]),
                    parent_id=hex_id(parent) if parent else None,
                    name=str(span.get("name", "")),
                    kind=_kind(attributes),
                    start=start_nanos(span.get("startTimeUnixNano")),
                    attributes=attributes,
                    project=None if project is None else str(project),
                )


def span_from_record(record: Mapping[str, Any]) -> Span:
    """One span dump (Phoenix's REST span, OpenTelemetry's console exporter, or a flat ``trace_id`` /
    ``span_id`` record)."""
    context = record.get("context") or {}
    attributes = flatten_attributes(record.get("attributes") or {})
    resource = flatten_attributes((record.get("resource") or {}).get("attributes") or {})
    parent = record.get("parent_id") or record.get("parent_span_id")
    project = record.get("project") or resource.get(PROJECT_ATTRIBUTE)
    return Span(
        trace_id=hex_id(context.get("trace_id") or record["trace_id"]),
        span_id=hex_id(context.get("span_id") or record["span_id"]),
        parent_id=hex_id(parent) if parent else None,
        name=str(record.get("name", "")),
        kind=_kind(attributes, record.get("span_kind")),
        start=start_nanos(record.get("start_time")),
        attributes=attributes,
        project=None if project is None else str(project),
    )


def _spans_of(value: Any, path: str, line: int | None) -> Iterator[Span]:
    try:
        if isinstance(value, list):
            for item in value:
                yield from _spans_of(item, path, line)
        elif isinstance(value, Mapping) and "resourceSpans" in value:
            yield from spans_from_otlp(value)
        elif isinstance(value, Mapping) and isinstance(value.get("data"), list):
            yield from _spans_of(value["data"], path, line)
        elif isinstance(value, Mapping):
            yield span_from_record(value)
        else:
            raise BadInput("not an OTLP request or a span (a JSON object)", path=path, row=line)
    except RecursionError:
        raise BadInput(_TOO_DEEP, path=path, row=line) from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        missing = f"no {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
        raise BadInput(f"not an OTLP request or a span: {missing}", path=path, row=line) from None


def _read_file(path: Path) -> Iterator[Span]:
    text = path.read_text(encoding="utf-8")
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):  # JSON lines, or nested too deep: each line then says which
        whole = None
    if whole is not None:
        yield from _spans_of(whole, str(path), 1 if "\n" not in text.strip() else None)
        return
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInput(f"not JSON ({exc.msg})", path=str(path), row=number) from None
        except RecursionError:
            raise BadInput(_TOO_DEEP, path=str(path), row=number) from None
        yield from _spans_of(value, str(path), number)


def read_span_files(paths: list[str]) -> list[Span]:
    """Every span in *paths* (files as the module says); a missing file or a bad line raises BadInput."""
    spans: list[Span] = []
    for name in paths:
        path = Path(name)
        if not path.is_file():
            raise BadInput("no such file", path=name)
        try:
            spans.extend(_read_file(path))
        except UnicodeDecodeError:
            raise BadInput("not UTF-8 text", path=name) from None
    return spans
