"""JSON Lines and JSON (a list of rows) input: every undecodable line or truncated list reported by row."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from ragviz.data.dataset import Dataset
from ragviz.data.problems import Report
from ragviz.data.schema import decode_text, load_rows, type_name


def _is_truncated(e: json.JSONDecodeError, text: str) -> bool:
    return e.msg.startswith("Unterminated") or e.pos >= len(text.rstrip())


def _json_problem(e: json.JSONDecodeError, text: str) -> str:
    truncated = _is_truncated(e, text)
    return f"{'truncated' if truncated else 'invalid'} JSON: {e.msg} (line {e.lineno}, column {e.colno})"


MAX_DEPTH = 100  # nesting reported when a JSON text is too deep to parse (RAGBench rows nest 3 levels)
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]')


def deep_path(text: str, limit: int = MAX_DEPTH) -> list[int | str]:
    """Where *text* first nests deeper than *limit*: the list indexes (0-based) and object keys leading
    there, e.g. ``[4, "documents"]``; ``[]`` when it never does. Used only after a RecursionError,
    to name the row and field."""
    path: list[int | str] = []  # the current position in each open container
    pending_key: str | None = None
    last_string: str | None = None
    for match in _TOKENS.finditer(text):
        tok = match.group()
        if tok[0] == '"':
            last_string = tok
            continue
        if tok == ":" and last_string is not None and path:
            try:
                pending_key = json.loads(last_string)
            except (ValueError, RecursionError):
                pending_key = last_string.strip('"')
            path[-1] = pending_key
        elif tok == "," and path and isinstance(path[-1], int):
            path[-1] += 1
        elif tok in "[{":
            if len(path) >= limit:
                return path[:3]
            path.append(0 if tok == "[" else "")
        elif tok in "]}" and path:
            path.pop()
        last_string = None
    return []


def _too_deep(path_: str, row: int | None, located: list[int | str], report: Report, skipped: str) -> None:
    """Report a row nested too deep to read, naming its field when *located* has one."""
    field = next((str(p) for p in located if isinstance(p, str) and p), "json")
    report.error(path_, row, field, f"nested deeper than {MAX_DEPTH} levels: too deep to read; {skipped}")


def load_jsonl(data: bytes, path: str, subset: str, report: Report) -> Dataset:
    def numbered() -> Iterable[tuple[int, Any]]:
        offset = 0
        for number, raw_line in enumerate(data.split(b"\n"), start=1):
            line_offset, offset = offset, offset + len(raw_line) + 1
            if not raw_line.strip():
                continue
            line = decode_text(raw_line, path, report, number, line_offset)
            if line is None:
                continue
            try:
                yield number, json.loads(line)
            except RecursionError:
                _too_deep(path, number, deep_path(line), report, "row skipped")
            except json.JSONDecodeError as e:
                truncated = _is_truncated(e, line)
                report.error(
                    path,
                    number,
                    "json",
                    f"{'truncated' if truncated else 'invalid'} JSON line: {e.msg} (column {e.colno})",
                )

    return load_rows(numbered(), path, subset, report)


_WS = re.compile(r"\s*")


def _skip_ws(text: str, pos: int) -> int:
    """The position of the first non-whitespace character of *text* at or after *pos*."""
    match = _WS.match(text, pos)
    assert match is not None  # \s* matches the empty string anywhere
    return match.end()


def _salvage_json_list(text: str) -> tuple[list[Any], int, json.JSONDecodeError | None]:
    """Parse a top-level JSON list element by element: the records before a syntax error, the
    1-based number of the record that broke, and the error."""
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if text[pos : pos + 1] != "[":
        return [], 1, None
    pos = _skip_ws(text, pos + 1)
    items: list[Any] = []
    if text[pos : pos + 1] == "]":
        return items, 0, None
    while True:
        try:
            item, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            return items, len(items) + 1, e
        items.append(item)
        pos = _skip_ws(text, pos)
        ch = text[pos : pos + 1]
        if ch == "]":
            return items, 0, None
        if ch != ",":
            msg = "Expecting ',' delimiter" if ch else "Expecting ',' delimiter or ']' (file ends)"
            return items, len(items) + 1, json.JSONDecodeError(msg, text, pos)
        pos = _skip_ws(text, pos + 1)


def load_json(data: bytes, path: str, subset: str, report: Report) -> Dataset:
    text = decode_text(data, path, report)
    if text is None:
        return Dataset.empty()
    try:
        doc = json.loads(text)
    except RecursionError:
        located = deep_path(text)
        if located and located[0] in ("data", "rows"):
            located = located[1:]
        row = located[0] + 1 if located and isinstance(located[0], int) else None
        _too_deep(path, row, located[1:], report, "file not loaded")
        return Dataset.empty()
    except json.JSONDecodeError as e:
        items, broken, err = _salvage_json_list(text)
        if err is not None and broken >= 1 and text.lstrip().startswith("["):
            report.error(
                path, broken, "json", f"{_json_problem(err, text)}; {len(items)} records before it were loaded"
            )
            return load_rows(enumerate(items, start=1), path, subset, report)
        report.error(path, None, "json", _json_problem(e, text))
        return Dataset.empty()
    if isinstance(doc, dict):
        for container in ("data", "rows"):
            if isinstance(doc.get(container), list):
                doc = doc[container]
                break
        else:
            report.error(
                path,
                None,
                "json",
                'expected a list of rows or an object with a "data" or "rows" list, '
                f"got an object with keys {sorted(doc)[:8]}",
            )
            return Dataset.empty()
    if not isinstance(doc, list):
        report.error(path, None, "json", f"expected a list of rows, got {type_name(doc)}")
        return Dataset.empty()
    if not doc:
        report.warning(path, None, "file", "no rows")
    return load_rows(enumerate(doc, start=1), path, subset, report)
