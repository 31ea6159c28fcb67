"""Exporting the corrected label set: :mod:`~ragviz.export.rows` builds the rows (current labels, recomputed
scores, the judge's ``llm_`` copies, provenance), :mod:`~ragviz.export.files` writes them as JSONL, Parquet or
a per-example metrics CSV, :mod:`~ragviz.export.targets` what ``ragviz export`` / ``ragviz convert`` write."""

from ragviz.export.files import (
    FORMATS,
    export_bytes,
    export_filename,
    metrics_csv,
    write_jsonl,
    write_metrics_csv,
    write_parquet,
)
from ragviz.export.rows import export_rows, metrics_records

__all__ = [
    "FORMATS",
    "export_bytes",
    "export_filename",
    "export_rows",
    "metrics_csv",
    "metrics_records",
    "write_jsonl",
    "write_metrics_csv",
    "write_parquet",
]
