"""Cohen's kappa per pair of annotators and Fleiss' kappa over all of them, per sentence label, counted on a
round's table (:class:`ragviz.analysis.team.table.RoundTable`): the Team page's Annotators tab and ``ragviz
agreement --annotators`` (:func:`table_kappas`), the agreement over a store's decisions (:func:`annotator_agreement`).
The figures are what :func:`ragviz.analysis.agreement.pairwise_kappas` and
:func:`ragviz.analysis.agreement.multi_rater_kappas` give on every annotator's current labels (tests hold them equal).

Each decision is one sentence label (``relevant`` / ``utilized`` per context sentence, ``supported`` per
response sentence, one per distinct sentence key: :func:`ragviz.analysis.agreement.decisions`). On an example
counted on columns every annotator holds the row's labels, so each pair agrees on every decision: its
confusion counts are the example's true and false labels. The examples compared one by one add their values.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from ragviz.analysis.agreement import SENTENCE_LABELS, AnnotatorAgreement, MultiRaterKappa, PairKappa
from ragviz.analysis.stats import fleiss_kappa_of_sums, kappa_of_matrix
from ragviz.analysis.team.gold import ExampleRound
from ragviz.analysis.team.table import RoundTable, round_table
from ragviz.data.dataset import Dataset
from ragviz.data.model import Example
from ragviz.store.label_store import LabelStore

__all__ = ["annotator_agreement", "table_kappas"]


def _distinct(r: ExampleRound, label: str) -> list[int]:
    """The positions in *r*'s values of *label*'s units, one per distinct sentence key (the first)."""
    seen: set[str] = set()
    out = []
    for k, (kind, key) in enumerate(r.units):
        if kind == label and key not in seen:
            seen.add(key)
            out.append(k)
    return out


def _counted(table: RoundTable, in_round: bool) -> tuple[list[tuple[str, ...]], dict[str, int]]:
    """Per example, whose labels count (its holders; in a round none on an example nobody was assigned), and per
    annotator the decisions left out (on examples not assigned to them)."""
    left_out: dict[str, int] = {}
    holders = [table.holders(i) for i in range(len(table))]
    if in_round:
        for i, (assigned, done) in enumerate(zip(table.assigned, table.done)):
            if not assigned:
                holders[i] = ()
            if done != assigned:
                for who in done:
                    if who not in assigned:
                        left_out[who] = left_out.get(who, 0) + 1
    return holders, left_out


def table_kappas(
    table: RoundTable, labels: Sequence[str] = SENTENCE_LABELS, in_round: bool | None = None
) -> AnnotatorAgreement:
    """The annotators' agreement over *table* (module docstring); *in_round* (by default when the store held
    assignments: :attr:`~ragviz.analysis.team.table.RoundTable.in_round`): the round's, each annotator on the
    examples assigned to them (decisions outside counted per annotator in ``left_out``)."""
    in_round = table.in_round if in_round is None else in_round
    wrong = [label for label in labels if label not in SENTENCE_LABELS]
    if wrong:
        raise ValueError(f"annotator agreement counts sentence labels {SENTENCE_LABELS}, not {wrong}")
    kinds = [SENTENCE_LABELS.index(label) for label in labels]  # the table's unit column of each label
    holders, left_out = _counted(table, in_round)
    names = sorted({w for h in holders for w in h})
    code = {w: c for c, w in enumerate(names)}
    m = len(names)
    n_examples = np.zeros(m, np.int64)
    pair_examples = np.zeros((m, m), np.int64)
    # per pair (a < b) and label: the 2 x 2 confusion counts (a's label, b's label; False, True)
    cells = np.zeros((m, m, len(labels), 2, 2), np.int64)
    # Fleiss over the examples all annotators hold: items, sum of squares, totals (False, True)
    fleiss = np.zeros((len(labels), 4), np.int64)
    # the examples grouped by who holds labels on them (a round has few such sets): counted per group
    sets: dict[tuple[str, ...], int] = {}
    group = np.fromiter((sets.setdefault(h, len(sets)) if h else -1 for h in holders), np.int64, len(holders))
    codes_of = [sorted(code[w] for w in h) for h in sets]
    held = group >= 0
    per_group = np.bincount(group[held], minlength=len(sets))
    on = held & table.on_columns
    units = np.zeros((len(sets), len(labels)), np.int64)
    true = np.zeros((len(sets), len(labels)), np.int64)
    if on.any():
        np.add.at(units, group[on], table.units[on][:, kinds])
        np.add.at(true, group[on], table.true[on][:, kinds])
    n_common = 0
    for g, codes in enumerate(codes_of):
        n_examples[codes] += per_group[g]
        common = len(codes) == m
        n_common += int(per_group[g]) if common else 0
        for a, b in itertools.combinations(codes, 2):
            pair_examples[a, b] += per_group[g]
            cells[a, b, :, 1, 1] += true[g]
            cells[a, b, :, 0, 0] += units[g] - true[g]
        if common:  # on columns every item has all m raters on one side
            fleiss[:, 0] += units[g]
            fleiss[:, 1] += units[g] * m * m
            fleiss[:, 2] += m * (units[g] - true[g])
            fleiss[:, 3] += m * true[g]
    cell_codes: list[int] = []  # the compared examples' decisions, one code per (pair, label, a's, b's) counted
    for i in np.flatnonzero(held & ~table.on_columns).tolist():
        r, codes = table.compared[table.uids[i]], codes_of[group[i]]
        h = holders[i]
        for j, label in enumerate(labels):
            at = _distinct(r, label)
            values = {w: [bool(r.values[w][k]) for k in at] for w in h}
            for a, b in itertools.combinations(codes, 2):
                base = ((a * m + b) * len(labels) + j) * 4
                cell_codes += [base + 2 * x + y for x, y in zip(values[names[a]], values[names[b]])]
            if len(codes) == m:
                for yes in map(sum, zip(*values.values())):
                    fleiss[j] += (1, yes * yes + (m - yes) ** 2, m - yes, yes)
    if cell_codes:
        cells += np.bincount(cell_codes, minlength=cells.size).reshape(cells.shape)
    pairs = [
        PairKappa(
            names[a],
            names[b],
            label,
            int(pair_examples[a, b]),
            int(cells[a, b, j].sum()),
            kappa_of_matrix(cells[a, b, j]),
        )
        for a, b in itertools.combinations(range(m), 2)
        for j, label in enumerate(labels)
    ]
    overall = (
        [
            MultiRaterKappa(
                label,
                m,
                n_common,
                int(fleiss[j, 0]),
                fleiss_kappa_of_sums(int(fleiss[j, 0]), m, int(fleiss[j, 1]), [int(fleiss[j, 3]), int(fleiss[j, 2])]),
            )
            for j, label in enumerate(labels)
        ]
        if m >= 2
        else []
    )
    counted = {w: int(n_examples[c]) for w, c in code.items()}
    return AnnotatorAgreement(tuple(names), counted, pairs if m >= 2 else [], overall, dict(sorted(left_out.items())))


def annotator_agreement(
    dataset: Dataset,
    examples: Mapping[int, Example] | None,
    store: LabelStore | None,
    labels: Sequence[str] = SENTENCE_LABELS,
    assigned: Mapping[str, Sequence[str]] | None = None,
) -> AnnotatorAgreement:
    """Cohen's kappa per annotator pair and Fleiss' kappa overall, per sentence label (what
    :func:`ragviz.analysis.agreement.pairwise_kappas` / :func:`ragviz.analysis.agreement.multi_rater_kappas` give
    on every annotator's current labels), over the examples people decided on, counted on the round's table
    (:func:`table_kappas`: most examples on the data's columns; *examples* may hold
    some already built). With *assigned* (a team's round, uid -> its annotators): the round's agreement, each
    annotator on the examples assigned to them; decisions outside are left out, counted per annotator
    (``left_out``)."""
    if store is None:
        return AnnotatorAgreement((), {}, [], [], {})
    round_of = {uid: tuple(who) for uid, who in assigned.items()} if assigned is not None else {}
    table = round_table(dataset, store, assignees=round_of, examples=examples)
    return table_kappas(table, labels, in_round=assigned is not None)
