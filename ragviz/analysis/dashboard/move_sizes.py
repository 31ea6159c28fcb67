"""How far the single label change that moves a TRACe metric most moves it, for every row of a
batch, on Arrow columns (:func:`best_move_sizes`): the Dashboard's triage sizes without a
Python object per row. The arithmetic is that of :func:`ragviz.analysis.dashboard.triage.best_moves`, so the
sizes are the same floats (tests/analysis/dashboard/test_dashboard_columns.py)."""

from __future__ import annotations

from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.data.label_columns import LabelColumns, array_of, list_lengths, sorted_distinct, support_flags
from ragviz.data.ragbench import RELEVANT, SUPPORT, UNSUPPORTED, UTILIZED

__all__ = ["best_move_sizes", "context_signatures"]


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
        if nested:  # each document's row, repeated once per sentence of it
            chunk_rows = np.repeat(chunk_rows, list_lengths(pairs))
            pairs = array_of(pc.list_flatten(pairs))
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


def _distinct_counts(pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of *pairs*, sorted, and how many times each occurs."""
    ordered = np.sort(pairs)
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(ordered) else np.zeros(0, np.int64)
    return ordered[starts], np.diff(np.r_[starts, len(ordered)])


def _count_of(values: np.ndarray, found: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Per value of *values*: its count in ``(found, counts)`` (:func:`_distinct_counts`), 0 when absent."""
    if not len(found):
        return np.zeros(len(values), np.int64)
    at = np.minimum(np.searchsorted(found, values), len(found) - 1)
    return np.where(found[at] == values, counts[at], 0)


def context_signatures(
    at: np.ndarray, rel_pairs: np.ndarray, util_pairs: np.ndarray, width: int, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kinds of context sentence each of *n* rows has, from ``row * width + key code`` pairs of
    its context sentences (*at*) and of its relevant / utilized lists: per context key that one of
    the lists names, ``(row, c_r, c_u)`` (its copies in each list; rows non-decreasing), and the
    rows with a context sentence neither list names (``c_r = c_u = 0``). A sentence's move sizes
    depend on its row and ``(c_r, c_u)`` only (:func:`best_move_sizes`), so these stand for every
    context sentence."""
    rel_found, rel_counts = _distinct_counts(rel_pairs)
    util_found, util_counts = _distinct_counts(util_pairs)
    listed = sorted_distinct(np.concatenate([rel_found, util_found]))
    in_context, context_counts = _distinct_counts(at)  # sorting the sentences: cheaper than a look-up each
    copies = _count_of(listed, in_context, context_counts)
    keys = listed[copies > 0]
    rows = keys // width
    named = np.bincount(rows, copies[copies > 0], minlength=n)
    others = np.flatnonzero(np.bincount(in_context // width, context_counts, minlength=n) > named)
    return rows, _count_of(keys, rel_found, rel_counts), _count_of(keys, util_found, util_counts), others


def _context_moves(
    rows: np.ndarray, c_r: np.ndarray, c_u: np.ndarray, labels: LabelColumns, n_context: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``|delta|`` of relevance, utilization and completeness of the best toggle of a context
    sentence of row ``rows[j]`` with ``c_r[j]`` / ``c_u[j]`` copies in the relevant / utilized lists
    (the arithmetic of :func:`best_moves`, so the same floats)."""
    r, u = labels.n_relevant[rows], labels.n_utilized[rows]
    both, n_k = labels.n_overlap[rows], np.asarray(n_context, np.int64)[rows]
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
    return relevance, utilization, comp


def best_move_sizes(table: pa.Table, labels: LabelColumns, n_context: np.ndarray) -> dict[str, np.ndarray]:
    """Per row of *table*, per TRACe metric: ``|delta|`` of the change :func:`best_moves` picks for
    the row's labels (*labels*: :func:`ragviz.data.label_columns.label_columns` of *table*), 0.0 when
    no change moves the metric, NaN for an unlabeled row; computed on columns, with the same float
    arithmetic, so the same values (tests/analysis/dashboard/test_dashboard_columns.py checks it on the shards).

    Every context sentence is a candidate, and its copies *c_r*, *c_u* in the relevant / utilized
    lists give the deltas of :func:`best_moves`: sentences with the same copies move the metric
    identically, so the largest is taken over one of each kind (:func:`context_signatures`: the
    keys the lists name, and ``c_r = c_u = 0`` once for a row with a sentence they do not name).
    A response sentence flips adherence when the example is adherent now (to 0), or when it is
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

    rows, c_r, c_u, others = context_signatures(
        pairs(ctx_rows, c_ctx), pairs(rel_rows, c_rel), pairs(util_rows, c_util), width, n
    )
    listed = _context_moves(rows, c_r, c_u, labels, n_context)
    zero = np.zeros(len(others), np.int64)
    unlisted = _context_moves(others, zero, zero, labels, n_context)
    context = []
    for by_key, by_row in zip(listed, unlisted):
        sizes = _row_max(by_key, rows, n)
        sizes[others] = np.maximum(sizes[others], by_row)
        context.append(sizes)

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

    out = dict(zip(("relevance", "utilization", "completeness"), context))
    out["adherence"] = adherence
    for values in out.values():
        values[~labels.labeled] = np.nan
    return out
