"""One column brought to the type a unified schema gives it (the export's batches, the streamed Parquet writer)."""

from __future__ import annotations

import pyarrow as pa

__all__ = ["aligned_column"]


def aligned_column(table: pa.Table, field: pa.Field) -> pa.ChunkedArray | pa.Array:
    """*table*'s column *field.name* as *field.type* (nulls when the table lacks it). A column of that type
    already is kept as it is: pyarrow 26 breaks a list-of-struct column whose child field is always null when it
    is cast to its own type (``ArrowInvalid`` at validation: the child's length). A cast that fails the same way
    between two types is redone from the Python values."""
    if field.name not in table.column_names:
        return pa.nulls(table.num_rows, field.type)
    column = table.column(field.name)
    if column.type == field.type:
        return column
    cast = column.cast(field.type)
    try:
        cast.validate(full=True)
    except pa.ArrowInvalid:
        return pa.array(column.to_pylist(), type=field.type)
    return cast
