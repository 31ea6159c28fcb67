"""The per-example diff of two label sets (:mod:`ragviz.analysis.labelsets.named`): keys added and removed,
verdicts flipped, and the TRACe change each example's difference causes."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragviz.analysis.labelsets.named import LabelSet
from ragviz.analysis.labelsets.rows import RowLabels
from ragviz.data.dataset import iter_examples
from ragviz.data.keys import clean_key
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.summary import score_delta
from ragviz.metrics.trace import TRACE_METRICS, trace_scores

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset

__all__ = ["DiffTotals", "ExampleDiff", "VerdictFlip", "diff_example", "diff_label_sets", "diff_totals"]


@dataclass(frozen=True)
class VerdictFlip:
    """A response sentence whose support verdict differs: ``before``/``after`` are
    ``"supported"``/``"unsupported"``."""

    key: str
    before: str
    after: str


@dataclass(frozen=True)
class ExampleDiff:
    """What changes from label set A to label set B on one example, and what it does to TRACe."""

    index: int
    uid: str
    relevant_added: tuple[str, ...]
    relevant_removed: tuple[str, ...]
    utilized_added: tuple[str, ...]
    utilized_removed: tuple[str, ...]
    verdicts_flipped: tuple[VerdictFlip, ...]
    before: dict[str, float | None]
    after: dict[str, float | None]

    @property
    def n_changes(self) -> int:
        return (
            len(self.relevant_added)
            + len(self.relevant_removed)
            + len(self.utilized_added)
            + len(self.utilized_removed)
            + len(self.verdicts_flipped)
        )

    @property
    def deltas(self) -> dict[str, float | None]:
        return {m: score_delta(self.before[m], self.after[m]) for m in TRACE_METRICS}

    def as_row(self) -> dict[str, object]:
        """One flat row for a table: keys joined by spaces, flips as ``c: supported→unsupported``."""
        return {
            "uid": self.uid,
            "changes": self.n_changes,
            "relevant +": " ".join(self.relevant_added),
            "relevant −": " ".join(self.relevant_removed),
            "utilized +": " ".join(self.utilized_added),
            "utilized −": " ".join(self.utilized_removed),
            "verdicts flipped": ", ".join(f"{f.key}: {f.before}→{f.after}" for f in self.verdicts_flipped),
            **{f"Δ {m}": d for m, d in self.deltas.items()},
        }


def _verdicts(example: Example, labels: Labels) -> dict[str, str]:
    unsupported = {clean_key(k) for k in unsupported_keys(labels)}
    return {k: "unsupported" if k in unsupported else "supported" for k in example.response_keys()}


def diff_example(index: int, example: Example, a: Labels, b: Labels) -> ExampleDiff:
    """The diff from *a* to *b* on *example* (keys cleaned with :func:`ragviz.data.keys.clean_key`)."""
    ra, rb = {clean_key(k) for k in a.relevant_keys}, {clean_key(k) for k in b.relevant_keys}
    ua, ub = {clean_key(k) for k in a.utilized_keys}, {clean_key(k) for k in b.utilized_keys}
    order = {k: n for n, k in enumerate(example.context_keys())}

    def keys(s: set[str]) -> tuple[str, ...]:
        return tuple(sorted(s, key=lambda k: (order.get(k, len(order)), k)))

    va, vb = _verdicts(example, a), _verdicts(example, b)
    flips = tuple(VerdictFlip(k, va[k], vb[k]) for k in example.response_keys() if va[k] != vb[k])
    n = example.n_context_sentences
    return ExampleDiff(
        index=index,
        uid=example.uid,
        relevant_added=keys(rb - ra),
        relevant_removed=keys(ra - rb),
        utilized_added=keys(ub - ua),
        utilized_removed=keys(ua - ub),
        verdicts_flipped=flips,
        before={m: getattr(trace_scores(a, n), m) for m in TRACE_METRICS},
        after={m: getattr(trace_scores(b, n), m) for m in TRACE_METRICS},
    )


@dataclass(frozen=True)
class DiffTotals:
    """Summed over several example diffs: keys added / removed per list and verdicts flipped."""

    relevant_added: int
    relevant_removed: int
    utilized_added: int
    utilized_removed: int
    verdicts_flipped: int


def diff_totals(diffs: Sequence[ExampleDiff]) -> DiffTotals:
    """The :class:`DiffTotals` of *diffs*."""
    return DiffTotals(
        relevant_added=sum(len(d.relevant_added) for d in diffs),
        relevant_removed=sum(len(d.relevant_removed) for d in diffs),
        utilized_added=sum(len(d.utilized_added) for d in diffs),
        utilized_removed=sum(len(d.utilized_removed) for d in diffs),
        verdicts_flipped=sum(len(d.verdicts_flipped) for d in diffs),
    )


def diff_label_sets(
    dataset: Dataset,
    a: LabelSet,
    b: LabelSet,
    only_changed: bool = True,
    examples: Mapping[int, Example] | None = None,
) -> list[ExampleDiff]:
    """Per example both sets cover (row order): the diff from *a* to *b*. A difference only in
    stored key spelling (``"0b."`` vs ``"0b"``) or explanations is not a change. With *only_changed*
    the rows where both sets hold the very same labels are skipped unbuilt (:meth:`LabelSet.differing_rows`).
    *examples*: already-built examples by row index, used where they have the row."""
    rows = a.differing_rows(b) if only_changed else a.shared_rows(b)
    for labels in (a.labels, b.labels):
        if isinstance(labels, RowLabels):
            labels.prefetch(rows)
    have = examples or {}
    out = []
    for i, ex in _examples_in_order(dataset, rows, have):
        d = diff_example(i, ex, a.labels[i], b.labels[i])
        if d.n_changes or not only_changed:
            out.append(d)
    return out


def _examples_in_order(
    dataset: Dataset, rows: Sequence[int], have: Mapping[int, Example]
) -> Iterator[tuple[int, Example]]:
    """``(row, example)`` for *rows* in that order: from *have* where it has the row, the others
    built a batch at a time as they come (:func:`iter_examples`)."""
    missing = iter_examples(dataset, [i for i in rows if i not in have])
    for i in rows:
        yield (i, have[i]) if i in have else next(missing)
