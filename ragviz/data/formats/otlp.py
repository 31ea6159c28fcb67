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


def _list(value: Any, where: str) -> list[Any]:
    """*value* as a list (``None``: empty); :class:`ValueError` naming *where* for anything else."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{where}: expected a list, got {_json_type(value)}")
    return value


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: expected an object, got {_json_type(value)}")
    return value


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)


def _attributes(items: Any, where: str) -> dict[str, Any]:
    """OTLP's ``[{"key": ..., "value": AnyValue}]`` as a dict; :class:`ValueError` naming the entry at fault."""
    out: dict[str, Any] = {}
    for i, kv in enumerate(_list(items, where)):
        entry = _object(kv, f"{where}[{i}]")
        if "key" not in entry:
            raise ValueError(f"{where}[{i}]: no 'key'")
        try:
            out[str(entry["key"])] = any_value(_object(entry.get("value") or {}, f"{where}[{i}].value"))
        except KeyError as exc:  # a kvlistValue entry without its key
            raise ValueError(f"{where}[{i}] ({entry['key']}): no {exc.args[0]!r} in its value") from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"{where}[{i}] ({entry['key']}): {exc}") from None
    return out


def _field(span: Mapping[str, Any], name: str, where: str) -> Any:
    if span.get(name) in (None, ""):
        raise ValueError(f"{where}: no {name!r}")
    return span[name]


def _start(value: Any, where: str) -> int:
    try:
        return start_nanos(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: not a time (nanoseconds since the epoch, or ISO 8601): {value!r}") from None


def _kind(attributes: Mapping[str, Any], fallback: Any = None) -> str:
    kind = attributes.get("openinference.span.kind") or fallback or ""
    return str(kind).upper()


def spans_from_otlp(request: Mapping[str, Any]) -> Iterator[Span]:
    """The spans of one OTLP ``ExportTraceServiceRequest`` in JSON; :class:`ValueError` naming the place at fault
    (``resourceSpans[0].scopeSpans[1].spans[2].attributes[3]: ...``) when it is not one."""
    for i, item in enumerate(_list(request.get("resourceSpans"), "resourceSpans")):
        where = f"resourceSpans[{i}]"
        resource_spans = _object(item, where)
        resource = _object(resource_spans.get("resource") or {}, f"{where}.resource")
        project = _attributes(resource.get("attributes"), f"{where}.resource.attributes").get(PROJECT_ATTRIBUTE)
        old = not resource_spans.get("scopeSpans") and "instrumentationLibrarySpans" in resource_spans  # OTLP < 0.15
        scopes_key = "instrumentationLibrarySpans" if old else "scopeSpans"
        for j, scope in enumerate(_list(resource_spans.get(scopes_key), f"{where}.{scopes_key}")):
            spans_at = f"{where}.{scopes_key}[{j}].spans"
            for k, value in enumerate(_list(_object(scope, f"{where}.{scopes_key}[{j}]").get("spans"), spans_at)):
                at = f"{spans_at}[{k}]"
                span = _object(value, at)
                attributes = flatten_attributes(_attributes(span.get("attributes"), f"{at}.attributes"))
                parent = span.get("parentSpanId")
                yield Span(
                    trace_id=hex_id(_field(span, "traceId", at)),
                    span_id=hex_id(_field(span, "spanId", at)),
                    parent_id=hex_id(parent) if parent else None,
                    name=str(span.get("name", "")),
                    kind=_kind(attributes),
                    start=_start(span.get("startTimeUnixNano"), f"{at}.startTimeUnixNano"),
                    attributes=attributes,
                    project=None if project is None else str(project),
                )


def span_from_record(record: Mapping[str, Any]) -> Span:
    """One span dump (Phoenix's REST span, OpenTelemetry's console exporter, or a flat ``trace_id`` /
    ``span_id`` record); :class:`KeyError` without its ids, :class:`ValueError` naming a field of the wrong shape."""
    context = _object(record.get("context") or {}, "context")
    attributes = flatten_attributes(_object(record.get("attributes") or {}, "attributes"))
    resource = flatten_attributes(_object(record.get("resource") or {}, "resource").get("attributes") or {})
    parent = record.get("parent_id") or record.get("parent_span_id")
    project = record.get("project") or resource.get(PROJECT_ATTRIBUTE)
    return Span(
        trace_id=hex_id(context.get("trace_id") or record["trace_id"]),
        span_id=hex_id(context.get("span_id") or record["span_id"]),
        parent_id=hex_id(parent) if parent else None,
        name=str(record.get("name", "")),
        kind=_kind(attributes, record.get("span_kind")),
        start=_start(record.get("start_time"), "start_time"),
        attributes=attributes,
        project=None if project is None else str(project),
    )


def _spans_of(value: Any, path: str, line: int | None, where: str = "") -> Iterator[Span]:
    """The spans in *value* (the JSON of *path*'s line *line*, or of the whole file); *where*: its place in that
    JSON (``[3]``, ``data[0]``), which a problem names before its own place."""
    at = f"{where}: " if where else ""
    try:
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield from _spans_of(item, path, line, f"{where}[{i}]")
        elif isinstance(value, Mapping) and "resourceSpans" in value:
            yield from spans_from_otlp(value)
        elif isinstance(value, Mapping) and isinstance(value.get("data"), list):
            yield from _spans_of(value["data"], path, line, f"{where}.data" if where else "data")
        elif isinstance(value, Mapping):
            yield span_from_record(value)
        else:
            raise BadInput(
                f"not an OTLP request or a span (a JSON object): {at}got {_json_type(value)}", path=path, row=line
            )
    except RecursionError:
        raise BadInput(_TOO_DEEP, path=path, row=line) from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        missing = f"no {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
        raise BadInput(f"not an OTLP request or a span: {at}{missing}", path=path, row=line) from None


def _read_file(path: Path) -> Iterator[Span]:
    text = path.read_text(encoding="utf-8-sig")  # a byte order mark (Windows editors) is no JSON
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
        except UnicodeDecodeError as exc:
            line = exc.object[: exc.start].count(b"\n") + 1
            raise BadInput(
                f"not UTF-8 text: byte 0x{exc.object[exc.start : exc.start + 1].hex()} at byte offset {exc.start}; "
                "save it as UTF-8",
                path=name,
                row=line,
            ) from None
    return spans
