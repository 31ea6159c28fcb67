"""One person, one name (SQLite and PostgreSQL): an e-mail address is stored, compared and shown case-folded, and
migration 020_fold_emails folds what an older ragviz stored under other spellings of one address into one."""

from __future__ import annotations

import logging

import pytest

import ragviz.store.label_store as store_module
import ragviz.store.team.assignments as assignments_module
from ragviz.data.labels import RELEVANT_FIELD, REVIEW_FIELD, REVIEWED
from ragviz.store.identity_folds import identity_folds
from ragviz.store.label_store import LabelStore
from ragviz.store.roles import Identity, access_of, identity_of_claims
from ragviz.store.schema import SETS, MigrationSet
from ragviz.store.schema import runner as schema_runner
from ragviz.store.sign_ins import end_sign_ins, sign_in_is_open
from tests.analysis.test_agreement import make_example

UPPER, LOWER = "Annotator@Example.org", "annotator@example.org"


def test_a_signed_in_address_is_case_folded_and_roles_match_it():
    who = identity_of_claims({"email": " Annotator@Example.org", "email_verified": True}, {})
    assert who.names == (LOWER,)
    env = {"RAGVIZ_ADMINS": "lead@example.org", "RAGVIZ_ANNOTATORS": "ANNOTATOR@example.org"}
    assert access_of(Identity(("LEAD@EXAMPLE.ORG",), True), served=True, sign_in=True, environ=env).role == "admin"
    assert access_of(who, served=True, sign_in=True, environ=env).role == "annotator"


def test_every_spelling_of_an_address_reads_and_writes_one_persons_labels(db_target):
    ex = make_example("q1")
    with LabelStore(db_target) as store:
        store.record(ex.uid, UPPER, [(RELEVANT_FIELD, None, ["0b"])], example=ex)
        store.record("toy/q2/m", "ANNOTATOR@EXAMPLE.ORG", [(REVIEW_FIELD, None, REVIEWED)], action="accept")
        store.save_position("AnNoTaToR@example.org", "toy/q2/m")
        assert store.annotators() == [LOWER]
        assert set(store.statuses(LOWER)) == {ex.uid, "toy/q2/m"} == set(store.statuses(UPPER))
        assert store.current_labels(ex, LOWER).relevant_keys == ("0b",)
        assert store.position(LOWER) == "toy/q2/m"
        made = store.team.assignments.assign([ex.uid, "toy/q2/m"], 1, [UPPER, LOWER], by="LEAD@Example.org")
        assert made.pool == (LOWER,) and made.created_by == "lead@example.org"
        assert set(store.team.assignments.assigned().values()) == {(LOWER,)}
        assert sign_in_is_open(store, "login-1", UPPER) and end_sign_ins(store, LOWER) == 1
        assert not sign_in_is_open(store, "login-1", LOWER)


def without_020(migration_set: MigrationSet) -> MigrationSet:
    return MigrationSet(migration_set.name, tuple(m for m in migration_set.migrations if m[0] != "020_fold_emails"))


def _old_store(db_target, monkeypatch, ex) -> None:
    """What an older ragviz (no 020, names stored as spelled) left: two spellings of one address."""
    monkeypatch.setattr(schema_runner, "SETS", tuple(without_020(s) for s in SETS))
    for module in (store_module, assignments_module):
        monkeypatch.setattr(module, "identity_name", str.strip)
    import ragviz.store.sign_ins as sign_ins
    import ragviz.store.team.adjudications as adjudications

    for module in (sign_ins, adjudications):  # annotators' positions: in store_module (label_store) since issue 35
        monkeypatch.setattr(module, "identity_name", str.strip)
    with LabelStore(db_target) as store:
        assert "020_fold_emails" not in store.applied_migrations()
        store.record(ex.uid, UPPER, [(RELEVANT_FIELD, None, ["0b"])], example=ex)
        store.save_position(UPPER, ex.uid)
        store.record("toy/q2/m", LOWER, [(REVIEW_FIELD, None, REVIEWED)], action="accept")
        store.record(ex.uid, LOWER, [(REVIEW_FIELD, None, REVIEWED)], action="accept")
        store.save_position(LOWER, "toy/q2/m")  # her latest position, under the other spelling
        store.team.assignments.assign([ex.uid, "toy/q2/m", "toy/q3/m"], 2, [UPPER, "bo"], by="LEAD@EXAMPLE.ORG")
        store.team.adjudications.settle(
            "toy/q3/m", "Adjudicator@Example.org", {RELEVANT_FIELD: []}, "seen", lambda: "seen"
        )
        sign_in_is_open(store, "login-1", UPPER)
        assert sorted(store.annotators()) == [UPPER, LOWER]
    monkeypatch.undo()


def test_migration_020_folds_decisions_assignments_positions_and_says_what(db_target, monkeypatch, caplog, capsys):
    ex = make_example("q1")
    _old_store(db_target, monkeypatch, ex)
    with caplog.at_level(logging.WARNING, logger="ragviz.store"), LabelStore(db_target) as store:
        assert "020_fold_emails" in store.applied_migrations()
        assert store.annotators() == [LOWER]
        status = store.statuses(LOWER)
        assert set(status) == {ex.uid, "toy/q2/m"} and status[ex.uid].reviewed and status[ex.uid].corrected
        assert store.current_labels(ex, LOWER).relevant_keys == ("0b",)  # her edit under the other spelling
        assert store.position(LOWER) == "toy/q2/m"  # the latest of the two positions
        assert n_rows(store, "annotator_positions") == 1
        current = store.team.assignments.assigned()
        assert {who for names in current.values() for who in names} == {LOWER, "bo"}
        last = store.team.assignments.latest_round()
        assert last.pool == (LOWER, "bo") and last.created_by == "lead@example.org"
        assert store.team.adjudications.settlements()["toy/q3/m"].adjudicator == "adjudicator@example.org"
        assert not sign_in_is_open(store, "login-1", "someone-else") and sign_in_is_open(store, "login-1", LOWER)
        folds = {f.spelling: f for f in store.read(identity_folds)}
        assert set(folds) == {UPPER, "LEAD@EXAMPLE.ORG", "Adjudicator@Example.org"}
        said = folds[UPPER].describe()
        assert said.startswith(f"{UPPER} -> {LOWER}: 1 decision, ") and "3 assignments" in said
        assert "1 position" in said and "1 sign-in" in said
    logged = [r.getMessage() for r in caplog.records if "020_fold_emails" in r.getMessage()]
    assert any(said in line for line in logged)
    with LabelStore(db_target) as again:  # applied once: nothing more to fold
        assert len(again.read(identity_folds)) == 3
    from ragviz.cli.main import main

    assert main(["team", "status", "--db", db_target]) == 0
    assert f"folded {said}" in capsys.readouterr().err


def n_rows(store: LabelStore, table: str) -> int:
    return int(store.query(f"SELECT COUNT(*) FROM {table}")[0][0])


@pytest.mark.parametrize("spelling", [UPPER, "ANNOTATOR@EXAMPLE.ORG"])
def test_cli_names_are_folded_too(spelling):
    from ragviz.cli.common import fold_identities
    from ragviz.cli.main import build_parser

    args = fold_identities(
        build_parser(["import-labels"]).parse_args(["import-labels", "x.jsonl", "--annotator", spelling])
    )
    assert args.annotator == LOWER
