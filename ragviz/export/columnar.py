"""The export of rows nobody touched, computed on Arrow columns (no Python object per row).

An example the label store knows nothing about (no decision by the annotator, no stored judge label set) is
exported as :func:`ragviz.export.rows.export_row` would write it, column by column
(:func:`plain_export_columns`), so both export formats keep their bytes; rows this module cannot reproduce exactly
go through the per-row path (:func:`plain_table`, :func:`plain_batch`). So is a gold row of ``export --labels gold``
whose labellers agreed on the row's labels as loaded (:func:`plain_rows`): its labels are the row's, only its
provenance differs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ragviz.analysis.team.gold_set import RoundGold
from ragviz.data.dataset import BOOKKEEPING, SUBSET_COL
from ragviz.data.label_columns import (
    array_of,
    dotted_response_key_rows,
    fill_strings,
    label_columns,
    label_columns_ok,
    label_values_ok,
    present_type,
)
from ragviz.data.ragbench import LABEL_FIELDS, LLM_PREFIX, OVERRIDE_FIELDS
from ragviz.metrics.trace import trace_arrays

__all__ = ["RowProvenance", "plain_batch", "plain_export_columns", "plain_rows", "plain_table"]


_PROVENANCE = ("label_source", "reviewer", "reviewed_at", "audit_sample")


def plain_table(schema: pa.Schema) -> bool:
    """Whether untouched rows of a table with *schema* can be exported on columns: no ``llm_`` label
    or override columns and no provenance columns (a re-loaded export goes row by row), and label
    columns of RAGBench's types (:func:`ragviz.data.label_columns.label_columns_ok`)."""
    names = set(schema.names)
    if any(LLM_PREFIX + f in names for f in (*LABEL_FIELDS, *OVERRIDE_FIELDS)) or names & set(_PROVENANCE):
        return False
    if SUBSET_COL not in names or not pa.types.is_string(schema.field(SUBSET_COL).type):
        return False
    return label_columns_ok(schema)


def plain_batch(batch: pa.Table) -> bool:
    """Whether the label values of *batch* (a table :func:`plain_table` accepts) are ones the
    columnar export reproduces (:func:`ragviz.data.label_columns.label_values_ok`): a batch with a null key inside a
    key list or a null support entry goes row by row."""
    return label_values_ok(batch)


@dataclass(frozen=True)
class RowProvenance:
    """Per row exported on columns, where it is not an untouched row's: ``label_source`` (``None``: the untouched
    row's ``"llm"``), ``reviewer``, ``reviewed_at`` and ``audit_sample`` (the gold rows of a batch)."""

    label_source: list[str | None]
    reviewer: list[str | None]
    reviewed_at: list[str | None]
    audit_sample: list[bool]


def plain_rows(
    batch: pa.Table, uids: Sequence[str], judged: Collection[str], statuses: Mapping[str, Any], members: Collection[str]
) -> tuple[np.ndarray, RowProvenance | None]:
    """Which rows of *batch* (of a table :func:`plain_table` and :func:`plain_batch` accept; *uids* its rows'
    uids) are exported on columns, and their provenance when some are gold rows (``None``: all untouched).

    A row is exported on columns when it has no stored judge label set (*judged*), no response-sentence key written
    ``"a."`` (loading matches it to sentence ``"a"``) and either no entry in *statuses* (the store knows nothing
    about the example for the labels chosen) or, in a gold export (*statuses* a
    :class:`~ragviz.analysis.team.gold_set.RoundGold`), gold agreed on the row's labels as loaded: ``"agreed"``
    with its labellers as reviewer, their latest decision as reviewed_at and ``audit_sample`` when it is a member
    of an audit sample (*members*), as :func:`ragviz.export.rows.export_row` writes it."""
    gold = statuses if isinstance(statuses, RoundGold) else None
    agreed = [gold.agreed_on_columns(uid) if gold is not None else None for uid in uids]
    mask = np.array(
        [uid not in judged and (uid not in statuses or a is not None) for uid, a in zip(uids, agreed)], bool
    )
    mask[dotted_response_key_rows(batch)] = False
    on = [a for a, m in zip(agreed, mask.tolist()) if m]
    if not any(on):
        return mask, None
    plain_uids = [uid for uid, m in zip(uids, mask.tolist()) if m]
    provenance = RowProvenance(
        ["agreed" if a else None for a in on],
        [a[0] if a else None for a in on],
        [a[1] if a else None for a in on],
        [a is not None and uid in members for uid, a in zip(plain_uids, on)],
    )
    return mask, provenance


def _nullable(values: np.ndarray) -> pa.Array:
    """Floats with NaN as null (:func:`ragviz.metrics.trace.trace_arrays` marks ``None`` so)."""
    return pa.array(values, pa.float64(), mask=np.isnan(values))


def plain_export_columns(
    batch: pa.Table, n_sentences: Sequence[int] | np.ndarray, provenance: RowProvenance | None = None
) -> dict[str, pa.Array]:
    """The export of every row of *batch* (untouched rows of a table :func:`plain_table` and
    :func:`plain_batch` accept), column by column, in the key order of
    :func:`ragviz.export.rows.export_row`: the input columns (bookkeeping dropped), ``dataset_name``,
    the label fields, the scores, the ``llm_`` label copies and the provenance fields.

    Each row is its input row, ``dataset_name`` filled in, the label fields normalised (a missing list is ``[]``, a
    missing explanation ``""``, the unsupported keys derived from the per-sentence support when the row stores
    none), the four TRACe scores recomputed from them, ``llm_`` copies of the same labels (the row's labels are the
    judge's) and ``label_source`` ``"llm"`` (``None`` when unlabeled), ``audit_sample`` false: exactly the values
    :func:`ragviz.export.rows.export_row` gives, and :func:`ragviz.export.json_text.json_lines` writes them as the
    JSON text ``json.dumps`` gives for their Python values.

    *n_sentences* is each row's context-sentence count (N of the TRACe formulas); *provenance* (one entry per
    row) stands for the provenance fields of rows that are not untouched (gold rows, :func:`plain_rows`)."""
    n = batch.num_rows
    labels = label_columns(batch)
    scores = trace_arrays(labels, np.asarray(n_sentences, np.int64))
    subset = fill_strings(batch.column(SUBSET_COL), "")
    if present_type(batch.schema, "dataset_name") is None:
        dataset_name = subset
    else:
        given = array_of(batch.column("dataset_name"))
        named = pc.fill_null(pc.call_function("not_equal", [given, pa.scalar("")]), pa.scalar(False))
        dataset_name = array_of(pc.if_else(named, given, subset))

    out: dict[str, pa.Array] = {}
    for name in batch.column_names:
        if name not in BOOKKEEPING:
            out[name] = array_of(batch.column(name))
    out["dataset_name"] = dataset_name
    out.update(labels.columns)
    out["relevance_score"] = _nullable(scores["relevance"])
    out["utilization_score"] = _nullable(scores["utilization"])
    out["completeness_score"] = _nullable(scores["completeness"])
    out["adherence_score"] = pa.array(scores["adherence"] == 1.0, pa.bool_(), mask=~labels.labeled)
    for name in LABEL_FIELDS:
        out[LLM_PREFIX + name] = labels.columns[name]
    labeled = pa.array(labels.labeled)
    if provenance is None:
        out["label_source"] = pc.if_else(labeled, "llm", pa.scalar(None, pa.string()))
        out["reviewer"] = pa.nulls(n, pa.string())
        out["reviewed_at"] = pa.nulls(n, pa.string())
        out["audit_sample"] = pa.array(np.zeros(n, np.bool_))  # only a reviewed row can be an audit member
        return out
    source = pa.array([s or "llm" for s in provenance.label_source], pa.string())
    out["label_source"] = pc.if_else(labeled, source, pa.scalar(None, pa.string()))
    out["reviewer"] = pa.array(provenance.reviewer, pa.string())
    out["reviewed_at"] = pa.array(provenance.reviewed_at, pa.string())
    out["audit_sample"] = pa.array(provenance.audit_sample, pa.bool_())
    return out
