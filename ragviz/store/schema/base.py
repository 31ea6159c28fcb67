"""What a migration and a migration set are (the runner is :mod:`ragviz.store.schema.runner`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ragviz.store.dialect import Dialect

__all__ = ["Migration", "MigrationSet", "RunSQL"]

# Runs one SQL statement (with ``?`` parameters when given); returns a cursor that a data migration reads.
RunSQL = Callable[..., Any]

# One migration: its SQL, run through *run* for the database's :class:`Dialect`.
Migration = Callable[[RunSQL, Dialect], None]


@dataclass(frozen=True)
class MigrationSet:
    """One part of the schema: its name (the first half of each row's key in ``schema_migrations``) and its
    migrations in the order they run. A name is never changed nor reused once released: stores record it."""

    name: str
    migrations: tuple[tuple[str, Migration], ...]

    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.migrations)
