"""The store's schema: one runner (:mod:`~ragviz.store.schema.runner`) over four migration sets, one module each,
recorded in one table, ``schema_migrations``, keyed by (set, name) (the shape of sqlite-utils' migration sets):
:mod:`~ragviz.store.schema.core` (label decisions, what every page shares), :mod:`~ragviz.store.schema.audit`
(audit samples, designs), :mod:`~ragviz.store.schema.judge` (Batch API ledger, judge versions, confidence, the judge
cache), :mod:`~ragviz.store.schema.team` (a team's round, each decision's guideline, one name per person).

The label store and the judge cache both open a database through :func:`migrate` (whichever comes first brings every
set up to date; a store a newer ragviz wrote, or one missing a column, is refused). As Django's: a migration never
imports live code (:mod:`~ragviz.store.schema.frozen`), and a released one is never edited, renamed or moved. The
numbering (no 007, no 016) and the carry-over of a two-runner-era store: ``docs/store-schema.md``.
"""

from __future__ import annotations

from ragviz.store.schema.base import Migration, MigrationSet, RunSQL
from ragviz.store.schema.runner import (
    MIGRATIONS,
    MIGRATIONS_TABLE,
    SETS,
    Connection,
    expected_columns,
    migrate,
    schema_problems,
)

__all__ = [
    "Connection",
    "MIGRATIONS",
    "MIGRATIONS_TABLE",
    "Migration",
    "MigrationSet",
    "RunSQL",
    "SETS",
    "expected_columns",
    "migrate",
    "schema_problems",
]
