"""The schema's one runner: every migration set in order, each migration applied once, recorded in
``schema_migrations`` keyed by (set, name), all pending ones in one write transaction; a store that records a
migration this ragviz does not know is refused, and so is one missing a table or column the migrations create."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from ragviz.store.dialect import SQLITE, Dialect
from ragviz.store.schema.audit import AUDIT
from ragviz.store.schema.base import Migration, MigrationSet
from ragviz.store.schema.core import CORE
from ragviz.store.schema.judge import JUDGE
from ragviz.store.schema.team import TEAM

__all__ = ["Connection", "MIGRATIONS", "MIGRATIONS_TABLE", "SETS", "expected_columns", "migrate", "schema_problems"]

# The order the sets run in: a set's migrations may read and alter the tables of the sets before it
# (team's 015 alters core's label_actions; team's 020 rewrites names in every set's tables, so team is last).
SETS: tuple[MigrationSet, ...] = (CORE, AUDIT, JUDGE, TEAM)

# Every migration of every set, by name (as LabelStore.applied_migrations lists them; names are unique across sets).
MIGRATIONS: tuple[tuple[str, Migration], ...] = tuple(
    sorted((m for s in SETS for m in s.migrations), key=lambda m: m[0])
)

MIGRATIONS_TABLE = "schema_migrations"
_CREATE_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations (migration_set TEXT NOT NULL, name TEXT NOT NULL,"
    " applied_at TEXT NOT NULL, PRIMARY KEY (migration_set, name))"
)

# Frozen: where each migration a store of the two-runner era recorded (``schema_migrations (name, applied_at)``,
# the judge cache's ``judge_migrations``) belongs now. Its rows are carried over under these sets; nothing re-runs.
_CARRIED: dict[str, str] = {
    "001_label_events": "core",
    "002_positions_and_sources": "core",
    "003_judge_label_sets": "core",
    "004_example_status_by_action": "core",
    "005_uploads": "core",
    "006_audit_samples": "audit",
    "008_recount_example_status": "core",
    "009_sign_ins": "core",
    "010_team_audit_sample": "audit",
    "011_chosen_data": "core",
    "012_judge_batches": "judge",
    "013_judge_versions": "judge",
    "014_team": "team",
    "015_decision_guidelines": "team",
    "017_audit_designs": "audit",
    "018_judge_confidence": "judge",
    "019_action_ids": "core",
    "020_fold_emails": "team",
    "021_trace_pushes": "core",
}
_CARRIED_JUDGE = ("judge_0001_create", "judge_0002_endpoint_formats")


class Connection(Protocol):
    """What the runner needs of a database (:class:`ragviz.store.database.Database` is one)."""

    dialect: Dialect
    path: Path | None
    location: str

    def execute(self, statement: str, params: Sequence[Any] = ()) -> Any: ...

    def executemany(self, statement: str, rows: Sequence[Sequence[Any]]) -> None: ...

    def begin_write(self) -> None: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def table_names(self) -> list[str]: ...


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def _known(sets: Sequence[MigrationSet]) -> set[tuple[str, str]]:
    return {(s.name, name) for s in sets for name in s.names()}


def _columns(db: Connection, table: str) -> set[str]:
    return {r[0] for r in db.execute(db.dialect.columns_of, (table,))}


def _newer(db: Connection, what: str, unknown: Iterable[str], error: type[Exception]) -> Exception:
    return error(
        f"{db.location}: {what} was written by a newer ragviz (unknown migrations {', '.join(sorted(unknown))});"
        " upgrade ragviz"
    )


def _up_to_date(db: Connection, sets: Sequence[MigrationSet], tables: set[str]) -> bool:
    if MIGRATIONS_TABLE not in tables or "judge_migrations" in tables:
        return False
    if "migration_set" not in _columns(db, MIGRATIONS_TABLE):
        return False
    applied = {(r[0], r[1]) for r in db.execute("SELECT migration_set, name FROM schema_migrations")}
    return applied == _known(sets)


def _carry_over(db: Connection, what: str, error: type[Exception]) -> None:
    """A store of the two-runner era: its ``schema_migrations`` (name, applied_at) and ``judge_migrations`` rows
    moved into the one table under their sets (their times kept), the old tables dropped. A name this ragviz
    never had is a newer ragviz's: refused before anything changes."""
    tables = set(db.table_names())
    rows: list[tuple[str, str, str]] = []
    if MIGRATIONS_TABLE in tables and "migration_set" not in _columns(db, MIGRATIONS_TABLE):
        old = db.execute("SELECT name, applied_at FROM schema_migrations").fetchall()
        unknown = [n for n, _ in old if n not in _CARRIED]
        if unknown:
            raise _newer(db, what, unknown, error)
        rows += [(_CARRIED[n], n, at) for n, at in old]
        db.execute("DROP TABLE schema_migrations")
    if "judge_migrations" in tables:
        old = db.execute("SELECT name, applied_at FROM judge_migrations").fetchall()
        unknown = [n for n, _ in old if n not in _CARRIED_JUDGE]
        if unknown:
            raise _newer(db, what, unknown, error)
        rows += [("judge", n, at) for n, at in old]
        db.execute("DROP TABLE judge_migrations")
    db.execute(_CREATE_TABLE)
    have = {(r[0], r[1]) for r in db.execute("SELECT migration_set, name FROM schema_migrations")}
    db.executemany(
        "INSERT INTO schema_migrations (migration_set, name, applied_at) VALUES (?, ?, ?)",
        [r for r in rows if (r[0], r[1]) not in have],
    )


def _refuse_a_foreign_database(db: Connection, what: str, error: type[Exception], tables: set[str]) -> None:
    """A shared server: never add ragviz's tables to someone else's database (the judge cache's tables aside:
    a judge run of the two-runner era may have made them first)."""
    if db.path is not None or MIGRATIONS_TABLE in tables:
        return
    others = sorted(t for t in tables if not t.startswith("judge_"))
    if others:
        raise error(
            f"{db.location}: cannot open {what}: the database has tables but none of ragviz's"
            f" ({', '.join(others[:5])}{' ...' if len(others) > 5 else ''}); give ragviz an empty database"
            " of its own (createdb ragviz)"
        )


def migrate(db: Connection, error: type[Exception], what: str = "label store") -> None:
    """Bring *db*'s schema up to date (every set of :data:`SETS`, in order) and check it; a refusal is *error* naming
    the database and *what* it is. Up to date, it only reads (no write lock). The driver's own errors pass through."""
    sets = SETS
    tables = set(db.table_names())
    if not _up_to_date(db, sets, tables):
        _refuse_a_foreign_database(db, what, error, tables)
        db.begin_write()
        try:
            _carry_over(db, what, error)
            applied = {(r[0], r[1]) for r in db.execute("SELECT migration_set, name FROM schema_migrations")}
            unknown = applied - _known(sets)
            if unknown:
                raise _newer(db, what, [f"{s}:{n}" for s, n in unknown], error)
            run: Callable[..., Any] = lambda s, p=(): db.execute(s, p)  # noqa: E731
            for migration_set in sets:
                for name, migration in migration_set.migrations:
                    if (migration_set.name, name) in applied:
                        continue
                    migration(run, db.dialect)
                    db.execute(
                        "INSERT INTO schema_migrations (migration_set, name, applied_at) VALUES (?, ?, ?)",
                        (migration_set.name, name, _now()),
                    )
            db.commit()
        except BaseException:
            db.rollback()
            raise
    problems = schema_problems(lambda t: _columns(db, t), expected_columns(sets))
    if problems:
        raise error(
            f"{db.location}: cannot open {what}: its schema is damaged ({'; '.join(problems)});"
            " restore it from a backup or point RAGVIZ_DB at another store. Nothing was changed."
        )


@lru_cache(maxsize=8)
def expected_columns(sets: tuple[MigrationSet, ...] = SETS) -> dict[str, tuple[str, ...]]:
    """Every table the migrations of *sets* leave, with its columns: read from a fresh in-memory SQLite database
    they ran on (the same names on PostgreSQL), so no list of columns is kept by hand beside the migrations."""
    conn = sqlite3.connect(":memory:")
    try:
        run: Callable[..., Any] = lambda s, p=(): conn.execute(s, p)  # noqa: E731
        conn.execute(_CREATE_TABLE)
        for migration_set in sets:
            for _, migration in migration_set.migrations:
                migration(run, SQLITE)
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {
            t: tuple(r[0] for r in conn.execute("SELECT name FROM pragma_table_info(?)", (t,)))
            for t in names
            if not t.startswith("sqlite_")
        }
    finally:
        conn.close()


def schema_problems(columns_of: Callable[[str], set[str]], wanted: dict[str, tuple[str, ...]]) -> list[str]:
    """What is missing from a store whose tables have the columns *columns_of* returns (an empty set for a missing
    table) against the *wanted* tables and columns, one phrase each.

    >>> schema_problems(lambda t: {"name"} if t == "uploads" else set(), {"uploads": ("name", "data"), "x": ("a",)})
    ['table uploads lacks column data', 'table x is missing']
    """
    problems = []
    for table, columns in wanted.items():
        have = columns_of(table)
        if not have:
            problems.append(f"table {table} is missing")
            continue
        problems.extend(f"table {table} lacks column {c}" for c in columns if c not in have)
    return problems
