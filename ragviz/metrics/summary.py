"""Dataset-level summaries of per-example metric records.

Aggregates only ever average the per-example values (one formula per metric lives in its family
module). A ``None`` value means *undefined for that example* (e.g. an unlabeled row): it is left out
of the mean and counted apart, so an unlabeled answer never pulls a mean up or down.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["ALL", "GroupSummary", "T", "format_summary", "score_delta", "subset_groups", "summarize"]


T = TypeVar("T")
ALL = "ALL"


@dataclass
class GroupSummary:
    """Means of *fields* over the examples of one group (``n`` examples, ``n_unlabeled`` of them
    with every field undefined)."""

    group: str
    n: int = 0
    n_unlabeled: int = 0
    sums: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def mean(self, name: str) -> float | None:
        c = self.counts.get(name, 0)
        return self.sums[name] / c if c else None

    def as_dict(self, fields: Sequence[str]) -> dict[str, Any]:
        return {
            "dataset": self.group,
            "n": self.n,
            "n_unlabeled": self.n_unlabeled,
            **{f: self.mean(f) for f in fields},
        }


def score_delta(before: float | None, after: float | None) -> float | None:
    """How far one metric moved between two label sets of the same example.

    .. math:: \\Delta m = m_{\\mathrm{after}} - m_{\\mathrm{before}}

    ``None`` when either value is undefined (an unlabeled side), never 0.

    >>> score_delta(0.5, 0.75), score_delta(None, 1.0)
    (0.25, None)
    """
    return None if before is None or after is None else after - before


def subset_groups(
    items: Iterable[T], subset_of: Callable[[T], str], with_all: bool = True
) -> list[tuple[str, list[T]]]:
    """*items* grouped by subset, groups sorted by name, then ``(ALL, every item)`` when there are
    several groups (and *with_all*).

    >>> subset_groups(["b1", "a1", "b2"], lambda s: s[0])
    [('a', ['a1']), ('b', ['b1', 'b2']), ('ALL', ['b1', 'a1', 'b2'])]
    """
    items = list(items)
    groups: dict[str, list[T]] = {}
    for item in items:
        groups.setdefault(subset_of(item), []).append(item)
    ordered = [(name, groups[name]) for name in sorted(groups)]
    if with_all and len(ordered) > 1:
        ordered.append((ALL, items))
    return ordered


def summarize(
    records: Iterable[Mapping[str, Any]], fields: Sequence[str], group_by: str = "dataset"
) -> list[GroupSummary]:
    """Per-group means of *fields*, groups sorted by name, plus an ``ALL`` group last.

    .. math:: \\bar m_g = \\frac{1}{|\\{i \\in g : m_i \\ne \\mathrm{null}\\}|} \\sum_{i \\in g,\\, m_i \\ne \\mathrm{null}} m_i
    """
    groups: dict[str, GroupSummary] = {}
    total = GroupSummary(ALL)
    for rec in records:
        g = groups.setdefault(str(rec.get(group_by, "")), GroupSummary(str(rec.get(group_by, ""))))
        for target in (g, total):
            target.n += 1
            values = [rec.get(f) for f in fields]
            if all(v is None for v in values):
                target.n_unlabeled += 1
            for f, v in zip(fields, values):
                if v is not None:
                    target.sums[f] = target.sums.get(f, 0.0) + float(v)
                    target.counts[f] = target.counts.get(f, 0) + 1
    return [groups[k] for k in sorted(groups)] + ([total] if groups else [])


def format_summary(summaries: Sequence[GroupSummary], fields: Sequence[str]) -> str:
    """A fixed-width text table of :func:`summarize` output (for the CLI's stderr)."""
    head = ["dataset", "n", "unlabeled", *fields]
    rows = [head]
    for s in summaries:
        rows.append(
            [s.group, str(s.n), str(s.n_unlabeled), *("-" if s.mean(f) is None else f"{s.mean(f):.4f}" for f in fields)]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join(
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows
    )
