"""What is loaded, at a glance, for the first screen: how many examples, which subsets and which
judges labelled them. Counted from the Arrow columns (no example is built), so it is instant on
thousands of rows."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ragviz.data.dataset import Dataset

__all__ = ["NO_JUDGE_NAMED", "Overview", "overview"]

NO_JUDGE_NAMED = "no judge named"


@dataclass(frozen=True)
class Overview:
    """``subsets`` and ``labelled_by``: ``(name, examples)`` pairs, most examples first."""

    examples: int
    subsets: tuple[tuple[str, int], ...]
    labelled_by: tuple[tuple[str, int], ...]

    def subsets_text(self) -> str:
        """``techqa_sample (7), medqa_sample (5)``."""
        return ", ".join(f"{name} ({n:,})" for name, n in self.subsets)

    def labelled_by_text(self) -> str:
        """``gpt-4o (21), no judge named (1)``."""
        return ", ".join(f"{name} ({n:,})" for name, n in self.labelled_by)


def _ranked(counts: Counter[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def overview(dataset: Dataset) -> Overview:
    """The examples, the examples per subset and per labelling judge (``annotating_model_name``;
    a row without one counts under :data:`NO_JUDGE_NAMED`)."""
    table = dataset.table
    judges: Counter[str] = Counter()
    if len(dataset) and "annotating_model_name" in table.column_names:
        judges.update(str(name or NO_JUDGE_NAMED) for name in table.column("annotating_model_name").to_pylist())
    elif len(dataset):
        judges[NO_JUDGE_NAMED] = len(dataset)
    return Overview(len(dataset), _ranked(Counter(dataset.datasets)), _ranked(judges))
