"""The label store: every human decision as an append-only event, in SQLite (default) or PostgreSQL.

:mod:`~ragviz.store.events` folds events into labels (pure), :mod:`~ragviz.store.schema` holds the
schema (one runner, four migration sets), :mod:`~ragviz.store.dialect` the dialects, :mod:`~ragviz.store.database` the one connection interface over the backends
(:mod:`~ragviz.store.sqlite`, :mod:`~ragviz.store.postgres`), :mod:`~ragviz.store.label_store` the store itself with its composed
parts (``store.sources``, ``store.judge``, ``store.audits``, ``store.team``).
"""

from ragviz.store.events import Event, ExampleStatus
from ragviz.store.label_store import (
    DB_ENV,
    Conflict,
    LabelStore,
    StaleEdit,
    StoreError,
    StoreUnavailable,
    default_db_path,
    open_store,
)

__all__ = [
    "Conflict",
    "DB_ENV",
    "Event",
    "ExampleStatus",
    "LabelStore",
    "StaleEdit",
    "StoreError",
    "StoreUnavailable",
    "default_db_path",
    "open_store",
]
