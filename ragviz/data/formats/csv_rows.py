"""CSV input: list and structured columns as JSON text in their cells (DeepEval's ``save_as`` CSV: ``|``-joined
``retrieval_context`` / ``context``, split in :mod:`ragviz.data.tool_columns`)."""

from __future__ import annotations

import ast
import csv
import io
import json
import sys
from collections.abc import Iterable
from typing import Any

from ragviz.data.dataset import Dataset
from ragviz.data.problems import Report
from ragviz.data.schema import BOOL_FIELDS, FLOAT_FIELDS, STRUCTURED_FIELDS, decode_text, load_rows
from ragviz.data.tool_columns import COLUMN_ALIASES, REFERENCE_CONTEXTS

__all__ = ["load_csv"]


# Fields a user file may use to carry required content, for CSV parsing of JSON text.
_CSV_JSON_FIELDS = STRUCTURED_FIELDS | {a for f in ("documents", "reference_answer") for a in COLUMN_ALIASES[f]}


def _parse_csv_cell(name: str, text: str) -> Any:
    """Typed value of a CSV cell; raises ValueError with a readable message when it cannot be."""
    if text == "":
        return None
    if name in _CSV_JSON_FIELDS:
        stripped = text.strip()
        if stripped[:1] in "[{":
            try:
                return json.loads(stripped)
            except RecursionError:
                raise ValueError("JSON text nested too deep to read") from None
            except json.JSONDecodeError as e:
                try:  # pandas writes list columns as Python literals: ['a', 'b']
                    return ast.literal_eval(stripped)
                except (ValueError, SyntaxError, RecursionError, MemoryError):
                    raise ValueError(f"invalid JSON text: {e.msg} (column {e.colno})") from None
        if name == "reference_answer" or name in COLUMN_ALIASES["reference_answer"]:
            return text
        if name in ("documents", REFERENCE_CONTEXTS, *COLUMN_ALIASES["documents"]):
            return text  # DeepEval's `|`-joined list (split later), else "expected a list of strings, got str"
        raise ValueError(f"expected JSON text of a list, got {text[:40]!r}")
    if name in BOOL_FIELDS:
        low = text.strip().lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        if low in ("null", "none"):
            return None
        raise ValueError(f"expected true or false, got {text[:40]!r}")
    if name in FLOAT_FIELDS:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"expected a number, got {text[:40]!r}") from None
    return text


def load_csv(data: bytes, path: str, subset: str, report: Report) -> Dataset:
    text = decode_text(data, path, report)
    if text is None:
        return Dataset.empty()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except (StopIteration, csv.Error) as e:
        report.error(path, None, "csv", f"no header row ({e})" if str(e) else "no header row")
        return Dataset.empty()

    def numbered() -> Iterable[tuple[int, Any]]:
        number = 0
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                report.error(path, number + 1, "csv", str(e))
                return
            number += 1
            if not cells:
                continue
            if len(cells) > len(header):
                report.error(path, number, "csv", f"row has {len(cells)} fields, the header has {len(header)}")
                continue
            row: dict[str, Any] = {}
            failed = False
            for name, cell in zip(header, cells):
                try:
                    row[name] = _parse_csv_cell(name, cell)
                except ValueError as e:
                    report.error(path, number, name, str(e))
                    failed = True
            if not failed:
                yield number, row

    return load_rows(numbered(), path, subset, report)
