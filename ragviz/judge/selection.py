"""Which examples a judge run covers: all, unlabeled, the Review page's current filter, first K."""

from __future__ import annotations

from collections.abc import Sequence

from ragviz.data.dataset import Dataset
from ragviz.data.ragbench import LABEL_FIELDS, has_labels

__all__ = ["ALL", "FILTERED", "FIRST_K", "SELECTIONS", "UNLABELED", "select_indices", "unlabeled_indices"]


ALL, UNLABELED, FILTERED, FIRST_K = "all", "unlabeled", "filtered", "first_k"
SELECTIONS = (ALL, UNLABELED, FILTERED, FIRST_K)


def unlabeled_indices(dataset: Dataset, judged_uids: set[str] | frozenset[str] = frozenset()) -> list[int]:
    """Rows that carry no labels and have no judge label set in the store yet (label columns only)."""
    uids = dataset.uids
    return [
        i for i, row in enumerate(dataset.iter_rows(LABEL_FIELDS)) if not has_labels(row) and uids[i] not in judged_uids
    ]


def select_indices(
    dataset: Dataset,
    selection: str,
    *,
    judged_uids: set[str] | frozenset[str] = frozenset(),
    filtered: Sequence[int] | None = None,
    first_k: int = 10,
) -> list[int]:
    """Row indices for *selection* (one of :data:`SELECTIONS`); *filtered* is the Review page's
    filter result (``None``: no filter active, i.e. every row)."""
    if selection == ALL:
        return list(range(len(dataset)))
    if selection == UNLABELED:
        return unlabeled_indices(dataset, judged_uids)
    if selection == FILTERED:
        return list(filtered) if filtered is not None else list(range(len(dataset)))
    if selection == FIRST_K:
        return list(range(min(max(first_k, 0), len(dataset))))
    raise ValueError(f"unknown selection {selection!r}; expected one of {', '.join(SELECTIONS)}")
