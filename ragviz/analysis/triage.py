"""Which examples to look at first.

* *Leverage*: the examples where ONE label change (one context sentence toggled relevant or
  utilized, one response sentence's verdict flipped) moves a dataset-level metric the most. The
  dataset-level metric is the mean of the per-example metric over the labeled examples, so one
  change on example *i* moves it by :math:`\\Delta m_i / n`. Every candidate change is applied with
  :func:`ragviz.data.labels.apply_change` and scored with :func:`ragviz.metrics.trace.trace_scores`.
* *Disagreement*: the examples where two label sets (judge and human) differ on the most sentence
  decisions, ties broken by how far they move TRACe.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragviz.analysis.compare import ExampleDiff, LabelSet, diff_label_sets
from ragviz.data.labels import (
    RELEVANT_FIELD,
    UTILIZED_FIELD,
    apply_change,
    support_field,
    toggle_key,
)
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.trace import TRACE_METRICS, trace_deltas, trace_scores

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset


@dataclass(frozen=True)
class SingleChange:
    """One candidate label change and the per-example metric delta it causes."""

    description: str
    field: str
    deltas: dict[str, float | None]


def single_changes(example: Example, labels: Labels) -> list[SingleChange]:
    """Every distinct one-step change of *labels* on *example* with its TRACe deltas.

    Context sentences with the same (copies in relevant, copies in utilized) counts move the
    scores identically, so one of each kind is tried; every response sentence is tried.
    """
    n = example.n_context_sentences
    before = trace_scores(labels, n)
    seen: set[tuple[str, int, int]] = set()
    out: list[SingleChange] = []

    def add(description: str, field: str, new: Labels) -> None:
        out.append(SingleChange(description, field, trace_deltas(before, trace_scores(new, n))))

    for key in example.context_keys():
        sig = (labels.relevant_keys.count(key), labels.utilized_keys.count(key))
        for field, keys in ((RELEVANT_FIELD, labels.relevant_keys), (UTILIZED_FIELD, labels.utilized_keys)):
            if (field, *sig) in seen:
                continue
            seen.add((field, *sig))
            what = "relevant" if field == RELEVANT_FIELD else "utilized"
            verb = "unmark" if key in keys else "mark"
            add(f"{verb} {key} {what}", field, apply_change(labels, field, toggle_key(keys, key)))
    unsupported = set(unsupported_keys(labels))
    for key in example.response_keys():
        s = labels.support_for(key)
        now_unsupported = key in unsupported
        value = {
            "supported": now_unsupported,
            "supporting_keys": list(s.supporting_keys) if s else [],
            "explanation": s.explanation if s else "",
        }
        verdict = "supported" if now_unsupported else "unsupported"
        add(
            f"mark response sentence {key} {verdict}",
            support_field(key),
            apply_change(labels, support_field(key), value),
        )
    return out


@dataclass(frozen=True)
class Leverage:
    """An example's single change with the largest effect on one metric."""

    index: int
    uid: str
    metric: str
    change: str
    example_delta: float
    dataset_delta: float


def leverage_by_metric(
    items: Iterable[tuple[int, Example, Labels | None]], metrics: Sequence[str] = TRACE_METRICS, top: int = 20
) -> dict[str, list[Leverage]]:
    """Per metric, the *top* examples whose best single change moves the dataset mean of that
    metric the most (``|Δ m_i| / n``, *n* = the labeled examples in *items*), largest first.
    Each example's candidate changes are scored once for every metric."""
    for metric in metrics:
        if metric not in TRACE_METRICS:
            raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(TRACE_METRICS)}")
    best: dict[str, list[tuple[int, str, str, float]]] = {m: [] for m in metrics}
    n_labeled = 0
    for index, example, labels in items:
        if labels is None:
            continue
        n_labeled += 1
        changes = single_changes(example, labels)
        for metric in metrics:
            moves = [(c.description, delta) for c in changes if (delta := c.deltas[metric])]
            if moves:
                description, delta = max(moves, key=lambda m: abs(m[1]))
                best[metric].append((index, example.uid, description, delta))
    out = {}
    for metric, found in best.items():
        found.sort(key=lambda t: (-abs(t[3]), t[0]))
        out[metric] = [Leverage(i, uid, metric, desc, d, d / n_labeled) for i, uid, desc, d in found[:top]]
    return out


def leverage(items: Iterable[tuple[int, Example, Labels | None]], metric: str, top: int = 20) -> list[Leverage]:
    """:func:`leverage_by_metric` for one *metric*."""
    return leverage_by_metric(items, (metric,), top)[metric]


@dataclass(frozen=True)
class Disagreement:
    """One example where two label sets differ: how many decisions, and the TRACe shift."""

    index: int
    uid: str
    n_changes: int
    total_abs_delta: float
    diff: ExampleDiff


def disagreements(dataset: Dataset, a: LabelSet, b: LabelSet, top: int | None = 20) -> list[Disagreement]:
    """Examples both sets cover, most differing sentence decisions first (ties: larger summed
    |Δ TRACe| first); examples where they agree are left out."""
    out = []
    for d in diff_label_sets(dataset, a, b):
        total = sum(abs(v) for v in d.deltas.values() if v is not None)
        out.append(Disagreement(d.index, d.uid, d.n_changes, total, d))
    out.sort(key=lambda x: (-x.n_changes, -x.total_abs_delta, x.index))
    return out if top is None else out[:top]
