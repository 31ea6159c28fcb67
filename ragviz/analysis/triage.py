"""Which examples to look at first.

* *Leverage*: the examples where ONE label change (one context sentence toggled relevant or
  utilized, one response sentence's verdict flipped) moves a dataset-level metric the most. The
  dataset-level metric is the mean of the per-example metric over the labeled examples, so one
  change on example *i* moves it by :math:`\\Delta m_i / n`. :func:`single_changes` applies every
  candidate change with :func:`ragviz.data.labels.apply_change` and scores it with
  :func:`ragviz.metrics.trace.trace_scores`; :func:`leverage_by_metric` gets the same deltas from
  each example's counts (:func:`best_moves`), without building a label set per candidate.
* *Disagreement*: the examples where two label sets (judge and human) differ on the most sentence
  decisions, ties broken by how far they move TRACe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.analysis.compare import ExampleDiff, LabelSet, diff_label_sets
from ragviz.data.label_columns import LabelColumns, array_of, support_flags
from ragviz.data.labels import (
    RELEVANT_FIELD,
    UTILIZED_FIELD,
    apply_change,
    support_field,
    toggle_key,
)
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import RELEVANT, SUPPORT, UNSUPPORTED, UTILIZED, unsupported_keys
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


def _string_codes(*arrays: pa.Array) -> tuple[list[np.ndarray], int]:
    """Integer codes of the strings of *arrays* under one dictionary (a null is the text ``None``,
    as ``str`` makes it), and the dictionary's size."""
    parts = [array_of(pc.fill_null(pc.cast(a, pa.string()), pa.scalar("None"))) for a in arrays if len(a)]
    joined = pa.concat_arrays(parts) if parts else pa.array([], pa.string())
    if not len(joined):
        return [np.zeros(0, np.int64) for _ in arrays], 1
    encoded = cast(pa.DictionaryArray, pc.dictionary_encode(joined))
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), np.int64)
    out, start = [], 0
    for a in arrays:
        out.append(codes[start : start + len(a)])
        start += len(a)
    return out, len(encoded.dictionary)


def _flat(lists: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """The values of a list array and the row each belongs to."""
    rows = np.asarray(pc.list_parent_indices(lists).to_numpy(zero_copy_only=False), np.int64)
    return array_of(pc.list_flatten(lists)), rows


def _sentence_keys(table: pa.Table, name: str, nested: bool) -> tuple[pa.Array, np.ndarray]:
    """The keys of the keyed ``[key, text]`` sentences in column *name* (documents of sentences when
    *nested*), in row order, and each key's row; none when the column is absent."""
    if name not in table.column_names or pa.types.is_null(table.schema.field(name).type):
        return pa.array([], pa.string()), np.zeros(0, np.int64)
    keys, rows, start = [], [], 0
    for chunk in table.column(name).chunks:  # chunk by chunk: the texts are never copied
        pairs, chunk_rows = _flat(chunk)
        if nested:
            pairs, doc_rows = _flat(pairs)
            chunk_rows = chunk_rows[doc_rows]
        keys.append(
            array_of(pc.cast(pc.list_element(pairs, 0), pa.string())) if len(pairs) else pa.array([], pa.string())
        )
        rows.append(chunk_rows + start)
        start += len(chunk)
    if not keys:
        return pa.array([], pa.string()), np.zeros(0, np.int64)
    return pa.concat_arrays(keys), np.concatenate(rows)


def _counts_at(pairs: np.ndarray, of: np.ndarray) -> np.ndarray:
    """How many times each of *of* occurs in *pairs*."""
    found, counts = np.unique(pairs, return_counts=True)
    if not len(found):
        return np.zeros(len(of), np.int64)
    at = np.minimum(np.searchsorted(found, of), len(found) - 1)
    return np.where(found[at] == of, counts[at], 0)


def _row_max(values: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """Per row, the largest of *values* (grouped by *rows*, non-decreasing); 0.0 for a row with none."""
    out = np.zeros(n)
    if len(values):
        starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
        out[rows[starts]] = np.maximum.reduceat(values, starts)
    return out


def best_move_sizes(table: pa.Table, labels: LabelColumns, n_context: np.ndarray) -> dict[str, np.ndarray]:
    """Per row of *table*, per TRACe metric: ``|delta|`` of the change :func:`best_moves` picks for
    the row's labels (*labels*: :func:`ragviz.data.label_columns.label_columns` of *table*), 0.0 when
    no change moves the metric, NaN for an unlabeled row; computed on columns, with the same float
    arithmetic, so the same values (tests/test_dashboard_columns.py checks it on the shards).

    Every context sentence is a candidate (its copies *c_r*, *c_u* in the relevant / utilized lists
    give the deltas of :func:`best_moves`; a later sentence with the same copies moves the metric
    identically, so taking the largest over all of them is taking it over one of each kind). A
    response sentence flips adherence when the example is adherent now (to 0), or when it is
    counted unsupported and no other support entry is (to 1). Only the size is computed here: the
    change itself (its description) comes from :func:`best_moves` for the few rows a list shows."""
    n = table.num_rows
    ctx, ctx_rows = _sentence_keys(table, "documents_sentences", nested=True)
    resp, resp_rows = _sentence_keys(table, "response_sentences", nested=False)
    rel, rel_rows = _flat(labels.columns[RELEVANT])
    util, util_rows = _flat(labels.columns[UTILIZED])
    unsup, unsup_rows = _flat(labels.columns[UNSUPPORTED])
    entries, entry_rows = _flat(labels.columns[SUPPORT])
    entry_keys = pc.struct_field(entries, "response_sentence_key") if len(entries) else pa.array([], pa.string())
    (c_ctx, c_rel, c_util, c_resp, c_unsup, c_entry), width = _string_codes(ctx, rel, util, resp, unsup, entry_keys)

    def pairs(rows: np.ndarray, codes: np.ndarray) -> np.ndarray:
        return rows * width + codes

    at = pairs(ctx_rows, c_ctx)
    c_r, c_u = _counts_at(pairs(rel_rows, c_rel), at), _counts_at(pairs(util_rows, c_util), at)
    r, u = labels.n_relevant[ctx_rows], labels.n_utilized[ctx_rows]
    both, n_k = labels.n_overlap[ctx_rows], np.asarray(n_context, np.int64)[ctx_rows]
    has_r, has_u = (c_r > 0).astype(np.int64), (c_u > 0).astype(np.int64)

    def completeness(r_: np.ndarray, s_: np.ndarray) -> np.ndarray:
        return np.where(r_ == 0, 1.0, s_ / np.maximum(r_, 1))

    with np.errstate(divide="ignore", invalid="ignore"):
        relevance = np.abs(np.where(has_r > 0, (r - c_r) / n_k, (r + 1) / n_k) - r / n_k)
        utilization = np.abs(np.where(has_u > 0, (u - c_u) / n_k, (u + 1) / n_k) - u / n_k)
    before = completeness(r, both)
    r2 = np.where(has_r > 0, r - c_r, r + 1)
    s_rel = np.where(has_r > 0, both - has_u, both + has_u)
    s_util = np.where(has_u > 0, both - has_r, both + has_r)
    comp = np.maximum(np.abs(completeness(r2, s_rel) - before), np.abs(completeness(r, s_util) - before))

    # adherence: adherent now -> any response sentence turns it to 0; else a sentence counted
    # unsupported with no other flagged support entry (its own first entry excepted) turns it to 1
    flags = support_flags(cast(pa.StructArray, entries)) if len(entries) else np.zeros(0, bool)
    total = np.bincount(entry_rows[flags], minlength=n)
    entry_pairs = pairs(entry_rows, c_entry)
    found, first = np.unique(entry_pairs, return_index=True)
    resp_pairs = pairs(resp_rows, c_resp)
    if len(found):
        k = np.minimum(np.searchsorted(found, resp_pairs), len(found) - 1)
        own = np.where(found[k] == resp_pairs, flags[first[k]], False)
    else:
        own = np.zeros(len(resp_pairs), bool)
    in_unsupported = _counts_at(pairs(unsup_rows, c_unsup), resp_pairs) > 0
    freed = in_unsupported & (total[resp_rows] - own == 0)
    adherent = labels.n_unsupported == 0
    any_response = np.bincount(resp_rows, minlength=n) > 0
    any_freed = np.bincount(resp_rows[freed], minlength=n) > 0
    adherence = np.where(adherent, any_response, any_freed).astype(np.float64)

    out = {
        "relevance": _row_max(relevance, ctx_rows, n),
        "utilization": _row_max(utilization, ctx_rows, n),
        "completeness": _row_max(comp, ctx_rows, n),
        "adherence": adherence,
    }
    for values in out.values():
        values[~labels.labeled] = np.nan
    return out


def top_leverage(
    sizes: Mapping[str, np.ndarray],
    moves: Callable[[int], dict[str, tuple[str, float]]],
    uid_of: Callable[[int], str],
    top: int = 20,
) -> dict[str, list[Leverage]]:
    """:func:`leverage_by_metric` from per-row move sizes (:func:`best_move_sizes`, NaN for an
    unlabeled row): per metric the *top* rows by ``|delta|`` (ties: row order), each with the change
    and signed delta *moves* (:func:`best_moves` of that row) gives; only those rows are looked at."""
    out: dict[str, list[Leverage]] = {}
    found: dict[int, dict[str, tuple[str, float]]] = {}
    for metric, values in sizes.items():
        n_labeled = int(np.count_nonzero(~np.isnan(values)))
        rows = np.flatnonzero(np.nan_to_num(values) > 0)
        order = rows[np.lexsort((rows, -values[rows]))][:top]
        listed = []
        for i in order.tolist():
            if i not in found:
                found[i] = moves(i)
            description, delta = found[i][metric]
            listed.append(Leverage(i, uid_of(i), metric, description, delta, delta / n_labeled))
        out[metric] = listed
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
        for metric, (description, delta) in best_moves(example, labels, metrics).items():
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
