"""The team tables' migrations (``014_team``, ``015_decision_guidelines``) and what they leave, for
:mod:`ragviz.store.migrations` (*run* and *d* are its ``RunSQL`` and ``Dialect``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["TEAM_SCHEMA", "m014_team", "m015_decision_guidelines"]


def m014_team(run: Callable[..., Any], d: Any) -> None:
    # A labelling team's round (ragviz.store.team): assignment rounds (who set which overlap over which
    # pool) and their assignments, append-only ("+" assigns, "-" takes back: the newest row of an example
    # and annotator is where it stands); adjudications of examples whose annotators disagree (the settled
    # field values, what the adjudicator was shown, undo as one more row); guideline versions.
    run(
        f"""CREATE TABLE team_rounds (
            id {d.identity},
            kind TEXT NOT NULL,
            overlap INTEGER NOT NULL,
            pool TEXT NOT NULL,
            sample_id BIGINT,
            created_by TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )
    run(
        f"""CREATE TABLE team_assignments (
            id {d.identity},
            round_id BIGINT NOT NULL REFERENCES team_rounds (id),
            example_uid TEXT NOT NULL,
            annotator TEXT NOT NULL,
            op TEXT NOT NULL)"""
    )
    run("CREATE INDEX team_assignments_by_example ON team_assignments (example_uid, annotator, id)")
    run(
        f"""CREATE TABLE team_adjudications (
            id {d.identity},
            example_uid TEXT NOT NULL,
            adjudicator TEXT NOT NULL,
            ts TEXT NOT NULL,
            kind TEXT NOT NULL,
            settled TEXT,
            seen TEXT NOT NULL,
            undoes BIGINT)"""
    )
    run("CREATE INDEX team_adjudications_by_example ON team_adjudications (example_uid, id)")
    run(
        f"""CREATE TABLE team_guidelines (
            id {d.identity},
            text TEXT NOT NULL,
            author TEXT NOT NULL,
            ts TEXT NOT NULL)"""
    )


def m015_decision_guidelines(run: Callable[..., Any], d: Any) -> None:
    # Each decision records the guideline version in force when it was made (NULL: none written yet).
    run("ALTER TABLE label_actions ADD COLUMN guideline_version BIGINT")


TEAM_SCHEMA: dict[str, dict[str, tuple[str, ...]]] = {
    "014_team": {
        "team_rounds": ("id", "kind", "overlap", "pool", "sample_id", "created_by", "ts"),
        "team_assignments": ("id", "round_id", "example_uid", "annotator", "op"),
        "team_adjudications": ("id", "example_uid", "adjudicator", "ts", "kind", "settled", "seen", "undoes"),
        "team_guidelines": ("id", "text", "author", "ts"),
    },
    "015_decision_guidelines": {
        "label_actions": ("id", "example_uid", "annotator", "ts", "kind", "guideline_version"),
    },
}
