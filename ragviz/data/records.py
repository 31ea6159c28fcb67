"""Writing per-example metric records as JSONL or CSV (the CLI's output formats), and :func:`csv_cell`, the
ONE place every CSV ragviz writes neutralises cells a spreadsheet would run as a formula."""

from __future__ import annotations

import csv
import json
import math
import sys
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

__all__ = ["FORMULA_STARTS", "csv_cell", "write_csv", "write_jsonl", "write_records"]


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def write_jsonl(records: Iterable[Mapping[str, Any]], stream: TextIO) -> None:
    for rec in records:
        stream.write(json.dumps({k: _json_value(v) for k, v in rec.items()}, ensure_ascii=False))
        stream.write("\n")


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # OWASP's list


def csv_cell(value: Any) -> Any:
    """A value for a CSV cell: text starting with ``= + - @``, a tab or a carriage return gets a leading
    ``'`` so Excel / Sheets / LibreOffice show it instead of running it as a formula (OWASP "CSV
    injection"); numbers and everything else are returned unchanged.

    >>> print(csv_cell("=1+1"), csv_cell("@SUM(A1)"), csv_cell("-1"), csv_cell(-1.5), csv_cell("plain"))
    '=1+1 '@SUM(A1) '-1 -1.5 plain
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_csv(records: Iterable[Mapping[str, Any]], stream: TextIO) -> None:
    """CSV with the union of the records' keys as header, in first-seen order; null -> empty cell; text
    cells neutralised by :func:`csv_cell`."""
    records = list(records)
    header: dict[str, None] = {}
    for rec in records:
        header.update(dict.fromkeys(rec))
    writer = csv.DictWriter(stream, fieldnames=list(header), lineterminator="\n")
    writer.writeheader()
    for rec in records:
        writer.writerow({k: ("" if v is None else csv_cell(v)) for k, v in rec.items()})


def write_records(records: Iterable[Mapping[str, Any]], output: str | None, fmt: str = "jsonl") -> None:
    """Write *records* to the file *output* (stdout when ``None`` or ``"-"``) in *fmt*."""
    writer = write_csv if fmt == "csv" else write_jsonl
    if output in (None, "-"):
        writer(records, sys.stdout)
        sys.stdout.flush()
        return
    with open(output, "w", encoding="utf-8", newline="") as f:
        writer(records, f)
