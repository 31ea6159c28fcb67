"""Which examples to look at first.

* *Leverage*: the examples nobody reviewed yet where ONE label change (one context sentence toggled
  relevant or utilized, one response sentence's verdict flipped) moves a dataset-level metric the
  most, equal moves ordered by the example's own size of effect (:func:`own_effect`).
  :func:`single_changes` applies every candidate change and scores it; :func:`leverage_by_metric` gets the same
  deltas from each example's counts (:func:`best_moves`), without building a label set per candidate.
* *Disagreement*: the examples where two label sets (judge and human) differ on the most sentence
  decisions, ties broken by how far they move TRACe (:func:`disagreements`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ragviz.analysis.dashboard.move_sizes import best_move_sizes as best_move_sizes
from ragviz.analysis.labelsets.diff import ExampleDiff, diff_label_sets
from ragviz.analysis.labelsets.named import LabelSet
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

__all__ = [
    "Disagreement",
    "Leverage",
    "SingleChange",
    "best_moves",
    "disagreements",
    "leverage",
    "leverage_by_metric",
    "own_effect",
    "single_changes",
    "top_leverage",
]


@dataclass(frozen=True)
class SingleChange:
    """One candidate label change and the per-example metric delta it causes."""

    description: str
    field: str
    deltas: dict[str, float | None]


def single_changes(example: Example, labels: Labels) -> list[SingleChange]:
    """Every distinct one-step change of *labels* on *example* with its TRACe deltas, each applied with
    :func:`ragviz.data.labels.apply_change` and scored with :func:`ragviz.metrics.trace.trace_scores`.

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
            # exact keys, as best_moves counts them: a dotted copy ("0b.") is another key here
            add(f"{verb} {key} {what}", field, apply_change(labels, field, toggle_key(keys, key, exact=True)))
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


def best_moves(
    example: Example, labels: Labels, metrics: Sequence[str] = TRACE_METRICS
) -> dict[str, tuple[str, float]]:
    """Per metric, the change of :func:`single_changes` that moves it most (the first of equals,
    in that order) and its delta; metrics no change moves are left out.

    The deltas come from counts: with *r* / *u* the relevant / utilized list lengths, *S* the
    distinct keys in both and a sentence's copies *c_r*, *c_u*, toggling it relevant gives
    ``r - c_r`` (or ``r + 1``) and ``S - [c_u > 0]`` (or ``S + [c_u > 0]``), likewise utilized;
    flipping a response sentence's verdict changes adherence only, to 0 when the flipped sentence
    or any other support entry is then unsupported. Same arithmetic as ``trace_scores``, so the
    same floats."""
    n = example.n_context_sentences
    relevant, utilized = labels.relevant_keys, labels.utilized_keys
    r, u = len(relevant), len(utilized)
    rel_set, util_set = set(relevant), set(utilized)
    both = len(rel_set & util_set)

    def completeness(r_: int, s_: int) -> float:
        return 1.0 if not r_ else s_ / r_

    before = {
        "relevance": None if n == 0 else r / n,
        "utilization": None if n == 0 else u / n,
        "completeness": completeness(r, both),
    }
    best: dict[str, tuple[str, float]] = {}

    def offer(description: str, metric: str, after: float | None) -> None:
        if metric not in metrics:
            return
        old = before[metric] if metric != "adherence" else adherence_before
        delta = None if old is None or after is None else after - old
        if delta and (metric not in best or abs(delta) > abs(best[metric][1])):
            best[metric] = (description, delta)

    unsupported = set(unsupported_keys(labels))
    adherence_before = 0.0 if unsupported else 1.0
    seen: set[tuple[str, int, int]] = set()
    for key in example.context_keys():
        c_r, c_u = relevant.count(key) if key in rel_set else 0, utilized.count(key) if key in util_set else 0
        if (RELEVANT_FIELD, c_r, c_u) not in seen:
            seen.add((RELEVANT_FIELD, c_r, c_u))
            r2, s2 = (r - c_r, both - (c_u > 0)) if c_r else (r + 1, both + (c_u > 0))
            description = f"{'unmark' if c_r else 'mark'} {key} relevant"
            offer(description, "relevance", None if n == 0 else r2 / n)
            offer(description, "utilization", before["utilization"])
            offer(description, "completeness", completeness(r2, s2))
        if (UTILIZED_FIELD, c_r, c_u) not in seen:
            seen.add((UTILIZED_FIELD, c_r, c_u))
            u2, s2 = (u - c_u, both - (c_r > 0)) if c_u else (u + 1, both + (c_r > 0))
            description = f"{'unmark' if c_u else 'mark'} {key} utilized"
            offer(description, "relevance", before["relevance"])
            offer(description, "utilization", None if n == 0 else u2 / n)
            offer(description, "completeness", completeness(r, s2))
    if "adherence" in metrics:
        # A changed verdict drops the stored unsupported list: the per-sentence labels decide.
        flags = [s.supported is False or (s.supported is None and not s.supporting_keys) for s in labels.support]
        first: dict[str, int] = {}
        for position, entry in enumerate(labels.support):
            first.setdefault(entry.key, position)
        total = sum(flags)
        for key in example.response_keys():
            now_unsupported = key in unsupported
            replaced = first.get(key)
            others = total - (1 if replaced is not None and flags[replaced] else 0)
            after = 0.0 if (not now_unsupported or others) else 1.0
            offer(
                f"mark response sentence {key} {'supported' if now_unsupported else 'unsupported'}", "adherence", after
            )
    return {m: best[m] for m in metrics if m in best}


def top_leverage(
    sizes: Mapping[str, np.ndarray],
    moves: Callable[[int], dict[str, tuple[str, float]]],
    uid_of: Callable[[int], str],
    top: int = 20,
    reviewed: Collection[int] = (),
) -> dict[str, list[Leverage]]:
    """:func:`leverage_by_metric` from per-row move sizes (:func:`best_move_sizes`, NaN for an
    unlabeled row): per metric the *top* rows by ``|delta|``, ties by the row's own size of effect
    (:func:`own_effect`), then row order, leaving out the *reviewed* rows; each with the change and
    signed delta *moves* (:func:`best_moves` of that row) gives; only those rows are looked at."""
    out: dict[str, list[Leverage]] = {}
    found: dict[int, dict[str, tuple[str, float]]] = {}
    effect = np.zeros(len(next(iter(sizes.values()), ())))
    for metric in TRACE_METRICS:  # the order own_effect adds them in: the same floats
        if metric in sizes:
            effect = effect + np.nan_to_num(sizes[metric])
    left_out = np.asarray(sorted(reviewed), np.int64)
    for metric, values in sizes.items():
        n_labeled = int(np.count_nonzero(~np.isnan(values)))
        candidate = np.nan_to_num(values) > 0
        candidate[left_out[left_out < len(candidate)]] = False
        rows = np.flatnonzero(candidate)
        order = rows[np.lexsort((rows, -effect[rows], -values[rows]))][:top]
        listed = []
        for i in order.tolist():
            if i not in found:
                found[i] = moves(i)
            description, delta = found[i][metric]
            listed.append(Leverage(i, uid_of(i), metric, description, delta, delta / n_labeled))
        out[metric] = listed
    return out


def own_effect(moves: Mapping[str, tuple[str, float]]) -> float:
    """An example's own size of effect: how far its best single change for each TRACe metric moves
    that metric (:func:`best_moves`), summed. It orders examples whose best change moves the chosen
    metric's mean equally (every adherence flip moves it by 1/n): the one whose labels one change
    reshapes most comes first. RAGBench rows carry no judge confidence to order them by."""
    total = 0.0
    for metric in TRACE_METRICS:
        total = total + (abs(moves[metric][1]) if metric in moves else 0.0)
    return total


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
    items: Iterable[tuple[int, Example, Labels | None]],
    metrics: Sequence[str] = TRACE_METRICS,
    top: int = 20,
    reviewed: Collection[int] = (),
) -> dict[str, list[Leverage]]:
    """Per metric, the *top* examples whose best single change moves the dataset mean of that
    metric the most (``|Δ m_i| / n``, *n* = the labeled examples in *items*), largest first, ties
    by the example's own size of effect (:func:`own_effect`, largest first), then row order; the
    *reviewed* rows (someone already looked) are left out of the lists, not out of *n*.

    The dataset-level metric is the mean of the per-example metric over the labeled examples, so one change on
    example *i* moves it by :math:`\\Delta m_i / n`."""
    for metric in metrics:
        if metric not in TRACE_METRICS:
            raise ValueError(f"unknown metric {metric!r}; expected one of {', '.join(TRACE_METRICS)}")
    best: dict[str, list[tuple[int, str, str, float, float]]] = {m: [] for m in metrics}
    n_labeled = 0
    left_out = set(reviewed)
    for index, example, labels in items:
        if labels is None:
            continue
        n_labeled += 1
        if index in left_out:
            continue
        moves = best_moves(example, labels)
        for metric in metrics:
            if metric in moves:
                description, delta = moves[metric]
                best[metric].append((index, example.uid, description, delta, own_effect(moves)))
    out = {}
    for metric, found in best.items():
        found.sort(key=lambda t: (-abs(t[3]), -t[4], t[0]))
        out[metric] = [Leverage(i, uid, metric, desc, d, d / n_labeled) for i, uid, desc, d, _ in found[:top]]
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


def disagreements(
    dataset: Dataset,
    a: LabelSet,
    b: LabelSet,
    top: int | None = 20,
    examples: Mapping[int, Example] | None = None,
) -> list[Disagreement]:
    """Examples both sets cover, most differing sentence decisions first (ties: larger summed
    |Δ TRACe| first); examples where they agree are left out. *examples*: already-built examples
    by row index (:func:`ragviz.analysis.labelsets.diff.diff_label_sets`)."""
    out = []
    for d in diff_label_sets(dataset, a, b, examples=examples):
        total = sum(abs(v) for v in d.deltas.values() if v is not None)
        out.append(Disagreement(d.index, d.uid, d.n_changes, total, d))
    out.sort(key=lambda x: (-x.n_changes, -x.total_abs_delta, x.index))
    return out if top is None else out[:top]
