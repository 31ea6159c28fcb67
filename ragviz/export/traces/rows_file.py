"""The rows a trace source gives, as the JSON Lines file ``ragviz import`` writes: one row a line, keys in the
mapping's order, non-ASCII text as it is. The same traces from any source give the same bytes."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import IO, Any

from ragviz.data.formats.openinference import Skipped
from ragviz.export.output import binary_output

__all__ = ["rows_jsonl", "skipped_lines", "write_trace_rows"]


def rows_jsonl(rows: Sequence[dict[str, Any]]) -> bytes:
    """*rows* as JSON Lines bytes."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")


def write_trace_rows(rows: Sequence[dict[str, Any]], out: str | os.PathLike | IO[bytes]) -> None:
    """Write *rows* to *out* (a path, written whole or not at all; ``-`` for stdout)."""
    with binary_output(out) as f:
        f.write(rows_jsonl(rows))


def skipped_lines(skipped: Sequence[Skipped], source: str) -> list[str]:
    """One line per skipped trace: ``SOURCE: trace ID: skipped: reason``."""
    return [f"{source}: trace {s.trace_id}: skipped: {s.reason}" for s in skipped]
