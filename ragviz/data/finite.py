"""Scores read column-wise made finite: the check :func:`ragviz.data.schema.load_rows` makes per row, for
tables read whole by Arrow (Parquet, JSON Lines, ``save_to_disk``)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ragviz.data.problems import Report
from ragviz.data.schema import FLOAT_FIELDS

__all__ = ["finite_scores"]


def finite_scores(table: pa.Table, path: str, report: Report, first_row: int = 1) -> pa.Table:
    """*table* (read column-wise, so :func:`load_rows`' per-row checks did not run) with every
    infinite or NaN score made null and reported as the row-by-row path reports it: a warning naming
    *path*, the row (numbered from *first_row*) and the field. inf / NaN would crash AUROC and the
    Dashboard's statistics, and ``agreement`` would skip those rows without a word."""
    import pyarrow.compute as pc

    for name in sorted(FLOAT_FIELDS & set(table.column_names)):
        i = table.column_names.index(name)
        column = table.column(i)
        if not pa.types.is_floating(column.type):
            continue
        finite: Any = pc.is_finite(column)
        bad: Any = pc.fill_null(pc.invert(finite), False)
        if not pc.any(bad).as_py():
            continue
        values = column.to_pylist()
        rows: list[int] = pc.indices_nonzero(bad).to_pylist()
        for row in rows:
            report.warning(path, first_row + row, name, f"expected a finite number, got {values[row]}; ignored")
        table = table.set_column(i, name, pc.if_else(bad, pa.scalar(None, column.type), column))
    return table
