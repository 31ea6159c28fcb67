"""The label-quality report over a whole dataset, counted on Arrow columns.

:func:`scan_dataset` counts, per row and per :class:`~ragviz.analysis.quality.issues.IssueKind`, exactly what
:func:`ragviz.analysis.quality.issues.find_issues` (the one definition of an issue) reports row by row, without
building a ``Labels`` per row (how: :func:`issue_counts_per_row`). Tables whose label columns are not in
RAGBench's types go through :func:`scan_rows`, the per-row reference, which the tests hold the columnar
scan to (the shared RAGBench shards, and synthetic rows with every kind planted).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.analysis.quality.issues import ISSUE_KINDS, IssueKind, clean_key, find_issues
from ragviz.data import dotted_keys as dk
from ragviz.data import ragbench as rb
from ragviz.data.dataset import Dataset
from ragviz.data.keys import is_response_key, parse_context_key
from ragviz.data.label_columns import (
    array_of,
    dotted_response_key_rows,
    fill_strings,
    label_columns_ok,
    label_values_ok,
    present_type,
    sorted_distinct,
)

__all__ = [
    "QualityScan",
    "SCAN_ROWS",
    "columnar_ok",
    "dotted_key_matches",
    "issue_counts_per_row",
    "quality_summary",
    "scan_dataset",
    "scan_rows",
]


_STRINGS = pa.list_(pa.string())
_DOC_TYPE = pa.list_(pa.list_(_STRINGS))


@dataclass(frozen=True)
class QualityScan:
    """Label-quality issues over a dataset.

    ``issue_counts``: occurrences per kind; ``example_counts``: examples with at least one issue of
    the kind; ``row_kinds``: per row, the kinds it has (empty = no flags), for a "has flags" filter.
    """

    issue_counts: dict[str, int]
    example_counts: dict[str, int]
    row_kinds: list[frozenset[str]]

    @property
    def flagged_rows(self) -> list[int]:
        return [i for i, kinds in enumerate(self.row_kinds) if kinds]


def quality_summary(dataset: Dataset) -> dict[str, int]:
    """Number of label-quality issues per kind over *dataset* (every kind present, zeros too)."""
    return scan_dataset(dataset).issue_counts


# -- the per-row reference ---------------------------------------------------------------------
def _keys_per_row(column: pa.ChunkedArray | None, n_rows: int, depth: int) -> list[list[str]]:
    """The sentence keys of each row (*depth* 2 for ``documents_sentences``, 1 for ``response_sentences``)."""
    out: list[list[str]] = [[] for _ in range(n_rows)]
    if column is not None:
        keys, rows = _flatten(column, depth, _first)
        for row, key in zip(rows.tolist(), keys.to_pylist()):
            out[row].append(key)
    return out


def scan_rows(dataset: Dataset) -> QualityScan:
    """:func:`scan_dataset` row by row through :func:`~ragviz.analysis.quality.issues.find_issues` (the
    reference; used for label columns of other types than RAGBench's)."""
    table, n = dataset.table, len(dataset)
    context_keys = _keys_per_row(_column(table, "documents_sentences"), n, 2)
    response_keys = _keys_per_row(_column(table, "response_sentences"), n, 1)
    issue_counts: Counter[str] = Counter({k: 0 for k in ISSUE_KINDS})
    example_counts: Counter[str] = Counter({k: 0 for k in ISSUE_KINDS})
    row_kinds: list[frozenset[str]] = []
    for i, row in enumerate(dataset.iter_rows(rb.LABEL_FIELDS)):
        labels = dk.match_response_keys(rb.labels_from_row(row), set(response_keys[i]))
        kinds = [kind.value for kind, _, _ in find_issues(set(context_keys[i]), response_keys[i], labels)]
        issue_counts.update(kinds)
        unique = frozenset(kinds)
        example_counts.update(unique)
        row_kinds.append(unique)
    return QualityScan(dict(issue_counts), dict(example_counts), row_kinds)


# -- flattening --------------------------------------------------------------------------------
def _column(table: pa.Table, name: str) -> pa.ChunkedArray | None:
    return table.column(name) if present_type(table.schema, name) is not None else None


def _flatten(
    column: pa.ChunkedArray, depth: int = 1, pick: Callable[[pa.Array], pa.Array] | None = None
) -> tuple[pa.Array, np.ndarray]:
    """The values *depth* list levels down in *column* and the row each came from (null lists give nothing);
    *pick* is applied to each chunk's values before they are joined (the keys of ``[key, text]`` pairs: the
    sentence text of 1M rows is more than a ``string`` array's 2 GiB of offsets can hold)."""
    values: list[pa.Array] = []
    rows: list[np.ndarray] = []
    start = 0
    for chunk in column.chunks:
        parents = np.asarray(pc.list_parent_indices(chunk).to_numpy(), np.int64)
        flat = pc.list_flatten(chunk)
        for _ in range(depth - 1):
            parents = parents[np.asarray(pc.list_parent_indices(flat).to_numpy(), np.int64)]
            flat = pc.list_flatten(flat)
        values.append(pick(flat) if pick else flat)
        rows.append(parents + start)
        start += len(chunk)
    if not values:
        value_type = column.type
        for _ in range(depth):
            value_type = value_type.value_type
        empty = pa.array([], value_type)
        return (pick(empty) if pick else empty), np.zeros(0, np.int64)
    return pa.concat_arrays(values), np.concatenate(rows)


def _first(pairs: pa.Array) -> pa.Array:
    """The key of each ``[key, text]`` pair."""
    return pc.list_element(pairs, 0) if len(pairs) else pa.array([], pa.string())


@dataclass
class _Keys:
    """Occurrences of label keys: raw string, row, and the list each belongs to (for duplicates)."""

    raw: pa.Array
    rows: np.ndarray
    group: np.ndarray


def _key_list(column: pa.ChunkedArray | None) -> _Keys:
    if column is None:
        return _Keys(pa.array([], pa.string()), np.zeros(0, np.int64), np.zeros(0, np.int64))
    raw, rows = _flatten(column)
    return _Keys(raw, rows, rows)


def _support_parts(column: pa.ChunkedArray | None) -> tuple[_Keys, np.ndarray, _Keys]:
    """Support entries as key occurrences (group = row), their effective-unsupported flag
    (``fully_supported`` False, or null with no supporting key), and their supporting keys (group = entry)."""
    empty = pa.array([], pa.string())
    if column is None:
        none = np.zeros(0, np.int64)
        return _Keys(empty, none, none), np.zeros(0, bool), _Keys(empty, none, none)
    entries, rows = _flatten(column)
    entries = cast(pa.StructArray, entries)
    m = len(entries)
    names = entries.type.names if m else []

    def field(name: str) -> pa.Array | None:
        if name not in names:
            return None
        values = pc.struct_field(entries, name)
        return None if pa.types.is_null(values.type) else values

    key, supported, keys = field("response_sentence_key"), field("fully_supported"), field("supporting_sentence_keys")
    key_text = pa.array([""] * m, pa.string()) if key is None else fill_strings(key, "")
    if keys is None:
        n_keys = np.zeros(m, np.int64)
        supporting = _Keys(empty, np.zeros(0, np.int64), np.zeros(0, np.int64))
    else:
        n_keys = np.asarray(pc.fill_null(pc.list_value_length(keys), 0).to_numpy(), np.int64)
        entry_of = np.asarray(pc.list_parent_indices(keys).to_numpy(), np.int64)
        supporting = _Keys(pc.list_flatten(keys), rows[entry_of], entry_of)
    if supported is None:
        unsupported = n_keys == 0
    else:
        is_false = np.asarray(
            array_of(pc.fill_null(pc.equal(supported, pa.scalar(False)), pa.scalar(False))).to_numpy(
                zero_copy_only=False
            )
        )
        is_null = np.asarray(pc.is_null(supported).to_numpy(zero_copy_only=False), bool)
        unsupported = is_false | (is_null & (n_keys == 0))
    return _Keys(key_text, rows, rows), unsupported, supporting


def _pairs(rows: np.ndarray, codes: np.ndarray, width: int) -> np.ndarray:
    return rows * width + codes


def _member(rows: np.ndarray, codes: np.ndarray, known: np.ndarray, width: int) -> np.ndarray:
    """Per ``(rows[i], codes[i])``: is it one of the pairs *known* (sorted, from :func:`_distinct`)?"""
    if not len(known) or not len(rows):
        return np.zeros(len(rows), bool)
    wanted = _pairs(rows, codes, width)
    at = np.minimum(np.searchsorted(known, wanted), len(known) - 1)
    return known[at] == wanted


def _repeated(groups: np.ndarray, codes: np.ndarray, width: int) -> np.ndarray:
    """Per occurrence: is the same code already earlier in its group?"""
    pairs = _pairs(groups, codes, width)
    order = np.argsort(pairs, kind="stable")
    ordered = pairs[order]
    repeated = np.zeros(len(pairs), bool)
    repeated[order[1:]] = ordered[1:] == ordered[:-1]
    return repeated


# -- the columnar scan -------------------------------------------------------------------------
def columnar_ok(table: pa.Table) -> bool:
    """Whether :func:`scan_dataset` can count *table*'s issues on its columns (RAGBench's types, no
    null inside a key list); else it goes row by row."""
    for name, want in (("documents_sentences", _DOC_TYPE), ("response_sentences", pa.list_(_STRINGS))):
        if present_type(table.schema, name) not in (None, want):
            return False
    return label_columns_ok(table.schema) and label_values_ok(table)


def _sentence_keys(table: pa.Table, name: str, depth: int) -> tuple[pa.Array, np.ndarray]:
    column = _column(table, name)
    if column is None:
        return pa.array([], pa.string()), np.zeros(0, np.int64)
    return _flatten(column, depth, _first)


def scan_dataset(dataset: Dataset) -> QualityScan:
    """Every label-quality issue of every row (current labels as loaded: response-sentence keys
    written with a trailing dot matched to their sentence, :func:`dotted_key_matches`), as
    :func:`~ragviz.analysis.quality.issues.find_issues` finds them, counted on the columns."""
    table, n = dataset.table, len(dataset)
    per_row = issue_counts_per_row(table, n) if columnar_ok(table) else None
    if per_row is None:
        return scan_rows(dataset)
    issue_counts = {k: int(per_row[k].sum()) for k in ISSUE_KINDS}
    example_counts = {k: int(np.count_nonzero(per_row[k])) for k in ISSUE_KINDS}
    mask = np.zeros(n, np.int64)
    for bit, k in enumerate(ISSUE_KINDS):
        mask |= (per_row[k] > 0).astype(np.int64) << bit
    sets: dict[int, frozenset[str]] = {
        int(m): frozenset(k for bit, k in enumerate(ISSUE_KINDS) if int(m) >> bit & 1) for m in sorted_distinct(mask)
    }
    return QualityScan(issue_counts, example_counts, [sets[m] for m in mask.tolist()])


def _dotted_rows(table: pa.Table) -> tuple[list[int], list[dict]]:
    """The rows of *table* that may hold a response-sentence key written with a trailing dot (one
    ending in a dot among the support entries' ``response_sentence_key`` or the unsupported list),
    picked on the columns, and those rows' label fields and response sentences (every row for a
    table not in RAGBench's types)."""
    fields = [c for c in (*rb.LABEL_FIELDS, *rb.ROW_LABEL_FIELDS, "response_sentences") if c in table.column_names]
    narrow = table.select(list(dict.fromkeys(fields)))
    if not columnar_ok(table):
        return list(range(table.num_rows)), narrow.to_pylist()
    picked = dotted_response_key_rows(table)
    return picked.tolist(), narrow.take(pa.array(picked, pa.int64())).to_pylist() if len(picked) else []


def dotted_key_matches(dataset: Dataset) -> tuple[int, int]:
    """``(keys, examples)``: the response-sentence keys written with a trailing dot (``"a."``) that
    loading matches to their sentence (:func:`ragviz.data.dotted_keys.match_response_keys`; the
    judge's ``llm_`` copy included), and the examples holding any."""
    keys_matched = examples = 0
    for row in _dotted_rows(dataset.table)[1]:
        response_keys = rb.response_keys_of(row)
        labels, judge = rb.row_label_sets(row, match=False)
        n = dk.dotted_response_keys(labels, response_keys)
        if judge is not labels:
            n += dk.dotted_response_keys(judge, response_keys)
        keys_matched += n
        examples += n > 0
    return keys_matched, examples


def _matched_trailing_dots(table: pa.Table) -> np.ndarray:
    """Per row, the trailing-dot issues of its current labels that loading removes: one per
    response-sentence key it matches to its sentence (such a key has no other issue)."""
    out = np.zeros(table.num_rows, np.int64)
    for i, row in zip(*_dotted_rows(table)):
        out[i] = dk.dotted_response_keys(rb.labels_from_row(row), rb.response_keys_of(row))
    return out


#: Rows scanned at a time: the scan's arrays (one entry per sentence and label key) stay this many rows' worth.
SCAN_ROWS = 65_536


def issue_counts_per_row(table: pa.Table, n: int) -> dict[str, np.ndarray] | None:
    """Per kind, the number of issues of each row; ``None`` when a sentence key is null (row by row then).
    Every issue lies within one row, so the rows are scanned :data:`SCAN_ROWS` at a time.

    The key lists (``all_relevant_sentence_keys``, ``all_utilized_sentence_keys``,
    ``unsupported_response_sentence_keys``, each support entry's ``supporting_sentence_keys`` and its
    ``response_sentence_key``) and the documents' and response's sentence keys are flattened with the row of
    each value; the distinct key strings are cleaned in Python (a few thousand, with
    :func:`~ragviz.data.keys.clean_key`); membership ("names a sentence of this row", "listed as unsupported in
    this row") is a sorted search of ``row * width + code`` pairs."""
    parts = []
    for start in range(0, n, SCAN_ROWS):
        part = _issue_counts(table.slice(start, SCAN_ROWS), min(SCAN_ROWS, n - start))
        if part is None:
            return None
        parts.append(part)
    if not parts:
        return _issue_counts(table, n)
    return {k: np.concatenate([p[k] for p in parts]) for k in ISSUE_KINDS}


def _issue_counts(table: pa.Table, n: int) -> dict[str, np.ndarray] | None:
    ctx_keys, ctx_rows = _sentence_keys(table, "documents_sentences", 2)
    resp_keys, resp_rows = _sentence_keys(table, "response_sentences", 1)
    if ctx_keys.null_count or resp_keys.null_count:
        return None
    relevant = _key_list(_column(table, rb.RELEVANT))
    utilized = _key_list(_column(table, rb.UTILIZED))
    unsupported = _key_list(_column(table, rb.UNSUPPORTED))
    entries, entry_unsupported, supporting = _support_parts(_column(table, rb.SUPPORT))
    lists = (relevant, utilized, supporting, unsupported, entries)

    # The distinct raw label keys, cleaned in Python; one code space for cleaned label keys and sentence keys.
    raw = cast(pa.DictionaryArray, pc.dictionary_encode(pa.concat_arrays([k.raw for k in lists])))
    distinct = cast("list[str]", raw.dictionary.to_pylist())
    cleaned_text = [clean_key(k) for k in distinct]
    dotted = np.array([c != k for c, k in zip(cleaned_text, distinct)], bool)
    context_shaped = np.array([parse_context_key(c) is not None for c in cleaned_text], bool)
    response_shaped = np.array([is_response_key(c) for c in cleaned_text], bool)
    everything = cast(
        pa.DictionaryArray,
        pc.dictionary_encode(pa.concat_arrays([pa.array(cleaned_text, pa.string()), ctx_keys, resp_keys])),
    )
    codes = np.asarray(everything.indices.to_numpy(), np.int64)
    width = len(everything.dictionary) + 1
    cleaned_code = codes[: len(distinct)]
    ctx_code = codes[len(distinct) : len(distinct) + len(ctx_keys)]
    resp_code = codes[len(distinct) + len(ctx_keys) :]
    raw_index = np.asarray(raw.indices.to_numpy(), np.int64)

    counts = {k: np.zeros(n, np.int64) for k in ISSUE_KINDS}

    def add(kind: IssueKind, rows: np.ndarray) -> None:
        counts[kind.value] += np.bincount(rows, minlength=n)

    label_codes = np.zeros(width, bool)
    label_codes[cleaned_code] = True
    in_ctx = label_codes[ctx_code]  # only the sentence keys some label key could name
    ctx_set = sorted_distinct(_pairs(ctx_rows[in_ctx], ctx_code[in_ctx], width))
    resp_set = sorted_distinct(_pairs(resp_rows, resp_code, width))

    start = 0
    code_of: list[np.ndarray] = []
    for keys, context in zip(lists, (True, True, True, False, False)):
        index = raw_index[start : start + len(keys.raw)]
        start += len(keys.raw)
        code = cleaned_code[index]
        code_of.append(code)
        add(IssueKind.TRAILING_DOT, keys.rows[dotted[index]])
        valid = _member(keys.rows, code, ctx_set if context else resp_set, width)
        shaped = (context_shaped if context else response_shaped)[index]
        add(IssueKind.UNKNOWN_KEY, keys.rows[~valid & shaped])
        add(IssueKind.NON_KEY, keys.rows[~valid & ~shaped])
        add(IssueKind.DUPLICATE_KEY, keys.rows[_repeated(keys.group, code, width)])
    relevant_code, utilized_code, _, unsupported_code, entry_code = code_of

    # utilized (distinct) keys naming a context sentence but not among the relevant keys
    first_use = ~_repeated(utilized.rows, utilized_code, width)
    rows, code = utilized.rows[first_use], utilized_code[first_use]
    named = _member(rows, code, ctx_set, width)
    relevant_set = sorted_distinct(_pairs(relevant.rows, relevant_code, width))
    add(IssueKind.UTILIZED_NOT_RELEVANT, rows[named & ~_member(rows, code, relevant_set, width)])

    # response sentences of labeled rows without a support entry
    labeled = np.zeros(n, bool)
    for name in rb.LABEL_FIELDS:
        if (column := _column(table, name)) is not None:
            labeled |= np.asarray(pc.is_valid(column).to_numpy(), bool)
    resp_labeled = labeled[resp_rows]
    rows, code = resp_rows[resp_labeled], resp_code[resp_labeled]
    supported_set = sorted_distinct(_pairs(entries.rows, entry_code, width))
    add(IssueKind.MISSING_SUPPORT, rows[~_member(rows, code, supported_set, width)])

    # the first support entry of each response key against the stored unsupported list (when stored)
    if (column := _column(table, rb.UNSUPPORTED)) is not None:
        stored = np.asarray(pc.is_valid(column).to_numpy(), bool)
        first = ~_repeated(entries.rows, entry_code, width) & stored[entries.rows]
        rows, code = entries.rows[first], entry_code[first]
        listed = _member(rows, code, sorted_distinct(_pairs(unsupported.rows, unsupported_code, width)), width)
        add(IssueKind.SUPPORT_MISMATCH, rows[entry_unsupported[first] != listed])
    counts[IssueKind.TRAILING_DOT.value] -= _matched_trailing_dots(table)  # matched on loading: no issue
    return counts
