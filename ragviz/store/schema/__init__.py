"""The store's schema: one runner (:mod:`~ragviz.store.schema.runner`) over four migration sets, one module each,
recorded in one table, ``schema_migrations``, keyed by (set, name) (the shape of sqlite-utils' migration sets).

- :mod:`~ragviz.store.schema.core`: label decisions and what every page shares;
- :mod:`~ragviz.store.schema.audit`: audit samples and their designs;
- :mod:`~ragviz.store.schema.judge`: the Batch API ledger, judge versions, the judge's confidence, the judge cache;
- :mod:`~ragviz.store.schema.team`: a team's round, the guideline of each decision, one name per person.

Both the label store and the judge cache open a database through :func:`migrate`, so whichever opens it first
brings every set up to date, and each refuses a store a newer ragviz wrote (a migration it does not know, in any
set) or one missing a table or column the migrations create (:func:`expected_columns`).

Rules, as Django's: a migration never imports live code (what a data migration computes is copied, frozen, into
:mod:`~ragviz.store.schema.frozen`; the package imports nothing of ragviz but :mod:`ragviz.store.dialect`), and a
released migration is never edited, renamed or moved to another set: a new change is a new migration. Numbers run
across the sets (001-021; the judge cache's two kept their names ``judge_0001_create``, ``judge_0002_endpoint_formats``).
There is no 007 and no 016: those numbers were handed to work done in parallel that landed without a migration,
and numbers are never reused, so a gap is no lost migration. A store of the two-runner era (a ``schema_migrations``
of names only, the judge cache's own ``judge_migrations``) is carried over in place on first opening: its rows move
into the one table under their sets with their times kept, and nothing runs again.
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
