"""RAGBench label columns read on Arrow columns: the label fields of many rows at once, as
:func:`ragviz.data.ragbench.labels_from_row` and :func:`~ragviz.data.ragbench.labels_to_row` would give
them row by row (a missing list is ``[]``, a missing explanation ``""``, the unsupported keys derived
from the per-sentence support when a row stores none), with the per-row counts the TRACe formulas
need. Used where a Python object per row would cost too much (``ragviz metrics``, exports)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.data.ragbench import (
    LABEL_FIELDS,
    OVERALL_EXPLANATION,
    OVERALL_SUPPORTED,
    RELEVANCE_EXPLANATION,
    RELEVANT,
    SUPPORT,
    UNSUPPORTED,
    UTILIZED,
)

__all__ = [
    "LabelColumns",
    "array_of",
    "dotted_response_key_rows",
    "fill_strings",
    "label_columns",
    "label_columns_ok",
    "label_values_ok",
    "list_lengths",
    "list_offsets",
    "present_type",
    "sorted_distinct",
    "support_flags",
    "with_matched_keys",
]


_STRINGS = pa.list_(pa.string())
_SUPPORT_FIELDS: dict[str, pa.DataType] = {
    "explanation": pa.string(),
    "fully_supported": pa.bool_(),
    "response_sentence_key": pa.string(),
    "supporting_sentence_keys": _STRINGS,
}
_SUPPORT_STRUCT = pa.struct([pa.field(name, t) for name, t in _SUPPORT_FIELDS.items()])


def array_of(column: object) -> pa.Array:
    """One array of a compute result or a table column."""
    if isinstance(column, pa.ChunkedArray):
        return column.combine_chunks()
    if isinstance(column, pa.Array):
        return column
    raise TypeError(f"expected an Arrow array, not {type(column).__name__}")


def list_lengths(lists: pa.Array) -> np.ndarray:
    return np.asarray(pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False), dtype=np.int64)


def list_offsets(lengths: np.ndarray) -> pa.Int32Array:
    out = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=out[1:])
    return pa.array(out.astype(np.int32), pa.int32())


def fill_strings(values: pa.Array | pa.ChunkedArray, text: str) -> pa.Array:
    """*values* (strings) with nulls replaced by *text*."""
    return array_of(pc.fill_null(values, pa.scalar(text, pa.string())))


def present_type(schema: pa.Schema, name: str) -> pa.DataType | None:
    """The type of column *name*, ``None`` when absent or all-null (typed ``null``)."""
    if name not in schema.names:
        return None
    t = schema.field(name).type
    return None if pa.types.is_null(t) else t


def label_columns_ok(schema: pa.Schema) -> bool:
    """Whether the label columns of a table with *schema* have RAGBench's types (key lists of
    strings, string explanations, a boolean ``overall_supported``, support entries of the four
    known fields), so :func:`label_columns` reads them exactly; ``id``, ``dataset_name`` and
    ``generation_model_name`` must be strings too."""
    for name in (RELEVANT, UTILIZED, UNSUPPORTED):
        t = present_type(schema, name)
        if t is not None and t != _STRINGS:
            return False
    for name in (RELEVANCE_EXPLANATION, OVERALL_EXPLANATION, "dataset_name", "id", "generation_model_name"):
        t = present_type(schema, name)
        if t is not None and t != pa.string():
            return False
    t = present_type(schema, OVERALL_SUPPORTED)
    if t is not None and t != pa.bool_():
        return False
    t = present_type(schema, SUPPORT)
    if t is not None:
        if not pa.types.is_list(t) or not pa.types.is_struct(t.value_type):
            return False
        for field in t.value_type:
            want = _SUPPORT_FIELDS.get(field.name)
            if want is None or (field.type != want and not pa.types.is_null(field.type)):
                return False
    return True


def label_values_ok(batch: pa.Table) -> bool:
    """Whether the label values of *batch* (a table :func:`label_columns_ok` accepts) are ones
    :func:`label_columns` reads as the row-by-row path does: no null key inside a key list, no null
    support entry."""
    for name in (RELEVANT, UTILIZED, UNSUPPORTED):
        if present_type(batch.schema, name) is not None and pc.list_flatten(batch.column(name)).null_count:
            return False
    if present_type(batch.schema, SUPPORT) is not None:
        entries = pc.list_flatten(batch.column(SUPPORT))
        if entries.null_count:
            return False
        if "supporting_sentence_keys" in entries.type.names:
            keys = pc.struct_field(entries, "supporting_sentence_keys")
            if not pa.types.is_null(keys.type) and pc.list_flatten(keys).null_count:
                return False
    return True


def _lists(lengths: np.ndarray, values: pa.Array, valid: np.ndarray, value_type: pa.DataType) -> pa.Array:
    """A list array of *values* cut by *lengths*, null where not *valid* (those rows have length 0)."""
    values = values if len(values) else pa.array([], value_type)
    return pa.ListArray.from_arrays(list_offsets(lengths), values, mask=pa.array(~valid))


def _key_lists(column: pa.Array | None, valid: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """``list(keys)`` of each labeled row (``[]`` for a null list), null for unlabeled rows; with the lengths."""
    if column is None or pa.types.is_null(column.type):
        lengths = np.zeros(len(valid), np.int64)
        return _lists(lengths, pa.array([], pa.string()), valid, pa.string()), lengths
    lengths = list_lengths(column)
    return _lists(lengths, pc.list_flatten(column), valid, pa.string()), lengths


def _strings(column: pa.Array | None, valid: np.ndarray) -> pa.Array:
    """``value or ""`` for labeled rows, null for unlabeled ones."""
    filled = pa.array([""] * len(valid), pa.string()) if column is None else fill_strings(column, "")
    return pc.if_else(pa.array(valid), filled, pa.scalar(None, pa.string()))


def _support_field(entries: pa.StructArray, name: str) -> pa.Array | None:
    if name not in entries.type.names:
        return None
    field = pc.struct_field(entries, name)
    return None if pa.types.is_null(field.type) else field


def support_flags(entries: pa.StructArray) -> np.ndarray:
    """Per support entry (the normalised entries of :func:`label_columns`' support lists, flattened):
    whether it counts its response sentence unsupported, as
    :func:`ragviz.data.ragbench.unsupported_keys` derives it (``fully_supported`` is ``False``, or
    ``None`` with no supporting key)."""
    if not len(entries):
        return np.zeros(0, bool)
    supported = pc.struct_field(entries, "fully_supported")
    counts = list_lengths(pc.struct_field(entries, "supporting_sentence_keys"))
    is_false = np.asarray(
        array_of(pc.fill_null(pc.equal(supported, pa.scalar(False)), pa.scalar(False))).to_numpy(zero_copy_only=False)
    )
    is_none = np.asarray(pc.is_null(supported).to_numpy(zero_copy_only=False))
    return np.asarray(is_false | (is_none & (counts == 0)))


def _support(column: pa.Array | None, valid: np.ndarray) -> tuple[pa.Array, pa.Array, pa.Array]:
    """The support lists as :func:`ragviz.data.ragbench.support_to_row` writes them (null fields of
    an entry: ``""`` / ``[]``; ``fully_supported`` as stored), and the per-row lists of the
    response keys counted unsupported (``supported is False``, or ``None`` with no supporting key)."""
    n = len(valid)
    if column is None or pa.types.is_null(column.type):
        lengths = np.zeros(n, np.int64)
        entries = pa.array([], _SUPPORT_STRUCT)
    else:
        lengths = list_lengths(column)
        flat = cast(pa.StructArray, pc.list_flatten(column))
        m = len(flat)
        explanation = _support_field(flat, "explanation")
        supported = _support_field(flat, "fully_supported")
        key = _support_field(flat, "response_sentence_key")
        keys = _support_field(flat, "supporting_sentence_keys")
        ones = np.ones(m, bool)
        keys_lists, key_counts = _key_lists(keys, ones)
        entries = pa.StructArray.from_arrays(
            [
                pa.array([""] * m, pa.string()) if explanation is None else fill_strings(explanation, ""),
                pa.nulls(m, pa.bool_()) if supported is None else supported,
                pa.array([""] * m, pa.string()) if key is None else fill_strings(key, ""),
                keys_lists,
            ],
            fields=list(_SUPPORT_STRUCT),
        )
    support = _lists(lengths, entries, valid, _SUPPORT_STRUCT)
    flagged = support_flags(cast(pa.StructArray, entries))
    parents = np.repeat(np.arange(n), lengths)
    derived_lengths = np.bincount(parents[flagged], minlength=n).astype(np.int64)
    derived_keys = (
        pc.filter(pc.struct_field(entries, "response_sentence_key"), pa.array(flagged))
        if len(entries)
        else pa.array([], pa.string())
    )
    derived = _lists(derived_lengths, derived_keys, valid, pa.string())
    return support, derived, pa.array(derived_lengths)


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """``np.unique(values)`` by sorting: numpy 2.3+'s hashing ``unique`` is ~300 times slower on
    these ``row * width + code`` integers (1.5 s instead of 5 ms for 800k of them)."""
    ordered = np.sort(values)
    keep = np.ones(len(ordered), bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def _distinct_overlap(relevant: pa.Array, utilized: pa.Array, n: int) -> np.ndarray:
    """Per row: ``len(set(R) & set(U))`` (distinct keys in both lists)."""
    r_len, u_len = list_lengths(relevant), list_lengths(utilized)
    r_keys, u_keys = pc.list_flatten(relevant), pc.list_flatten(utilized)
    if not len(r_keys) or not len(u_keys):
        return np.zeros(n, np.int64)
    codes = cast(pa.DictionaryArray, pc.dictionary_encode(pa.concat_arrays([r_keys, u_keys])))
    index = np.asarray(codes.indices.to_numpy(zero_copy_only=False), np.int64)
    width = len(codes.dictionary) + 1
    rows = np.arange(n, dtype=np.int64)
    r_pairs = sorted_distinct(np.repeat(rows, r_len) * width + index[: len(r_keys)])
    u_pairs = sorted_distinct(np.repeat(rows, u_len) * width + index[len(r_keys) :])
    both = np.intersect1d(r_pairs, u_pairs, assume_unique=True)
    return np.bincount(both // width, minlength=n).astype(np.int64)


@dataclass(frozen=True)
class LabelColumns:
    """The label fields of a batch of rows, column by column: ``columns`` holds the seven fields
    as :func:`ragviz.data.ragbench.labels_to_row` writes them (null for an unlabeled row), the
    arrays hold per row whether it is labeled and the counts the TRACe formulas take: relevant
    and utilized keys as stored, distinct keys in both, response sentences counted unsupported."""

    columns: dict[str, pa.Array]
    labeled: np.ndarray
    n_relevant: np.ndarray
    n_utilized: np.ndarray
    n_overlap: np.ndarray
    n_unsupported: np.ndarray


def label_columns(batch: pa.Table) -> LabelColumns:
    """The labels of every row of *batch* (a table :func:`label_columns_ok` and
    :func:`label_values_ok` accept); a row is labeled when any label field is set."""
    n = batch.num_rows
    valid = np.zeros(n, bool)
    for name in LABEL_FIELDS:
        if present_type(batch.schema, name) is not None:
            valid |= np.asarray(pc.is_valid(batch.column(name)).to_numpy(zero_copy_only=False))

    def column(name: str) -> pa.Array | None:
        return array_of(batch.column(name)) if present_type(batch.schema, name) is not None else None

    relevant, r_len = _key_lists(column(RELEVANT), valid)
    utilized, u_len = _key_lists(column(UTILIZED), valid)
    support, derived, derived_len = _support(column(SUPPORT), valid)
    stored = column(UNSUPPORTED)
    if stored is None:
        unsupported, n_unsupported = derived, np.asarray(derived_len.to_numpy(), np.int64)
    else:
        stored_lists, stored_len = _key_lists(stored, valid)
        has_stored = np.asarray(pc.is_valid(stored).to_numpy(zero_copy_only=False))
        unsupported = pc.if_else(pa.array(has_stored), stored_lists, derived)
        n_unsupported = np.where(has_stored, stored_len, np.asarray(derived_len.to_numpy(), np.int64))
    overall = column(OVERALL_SUPPORTED)
    columns = {
        RELEVANT: relevant,
        UTILIZED: utilized,
        SUPPORT: support,
        UNSUPPORTED: array_of(unsupported),
        RELEVANCE_EXPLANATION: _strings(column(RELEVANCE_EXPLANATION), valid),
        OVERALL_EXPLANATION: _strings(column(OVERALL_EXPLANATION), valid),
        OVERALL_SUPPORTED: pa.nulls(n, pa.bool_()) if overall is None else overall,
    }
    overlap = _distinct_overlap(relevant, utilized, n)
    return LabelColumns(columns, valid, r_len, u_len, overlap, n_unsupported)


def dotted_response_key_rows(table: pa.Table) -> np.ndarray:
    """The rows (sorted) whose support entries' ``response_sentence_key`` or unsupported list holds a
    key ending in a dot: the rows where loading may match a key written ``"a."`` to its sentence
    (:func:`ragviz.data.dotted_keys.match_response_keys`); for label columns of RAGBench's types
    (:func:`label_columns_ok`)."""
    found: list[np.ndarray] = [np.zeros(0, np.int64)]
    for name in (SUPPORT, UNSUPPORTED):
        if present_type(table.schema, name) is None:
            continue
        start = 0
        for chunk in table.column(name).chunks:
            parents = np.asarray(pc.list_parent_indices(chunk).to_numpy(), np.int64)
            keys = pc.list_flatten(chunk)
            if name == SUPPORT:
                keys = pc.struct_field(keys, "response_sentence_key")
            ends = cast(pa.Array, pc.fill_null(pc.ends_with(keys, "."), pa.scalar(False)))
            dotted = np.asarray(ends.to_numpy(zero_copy_only=False), np.bool_)
            found.append(parents[dotted] + start)
            start += len(chunk)
    return sorted_distinct(np.concatenate(found))


def with_matched_keys(table: pa.Table) -> pa.Table:
    """*table* (a few rows, label columns of RAGBench's types) with the response-sentence keys written
    with a trailing dot matched to their sentence (:func:`ragviz.data.ragbench.match_row_keys`), so the
    columnar figures of those rows are those of the labels as loaded."""
    from ragviz.data.ragbench import match_row_keys

    names = [n for n in (SUPPORT, UNSUPPORTED, "response_sentences") if n in table.column_names]
    rows = [match_row_keys(row) for row in table.select(names).to_pylist()]
    for name in (SUPPORT, UNSUPPORTED):
        if name in table.column_names:
            column = pa.array([row[name] for row in rows], table.schema.field(name).type)
            table = table.set_column(table.column_names.index(name), name, column)
    return table
