"""Writing per-example metric records as JSONL or CSV (the CLI's output formats)."""

from __future__ import annotations

import csv
import json
import math
import sys
from collections.abc import Iterable, Mapping
from typing import Any, TextIO


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def write_jsonl(records: Iterable[Mapping[str, Any]], stream: TextIO) -> None:
    for rec in records:
        stream.write(json.dumps({k: _json_value(v) for k, v in rec.items()}, ensure_ascii=False))
        stream.write("\n")


def write_csv(records: Iterable[Mapping[str, Any]], stream: TextIO) -> None:
    """CSV with the union of the records' keys as header, in first-seen order; null -> empty cell."""
    records = list(records)
    header: dict[str, None] = {}
    for rec in records:
        header.update(dict.fromkeys(rec))
    writer = csv.DictWriter(stream, fieldnames=list(header), lineterminator="\n")
    writer.writeheader()
    for rec in records:
        writer.writerow({k: ("" if v is None else v) for k, v in rec.items()})


def write_records(records: Iterable[Mapping[str, Any]], output: str | None, fmt: str = "jsonl") -> None:
    """Write *records* to the file *output* (stdout when ``None`` or ``"-"``) in *fmt*."""
    writer = write_csv if fmt == "csv" else write_jsonl
    if output in (None, "-"):
        writer(records, sys.stdout)
        sys.stdout.flush()
        return
    with open(output, "w", encoding="utf-8", newline="") as f:
        writer(records, f)
