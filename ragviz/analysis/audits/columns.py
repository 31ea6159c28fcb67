"""The data's columns a designed audit can be drawn by, for the draw form's pickers: the strata columns
(:func:`strata_columns`) and the judge-confidence columns (:func:`confidence_columns`)."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ragviz.analysis.audits.samples import CONFIDENCE_COLUMN, SUBSET_COLUMNS
from ragviz.data.dataset import Dataset

__all__ = ["confidence_columns", "strata_columns"]

_NUMERIC = (pa.float64(), pa.float32(), pa.int64(), pa.int32(), pa.float16(), pa.int16(), pa.int8())


def strata_columns(dataset: Dataset, most: int = 50) -> list[str]:
    """The columns a stratified sample can be drawn by: the subset (``dataset_name``) first, then the generation
    model when the data has one, then every other column with 2 to *most* distinct values and none empty."""
    out = ["dataset_name"]
    if "generation_model_name" in dataset.table.column_names:
        out.append("generation_model_name")
    for name in dataset.table.column_names:
        column = dataset.table.column(name)
        if name.startswith("_") or name in out or name in SUBSET_COLUMNS or column.null_count:
            continue
        if pa.types.is_string(column.type) or pa.types.is_integer(column.type) or pa.types.is_boolean(column.type):
            distinct = len(pc.unique(column))
            if 2 <= distinct <= most and "" not in pc.unique(column).to_pylist():
                out.append(name)
    return out


def confidence_columns(dataset: Dataset) -> list[str]:
    """The data's columns that could hold the judge's confidence: named for it (``confidence`` in the name; the
    metrics' own 0-1 score columns are not a confidence), numeric, every value in 0-1 where there is one
    (:data:`CONFIDENCE_COLUMN` first when present)."""
    out = []
    for name in dataset.table.column_names:
        column = dataset.table.column(name)
        if "confidence" not in name.lower() or column.type not in _NUMERIC or column.null_count == len(column):
            continue
        low, high = pc.min(column).as_py(), pc.max(column).as_py()
        if low is not None and 0 <= low and high <= 1:
            out.append(name)
    return sorted(out, key=lambda c: c != CONFIDENCE_COLUMN)
