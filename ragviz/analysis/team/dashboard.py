"""The annotator dashboard's figures (Team page, ``ragviz team status``): per annotator how much they decided,
how fast, and how often their sentence labels equal the gold labels, the other annotators' and the
judge's, per label kind; Krippendorff's alpha per label kind, overall and per guideline version."""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragviz.analysis.coverage import MIN_REVIEWED, too_few_words
from ragviz.analysis.team.alpha import ALPHA_KINDS, Alpha, alphas_of_counts, example_sums, unit_runs
from ragviz.analysis.team.gold import ADJUDICATED, AGREED, UNIT_KINDS, ExampleRound
from ragviz.analysis.team.table import RoundTable

__all__ = ["AnnotatorFigures", "Share", "TeamFigures", "table_alpha", "team_figures"]


@dataclass(frozen=True)
class Share:
    """How many of *n* sentence labels were equal, over how many *examples*."""

    equal: int = 0
    n: int = 0
    examples: int = 0

    @property
    def value(self) -> float | None:
        return self.equal / self.n if self.n else None

    @property
    def too_few(self) -> str | None:
        """The words said beside the share below :data:`~ragviz.analysis.coverage.MIN_REVIEWED` examples (the
        unit of the judge-vs-people figures: an example's sentence labels are made together), else ``None``.

        >>> Share(5, 6, 2).too_few, Share(50, 60, 10).too_few
        ('too few reviewed to say (2 of 10)', None)
        """
        return too_few_words(self.examples, MIN_REVIEWED) if self.n and self.examples < MIN_REVIEWED else None

    def add(self, equal: int, n: int, examples: int = 0) -> Share:
        return Share(self.equal + equal, self.n + n, self.examples + examples)

    def text(self) -> str:
        if self.value is None:
            return "—"
        return f"{self.value:.0%} of {self.n:,}" + (f", {self.too_few}" if self.too_few else "")


@dataclass(frozen=True)
class AnnotatorFigures:
    """One annotator's row: examples decided (among those in the round), median seconds per example, and
    per label kind the share of their sentence labels equal to the gold's, the others' and the judge's."""

    name: str
    decided: int
    median_seconds: float | None
    with_gold: dict[str, Share] = field(default_factory=dict)
    with_others: dict[str, Share] = field(default_factory=dict)
    with_judge: dict[str, Share] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        def shares(d: Mapping[str, Share]) -> dict[str, Any]:
            return {
                k: {"agreement": s.value, "n": s.n, "examples": s.examples, "too_few": s.too_few} for k, s in d.items()
            }

        return {
            "decided": self.decided,
            "median_seconds": self.median_seconds,
            "with_gold": shares(self.with_gold),
            "with_others": shares(self.with_others),
            "with_judge": shares(self.with_judge),
        }


@dataclass(frozen=True)
class TeamFigures:
    annotators: list[AnnotatorFigures]
    alpha: dict[str, Alpha]
    alpha_by_version: dict[int | None, dict[str, Alpha]]
    n_examples: int
    n_ready: int
    n_agreed: int
    n_adjudicated: int
    n_waiting: int


def _kind_counts(runs: Sequence[tuple[str, int, int]]) -> dict[str, tuple[int, int]]:
    """:func:`_compare` of two equal rows: every unit agrees."""
    out = dict.fromkeys(UNIT_KINDS, 0)
    for kind, start, end in runs:
        out[kind] += end - start
    return {k: (n, n) for k, n in out.items()}


def _compare(
    mine: Sequence[Any], other: Sequence[Any], runs: Sequence[tuple[str, int, int]]
) -> dict[str, tuple[int, int]]:
    """Per kind, the units (*runs*: :func:`ragviz.analysis.team.alpha.unit_runs`) where *mine* equals *other*,
    and the units."""
    out: dict[str, list[int]] = {k: [0, 0] for k in UNIT_KINDS}
    for kind, start, end in runs:
        cell = out[kind]
        cell[0] += sum(map(operator.eq, mine[start:end], other[start:end]))
        cell[1] += end - start
    return {k: (e, n) for k, (e, n) in out.items()}


def _compared_shares(rounds: Iterable[ExampleRound], acc: dict[str, dict[str, dict[str, Share]]]) -> None:
    """Add each labeller's equal / compared sentence labels on the examples compared one by one to *acc*."""
    for r in rounds:
        runs = unit_runs(r.units)
        agreed: dict[str, tuple[int, int]] | None = None  # the counts of two equal rows, once per example
        for who, mine in r.values.items():
            seen: set[tuple[str, str]] = set()  # (target, kind) counted for this example: each example once
            targets: list[tuple[str, Sequence[Any] | None]] = [("gold", r.gold_values), ("judge", r.judge_values)]
            targets += [("others", v) for other, v in r.values.items() if other != who]
            for what, theirs in targets:
                if theirs is None:
                    continue
                bucket = acc[who][what]
                if mine == theirs:
                    agreed = agreed if agreed is not None else _kind_counts(runs)
                counts = agreed if mine == theirs and agreed is not None else _compare(mine, theirs, runs)
                for kind, (e, n) in counts.items():
                    first = n > 0 and (what, kind) not in seen
                    seen.add((what, kind))
                    bucket[kind] = bucket.get(kind, Share()).add(e, n, int(first))


def _column_shares(table: RoundTable, acc: dict[str, dict[str, dict[str, Share]]]) -> None:
    """The same for the examples on columns: every labeller holds the row's labels, so each comparison is
    equal on every unit (with the judge: when the judge holds them)."""
    names = list(acc)
    code = {n: k for k, n in enumerate(names)}
    at, who, m = [], [], []
    for i in np.flatnonzero(table.on_columns).tolist():
        holders = table.holders(i)
        at += [i] * len(holders)
        who += [code[w] for w in holders]
        m += [len(holders)] * len(holders)
    pos, whose, many = np.asarray(at, np.int64), np.asarray(who, np.int64), np.asarray(m, np.int64)
    ready = table.ready_rows[pos]
    times = {"gold": ready.astype(np.int64), "judge": table.judged[pos].astype(np.int64), "others": many - 1}
    for what, k in times.items():
        made = np.bincount(whose, weights=k, minlength=len(names)) > 0
        per_kind = [np.bincount(whose, weights=table.units[pos, j] * k, minlength=len(names)) for j in range(4)]
        examples = [
            np.bincount(whose, weights=(table.units[pos, j] > 0) & (k > 0), minlength=len(names)) for j in range(4)
        ]
        for c in np.flatnonzero(made).tolist():
            bucket = acc[names[c]][what]
            for j, kind in enumerate(UNIT_KINDS):
                n = int(round(per_kind[j][c]))
                bucket[kind] = bucket.get(kind, Share()).add(n, n, int(round(examples[j][c])))


def _alpha_at(table: RoundTable, at: Sequence[int], n_boot: int) -> dict[str, Alpha]:
    """:func:`ragviz.analysis.team.alpha.round_alpha` over the examples at positions *at* (in order)."""
    if any(table.assigned[i] for i in at):
        at = [i for i in at if table.assigned[i]]
    holders = [table.holders(i) for i in at]
    sums: dict[str, dict[int, tuple[dict[Any, float], float]]] = {
        k: {} for k in ALPHA_KINDS
    }  # position in *at* -> that example's sums (compared examples)
    n_units = dict.fromkeys(ALPHA_KINDS, 0)
    columns = []
    for p, (i, h) in enumerate(zip(at, holders)):
        if len(h) < 2:
            continue
        if table.on_columns[i]:
            columns.append(p)
            continue
        for kind, (n_c, d, n) in example_sums(table.compared[table.uids[i]], ALPHA_KINDS).items():
            sums[kind][p] = (n_c, d)
            n_units[kind] += n
    cols = np.asarray(columns, np.int64)
    rows = np.asarray(at, np.int64)[cols]
    m = np.asarray([len(holders[p]) for p in columns], float)
    counts = {}
    for j, kind in enumerate(ALPHA_KINDS):
        categories = sorted(
            {c for n_c, _ in sums[kind].values() for c in n_c} | ({False, True} if columns else set()), key=repr
        )
        index = {c: k for k, c in enumerate(categories)}
        table_k = np.zeros((len(at), len(categories)))
        disagreement = np.zeros(len(at))
        for p, (n_c, d) in sums[kind].items():
            for c, v in n_c.items():
                table_k[p, index[c]] = v
            disagreement[p] = d
        if columns:
            n, t = table.units[rows, j], table.true[rows, j]
            table_k[cols, index[True]] = m * t
            table_k[cols, index[False]] = m * (n - t)
            n_units[kind] += int(n.sum())
        counts[kind] = (table_k, categories, disagreement, n_units[kind])
    return alphas_of_counts(counts, n_boot)


def table_alpha(table: RoundTable, n_boot: int = 1000) -> dict[str, Alpha]:
    """The round's alpha per label kind (:func:`ragviz.analysis.team.alpha.round_alpha`) over *table*
    (``ragviz agreement --annotators``, the Team page)."""
    return _alpha_at(table, range(len(table)), n_boot)


def team_figures(
    rounds: RoundTable | Mapping[str, ExampleRound],
    seconds: Mapping[str, float],
    versions: Mapping[tuple[str, str], int | None] | None = None,
    n_boot: int = 1000,
) -> TeamFigures:
    """The dashboard over *rounds* (:func:`ragviz.analysis.team.table.round_table`, or every example compared one
    by one: :func:`ragviz.analysis.team.gold.team_round`), with *seconds* (median per annotator,
    :func:`ragviz.analysis.team.progress.median_seconds`) and the guideline version of each annotator's last
    decision per example (*versions*, :meth:`ragviz.store.team.guidelines.TeamGuidelines.decision_versions`)."""
    table = rounds if isinstance(rounds, RoundTable) else RoundTable.from_rounds(rounds)
    n = len(table)
    names = sorted({w for i in range(n) for w in (*table.labellers(i), *table.done[i])})
    acc: dict[str, dict[str, dict[str, Share]]] = {w: {"gold": {}, "others": {}, "judge": {}} for w in names}
    decided = dict.fromkeys(names, 0)
    for done in table.done:
        for who in done:
            decided[who] += 1
    _compared_shares(table.compared.values(), acc)
    _column_shares(table, acc)
    figures = [
        AnnotatorFigures(w, decided.get(w, 0), seconds.get(w), acc[w]["gold"], acc[w]["others"], acc[w]["judge"])
        for w in names
    ]
    holders = [table.holders(i) for i in range(n)]
    by_version: dict[int | None, list[int]] = {}
    if versions is not None:
        for i, h in enumerate(holders):
            vs = {versions.get((table.uids[i], who)) for who in h}
            if len(h) >= 2 and len(vs) == 1:
                by_version.setdefault(next(iter(vs)), []).append(i)
    overall = table_alpha(table, n_boot)
    whole = [
        i for i, h in enumerate(holders) if len(h) >= 2 and table.assigned[i]
    ]  # what the round's alpha counted, mostly

    def alpha_of(at: list[int]) -> dict[str, Alpha]:
        # one guideline version for the whole round: its alpha is the round's (same examples, same draws)
        return overall if len(by_version) == 1 and at == whole else _alpha_at(table, at, n_boot)

    compared = list(table.compared.values())
    golds = [r.gold.source for r in compared if r.gold is not None]
    on_columns_ready = int((table.on_columns & table.ready_rows).sum())
    return TeamFigures(
        figures,
        overall,
        {v: alpha_of(at) for v, at in sorted(by_version.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))},
        n,
        sum(1 for r in compared if r.ready) + on_columns_ready,
        golds.count(AGREED) + on_columns_ready,
        golds.count(ADJUDICATED),
        sum(1 for r in compared if r.needs_adjudication),
    )
