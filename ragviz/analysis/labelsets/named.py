"""Label sets by name: which labels count for an example under a
:class:`~ragviz.analysis.labelsets.selection.LabelSelection` (:func:`resolve_label_set` over a dataset,
:func:`judge_labels` / :func:`human_labels` for one example, :func:`label_sets` for a picker's options). The
per-example diff of two sets is :mod:`ragviz.analysis.labelsets.diff`.

With ``scope="reviewed"`` a set holds only the examples its labels come from (a person decided on them, or the
judge version labelled them): what an agreement figure should count; with ``scope="all"`` every other example
falls back to the judge's labels (what a dataset-level metric "after corrections" uses).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeGuard

import numpy as np

from ragviz.analysis.labelsets.rows import DECIDED, ROW, STORE_JUDGE, RowLabels, row_sources
from ragviz.analysis.labelsets.selection import GOLD, HUMAN, JUDGE, LabelSelection, offered, store_annotator
from ragviz.data.dataset import examples_at
from ragviz.data.model import Example, Labels

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset
    from ragviz.store.label_store import LabelStore

__all__ = [
    "GOLD",
    "HUMAN",
    "JUDGE",
    "LabelSet",
    "Scope",
    "human_labels",
    "judge_labels",
    "judge_labels_of",
    "label_sets",
    "resolve_label_set",
    "store_rows",
]


Scope = Literal["reviewed", "all"]


def label_sets(store: LabelStore | None) -> list[LabelSelection]:
    """``llm``, ``human``, ``gold`` (when a team round was assigned) and every annotator with a decision in
    *store*: what a label-set picker offers, in order."""
    if store is None:
        return [JUDGE, HUMAN]

    return offered(store.annotators(), gold=bool(store.team.assignments.assignment_version()))


def judge_labels(example: Example, store: LabelStore | None) -> Labels | None:
    """The judge's labels of *example*: the store's latest judge label set for its uid, else
    :func:`judge_labels_of` the example. The one definition every page, the CLI and export use."""
    stored = store.judge.labels(example.uid) if store is not None else None
    return judge_labels_of(example, stored)


def judge_labels_of(example: Example, stored_judge: Labels | None) -> Labels | None:
    """The judge's labels when the store's latest judge label set for *example* is already known
    (*stored_judge*, ``None`` when the store has none): that set, else ``example.judge_labels``
    (set by :func:`ragviz.data.ragbench.example_from_row` to the ``llm_`` copy of a reviewed export, to
    the labels of a judge-labelled row, and to ``None`` for human labels without ``llm_`` copies).
    Labels a person made are never the judge's."""
    return stored_judge if stored_judge is not None else example.judge_labels


def _is_human(labels: Labels | None) -> TypeGuard[Labels]:
    return labels is not None and labels.provenance.source == "human"


def human_labels(
    example: Example, store: LabelStore | None, whose: LabelSelection = HUMAN
) -> tuple[Labels | None, str]:
    """The human labels of one example and whose they are: with *whose* an annotator, their current labels
    when they decided on it; with ``human``, every annotator's latest decision per field (the row's reviewer
    is whoever decided last); else the row's own labels when a person made them. ``(None, "")`` when no
    person labelled it."""
    if whose.kind not in ("human", "annotator"):
        raise ValueError(f"human_labels reads people's labels, not {whose.name!r}")
    if store is not None:
        if whose.is_person:
            status = store.status(example.uid, whose.annotator)
            if status.reviewed:
                return store.current_labels(example, whose.annotator), whose.annotator
        else:
            team = store.team_labels(example)
            if team.reviewer is not None:
                return team.labels, team.reviewer
    own = example.labels
    if not whose.is_person and _is_human(own):
        return own, own.provenance.name or "file"
    return None, ""


@dataclass(frozen=True)
class LabelSet:
    """One named label set over a dataset: ``labels[row index]``; rows it does not cover are absent."""

    name: str
    labels: Mapping[int, Labels] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.labels)

    def shared_rows(self, other: LabelSet) -> list[int]:
        """Row indices both label sets cover, in row order."""
        a, b = self.labels, other.labels
        if isinstance(a, RowLabels) and isinstance(b, RowLabels) and len(a.source) == len(b.source):
            return np.flatnonzero((a.source != 0) & (b.source != 0)).tolist()
        return sorted(a.keys() & b.keys())

    def differing_rows(self, other: LabelSet) -> list[int]:
        """The shared rows where the two sets may hold different labels: all of them, except the rows
        where both hold the very same labels (:meth:`ragviz.analysis.labelsets.rows.RowLabels.same_as`)."""
        a, b = self.labels, other.labels
        rows = self.shared_rows(other)
        if isinstance(a, RowLabels) and isinstance(b, RowLabels):
            return [i for i in rows if not a.same_as(b, i)]
        return rows


def resolve_label_set(
    dataset: Dataset,
    selection: LabelSelection,
    store: LabelStore | None = None,
    scope: Scope = "reviewed",
    examples: Mapping[int, Example] | None = None,
) -> LabelSet:
    """The label set *selection* names over *dataset*: ``llm``, the judge's labels (:func:`judge_labels`: the
    latest judge label set in the store, else the ``llm_`` copy a reviewed export carries, else the labels of a
    judge-labelled row); ``human``, per example and label field the latest decision of any annotator
    (:meth:`ragviz.store.label_store.LabelStore.team_labels`, what the team's export writes), else a row's own
    labels when its ``label_source`` is ``human``; ``gold``, the labels an example's annotators all agreed on or
    an adjudicator settled (:mod:`ragviz.analysis.team.gold`); one annotator's current labels; ``judge:NAME``,
    per example the latest label set judge version NAME stored. *scope*: see the module docstring. Its labels are a
    :class:`~ragviz.analysis.labelsets.rows.RowLabels`: where each row's labels come from is decided on
    the label columns, and a row's labels are built when asked for (only the decided rows' examples
    are built here). *examples* may hold already-built examples by row index (their labels are then
    used instead of the label columns)."""
    judge_source, human_own = row_sources(dataset)
    source = np.zeros(len(dataset), np.int8)
    if selection == JUDGE or scope == "all":
        source = judge_source.copy()
        judged = store.judge.judged_uids() if store is not None else set()
        if judged:
            source[np.fromiter((uid in judged for uid in dataset.uids), bool, len(dataset))] = STORE_JUDGE
    if selection == HUMAN:
        source[human_own] = ROW
    decided: dict[int, Labels] = {}
    if selection == GOLD and store is not None:
        from ragviz.analysis.team.gold_set import round_gold
        from ragviz.analysis.team.table import current_round_table

        gold = round_gold(dataset, current_round_table(dataset, store)).rows()  # built when a row is asked for
        source[list(gold)] = DECIDED
        return LabelSet(selection.label(), RowLabels(dataset, source, gold, store, examples))
    elif selection.kind == "version" and store is not None:
        if not selection.prompt_version:
            raise ValueError(f"{selection.name}: check the judge version against the store first")
        for uid, stored in store.judge.of_prompt(selection.prompt_version).items():
            if (row := dataset.index_of(uid)) is not None:
                decided[row] = stored
                source[row] = DECIDED
    elif selection.kind in ("human", "annotator") and store is not None:
        whose = store_annotator(selection)
        assert whose is not None
        reviewed = [uid for uid, st in store.statuses(whose).items() if st.reviewed]
        found = [row for uid in reviewed if (row := dataset.index_of(uid)) is not None]
        built = examples_at(dataset, found, examples)  # a batch at a time, not one row each
        for row in found:
            if selection == HUMAN:
                team = store.team_labels(built[row])  # every annotator's latest decision per field
                labels = team.labels if team.reviewer is not None else None
            else:
                labels = store.current_labels(built[row], whose)
            if labels is not None:
                decided[row] = labels
                source[row] = DECIDED
    return LabelSet(selection.label(), RowLabels(dataset, source, decided, store, examples))


def store_rows(dataset: Dataset, store: LabelStore | None) -> list[int]:
    """The rows of *dataset* whose labels the store decides somewhere (in row order): those an
    annotator decided on, and those with a stored judge label set. Every label set builds an
    Example for these rows only (:func:`resolve_label_set`), so building them once serves all."""
    if store is None:
        return []
    uids = set(store.judge.judged_uids())
    for who in store.annotators():
        uids.update(uid for uid, status in store.statuses(who).items() if status.reviewed)
    return sorted(row for uid in uids if (row := dataset.index_of(uid)) is not None)


# -- the diff ------------------------------------------------------------------------------------------
