"""Problems found in input: ``Problem`` prints as ``PATH:ROW: field: message``; ``Report`` collects them,
listing at most MAX_PROBLEMS_PER_FIELD per file, level and field."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

__all__ = ["DUPLICATE_OF", "Level", "MAX_PROBLEMS_PER_FIELD", "Problem", "Report"]


Level = Literal["error", "warning"]


#: How the warning of a row skipped as a duplicate of an earlier one (same uid) begins; its field is ``id``.
DUPLICATE_OF = "duplicate of "

# Problems listed per (file, level, field); the rest are summed up in one line.
MAX_PROBLEMS_PER_FIELD = 20


@dataclass(frozen=True)
class Problem:
    """One problem with the input: ``str()`` gives ``PATH:ROW: field: message``.

    ``row`` is the 1-based record number (JSONL: line number), ``None`` for a whole file.
    ``kind`` names the category for label-quality issues (see :class:`ragviz.analysis.quality.issues.IssueKind`).
    """

    path: str
    row: int | None
    field: str
    message: str
    level: Level = "error"
    kind: str | None = None

    def __str__(self) -> str:
        where = self.path if self.row is None else f"{self.path}:{self.row}"
        return f"{where}: {self.field}: {self.message}"


class Report:
    """Collects problems, listing at most MAX_PROBLEMS_PER_FIELD per (path, level, field)."""

    def __init__(self) -> None:
        self.errors: list[Problem] = []
        self.warnings: list[Problem] = []
        self._counts: Counter[tuple[str, Level, str]] = Counter()

    def add(self, path: str, row: int | None, field_name: str, message: str, level: Level = "error") -> None:
        key = (path, level, field_name)
        self._counts[key] += 1
        if self._counts[key] <= MAX_PROBLEMS_PER_FIELD:
            (self.errors if level == "error" else self.warnings).append(Problem(path, row, field_name, message, level))

    def error(self, path: str, row: int | None, field_name: str, message: str) -> None:
        self.add(path, row, field_name, message, "error")

    def warning(self, path: str, row: int | None, field_name: str, message: str) -> None:
        self.add(path, row, field_name, message, "warning")

    def finish(self) -> None:
        for (path, level, field_name), n in self._counts.items():
            if n > MAX_PROBLEMS_PER_FIELD:
                more = n - MAX_PROBLEMS_PER_FIELD
                target = self.errors if level == "error" else self.warnings
                target.append(
                    Problem(path, None, field_name, f"... and {more} more {level}s in this field not listed", level)
                )
