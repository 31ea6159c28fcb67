"""The round's gold labels over the whole loaded data (:func:`round_gold`): the gold label set (``--labels
gold``, the Dashboard's and Export page's ``gold``) and ``ragviz export --labels gold``.

An example compared one by one has its :class:`~ragviz.analysis.team.gold.Gold` in its
:class:`~ragviz.analysis.team.gold.ExampleRound`. An example counted on columns
(:class:`~ragviz.analysis.team.table.RoundTable`) is gold when it is ready: its labellers all hold the row's
labels, so they agreed, and its gold labels are the row's with the labellers as who and their latest decision
as when (what :func:`ragviz.analysis.team.gold.team_round` gives). Those labels are built from the row's label
fields when asked for, a batch of rows at a time.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ragviz.analysis.team.gold import AGREED, Gold
from ragviz.analysis.team.table import RoundTable
from ragviz.data.dataset import Dataset
from ragviz.data.model import Labels, Provenance
from ragviz.data.ragbench import ROW_LABEL_FIELDS, row_label_sets

__all__ = ["GoldLabels", "RoundGold", "round_gold"]


_BATCH = 2048
_MISSING: Any = object()


class RoundGold(Mapping[str, Gold]):
    """uid -> :class:`~ragviz.analysis.team.gold.Gold` of every example of the round with gold labels, in row
    order (module docstring)."""

    def __init__(self, dataset: Dataset, table: RoundTable):
        self._dataset = dataset
        self._table = table
        self._order: list[str] = []
        self._on_columns: dict[str, int] = {}  # uid -> its position in the table
        self._built: dict[str, Gold] = {}
        agreed = (table.on_columns & table.ready_rows).tolist()
        for i, uid in enumerate(table.uids):
            if agreed[i]:
                self._order.append(uid)
                self._on_columns[uid] = i
            elif (r := table.compared.get(uid)) is not None and r.gold is not None:
                self._order.append(uid)
                self._built[uid] = r.gold
        self._rank = {uid: k for k, uid in enumerate(self._order)}

    def __len__(self) -> int:
        return len(self._order)

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __contains__(self, uid: object) -> bool:
        return uid in self._rank

    def __getitem__(self, uid: str) -> Gold:
        gold = self._built.get(uid, _MISSING)
        if gold is _MISSING:
            if uid not in self._on_columns:
                raise KeyError(uid)
            start = self._rank[uid]  # a walk in row order reads ahead: the next rows' labels at once
            self._build([u for u in self._order[start : start + _BATCH] if u not in self._built])
            gold = self._built[uid]
        return gold

    def agreed_on_columns(self, uid: str) -> tuple[str, str | None] | None:
        """Who agreed on example *uid* and when, if it is gold counted on columns (its gold labels are the
        row's as loaded: an export may write them from the data's columns); ``None`` otherwise."""
        i = self._on_columns.get(uid)
        if i is None:
            return None
        return ", ".join(sorted(self._table.labellers(i))), self._table.decided_at[i]  # one order, whoever came first

    def _build(self, uids: list[str]) -> None:
        todo = [u for u in uids if u in self._on_columns]
        rows = [self._dataset.index_of(u) for u in todo]
        fields = self._dataset.rows_at([r for r in rows if r is not None], (*ROW_LABEL_FIELDS, "response_sentences"))
        for uid, row in zip(todo, fields):
            own, _ = row_label_sets(row)
            assert own is not None  # counted on columns: the row is labelled
            who, at = self.agreed_on_columns(uid) or ("", None)
            self._built[uid] = Gold(own.replace(provenance=Provenance("human", who, at)), AGREED, who, at)

    def rows(self) -> GoldLabels:
        """The gold labels by row index (a label set's labels)."""
        return GoldLabels(self)


class GoldLabels(Mapping[int, Labels]):
    """Row index -> the gold labels of :class:`RoundGold` (built when asked for, as there)."""

    def __init__(self, gold: RoundGold):
        self._gold = gold
        index = gold._dataset.index_of
        self._uid = {row: uid for uid in gold if (row := index(uid)) is not None}

    def __len__(self) -> int:
        return len(self._uid)

    def __iter__(self) -> Iterator[int]:
        return iter(self._uid)

    def __contains__(self, row: object) -> bool:
        return row in self._uid

    def __getitem__(self, row: int) -> Labels:
        return self._gold[self._uid[row]].labels


def round_gold(dataset: Dataset, table: RoundTable) -> RoundGold:
    """The gold labels of the round *table* over *dataset* (module docstring)."""
    return RoundGold(dataset, table)
