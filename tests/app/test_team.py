"""Issue 28.8, the team shares its data and its export.

Served, data an admin opens is the team's data for every session (and replica: it is kept in the label
store, with who opened it and when) until an admin changes it. One export holds every annotator's latest
decision per example, a reviewer per row and, where two people decided different fields, who decided which
(``field_reviewers``): ``ragviz export --db`` with several annotators and none named, and the Export page's
"team" choice for admins."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from streamlit.testing.v1 import AppTest

from ragviz.cli.export import export_command
from ragviz.data.labels import Change, field_value, support_field
from ragviz.data.load import load
from ragviz.store.label_store import EVERYONE, LabelStore
from tests.apptest_helpers import open_page_as, shown
from tests.conftest import SAMPLE_DATA

LEAD, ANA, BO, GUEST = "lead@example.org", "ana@example.org", "bo@example.org", "guest@example.org"
ROLES = {"RAGVIZ_SERVED": "1", "RAGVIZ_ADMINS": LEAD, "RAGVIZ_ANNOTATORS": f"{ANA},{BO}"}
ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def _sidebar_html(at: AppTest) -> str:
    return "\n".join(h.value for h in at.sidebar.get("html"))


def test_data_an_admin_opens_is_the_teams_for_every_session(app_env, monkeypatch):
    for name, value in ROLES.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("RAGVIZ_DATA")  # no start-up data: only what an admin opens
    ana = open_page_as("pages/review.py", ANA)
    assert any("No data loaded yet" in i.value for i in ana.info)

    lead = open_page_as("pages/data.py", LEAD)
    lead.button(key="data.load_sample").click().run()
    assert not lead.exception, [e.value for e in lead.exception]
    assert "Loaded: 22 examples" in "\n".join(c.value for c in lead.sidebar.caption)  # at once, after the click

    for email in (ANA, BO):  # other sessions (a reload, a new tab, another replica: the same store)
        at = open_page_as("pages/review.py", email, id="ml-vs-programming")
        assert not any("No data loaded yet" in i.value for i in at.info)
        assert "Loaded: 22 examples" in "\n".join(c.value for c in at.sidebar.caption)
        assert "the team&#x27;s data, opened by lead@example.org" in _sidebar_html(at)
    viewer = open_page_as("pages/review.py", GUEST, id="ml-vs-programming")
    assert "Loaded: 22 examples" in "\n".join(c.value for c in viewer.sidebar.caption)
    assert LEAD not in _sidebar_html(viewer)  # a viewer sees no one's identity
    with LabelStore(app_env["db"]) as store:
        choice = store.chosen_data("team")
        assert choice is not None and choice.chosen_by == LEAD
        assert choice.sources == (str(SAMPLE_DATA.resolve()),)
    annotator_data = open_page_as("pages/data.py", ANA)
    assert "data.load_sample" not in {b.key for b in annotator_data.button}  # only admins change it


def _two_reviewers(where: str) -> list[str]:
    """ana corrects the relevant keys of ML, then bo marks its response sentence c supported; ana alone
    accepts med-001; returns the uids."""
    ds = load([str(SAMPLE_DATA)]).dataset
    ml = ds.example(ds.index_of(ML))
    med = next(e for e in ds if e.id == "med-001")
    with LabelStore(where) as store:
        store.register_source(SAMPLE_DATA)
        old = list(ml.labels.relevant_keys)
        store.record(ML, ANA, [Change("relevant_keys", old, [*old, "0a"])], example=ml)
        seen = field_value(store.current_labels(ml, BO), support_field("c"))
        store.record(ML, BO, [Change(support_field("c"), seen, {**seen, "supported": True})], example=ml)
        store.record(med.uid, ANA, [Change("review", None, "reviewed")], action="accept")
    return [ML, med.uid]


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_the_team_export_holds_every_annotators_latest_decision_and_who_made_it(db_target, tmp_path, fmt, capsys):
    ml, med = _two_reviewers(db_target)
    out = tmp_path / f"team.{fmt}"
    assert export_command(db_target, str(out), fmt) == 0  # several annotators, none named: the team's export
    assert "every annotator" in capsys.readouterr().err
    rows = (
        [json.loads(line) for line in out.read_text().splitlines()]
        if fmt == "jsonl"
        else pq.read_table(out).to_pylist()
    )
    assert len(rows) == 22
    by_uid = {f"{r['dataset_name']}/{r['id']}/{r['generation_model_name']}": r for r in rows}
    both = by_uid[ml]
    assert "0a" in both["all_relevant_sentence_keys"]  # ana's decision
    support = {s["response_sentence_key"]: s for s in both["sentence_support_information"]}
    assert support["c"]["fully_supported"] is True  # bo's decision
    assert both["label_source"] == "human" and both["reviewer"] == BO  # bo decided last
    assert json.loads(both["field_reviewers"]) == {"relevant_keys": ANA, "support:c": BO}
    accepted = by_uid[med]
    assert accepted["reviewer"] == ANA and accepted["label_source"] == "human"
    assert accepted.get("field_reviewers") is None  # one person: the reviewer says it all
    untouched = [r for u, r in by_uid.items() if u not in (ml, med)]
    assert {r["label_source"] for r in untouched} <= {"llm", None} and {r["reviewer"] for r in untouched} == {None}

    # one person's export is still there, by name, and holds only their decisions
    own = tmp_path / f"ana.{fmt}"
    assert export_command(db_target, str(own), fmt, annotator=ANA) == 0
    rows = (
        [json.loads(line) for line in own.read_text().splitlines()]
        if fmt == "jsonl"
        else pq.read_table(own).to_pylist()
    )
    mine = next(r for r in rows if r["id"] == "ml-vs-programming" and r["generation_model_name"] == "gpt-4o-mini")
    assert mine["reviewer"] == ANA and "field_reviewers" not in mine
    assert {s["response_sentence_key"]: s for s in mine["sentence_support_information"]}["c"][
        "fully_supported"
    ] is False


def test_nobody_records_under_the_team_name(tmp_path):
    with LabelStore(tmp_path / "labels.db") as store, pytest.raises(ValueError, match="every annotator"):
        store.record(ML, EVERYONE, [Change("review", None, "reviewed")])


def test_an_admin_downloads_the_teams_labels_on_the_export_page(app_env, monkeypatch):
    for name, value in ROLES.items():
        monkeypatch.setenv(name, value)
    _two_reviewers(str(app_env["db"]))
    ana = open_page_as("pages/export.py", ANA)
    assert not [r for r in ana.radio if r.key == "export.whose"]  # an annotator exports their own labels

    lead = open_page_as("pages/export.py", LEAD)
    whose = next(r for r in lead.radio if r.key == "export.whose")
    whose.set_value(EVERYONE).run()
    assert not lead.exception, [e.value for e in lead.exception]
    assert [b.proto.label for b in lead.get("download_button")] == ["Download labels (JSONL)"]
    assert any(shown(c.value).startswith("ragviz-labels-team.jsonl") for c in lead.caption)
    assert "--annotator '*'" in "\n".join(c.value for c in lead.code)
