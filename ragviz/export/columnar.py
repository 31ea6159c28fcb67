"""The export of rows nobody touched, computed on Arrow columns (no Python object per row).

An example the label store knows nothing about (no decision by the annotator, no stored judge label
set) is exported as :func:`ragviz.export.rows.export_row` would write it: its input row, ``dataset_name``
filled in, the label fields normalised (a missing list is ``[]``, a missing explanation ``""``, the
unsupported keys derived from the per-sentence support when the row stores none), the four TRACe
scores recomputed from them, ``llm_`` copies of the same labels (the row's labels are the judge's) and
``label_source`` ``"llm"`` (``None`` when unlabeled). :func:`plain_export_columns` computes exactly
those values column by column, and :func:`ragviz.export.json_text.json_lines` writes them as the JSON
text ``json.dumps`` gives for their Python values, so both export formats keep their bytes.

Rows this module cannot reproduce exactly go through the per-row path: tables holding ``llm_`` labels
or provenance columns (a re-loaded export), label columns of unexpected types, and a batch with a null
key inside a key list or a null support entry (:func:`plain_table`, :func:`plain_batch`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.data.dataset import BOOKKEEPING, SUBSET_COL
from ragviz.data.ragbench import (
    LABEL_FIELDS,
    LLM_PREFIX,
    OVERALL_EXPLANATION,
    OVERALL_SUPPORTED,
    OVERRIDE_FIELDS,
    RELEVANCE_EXPLANATION,
    RELEVANT,
    SUPPORT,
    UNSUPPORTED,
    UTILIZED,
)
from ragviz.export.json_text import _array, _fill, _lengths, _offsets

_STRINGS = pa.list_(pa.string())
_SUPPORT_FIELDS: dict[str, pa.DataType] = {
    "explanation": pa.string(),
    "fully_supported": pa.bool_(),
    "response_sentence_key": pa.string(),
    "supporting_sentence_keys": _STRINGS,
}
_SUPPORT_STRUCT = pa.struct([pa.field(name, t) for name, t in _SUPPORT_FIELDS.items()])
_PROVENANCE = ("label_source", "reviewer", "reviewed_at")
SCORE_COLUMNS = ("relevance_score", "utilization_score", "completeness_score", "adherence_score")


def _present(schema: pa.Schema, name: str) -> pa.DataType | None:
    """The type of column *name*, ``None`` when absent or all-null (typed ``null``)."""
    if name not in schema.names:
        return None
    t = schema.field(name).type
    return None if pa.types.is_null(t) else t


def plain_table(schema: pa.Schema) -> bool:
    """Whether untouched rows of a table with *schema* can be exported on columns: no ``llm_`` label
    or override columns and no provenance columns (a re-loaded export goes row by row), and label
    columns of RAGBench's types (key lists of strings, support entries of the four known fields)."""
    names = set(schema.names)
    if any(LLM_PREFIX + f in names for f in (*LABEL_FIELDS, *OVERRIDE_FIELDS)) or names & set(_PROVENANCE):
        return False
    if SUBSET_COL not in names or not pa.types.is_string(schema.field(SUBSET_COL).type):
        return False
    for name in (RELEVANT, UTILIZED, UNSUPPORTED):
        t = _present(schema, name)
        if t is not None and t != _STRINGS:
            return False
    for name in (RELEVANCE_EXPLANATION, OVERALL_EXPLANATION, "dataset_name", "id", "generation_model_name"):
        t = _present(schema, name)
        if t is not None and t != pa.string():
            return False
    t = _present(schema, OVERALL_SUPPORTED)
    if t is not None and t != pa.bool_():
        return False
    t = _present(schema, SUPPORT)
    if t is not None:
        if not pa.types.is_list(t) or not pa.types.is_struct(t.value_type):
            return False
        for field in t.value_type:
            want = _SUPPORT_FIELDS.get(field.name)
            if want is None or (field.type != want and not pa.types.is_null(field.type)):
                return False
    return True


def plain_batch(batch: pa.Table) -> bool:
    """Whether the label values of *batch* (a table :func:`plain_table` accepts) are ones the
    columnar export reproduces: no null key inside a key list, no null support entry."""
    for name in (RELEVANT, UTILIZED, UNSUPPORTED):
        if _present(batch.schema, name) is not None and pc.list_flatten(batch.column(name)).null_count:
            return False
    if _present(batch.schema, SUPPORT) is not None:
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
    return pa.ListArray.from_arrays(_offsets(lengths), values, mask=pa.array(~valid))


def _key_lists(column: pa.Array | None, valid: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """``list(keys)`` of each labeled row (``[]`` for a null list), null for unlabeled rows; with the lengths."""
    if column is None or pa.types.is_null(column.type):
        lengths = np.zeros(len(valid), np.int64)
        return _lists(lengths, pa.array([], pa.string()), valid, pa.string()), lengths
    lengths = _lengths(column)
    return _lists(lengths, pc.list_flatten(column), valid, pa.string()), lengths


def _strings(column: pa.Array | None, valid: np.ndarray) -> pa.Array:
    """``value or ""`` for labeled rows, null for unlabeled ones."""
    filled = pa.array([""] * len(valid), pa.string()) if column is None else _fill(column, "")
    return pc.if_else(pa.array(valid), filled, pa.scalar(None, pa.string()))


def _support_field(entries: pa.StructArray, name: str) -> pa.Array | None:
    if name not in entries.type.names:
        return None
    field = pc.struct_field(entries, name)
    return None if pa.types.is_null(field.type) else field


def _support(column: pa.Array | None, valid: np.ndarray) -> tuple[pa.Array, pa.Array, pa.Array]:
    """The support lists as :func:`ragviz.data.ragbench.support_to_row` writes them (null fields of
    an entry: ``""`` / ``[]``; ``fully_supported`` as stored), and the per-row lists of the
    response keys counted unsupported (``supported is False``, or ``None`` with no supporting key)."""
    n = len(valid)
    if column is None or pa.types.is_null(column.type):
        lengths = np.zeros(n, np.int64)
        entries = pa.array([], _SUPPORT_STRUCT)
    else:
        lengths = _lengths(column)
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
                pa.array([""] * m, pa.string()) if explanation is None else _fill(explanation, ""),
                pa.nulls(m, pa.bool_()) if supported is None else supported,
                pa.array([""] * m, pa.string()) if key is None else _fill(key, ""),
                keys_lists,
            ],
            fields=list(_SUPPORT_STRUCT),
        )
    support = _lists(lengths, entries, valid, _SUPPORT_STRUCT)
    flat_supported = pc.struct_field(entries, "fully_supported") if len(entries) else pa.array([], pa.bool_())
    flat_counts = _lengths(pc.struct_field(entries, "supporting_sentence_keys")) if len(entries) else np.zeros(0)
    is_false = np.asarray(
        _array(pc.fill_null(pc.equal(flat_supported, pa.scalar(False)), pa.scalar(False))).to_numpy(
            zero_copy_only=False
        )
    )
    is_none = np.asarray(pc.is_null(flat_supported).to_numpy(zero_copy_only=False))
    flagged = is_false | (is_none & (flat_counts == 0))
    parents = np.repeat(np.arange(n), lengths)
    derived_lengths = np.bincount(parents[flagged], minlength=n).astype(np.int64)
    derived_keys = (
        pc.filter(pc.struct_field(entries, "response_sentence_key"), pa.array(flagged))
        if len(entries)
        else pa.array([], pa.string())
    )
    derived = _lists(derived_lengths, derived_keys, valid, pa.string())
    return support, derived, pa.array(derived_lengths)


def _distinct_overlap(relevant: pa.Array, utilized: pa.Array, n: int) -> np.ndarray:
    """Per row: ``len(set(R) & set(U))`` (distinct keys in both lists)."""
    r_len, u_len = _lengths(relevant), _lengths(utilized)
    r_keys, u_keys = pc.list_flatten(relevant), pc.list_flatten(utilized)
    if not len(r_keys) or not len(u_keys):
        return np.zeros(n, np.int64)
    codes = cast(pa.DictionaryArray, pc.dictionary_encode(pa.concat_arrays([r_keys, u_keys])))
    index = np.asarray(codes.indices.to_numpy(zero_copy_only=False), np.int64)
    width = len(codes.dictionary) + 1
    rows = np.arange(n, dtype=np.int64)
    r_pairs = np.unique(np.repeat(rows, r_len) * width + index[: len(r_keys)])
    u_pairs = np.unique(np.repeat(rows, u_len) * width + index[len(r_keys) :])
    both = np.intersect1d(r_pairs, u_pairs, assume_unique=True)
    return np.bincount(both // width, minlength=n).astype(np.int64)


def _fractions(numerator: np.ndarray, denominator: np.ndarray, valid: np.ndarray) -> pa.Array:
    """``numerator / denominator`` (Python's correctly rounded division) where *valid*, else null."""
    with np.errstate(divide="ignore", invalid="ignore"):
        values = numerator.astype(np.float64) / denominator.astype(np.float64)
    return pa.array(values, pa.float64(), mask=~valid)


def _label_columns(
    batch: pa.Table, valid: np.ndarray
) -> tuple[dict[str, pa.Array], np.ndarray, np.ndarray, np.ndarray]:
    """The seven label fields as :func:`ragviz.data.ragbench.labels_to_row` writes them, and per row
    the lengths of the relevant, utilized and unsupported lists."""

    def column(name: str) -> pa.Array | None:
        return _array(batch.column(name)) if _present(batch.schema, name) is not None else None

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
        UNSUPPORTED: unsupported,
        RELEVANCE_EXPLANATION: _strings(column(RELEVANCE_EXPLANATION), valid),
        OVERALL_EXPLANATION: _strings(column(OVERALL_EXPLANATION), valid),
        OVERALL_SUPPORTED: pa.nulls(len(valid), pa.bool_()) if overall is None else overall,
    }
    return columns, r_len, u_len, n_unsupported


def plain_export_columns(batch: pa.Table, n_sentences: Sequence[int] | np.ndarray) -> dict[str, pa.Array]:
    """The export of every row of *batch* (untouched rows of a table :func:`plain_table` and
    :func:`plain_batch` accept), column by column, in the key order of
    :func:`ragviz.export.rows.export_row`: the input columns (bookkeeping dropped), ``dataset_name``,
    the label fields, the scores, the ``llm_`` label copies and the provenance fields.

    *n_sentences* is each row's context-sentence count (N of the TRACe formulas)."""
    n = batch.num_rows
    present = [name for name in LABEL_FIELDS if _present(batch.schema, name) is not None]
    valid = np.zeros(n, bool)
    for name in present:
        valid |= np.asarray(pc.is_valid(batch.column(name)).to_numpy(zero_copy_only=False))
    labels, r_len, u_len, n_unsupported = _label_columns(batch, valid)
    relevant, utilized = labels[RELEVANT], labels[UTILIZED]
    n_sent = np.asarray(n_sentences, np.int64)
    overlap = _distinct_overlap(relevant, utilized, n)
    subset = _fill(batch.column(SUBSET_COL), "")
    if _present(batch.schema, "dataset_name") is None:
        dataset_name = subset
    else:
        given = _array(batch.column("dataset_name"))
        named = pc.fill_null(pc.call_function("not_equal", [given, pa.scalar("")]), pa.scalar(False))
        dataset_name = _array(pc.if_else(named, given, subset))

    out: dict[str, pa.Array] = {}
    for name in batch.column_names:
        if name not in BOOKKEEPING:
            out[name] = _array(batch.column(name))
    out["dataset_name"] = dataset_name
    out.update(labels)
    out["relevance_score"] = _fractions(r_len, n_sent, valid & (n_sent > 0))
    out["utilization_score"] = _fractions(u_len, n_sent, valid & (n_sent > 0))
    completeness = np.where(r_len == 0, 1.0, overlap / np.maximum(r_len, 1))
    out["completeness_score"] = pa.array(completeness, pa.float64(), mask=~valid)
    out["adherence_score"] = pa.array(n_unsupported == 0, pa.bool_(), mask=~valid)
    for name in LABEL_FIELDS:
        out[LLM_PREFIX + name] = labels[name]
    out["label_source"] = pc.if_else(pa.array(valid), "llm", pa.scalar(None, pa.string()))
    out["reviewer"] = pa.nulls(n, pa.string())
    out["reviewed_at"] = pa.nulls(n, pa.string())
    return out
