"""Which example the Review page shows, free of Streamlit: the filters, stepping forwards and
backwards, the next unreviewed example, review progress and the row a deep link or a saved
position opens.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragviz.store.label_store import LabelStore

__all__ = [
    "Progress",
    "ReviewFilter",
    "RowColumns",
    "audit_position_text",
    "filter_indices",
    "link_matches",
    "nearest_match",
    "neighbours",
    "next_unreviewed",
    "order_neighbours",
    "pair_neighbours",
    "pair_rows",
    "paired_position_text",
    "position_text",
    "store_progress",
    "resume_row",
    "review_status",
    "step",
]


@dataclass(frozen=True)
class ReviewFilter:
    """Which examples the navigation walks through; all off = every example."""

    unreviewed: bool = False
    corrected: bool = False
    adherence_zero: bool = False
    has_flags: bool = False
    subsets: tuple[str, ...] = ()
    judge_unsure: bool = False  # the judge's own confidence (its samples) is low

    @property
    def active(self) -> bool:
        return (
            self.unreviewed
            or self.corrected
            or self.adherence_zero
            or self.has_flags
            or bool(self.subsets)
            or self.judge_unsure
        )


@dataclass(frozen=True)
class RowColumns:
    """Per-row columns computed once per dataset: identity, subset, judge adherence, flag count."""

    uids: Sequence[str]
    subsets: Sequence[str]
    adherence: Sequence[float | None]
    flag_counts: Sequence[int]


def filter_indices(
    columns: RowColumns,
    flt: ReviewFilter,
    reviewed: set[str] | frozenset[str],
    corrected: set[str] | frozenset[str],
    current_adherence: Mapping[str, float | None] | None = None,
    unsure: set[str] | frozenset[str] = frozenset(),
) -> list[int]:
    """Row indices that pass *flt*, in dataset order.

    *current_adherence* overrides the judge's adherence for examples a person changed, so
    "adherence 0" follows the current labels; *unsure* holds the examples the judge is unsure of.
    """
    if not flt.active:
        return list(range(len(columns.uids)))
    subsets = set(flt.subsets)
    current_adherence = current_adherence or {}
    out = []
    for i, uid in enumerate(columns.uids):
        if flt.unreviewed and uid in reviewed:
            continue
        if flt.corrected and uid not in corrected:
            continue
        if subsets and columns.subsets[i] not in subsets:
            continue
        if flt.adherence_zero:
            adh = current_adherence[uid] if uid in current_adherence else columns.adherence[i]
            if adh != 0.0:
                continue
        if flt.has_flags and not columns.flag_counts[i]:
            continue
        if flt.judge_unsure and uid not in unsure:
            continue
        out.append(i)
    return out


def step(indices: Sequence[int], current: int, direction: int) -> int | None:
    """The row after (``direction=1``) or before (``-1``) *current* among sorted *indices*; ``None`` at the end.

    *current* need not be in *indices* (a filter may have just excluded it).

    >>> step([2, 5, 9], 5, 1), step([2, 5, 9], 5, -1), step([2, 5, 9], 6, 1), step([2, 5, 9], 9, 1)
    (9, 2, 9, None)
    """
    if direction > 0:
        pos = bisect.bisect_right(indices, current)
        return indices[pos] if pos < len(indices) else None
    pos = bisect.bisect_left(indices, current) - 1
    return indices[pos] if pos >= 0 else None


def next_unreviewed(
    uids: Sequence[str], reviewed: set[str] | frozenset[str], current: int, allowed: Sequence[int] | None = None
) -> int | None:
    """The first row after *current* (wrapping round) whose uid is not reviewed; ``None`` when all are.

    Cost grows with the distance walked, not with the dataset (reviewed rows are skipped one by one).
    """
    candidates = allowed if allowed is not None else range(len(uids))
    n = len(candidates)
    if n == 0:
        return None
    if allowed is not None:
        start = bisect.bisect_right(allowed, current)
    else:
        start = current + 1
    for offset in range(n):
        i = candidates[(start + offset) % n]
        if i != current and uids[i] not in reviewed:
            return i
    return None


def neighbours(allowed: Sequence[int] | None, current: int, total: int) -> tuple[int | None, int | None]:
    """The rows Previous and Next open from *current*: among *allowed* (sorted) when a filter is on,
    else among all *total* rows; ``None`` where there is none.

    >>> neighbours([2, 5, 9], 5, 10), neighbours(None, 0, 3)
    ((2, 9), (None, 1))
    """
    walk = allowed if allowed is not None else range(total)
    return step(walk, current, -1), step(walk, current, 1)


def order_neighbours(order: Sequence[int], current: int) -> tuple[int | None, int | None]:
    """The rows Previous and Next open from *current* walking *order* as it stands (an audit
    sample's draw order, not sorted); from a row not in it, Next opens its first row.

    >>> order_neighbours([9, 2, 5], 2), order_neighbours([9, 2, 5], 9), order_neighbours([9, 2, 5], 7)
    ((9, 5), (None, 2), (None, 9))
    """
    if current not in order:
        return None, order[0] if order else None
    i = list(order).index(current)
    return (order[i - 1] if i > 0 else None), (order[i + 1] if i + 1 < len(order) else None)


def pair_rows(order: Sequence[int], current: int) -> tuple[int, int] | None:
    """The two rows of *current*'s question in a paired sample's draw *order* (system A's answer, then B's, question
    after question), ``None`` when *current* is not in it.

    >>> pair_rows([9, 2, 5, 7], 5), pair_rows([9, 2, 5, 7], 2), pair_rows([9, 2, 5, 7], 4)
    ((5, 7), (9, 2), None)
    """
    if current not in order:
        return None
    i = list(order).index(current)
    first = i - i % 2
    return (order[first], order[first + 1]) if first + 1 < len(order) else None


def pair_neighbours(order: Sequence[int], current: int) -> tuple[int | None, int | None]:
    """The rows Previous and Next open in a paired sample: the first answer of the question before and after
    *current*'s (J / K walk questions, not answers); from a row not in it, Next opens the first question.

    >>> pair_neighbours([9, 2, 5, 7], 2), pair_neighbours([9, 2, 5, 7], 7), pair_neighbours([9, 2, 5, 7], 4)
    ((None, 5), (9, None), (None, 9))
    """
    questions = list(order)[::2]
    if current not in order:
        return None, questions[0] if questions else None
    q = list(order).index(current) // 2
    return (questions[q - 1] if q > 0 else None), (questions[q + 1] if q + 1 < len(questions) else None)


def paired_position_text(sample_id: int, member: int | None, size: int, reviewed: int | None) -> str:
    """:func:`audit_position_text` for a paired sample, counted in questions (two answers each).

    >>> paired_position_text(3, 5, 40, 6), paired_position_text(3, 5, 40, None)
    ('Audit sample #3: question 3 of 20, 6 of 40 answers reviewed', 'Audit sample #3: question 3 of 20')
    """
    if member is None:
        return audit_position_text(sample_id, None, size, reviewed)
    done = "" if reviewed is None else f", {reviewed:,} of {size:,} answers reviewed"
    return f"Audit sample #{sample_id}: question {member // 2 + 1:,} of {size // 2:,}{done}"


def audit_position_text(sample_id: int, member: int | None, size: int, reviewed: int | None) -> str:
    """Where the page is in an audit sample: *member* is the 0-based place of the example on screen
    in the sample's draw order (``None``: it is not a member); *reviewed* ``None`` leaves the review count
    out (a presentation that hides which examples were corrected).

    >>> audit_position_text(3, 48, 100, 6), audit_position_text(3, None, 100, 6)
    ('Audit sample #3: member 49 of 100, 6 reviewed', 'Audit sample #3: not a member (100 members, 6 reviewed)')
    >>> audit_position_text(3, 48, 100, None), audit_position_text(3, None, 100, None)
    ('Audit sample #3: member 49 of 100', 'Audit sample #3: not a member (100 members)')
    """
    done = "" if reviewed is None else f", {reviewed:,} reviewed"
    if member is None:
        return f"Audit sample #{sample_id}: not a member ({size:,} members{done})"
    return f"Audit sample #{sample_id}: member {member + 1:,} of {size:,}{done}"


def nearest_match(allowed: Sequence[int] | None, current: int) -> int | None:
    """Where to move when a filter changes: ``None`` when *current* still matches (or nothing does),
    else the next matching row, wrapping round to the first.

    >>> nearest_match([2, 5, 9], 5), nearest_match([2, 5, 9], 6), nearest_match([2, 5, 9], 10), nearest_match([], 3)
    (None, 9, 2, None)
    """
    if not allowed or current in allowed:
        return None
    after = step(allowed, current, 1)
    return after if after is not None else allowed[0]


def position_text(current: int, total: int, allowed: Sequence[int] | None) -> str:
    """Where the page is, e.g. ``"Example 6 of 22 · filter: 2 of 3 match"`` (``–`` when *current*
    does not match the filter).

    >>> position_text(5, 22, None), position_text(5, 22, [2, 5, 9]), position_text(6, 22, [2, 5, 9])
    ('Example 6 of 22', 'Example 6 of 22 · filter: 2 of 3 match', 'Example 7 of 22 · filter: – of 3 match')
    """
    where = f"Example {current + 1:,} of {total:,}"
    if allowed is None:
        return where
    pos = bisect.bisect_left(allowed, current)
    matched = pos < len(allowed) and allowed[pos] == current
    return where + f" · filter: {pos + 1 if matched else '–'} of {len(allowed):,} match"


def review_status(uid: str, reviewed: set[str] | frozenset[str], corrected: set[str] | frozenset[str]) -> str:
    """``corrected``, ``reviewed`` or ``not reviewed yet`` for one example."""
    if uid in corrected:
        return "corrected"
    return "reviewed" if uid in reviewed else "not reviewed yet"


@dataclass(frozen=True)
class Progress:
    reviewed: int
    corrected: int
    total: int

    @property
    def fraction(self) -> float:
        return self.reviewed / self.total if self.total else 0.0

    def __str__(self) -> str:
        return f"{self.reviewed:,} / {self.total:,} reviewed ({self.corrected:,} corrected)"


def store_progress(store: LabelStore, annotator: str, uid_set: frozenset[str]) -> Progress:
    """*annotator*'s progress on the examples *uid_set* (the open data: the store may know other data too), from the
    counts the store keeps up to date (:meth:`ragviz.store.label_store.LabelStore.review_counts`): a page that shows
    it on every run does not count over every decision, nor copy the reviewed set."""
    reviewed, corrected = store.review_counts(annotator, uid_set)
    return Progress(reviewed=reviewed, corrected=corrected, total=len(uid_set))


def link_matches(
    dataset: Any,
    uid: str | None = None,
    example_id: str | None = None,
    subset: str | None = None,
    model: str | None = None,
) -> list[int]:
    """Rows a deep link names: ``?uid=`` one example; ``?id=`` every row with that plain id (RAGBench
    repeats ids across subsets and generation models), narrowed by ``&dataset=`` (*subset*) and
    ``&model=`` (*model*) when given. More than one row: the page lets the person choose.
    *dataset* is a :class:`ragviz.data.dataset.Dataset`."""
    if uid:
        i = dataset.index_of(uid)
        if i is not None:
            return [i]
    if not example_id:
        return []
    rows = dataset.indices_of_id(example_id)
    if subset:
        subsets = dataset.datasets
        rows = [i for i in rows if subsets[i] == subset]
    if model:
        models = dataset.generation_models
        rows = [i for i in rows if models[i] == model]
    return rows


def resume_row(dataset: Any, saved_uid: str | None) -> int:
    """Row a session opens without a link: the annotator's saved position (*saved_uid*) when it is
    loaded, else the first row. *dataset* is a :class:`ragviz.data.dataset.Dataset`."""
    return (dataset.index_of(saved_uid) if saved_uid else None) or 0
