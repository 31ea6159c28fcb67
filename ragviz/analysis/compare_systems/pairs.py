"""Pairing two systems' answers to the same question.

A *system* is a value of a column (``generation_model_name`` by default: RAGBench's delucionqa and emanual hold
two generation models' answers to each question, the same ``id`` on both rows) or one of two data sets given as
``A=PATH B=PATH``. A *question* is a value of the pair-by column (``id`` by default) within its subset
(``dataset_name``), except when the subset is itself the system column or the systems are two files: then the
pair-by value alone (:func:`column_answers`, :func:`file_answers`). Each question with exactly one answer from each
of the two systems is a :class:`QuestionPair`; every other answer is listed in :attr:`SystemPairs.unpaired` with
the reason and left out, never matched by guess. The inputs are the same per-answer values every other estimate
reads (:class:`Answer`), so nothing here computes a metric.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ragviz.analysis.estimates.pairing import PairedExample, Pairing
from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput

__all__ = [
    "DEFAULT_PAIR_BY",
    "DEFAULT_SYSTEM",
    "FILE_SYSTEMS",
    "Answer",
    "CompareError",
    "QuestionPair",
    "SystemPairs",
    "Unpaired",
    "column_answers",
    "column_values",
    "file_answers",
    "pair_systems",
    "systems_of",
]


DEFAULT_SYSTEM = "generation_model_name"
DEFAULT_PAIR_BY = "id"
FILE_SYSTEMS = "file"  # the "column" of two data sets given as A=PATH B=PATH


class CompareError(BadInput):
    """A comparison that cannot be made, in one line."""


@dataclass(frozen=True)
class Answer:
    """One system's answer to one question: *question* is the pairing key, *subset* its ``dataset_name``; the
    example is a :class:`ragviz.analysis.estimates.pairing.PairedExample` (the judge's metrics and, when audited,
    people's)."""

    system: str
    question: str
    subset: str
    example: PairedExample


@dataclass(frozen=True)
class QuestionPair:
    """Both systems' answers to one question (*a* from system A, *b* from system B)."""

    question: str
    subset: str
    a: PairedExample
    b: PairedExample

    @property
    def audited(self) -> bool:
        """People reviewed both answers: the question is in the audit."""
        return self.a.audited and self.b.audited

    @property
    def half_audited(self) -> bool:
        return self.a.audited != self.b.audited


@dataclass(frozen=True)
class Unpaired:
    """An answer left out of the comparison and why."""

    system: str
    question: str
    where: str
    reason: str


@dataclass
class SystemPairs:
    """The questions both systems answered, the answers left out, and what a reader must know."""

    a: str
    b: str
    system: str  # the column the systems are values of, or FILE_SYSTEMS
    pair_by: str
    pairs: list[QuestionPair]
    unpaired: list[Unpaired] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def n_audited(self) -> int:
        return sum(1 for p in self.pairs if p.audited)

    def subsets(self) -> list[str]:
        return sorted({p.subset for p in self.pairs})

    def notes(self) -> list[str]:
        """The unpaired answers (counted, the first few named) and the half-reviewed questions."""
        out = list(self.warnings)
        if self.unpaired:
            first = "; ".join(
                f"{_file_row(u.where)} ({u.system}, {self.pair_by} {u.question}): {u.reason}" for u in self.unpaired[:3]
            )
            more = f" and {len(self.unpaired) - 3:,} more" if len(self.unpaired) > 3 else ""
            out.append(f"{len(self.unpaired):,} answers have no pair and are left out: {first}{more}")
        half = sum(1 for p in self.pairs if p.half_audited)
        if half:
            out.append(
                f"{half:,} questions have only one of their two answers reviewed: judge-only until the other is "
                "(review both answers of each drawn question)"
            )
        return out


def _file_row(where: str) -> str:
    """``FILE:ROW`` without the folder (the notes reach reports and the app, which never show a server's paths).

    >>> _file_row("/srv/data/run.jsonl:12")
    'run.jsonl:12'
    """
    return os.path.basename(where)


def column_values(dataset: Dataset, column: str, what: str = "--system") -> list[str]:
    """The text of *column* per row (a null is ``""``); :class:`CompareError` when the data has no such column."""
    if column not in dataset.table.column_names:
        known = ", ".join(c for c in dataset.table.column_names if not c.startswith("_"))
        raise CompareError(f"no column {column!r} in the data (columns: {known})", field=what)
    return ["" if v is None else str(v) for v in dataset.table.column(column).to_pylist()]


def column_answers(
    dataset: Dataset, pairing: Pairing, system: str = DEFAULT_SYSTEM, pair_by: str = DEFAULT_PAIR_BY
) -> list[Answer]:
    """Each row of *dataset* as an :class:`Answer`: its *system* column's value and its question (*pair_by* within
    ``dataset_name``, or *pair_by* alone when the systems are the subsets); *pairing* has one example per row, in
    row order (as every pairing of :mod:`ragviz.analysis.estimates.pairing` does)."""
    if len(pairing.examples) != len(dataset):
        raise ValueError(f"the pairing has {len(pairing.examples)} examples for {len(dataset)} rows")
    systems = column_values(dataset, system, "--system")
    keys = column_values(dataset, pair_by, "--pair-by")
    subsets = dataset.datasets
    within = system != "dataset_name"
    return [
        Answer(systems[i], f"{subsets[i]}/{keys[i]}" if within else keys[i], subsets[i], e)
        for i, e in enumerate(pairing.examples)
    ]


def file_answers(named: Sequence[tuple[str, Dataset, Pairing]], pair_by: str = DEFAULT_PAIR_BY) -> list[Answer]:
    """The answers of two (or more) data sets, each its own system named by its ``NAME=PATH``; a question is the
    *pair_by* value alone (the two files may name their subsets differently)."""
    out: list[Answer] = []
    for name, dataset, pairing in named:
        keys = column_values(dataset, pair_by, "--pair-by")
        out.extend(Answer(name, keys[i], dataset.datasets[i], e) for i, e in enumerate(pairing.examples))
    return out


def systems_of(answers: Iterable[Answer]) -> list[str]:
    """The systems in first-seen order."""
    return list(dict.fromkeys(a.system for a in answers))


def _choose(found: list[str], a: str | None, b: str | None, system: str) -> tuple[str, str]:
    shown = ", ".join(repr(s) for s in found[:8]) + (f" and {len(found) - 8} more" if len(found) > 8 else "")
    if len(found) < 2:
        only = repr(found[0]) if found else "none"
        raise CompareError(
            f"one system only ({only}): a comparison needs two (another --system COLUMN, or two data sets as "
            "A=PATH B=PATH)",
            field=system,
        )
    if a is None and b is None:
        if len(found) > 2:
            raise CompareError(f"{len(found)} systems ({shown}): name the two to compare (--compare A B)", field=system)
        return found[0], found[1]
    for name in (a, b):
        if name not in found:
            raise CompareError(f"no system {name!r} (systems: {shown})", field=system)
    assert a is not None and b is not None
    if a == b:
        raise CompareError(f"compare two different systems, not {a!r} with itself", field=system)
    return a, b


def pair_systems(
    answers: Sequence[Answer],
    a: str | None = None,
    b: str | None = None,
    system: str = DEFAULT_SYSTEM,
    pair_by: str = DEFAULT_PAIR_BY,
    need_labels: bool = True,
) -> SystemPairs:
    """Pair system *a*'s and *b*'s answers by question (both ``None``: the two systems found; module docstring).

    One line (:class:`CompareError`) for one system only, more than two without a choice, a system not found, no
    question both answered, and (with *need_labels*) a paired answer without the judge's labels (its difference is
    undefined; drawing an audit needs no labels).
    A question answered twice by one system, or by one system only, is listed as unpaired."""
    a, b = _choose(systems_of(answers), a, b, system)
    by_question: dict[str, dict[str, list[Answer]]] = {}
    for answer in answers:
        if answer.system in (a, b):
            by_question.setdefault(answer.question, {}).setdefault(answer.system, []).append(answer)
    pairs: list[QuestionPair] = []
    unpaired: list[Unpaired] = []
    for question, found in by_question.items():
        mine, theirs = found.get(a, []), found.get(b, [])
        if len(mine) == 1 and len(theirs) == 1:
            pairs.append(QuestionPair(question, mine[0].subset, mine[0].example, theirs[0].example))
            continue
        for name, side, other in ((a, mine, theirs), (b, theirs, mine)):
            if len(side) > 1:
                reason = f"{len(side)} answers of {name} to this question"
            elif len(other) > 1:
                reason = f"{len(other)} answers of {_other(a, b, name)} to this question"
            else:
                reason = f"no answer of {_other(a, b, name)}"
            unpaired.extend(Unpaired(name, question, ans.example.where or ans.example.uid, reason) for ans in side)
    if not pairs:
        raise CompareError(f"{a!r} and {b!r} share no question (paired by {pair_by}): nothing to compare", field=system)
    for p in pairs if need_labels else ():
        for name, member in ((a, p.a), (b, p.b)):
            if not member.judge:
                raise CompareError(
                    f"the answer of {name} to question {p.question} has no judge labels, so its pair cannot be "
                    "compared: label it (ragviz label) or leave the question out",
                    path=member.where or member.uid,
                    field="labels",
                )
    return SystemPairs(a, b, system, pair_by, pairs, unpaired)


def _other(a: str, b: str, name: str) -> str:
    return b if name == a else a
