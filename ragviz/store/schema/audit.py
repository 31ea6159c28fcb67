"""The ``audit`` migration set: audit samples (who drew one, with which seed and design, its members) and the
team's chosen sample (:mod:`ragviz.store.audit_samples`)."""

from __future__ import annotations

from ragviz.store.dialect import Dialect
from ragviz.store.schema.base import MigrationSet, RunSQL

__all__ = ["AUDIT"]


def _m006_audit_samples(run: RunSQL, d: Dialect) -> None:
    # Uniformly random audit samples: who drew one, with which seed, from which examples (a fingerprint of
    # their uids), and its members in draw order.
    run(
        f"""CREATE TABLE audit_samples (
            id {d.identity},
            seed BIGINT NOT NULL,
            population TEXT NOT NULL,
            population_size INTEGER NOT NULL,
            created_by TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )
    run(
        """CREATE TABLE audit_sample_members (
            sample_id BIGINT NOT NULL REFERENCES audit_samples (id),
            position INTEGER NOT NULL,
            example_uid TEXT NOT NULL,
            added_by TEXT NOT NULL,
            ts TEXT NOT NULL,
            PRIMARY KEY (sample_id, position),
            UNIQUE (sample_id, example_uid))"""
    )


def _m010_team_audit_sample(run: RunSQL, d: Dialect) -> None:
    # The team's audit sample is an admin's explicit choice: every choice kept with who made it and when; the
    # newest choice is the team's sample.
    run(
        f"""CREATE TABLE audit_sample_choices (
            id {d.identity},
            sample_id BIGINT NOT NULL REFERENCES audit_samples (id),
            chosen_by TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )


def _m017_audit_designs(run: RunSQL, d: Dialect) -> None:
    # Audit designs (ragviz.analysis.audits.designs): a sample's design and its estimator's needs (JSON); per member
    # its stratum, inclusion probability and selection weight. Older samples are uniform.
    run("ALTER TABLE audit_samples ADD COLUMN design TEXT NOT NULL DEFAULT 'uniform'")
    run("ALTER TABLE audit_samples ADD COLUMN design_json TEXT NOT NULL DEFAULT '{}'")
    run("ALTER TABLE audit_sample_members ADD COLUMN stratum TEXT")
    run("ALTER TABLE audit_sample_members ADD COLUMN inclusion_probability DOUBLE PRECISION")
    run("ALTER TABLE audit_sample_members ADD COLUMN selection_weight DOUBLE PRECISION")


AUDIT = MigrationSet(
    "audit",
    (
        ("006_audit_samples", _m006_audit_samples),
        ("010_team_audit_sample", _m010_team_audit_sample),
        ("017_audit_designs", _m017_audit_designs),
    ),
)
