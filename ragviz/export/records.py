"""Writing per-example metric records as JSONL or CSV (the CLI's output formats), and :func:`csv_cell`, the
ONE place every CSV ragviz writes neutralises cells a spreadsheet would run as a formula."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TextIO

__all__ = ["FORMULA_STARTS", "csv_cell", "csv_field", "csv_line", "write_csv", "write_jsonl", "write_records"]


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def write_jsonl(records: Iterable[Mapping[str, Any]], stream: TextIO) -> None:
    for rec in records:
        stream.write(json.dumps({k: _json_value(v) for k, v in rec.items()}, ensure_ascii=False))
        stream.write("\n")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # OWASP's list
# A formula start at the beginning of the text or right after a line break inside it: a spreadsheet that
# splits rows on a bare CR (LibreOffice) or reads a cell line by line would run it there too.
_FORMULA_AT_LINE_START = re.compile(r"(^|[\r\n])(?=[=+\-@\t\r])")
_NEEDS_QUOTES = re.compile(r'[",\r\n]')


def csv_cell(value: Any) -> Any:
    r"""A value for a CSV cell: text with ``= + - @``, a tab or a carriage return at its start or right
    after any line break inside it gets a ``'`` there, so Excel / Sheets / LibreOffice show it instead of
    running it as a formula (OWASP "CSV injection"); numbers and everything else are returned unchanged.

    >>> print(csv_cell("=1+1"), csv_cell("@SUM(A1)"), csv_cell("-1"), csv_cell(-1.5), csv_cell("plain"))
    '=1+1 '@SUM(A1) '-1 -1.5 plain
    >>> csv_cell("ok\r=1+1"), csv_cell("\r=1"), csv_cell("a\r\n-b")
    ("ok\r'=1+1", "'\r'=1", "a\r\n'-b")
    """
    if isinstance(value, str) and (value.startswith(FORMULA_STARTS) or "\r" in value or "\n" in value):
        return _FORMULA_AT_LINE_START.sub(r"\1'", value)
    return value


def csv_field(value: Any) -> str:
    r"""One CSV field: ``None`` empty, text neutralised by :func:`csv_cell` and quoted (``"`` doubled) when it
    holds a comma, a quote, a CR or a LF, anything else as ``str()`` gives it. Python's csv module quotes a
    bare CR only when it is part of the line terminator, and a spreadsheet splits rows on it.

    >>> csv_field("a\rb"), csv_field('say "hi" now'), csv_field(0.5), csv_field(None)
    ('"a\rb"', '"say ""hi"" now"', '0.5', '')
    """
    if value is None:
        return ""
    text = csv_cell(value) if isinstance(value, str) else str(value)
    if _NEEDS_QUOTES.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_line(cells: Sequence[Any]) -> str:
    r"""One CSV row of *cells* (:func:`csv_field` each), ending in ``\n``; a row of one empty cell is
    ``""`` so it is not read as a blank line."""
    fields = [csv_field(c) for c in cells]
    if fields == [""]:
        return '""\n'
    return ",".join(fields) + "\n"


def write_csv(records: Iterable[Mapping[str, Any]], stream: TextIO) -> None:
    """CSV with the union of the records' keys as header, in first-seen order; null -> empty cell; text
    cells neutralised and quoted by :func:`csv_field`."""
    records = list(records)
    header: dict[str, None] = {}
    for rec in records:
        header.update(dict.fromkeys(rec))
    names = list(header)
    stream.write(csv_line(names))
    for rec in records:
        stream.write(csv_line([rec.get(k) for k in names]))


def write_records(records: Iterable[Mapping[str, Any]], output: str | None, fmt: str = "jsonl") -> None:
    """Write *records* to the file *output* (stdout when ``None`` or ``"-"``) in *fmt*."""
    writer = write_csv if fmt == "csv" else write_jsonl
    if output in (None, "-"):
        writer(records, sys.stdout)
        sys.stdout.flush()
        return
    with open(output, "w", encoding="utf-8", newline="") as f:
        writer(records, f)
