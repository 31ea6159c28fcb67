"""ragviz: see, correct and re-score LLM-judge labels of RAG answers at sentence level. The public API, in five lines::

    import ragviz
    result = ragviz.load(["sample_data"])                  # any format ragviz reads; problems in result.errors
    records = list(ragviz.trace_records(result.dataset))   # TRACe per example, from the labels in the files
    with ragviz.open_store("labels.db") as store:          # the label store (default $RAGVIZ_DB, else ~/.ragviz/ragviz.db)
        ragviz.write_jsonl(ragviz.export_rows(result.dataset, store, "alice"), "corrected.jsonl")

Names are imported on first use, so ``import ragviz`` stays cheap. The core (this package minus
``ragviz.ui``) never imports Streamlit.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ragviz.version import __version__

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset
    from ragviz.data.load import LoadResult, load, load_bytes
    from ragviz.data.model import Example, Labels
    from ragviz.export.files import write_jsonl, write_metrics_csv, write_parquet
    from ragviz.export.rows import export_rows, metrics_records
    from ragviz.metrics.registry import dataset_all_records, dataset_family_records
    from ragviz.metrics.trace import TraceScores, trace_scores
    from ragviz.metrics.trace import dataset_trace_records as trace_records
    from ragviz.store.label_store import LabelStore, StoreError, open_store

# public name -> (module, attribute)
_PUBLIC: dict[str, tuple[str, str]] = {
    "load": ("ragviz.data.load", "load"),
    "load_bytes": ("ragviz.data.load", "load_bytes"),
    "LoadResult": ("ragviz.data.load", "LoadResult"),
    "Dataset": ("ragviz.data.dataset", "Dataset"),
    "Example": ("ragviz.data.model", "Example"),
    "Labels": ("ragviz.data.model", "Labels"),
    "trace_scores": ("ragviz.metrics.trace", "trace_scores"),
    "TraceScores": ("ragviz.metrics.trace", "TraceScores"),
    "trace_records": ("ragviz.metrics.trace", "dataset_trace_records"),
    "dataset_family_records": ("ragviz.metrics.registry", "dataset_family_records"),
    "dataset_all_records": ("ragviz.metrics.registry", "dataset_all_records"),
    "open_store": ("ragviz.store.label_store", "open_store"),
    "LabelStore": ("ragviz.store.label_store", "LabelStore"),
    "StoreError": ("ragviz.store.label_store", "StoreError"),
    "export_rows": ("ragviz.export.rows", "export_rows"),
    "metrics_records": ("ragviz.export.rows", "metrics_records"),
    "write_jsonl": ("ragviz.export.files", "write_jsonl"),
    "write_parquet": ("ragviz.export.files", "write_parquet"),
    "write_metrics_csv": ("ragviz.export.files", "write_metrics_csv"),
}

__all__ = [
    "__version__",
    "load",
    "load_bytes",
    "LoadResult",
    "Dataset",
    "Example",
    "Labels",
    "trace_scores",
    "TraceScores",
    "trace_records",
    "dataset_family_records",
    "dataset_all_records",
    "open_store",
    "LabelStore",
    "StoreError",
    "export_rows",
    "metrics_records",
    "write_jsonl",
    "write_parquet",
    "write_metrics_csv",
]


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module 'ragviz' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
