"""Review-session logic, free of Streamlit: what a sentence looks like, how the metrics moved, which
example comes next.

The Review page asks this module for *data* — spans ``(key, text, state)``, metric comparisons,
per-override deltas, filtered row indices — and hands it to :mod:`ragviz.ui` to draw. Everything
here is a small pure function so it is tested without a browser.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragviz.data.labels import (
    RELEVANT_FIELD,
    RESET_FIELD,
    REVIEW_FIELD,
    SUPPORT_PREFIX,
    UTILIZED_FIELD,
    apply_change,
    empty_labels,
    toggle_key,
)
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.summary import score_delta
from ragviz.metrics.trace import TRACE_METRICS, trace_deltas, trace_scores

# -- sentence states ------------------------------------------------------------------------------

BOTH = "both"
RELEVANT = "relevant"
UTILIZED = "utilized"
NEITHER = "neither"
CONTEXT_STATES = (BOTH, RELEVANT, UTILIZED, NEITHER)

SUPPORTED = "supported"
UNSUPPORTED = "unsupported"
UNDECIDED = "undecided"
SUPPORT_STATES = (SUPPORTED, UNSUPPORTED, UNDECIDED)


@dataclass(frozen=True)
class ContextSpan:
    """One context sentence as the page draws it; ``linked`` = it supports the selected response sentence."""

    key: str
    text: str
    state: str
    linked: bool = False


@dataclass(frozen=True)
class ResponseSpan:
    """One response sentence with its support verdict (``status`` in :data:`SUPPORT_STATES`)."""

    key: str
    text: str
    status: str
    supporting_keys: tuple[str, ...] = ()
    explanation: str = ""
    selected: bool = False


def context_state(key: str, relevant: set[str] | frozenset[str], utilized: set[str] | frozenset[str]) -> str:
    """``both`` / ``relevant`` / ``utilized`` / ``neither`` for one context key.

    >>> context_state("0a", {"0a"}, {"0a"}), context_state("0b", {"0a"}, set())
    ('both', 'neither')
    """
    r, u = key in relevant, key in utilized
    if r and u:
        return BOTH
    if r:
        return RELEVANT
    if u:
        return UTILIZED
    return NEITHER


def document_spans(
    example: Example, labels: Labels | None, selected_response_key: str | None = None
) -> list[list[ContextSpan]]:
    """Per document, its sentences as spans; a sentence supporting the selected response sentence is ``linked``."""
    relevant = frozenset(labels.relevant_keys) if labels else frozenset()
    utilized = frozenset(labels.utilized_keys) if labels else frozenset()
    linked: frozenset[str] = frozenset()
    if labels is not None and selected_response_key is not None:
        support = labels.support_for(selected_response_key)
        if support is not None:
            linked = frozenset(support.supporting_keys)
    return [
        [ContextSpan(s.key, s.text, context_state(s.key, relevant, utilized), s.key in linked) for s in doc]
        for doc in example.document_sentences
    ]


def support_status(labels: Labels | None, response_key: str) -> str:
    """``supported`` / ``unsupported`` / ``undecided`` for one response sentence.

    Follows :func:`ragviz.metrics.trace.unsupported_keys`, so the colour on screen is the verdict the
    adherence score counts: a sentence in the unsupported set is ``unsupported`` even when its
    per-sentence entry says otherwise (that disagreement is a label-quality flag).
    """
    if labels is None:
        return UNDECIDED
    if response_key in unsupported_keys(labels):
        return UNSUPPORTED
    support = labels.support_for(response_key)
    if support is None:
        return UNDECIDED
    return SUPPORTED


def response_spans(
    example: Example, labels: Labels | None, selected_response_key: str | None = None
) -> list[ResponseSpan]:
    spans = []
    for s in example.response_sentences:
        support = labels.support_for(s.key) if labels else None
        spans.append(
            ResponseSpan(
                key=s.key,
                text=s.text,
                status=support_status(labels, s.key),
                supporting_keys=support.supporting_keys if support else (),
                explanation=support.explanation if support else "",
                selected=s.key == selected_response_key,
            )
        )
    return spans


# -- editing helpers --------------------------------------------------------------------------------


def editable_labels(example: Example, labels: Labels | None) -> Labels:
    """The label set an edit starts from: *labels*, or a blank set for an unlabeled example."""
    return labels if labels is not None else empty_labels(example)


def context_table(example: Example, labels: Labels | None) -> list[dict[str, Any]]:
    """Rows ``{document, key, text, relevant, utilized}`` for the context-sentence editor."""
    relevant = set(labels.relevant_keys) if labels else set()
    utilized = set(labels.utilized_keys) if labels else set()
    return [
        {"document": d, "key": s.key, "text": s.text, "relevant": s.key in relevant, "utilized": s.key in utilized}
        for d, doc in enumerate(example.document_sentences)
        for s in doc
    ]


def context_edit_changes(
    example: Example, labels: Labels | None, edited_rows: Mapping[Any, Mapping[str, Any]]
) -> list[tuple[str, list[str]]]:
    """The ``(field, new key list)`` changes a context-editor edit asks for.

    *edited_rows* is the editor's ``{row index: {column: new value}}``. A ticked box adds the key, an
    unticked one removes every copy of it; keys the editor does not show (bogus judge keys) stay put.
    Fields whose list ends up unchanged are left out.
    """
    base = editable_labels(example, labels)
    keys = example.context_keys()
    lists = {RELEVANT_FIELD: list(base.relevant_keys), UTILIZED_FIELD: list(base.utilized_keys)}
    columns = {"relevant": RELEVANT_FIELD, "utilized": UTILIZED_FIELD}
    for row, edits in sorted(edited_rows.items(), key=lambda kv: int(kv[0])):
        i = int(row)
        if not 0 <= i < len(keys):
            continue
        for column, value in edits.items():
            field = columns.get(column)
            if field is None:
                continue
            present = keys[i] in lists[field]
            if bool(value) != present:
                lists[field] = toggle_key(lists[field], keys[i])
    original = {RELEVANT_FIELD: list(base.relevant_keys), UTILIZED_FIELD: list(base.utilized_keys)}
    return [(f, v) for f, v in lists.items() if v != original[f]]


_KEEP = object()


def support_value(
    labels: Labels | None, response_key: str, supported: Any = _KEEP, supporting_keys: Sequence[str] | None = None
) -> dict[str, Any]:
    """The ``support:<key>`` value after setting *supported* (``True``/``False``/``None``) and/or
    *supporting_keys*; what is not given is kept."""
    current = labels.support_for(response_key) if labels else None
    value = {
        "supported": current.supported if current else None,
        "supporting_keys": list(current.supporting_keys) if current else [],
        "explanation": current.explanation if current else "",
    }
    if supported is not _KEEP:
        value["supported"] = supported
    if supporting_keys is not None:
        value["supporting_keys"] = list(supporting_keys)
    return value


# -- live metrics ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class MetricComparison:
    """One TRACe metric under the judge's and the current labels, with the formula's counts."""

    name: str
    judge: float | None
    current: float | None
    formula: str

    @property
    def delta(self) -> float | None:
        return score_delta(self.judge, self.current)


def metric_formulas(labels: Labels | None, n_sentences: int) -> dict[str, str]:
    """Each TRACe formula with the counts filled in, e.g. ``"relevance = |R| / N = 4 / 6"``.

    >>> from ragviz.data.model import SentenceSupport
    >>> f = metric_formulas(Labels(("0b", "0c", "1a", "1b"), ("0b", "0c", "1a"), (SentenceSupport("c", False),)), 6)
    >>> f["relevance"], f["completeness"], f["adherence"]
    ('relevance = |R| / N = 4 / 6', 'completeness = |R ∩ U| / |R| = 3 / 4', 'adherence = 0 if any unsupported (c) else 1')
    """
    if labels is None:
        return {m: f"{m}: unlabeled" for m in TRACE_METRICS}
    r, u = labels.relevant_keys, labels.utilized_keys
    unsupported = unsupported_keys(labels)
    both = len(set(r) & set(u))
    completeness = (
        f"completeness = |R ∩ U| / |R| = {both} / {len(r)}" if r else "completeness = 1 (no relevant sentence)"
    )
    return {
        "relevance": f"relevance = |R| / N = {len(r)} / {n_sentences}",
        "utilization": f"utilization = |U| / N = {len(u)} / {n_sentences}",
        "completeness": completeness,
        "adherence": (
            f"adherence = 0 if any unsupported ({', '.join(unsupported)}) else 1"
            if unsupported
            else "adherence = 1 (no unsupported sentence)"
        ),
    }


def compare_metrics(example: Example, judge: Labels | None, current: Labels | None) -> list[MetricComparison]:
    """TRACe under the judge's labels and under the current labels, metric by metric."""
    n = example.n_context_sentences
    before, after = trace_scores(judge, n), trace_scores(current, n)
    formulas = metric_formulas(current, n)
    return [MetricComparison(m, getattr(before, m), getattr(after, m), formulas[m]) for m in TRACE_METRICS]


@dataclass(frozen=True)
class OverrideEffect:
    """What one effective change did: a readable description and the TRACe delta it caused."""

    step: int
    field: str
    description: str
    deltas: dict[str, float | None]


def describe_change(field: str, old: Labels | None, new_value: Any) -> str:
    """A one-line description of a change, e.g. ``"relevant +0d"``, ``"support c: supported → unsupported"``."""
    if field in (RELEVANT_FIELD, UTILIZED_FIELD):
        name = "relevant" if field == RELEVANT_FIELD else "utilized"
        before = list(getattr(old, field)) if old else []
        after = list(new_value or [])
        added = [k for k in dict.fromkeys(after) if k not in before]
        removed = [k for k in dict.fromkeys(before) if k not in after]
        parts = [f"+{k}" for k in added] + [f"−{k}" for k in removed]
        return f"{name} {' '.join(parts)}" if parts else f"{name} (reordered)"
    if field.startswith(SUPPORT_PREFIX):
        key = field[len(SUPPORT_PREFIX) :]
        before_status = support_status(old, key)
        value = new_value or {}
        after_status = {True: SUPPORTED, False: UNSUPPORTED}.get(value.get("supported"), UNDECIDED)
        if value.get("supported") is None and not value.get("supporting_keys"):
            after_status = UNSUPPORTED
        keys = ", ".join(value.get("supporting_keys") or []) or "none"
        return f"support {key}: {before_status} → {after_status} (keys: {keys})"
    if field == RESET_FIELD:
        return "reset to judge"
    return field


def override_effects(example: Example, base: Labels | None, changes: Iterable[tuple[str, Any]]) -> list[OverrideEffect]:
    """The TRACe delta each effective change caused, applied in order from the judge's labels.

    Deltas are sequential (each change against the labels just before it), so per metric they sum to
    the total current − judge delta. ``review`` markers change no label and are left out.
    """
    n = example.n_context_sentences
    labels: Labels | None = base
    effects = []
    for step, (field, value) in enumerate(changes, 1):
        if field == REVIEW_FIELD:
            continue
        if field == RESET_FIELD:
            new = base
        else:
            new = apply_change(editable_labels(example, labels), field, value)
        effects.append(
            OverrideEffect(
                step,
                field,
                describe_change(field, labels, value),
                trace_deltas(trace_scores(labels, n), trace_scores(new, n)),
            )
        )
        labels = new
    return effects


# -- filters, navigation, progress ----------------------------------------------------------------


@dataclass(frozen=True)
class ReviewFilter:
    """Which examples the navigation walks through; all off = every example."""

    unreviewed: bool = False
    corrected: bool = False
    adherence_zero: bool = False
    has_flags: bool = False
    subsets: tuple[str, ...] = ()

    @property
    def active(self) -> bool:
        return self.unreviewed or self.corrected or self.adherence_zero or self.has_flags or bool(self.subsets)


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
) -> list[int]:
    """Row indices that pass *flt*, in dataset order.

    *current_adherence* overrides the judge's adherence for examples a person changed, so
    "adherence 0" follows the current labels.
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


def progress(uid_set: set[str] | frozenset[str], reviewed: Iterable[str], corrected: Iterable[str]) -> Progress:
    """Reviewed / corrected counts among the loaded examples (the store may know other data sets too).

    Costs O(reviewed), not O(dataset).
    """
    return Progress(
        reviewed=sum(1 for u in reviewed if u in uid_set),
        corrected=sum(1 for u in corrected if u in uid_set),
        total=len(uid_set),
    )


def link_row(dataset: Any, uid: str | None = None, example_id: str | None = None) -> int | None:
    """Row a deep link opens: ``?uid=`` names one example; ``?id=`` the first row with that plain id
    (RAGBench repeats ids across generation models). *dataset* is a :class:`ragviz.data.dataset.Dataset`."""
    if uid:
        i = dataset.index_of(uid)
        if i is not None:
            return i
    if example_id:
        rows = dataset.indices_of_id(example_id)
        if rows:
            return rows[0]
    return None
