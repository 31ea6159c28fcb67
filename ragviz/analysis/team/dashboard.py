"""The annotator dashboard's figures (Team page, ``ragviz team status``): per annotator how much they decided,
how fast, and how often their sentence labels equal the gold labels, the other annotators' and the
judge's, per label kind; Krippendorff's alpha per label kind, overall and per guideline version."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragviz.analysis.team.alpha import Alpha, round_alpha
from ragviz.analysis.team.gold import ADJUDICATED, AGREED, UNIT_KINDS, ExampleRound

__all__ = ["AnnotatorFigures", "Share", "TeamFigures", "team_figures"]


@dataclass(frozen=True)
class Share:
    """How many of *n* sentence labels were equal."""

    equal: int = 0
    n: int = 0

    @property
    def value(self) -> float | None:
        return self.equal / self.n if self.n else None

    def add(self, equal: int, n: int) -> Share:
        return Share(self.equal + equal, self.n + n)

    def text(self) -> str:
        return "—" if self.value is None else f"{self.value:.0%} of {self.n:,}"


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
            return {k: {"agreement": s.value, "n": s.n} for k, s in d.items()}

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


def _kind_counts(units: Sequence[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """:func:`_compare` of two equal rows: every unit agrees."""
    out = dict.fromkeys(UNIT_KINDS, 0)
    for kind, _ in units:
        out[kind] += 1
    return {k: (n, n) for k, n in out.items()}


def _compare(mine: Sequence[Any], other: Sequence[Any], units: Sequence[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    out: dict[str, list[int]] = {k: [0, 0] for k in UNIT_KINDS}
    for (kind, _), a, b in zip(units, mine, other):
        cell = out[kind]
        cell[0] += a == b
        cell[1] += 1
    return {k: (e, n) for k, (e, n) in out.items()}


def team_figures(
    rounds: Mapping[str, ExampleRound],
    seconds: Mapping[str, float],
    versions: Mapping[tuple[str, str], int | None] | None = None,
    n_boot: int = 1000,
) -> TeamFigures:
    """The dashboard over *rounds* (:func:`ragviz.analysis.team.gold.team_round`), with *seconds* (median per
    annotator, :func:`ragviz.analysis.team.progress.median_seconds`) and the guideline version of each
    annotator's last decision per example (*versions*,
    :meth:`ragviz.store.team.guidelines.TeamGuidelines.decision_versions`)."""
    names = sorted({n for r in rounds.values() for n in (*r.labellers, *r.done)})
    acc: dict[str, dict[str, dict[str, Share]]] = {n: {"gold": {}, "others": {}, "judge": {}} for n in names}
    decided = dict.fromkeys(names, 0)
    for r in rounds.values():
        for who in r.done:
            decided[who] = decided.get(who, 0) + 1
        agreed: dict[str, tuple[int, int]] | None = None  # the counts of two equal rows, once per example
        for who, mine in r.values.items():
            targets: list[tuple[str, Sequence[Any] | None]] = [("gold", r.gold_values), ("judge", r.judge_values)]
            targets += [("others", v) for other, v in r.values.items() if other != who]
            for what, theirs in targets:
                if theirs is None:
                    continue
                bucket = acc[who][what]
                if mine == theirs:
                    agreed = agreed if agreed is not None else _kind_counts(r.units)
                counts = agreed if mine == theirs and agreed is not None else _compare(mine, theirs, r.units)
                for kind, (e, n) in counts.items():
                    bucket[kind] = bucket.get(kind, Share()).add(e, n)
    figures = [
        AnnotatorFigures(n, decided.get(n, 0), seconds.get(n), acc[n]["gold"], acc[n]["others"], acc[n]["judge"])
        for n in names
    ]
    by_version: dict[int | None, list[ExampleRound]] = {}
    if versions is not None:
        for r in rounds.values():
            vs = {versions.get((r.uid, who)) for who in r.values}
            if len(r.values) >= 2 and len(vs) == 1:
                by_version.setdefault(next(iter(vs)), []).append(r)
    golds = [r.gold for r in rounds.values() if r.gold is not None]
    overall = round_alpha(rounds.values(), n_boot=n_boot)
    whole = [r for r in rounds.values() if len(r.values) >= 2 and r.assigned]  # what round_alpha counted, mostly

    def alpha_of(rs: list[ExampleRound]) -> dict[str, Alpha]:
        # one guideline version for the whole round: its alpha is the round's (same examples, same draws)
        return overall if len(by_version) == 1 and rs == whole else round_alpha(rs, n_boot=n_boot)

    return TeamFigures(
        figures,
        overall,
        {v: alpha_of(rs) for v, rs in sorted(by_version.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))},
        len(rounds),
        sum(1 for r in rounds.values() if r.ready),
        sum(1 for g in golds if g.source == AGREED),
        sum(1 for g in golds if g.source == ADJUDICATED),
        sum(1 for r in rounds.values() if r.needs_adjudication),
    )
