"""How the metrics moved on one example under review, free of Streamlit: TRACe under the judge's
and the current labels with each formula's counts filled in, and the TRACe change each override
caused, in order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ragviz.analysis.review.edits import SUPPORTED, UNDECIDED, UNSUPPORTED, editable_labels, support_status
from ragviz.data.labels import RELEVANT_FIELD, RESET_FIELD, REVIEW_FIELD, SUPPORT_PREFIX, UTILIZED_FIELD, apply_change
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.summary import score_delta
from ragviz.metrics.trace import TRACE_METRICS, trace_deltas, trace_scores

__all__ = [
    "MetricComparison",
    "OverrideEffect",
    "compare_metrics",
    "describe_change",
    "metric_formulas",
    "override_effects",
]


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

    def as_row(self) -> dict[str, Any]:
        """The effect as a table row: ``step``, ``change`` and one ``Δ <metric>`` column per metric."""
        return {"step": self.step, "change": self.description, **{f"Δ {k}": v for k, v in self.deltas.items()}}


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
        supported = value.get("supported")
        if supported is True:
            after_status = SUPPORTED
        elif supported is False or (supported is None and not value.get("supporting_keys")):
            after_status = UNSUPPORTED
        else:
            after_status = UNDECIDED
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
