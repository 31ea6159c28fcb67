"""Where the judge and people disagree, grouped by pattern: (subset, label kind, direction), with counts.

A *direction* says which way the judge erred on one decision: ``"judge yes, people no"`` (the judge said relevant
where people said not, ...) or ``"judge no, people yes"``. The Judge page lists the patterns largest first and,
under each, the examples showing it, so a lead can pick few-shot examples from the judge's typical mistakes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ragviz.analysis.agreement import ADHERENT, RELEVANT, SUPPORTED, UTILIZED
from ragviz.analysis.judge_compare.figures import KINDS, SUPPORTING, Triple, kind_decisions

__all__ = ["JUDGE_NO", "JUDGE_YES", "Pattern", "describe", "disagreement_patterns", "example_disagreements"]


JUDGE_YES = "judge yes, people no"
JUDGE_NO = "judge no, people yes"
_WORDS = {
    RELEVANT: ("relevant", "not relevant"),
    UTILIZED: ("utilized", "not utilized"),
    SUPPORTED: ("supported", "unsupported"),
    SUPPORTING: ("supporting", "not supporting"),
    ADHERENT: ("adherent", "not adherent"),
}


@dataclass(frozen=True)
class Pattern:
    """One pattern: how many decisions show it, in how many examples, which examples (most decisions first)."""

    subset: str
    kind: str
    direction: str
    n_decisions: int
    uids: tuple[str, ...]

    @property
    def n_examples(self) -> int:
        return len(self.uids)


def describe(kind: str, direction: str) -> str:
    """``"the judge said relevant where people said not relevant"``.

    >>> describe("supported", JUDGE_NO)
    'the judge said unsupported where people said supported'
    """
    yes, no = _WORDS[kind]
    said, truth = (yes, no) if direction == JUDGE_YES else (no, yes)
    return f"the judge said {said} where people said {truth}"


def example_disagreements(triple: Triple) -> dict[tuple[str, str], int]:
    """(kind, direction) -> how many of the example's decisions the judge got wrong that way."""
    example, people, judge = triple
    ref, cand = kind_decisions(example, people), kind_decisions(example, judge)
    out: dict[tuple[str, str], int] = {}
    for kind in KINDS:
        c = cand[kind]
        for key, truth in ref[kind].items():
            said = c.get(key, False)
            if said != truth:
                direction = JUDGE_YES if said else JUDGE_NO
                out[(kind, direction)] = out.get((kind, direction), 0) + 1
    return out


def disagreement_patterns(triples: Iterable[Triple]) -> list[Pattern]:
    """Every pattern over *triples*, the most decisions first (then subset, kind, direction)."""
    decided: dict[tuple[str, str, str], dict[str, int]] = {}
    for triple in triples:
        subset = triple[0].dataset
        for (kind, direction), n in example_disagreements(triple).items():
            decided.setdefault((subset, kind, direction), {})[triple[0].uid] = n
    patterns = [
        Pattern(subset, kind, direction, sum(by_uid.values()), tuple(sorted(by_uid, key=lambda u: (-by_uid[u], u))))
        for (subset, kind, direction), by_uid in decided.items()
    ]
    return sorted(patterns, key=lambda p: (-p.n_decisions, p.subset, KINDS.index(p.kind), p.direction))
