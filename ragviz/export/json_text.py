"""JSON text of Arrow columns, byte for byte what ``json.dumps(value, ensure_ascii=False)`` writes for
their Python values (non-finite floats as ``null``), so a JSONL export can write rows without building
a Python object per row: strings are escaped and lists / structs joined with Arrow compute."""

from __future__ import annotations

import json
import math
from typing import Any, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.data.label_columns import array_of, list_lengths, list_offsets

__all__ = ["json_default", "json_fragments", "json_lines", "json_safe", "string_bytes"]


def _join(*parts: pa.Array | str) -> pa.Array:
    """Element-wise concatenation of string arrays and literal strings (null where any array is)."""
    return cast(pa.Array, pc.call_function("binary_join_element_wise", [*parts, ""]))


_ESCAPES = (("\\", "\\\\"), ('"', '\\"'), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"), ("\b", "\\b"), ("\f", "\\f"))
_OTHER_CONTROLS = [chr(c) for c in range(0x20) if chr(c) not in "\n\r\t\b\f"]
_PLAIN_BYTES = bytes(b for b in range(256) if b >= 0x20 and b not in b'"\\')


def _json_string(values: pa.Array) -> pa.Array:
    """``json.dumps(s, ensure_ascii=False)`` of each string (escapes: backslash, quote, control characters)."""
    # The bytes that need escaping, found in one pass over the text (translate deletes all others).
    present = set(string_bytes(values).tobytes().translate(None, _PLAIN_BYTES)) if len(values) else set()
    for old, new in _ESCAPES:
        if ord(old) in present:
            values = pc.replace_substring(values, old, new)
    for c in _OTHER_CONTROLS:
        if ord(c) in present:
            values = pc.replace_substring(values, c, f"\\u{ord(c):04x}")
    return _join('"', values, '"')


def json_safe(value: Any) -> Any:
    """NaN / infinity are not JSON: write them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def json_default(value: Any) -> Any:
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", errors="replace")
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def _python_fragments(values: pa.Array) -> pa.Array:
    return pa.array(
        [json.dumps(json_safe(v), ensure_ascii=False, default=json_default) for v in values.to_pylist()],
        pa.string(),
    )


def json_fragments(values: pa.Array) -> pa.Array:
    """Per value of *values*: the JSON text ``json.dumps(json_safe(v), ensure_ascii=False)`` gives
    for its Python value ``v`` (non-finite floats as ``null``). Strings, lists and structs are
    written with Arrow compute; floats with ``float.__repr__`` as ``json`` does; any other type
    through ``json.dumps`` of its Python values."""
    t = values.type
    if pa.types.is_null(t):
        return pa.array(["null"] * len(values), pa.string())
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        text = _json_string(values.cast(pa.string()) if pa.types.is_large_string(t) else values)
    elif pa.types.is_boolean(t):
        text = pc.if_else(values, "true", "false")
    elif pa.types.is_integer(t):
        text = values.cast(pa.string())
    elif pa.types.is_floating(t):
        numbers = np.asarray(values.cast(pa.float64()).to_numpy(zero_copy_only=False), np.float64)
        texts = np.array(list(map(float.__repr__, numbers.tolist())), dtype=object)
        texts[~np.isfinite(numbers)] = "null"  # NaN, infinity and null, as json_safe writes them
        return pa.array(texts, pa.string())
    elif pa.types.is_list(t) or pa.types.is_large_list(t):
        lengths = list_lengths(values)
        inner = json_fragments(pc.list_flatten(values))
        joined = pc.binary_join(pa.ListArray.from_arrays(list_offsets(lengths), inner), ", ")
        text = _join("[", array_of(joined), "]")
    elif pa.types.is_struct(t):
        parts: list[pa.Array | str] = []
        for k, field in enumerate(t):
            parts.append(("{" if k == 0 else ", ") + json.dumps(field.name, ensure_ascii=False) + ": ")
            parts.append(json_fragments(pc.struct_field(values, [k])))
        parts.append("}" if len(t) else "{}")
        text = _join(*parts)
    else:
        return _python_fragments(values)
    return pc.if_else(pc.is_valid(values), text, "null") if values.null_count else text


def json_lines(columns: dict[str, pa.Array]) -> pa.Array:
    """One JSON object per row of *columns* (keys in their order) followed by a newline, as
    ``json.dumps(row, ensure_ascii=False) + "\\n"`` writes the row's Python dict."""
    parts: list[pa.Array | str] = []
    for k, (name, values) in enumerate(columns.items()):
        parts.append(("{" if k == 0 else ", ") + json.dumps(name, ensure_ascii=False) + ": ")
        parts.append(json_fragments(values))
    parts.append("}\n" if columns else "{}\n")
    return _join(*parts)


def string_bytes(lines: pa.Array) -> memoryview:
    """The concatenated UTF-8 bytes of a string array without nulls (its data buffer, not copied)."""
    buffers = lines.buffers()
    data = buffers[2]
    if data is None or buffers[1] is None or not len(lines):
        return memoryview(b"")
    offsets = np.frombuffer(memoryview(buffers[1]), np.int32)[lines.offset : lines.offset + len(lines) + 1]
    return memoryview(data)[int(offsets[0]) : int(offsets[-1])]
