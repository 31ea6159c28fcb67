"""One label set over a whole data set without an :class:`~ragviz.data.model.Example` per row.

A label set (:mod:`ragviz.analysis.labelsets.named`) gives most rows the labels a row already carries (its own
labels or the judge's ``llm_`` copy) and only a few the labels people decided on in the store. So
:class:`RowLabels` records per row only *where* its labels come from (:data:`NONE`, :data:`ROW`,
:data:`ROW_JUDGE`, :data:`STORE_JUDGE`, :data:`DECIDED`: one byte a row, decided on Arrow columns) and
builds a row's :class:`~ragviz.data.model.Labels` when it is asked for, from that row's label fields
alone (:func:`ragviz.data.ragbench.row_label_sets`, the function :func:`~ragviz.data.ragbench.example_from_row`
uses: the same labels). Two label sets whose row has the same source (not a decision) hold the same
labels there, so a diff skips it (:meth:`RowLabels.same_as`), and the rows whose labels are the row's
own (:meth:`RowLabels.own_rows`) can be scored on columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow.compute as pc

from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import LABEL_FIELDS, LLM_PREFIX, ROW_LABEL_FIELDS, row_label_sets

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset
    from ragviz.store.label_store import LabelStore

__all__ = ["DECIDED", "NONE", "ROW", "ROW_JUDGE", "RowLabels", "STORE_JUDGE", "human_rows", "label_rows", "row_sources"]


NONE, ROW, ROW_JUDGE, STORE_JUDGE, DECIDED = 0, 1, 2, 3, 4
_BATCH = 4096
_READ_AHEAD = 512
_MISSING: Any = object()


def _any_valid(dataset: Dataset, names: Iterable[str]) -> np.ndarray:
    """Per row: is any of the columns *names* set (a row "has labels" under those names)?"""
    out = np.zeros(len(dataset), bool)
    for name in names:
        if name in dataset.table.column_names:
            out |= np.asarray(pc.is_valid(dataset.table.column(name)).to_numpy(zero_copy_only=False), bool)
    return out


def human_rows(dataset: Dataset) -> np.ndarray:
    """Per row: does its ``label_source`` say ``human`` (a reviewed export)?"""
    if "label_source" not in dataset.table.column_names:
        return np.zeros(len(dataset), bool)
    return np.fromiter((v == "human" for v in dataset.table.column("label_source").to_pylist()), bool, len(dataset))


def row_sources(dataset: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """Per row, from the label columns: where the judge's labels come from (:data:`ROW` or
    :data:`ROW_JUDGE`, :data:`NONE` when the row has none) and whether the row's own labels are a
    person's (:func:`ragviz.data.ragbench.row_label_sets`, on columns)."""
    labelled = _any_valid(dataset, LABEL_FIELDS)
    copied = _any_valid(dataset, (LLM_PREFIX + f for f in LABEL_FIELDS))
    human = human_rows(dataset)
    judge = np.where(copied, ROW_JUDGE, np.where(labelled & ~human, ROW, NONE)).astype(np.int8)
    return judge, labelled & human


class RowLabels(Mapping[int, Labels]):
    """Row index -> :class:`Labels` of one label set (module docstring); built on access and kept.

    *source* holds per row where its labels come from; *decided* the labels of the
    :data:`DECIDED` rows; *store* answers the :data:`STORE_JUDGE` rows; *examples* (optional,
    row index -> Example) are used instead of the label columns when a caller already built them."""

    def __init__(
        self,
        dataset: Dataset,
        source: np.ndarray,
        decided: Mapping[int, Labels] | None = None,
        store: LabelStore | None = None,
        examples: Mapping[int, Example] | None = None,
    ):
        self.dataset = dataset
        self.source = source
        self._decided = decided if decided is not None else {}  # kept as given: it may build labels when asked
        self._store = store
        self._examples = examples
        self._built: dict[int, Labels | None] = {}
        self._next = 0  # the row after the last one asked for

    # -- Mapping -------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return int(np.count_nonzero(self.source))

    def __iter__(self) -> Iterator[int]:
        return iter(np.flatnonzero(self.source).tolist())

    def __contains__(self, i: object) -> bool:
        return isinstance(i, (int, np.integer)) and 0 <= int(i) < len(self.source) and bool(self.source[int(i)])

    def __getitem__(self, i: int) -> Labels:
        labels = self._built.get(i, _MISSING)
        if labels is _MISSING:
            if i not in self:
                raise KeyError(i)
            # a walk row after row reads ahead: it builds a batch at a time
            stop = i + _READ_AHEAD if i == self._next else i + 1
            ahead = np.flatnonzero(np.isin(self.source[i + 1 : stop], (ROW, ROW_JUDGE))) + i + 1
            self.prefetch([i, *ahead.tolist()])
            labels = self._built[i]
        self._next = i + 1
        if labels is None:  # a source that names labels always has them (row_sources decides on the same fields)
            raise KeyError(i)
        return labels

    def items(self) -> Iterator[tuple[int, Labels]]:  # type: ignore[override]  # batched, not an ItemsView
        """``(row, labels)`` in row order, built a batch at a time."""
        return self.items_of(list(self))

    def items_of(self, rows: Sequence[int]) -> Iterator[tuple[int, Labels]]:
        """``(row, labels)`` of the covered rows among *rows*, in that order, built a batch at a time."""
        for start in range(0, len(rows), _BATCH):
            part = [i for i in rows[start : start + _BATCH] if i in self]
            self.prefetch(part)
            for i in part:
                labels = self._built[i]
                if labels is not None:
                    yield i, labels

    # -- what the label set is made of ---------------------------------------------------------------
    def same_as(self, other: RowLabels, i: int) -> bool:
        """Both label sets hold the very same labels at row *i*: the same source, not a decision
        (two decisions may differ), over the same data."""
        s = self.source[i]
        return (
            other.dataset is self.dataset
            and s == other.source[i]
            and s in (ROW, ROW_JUDGE, STORE_JUDGE)
            and (s != STORE_JUDGE or other._store is self._store)
        )

    def own_rows(self) -> np.ndarray:
        """Per row: are its labels here the row's own, exactly what the row's label fields say
        (:data:`ROW`, or no labels for a row that has none)? Those rows can be scored on columns."""
        unlabelled = ~_any_valid(self.dataset, LABEL_FIELDS)
        return np.asarray((self.source == ROW) | ((self.source == NONE) & unlabelled), bool)

    def prefetch(self, rows: Sequence[int]) -> None:
        """Build the labels of *rows* not built yet, the label fields of all of them read at once."""
        todo = [i for i in rows if i not in self._built and i in self]
        from_rows = [i for i in todo if self.source[i] in (ROW, ROW_JUDGE)]
        for i in todo:
            s = self.source[i]
            if s == DECIDED:
                self._built[i] = self._decided[i]
            elif s == STORE_JUDGE:
                stored = self._store.judge.labels(self.dataset.uids[i]) if self._store is not None else None
                self._built[i] = stored if stored is not None else self._row_judge(i)
        if not from_rows:
            return
        if self._examples is not None and all(i in self._examples for i in from_rows):
            pairs = [(self._examples[i].labels, self._examples[i].judge_labels) for i in from_rows]
        else:
            pairs = [row_label_sets(row) for row in label_rows(self.dataset, from_rows)]
        for i, (own, judge) in zip(from_rows, pairs):
            self._built[i] = own if self.source[i] == ROW else judge

    def _row_judge(self, i: int) -> Labels | None:
        if self._examples is not None and i in self._examples:
            return self._examples[i].judge_labels
        return row_label_sets(label_rows(self.dataset, [i])[0])[1]


def label_rows(dataset: Dataset, rows: Sequence[int]) -> list[dict]:
    """The label fields (:data:`ragviz.data.ragbench.ROW_LABEL_FIELDS`) of *rows* as dicts, in that order,
    with ``response_sentences`` (keys written ``"a."`` are matched to their sentence, as on loading)."""
    return dataset.rows_at(rows, (*ROW_LABEL_FIELDS, "response_sentences"))
