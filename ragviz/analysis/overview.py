"""What is loaded, at a glance, for the first screen: how many examples, which subsets and which
judges labelled them. Counted from the Arrow columns (no example is built), so it is instant on
thousands of rows."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ragviz.data.dataset import Dataset
from ragviz.data.ragbench import LABEL_FIELDS

__all__ = ["NO_JUDGE_NAMED", "Overview", "overview"]


NO_JUDGE_NAMED = "no judge named"


@dataclass(frozen=True)
class Overview:
    """``subsets`` and ``labelled_by``: ``(name, examples)`` pairs, most examples first; ``labelled_by``
    counts only the examples that carry labels, ``unlabelled`` the others."""

    examples: int
    subsets: tuple[tuple[str, int], ...]
    labelled_by: tuple[tuple[str, int], ...]
    unlabelled: int = 0

    def subsets_text(self) -> str:
        """``techqa_sample (7), medqa_sample (5)``."""
        return ", ".join(f"{name} ({n:,})" for name, n in self.subsets)

    def labelled_by_text(self) -> str:
        """``gpt-4o (21), no judge named (1)``, then how many examples carry no labels at all.

        >>> Overview(23, (), (("gpt-4o", 21), (NO_JUDGE_NAMED, 1)), 1).labelled_by_text()
        'gpt-4o (21), no judge named (1); 1 example not labelled yet'
        >>> Overview(2, (), (), 2).labelled_by_text()
        'nobody yet; 2 examples not labelled yet'
        """
        judges = ", ".join(f"{name} ({n:,})" for name, n in self.labelled_by) or "nobody yet"
        if not self.unlabelled:
            return judges
        return f"{judges}; {self.unlabelled:,} example{'s' if self.unlabelled != 1 else ''} not labelled yet"


def _ranked(counts: Counter[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def overview(dataset: Dataset) -> Overview:
    """The examples, the examples per subset and per labelling judge (``annotating_model_name``; a
    labelled row without one counts under :data:`NO_JUDGE_NAMED`; a row with no label field set counts
    as not labelled, whatever judge it names)."""
    table = dataset.table
    n = len(dataset)
    present = [table.column(f).is_valid().to_pylist() for f in LABEL_FIELDS if f in table.column_names]
    labelled = [any(flags) for flags in zip(*present)] if present else [False] * n
    names = (
        table.column("annotating_model_name").to_pylist()
        if "annotating_model_name" in table.column_names
        else [None] * n
    )
    judges = Counter(str(name or NO_JUDGE_NAMED) for name, has in zip(names, labelled) if has)
    return Overview(n, _ranked(Counter(dataset.datasets)), _ranked(judges), labelled.count(False))
