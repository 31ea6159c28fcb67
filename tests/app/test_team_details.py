"""Issue 34, item 10 on the Team page and beside it (AppTest, a real store): the assign form's pool offers
RAGVIZ_ANNOTATORS before anyone decided; an adjudicator's sidebar says adjudicator; agreed rows name their
reviewers in one order; Fleiss' κ with overlap 2 says why there is none instead of "None"; guideline images are
links, never fetched."""

from __future__ import annotations

from ragviz.analysis.team.gold import AGREED, team_round
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page
from tests.sample import SAMPLE_JSONL

REVIEW = [Change("review", None, "reviewed")]


def _tab(at, name: str):
    at.session_state["team.tab"] = name
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_pool_offers_the_listed_annotators_before_anyone_decided(app_env, monkeypatch):
    monkeypatch.setenv("RAGVIZ_ADMINS", "tester")
    monkeypatch.setenv("RAGVIZ_ANNOTATORS", "Ana@Example.org, bo@example.org")
    at = open_page("pages/team.py")
    pool = next(m for m in at.multiselect if m.label == "Pool (known names)")
    assert {"ana@example.org", "bo@example.org"} <= set(pool.options)


def test_an_adjudicators_sidebar_says_adjudicator(app_env, monkeypatch):
    monkeypatch.setenv("RAGVIZ_ADMINS", "lead")
    monkeypatch.setenv("RAGVIZ_ADJUDICATORS", "tester")
    at = open_page("pages/home.py")
    sidebar = "".join(h.proto.body for h in at.sidebar.get("html"))
    assert "(adjudicator)" in sidebar and "(annotator)" not in sidebar


def test_agreed_rows_name_their_reviewers_in_one_order(tmp_path):
    ds = load([SAMPLE_JSONL]).dataset
    uid = ds.uids[0]
    with LabelStore(tmp_path / "labels.db") as store:
        store.team.assignments.assign([uid], 2, ["zed", "amy"], "lead")  # zed assigned first
        store.record(uid, "zed", REVIEW)
        store.record(uid, "amy", REVIEW)
        gold = team_round(ds, store)[uid].gold
    assert gold.source == AGREED and gold.by == "amy, zed"


def test_fleiss_kappa_with_overlap_two_says_why_there_is_none(app_env):
    ds = load([SAMPLE_JSONL]).dataset
    uids = [ds.uids[i] for i in range(6)]
    with LabelStore(app_env["db"]) as store:
        store.team.assignments.assign(uids, 2, ["ana", "bo", "cy"], "tester")
        for uid in uids:
            for who in ("ana", "bo", "cy"):
                if who in _assignees(store, uid):
                    store.record(uid, who, REVIEW)
    at = _tab(open_page("pages/team.py"), "Annotators")
    fleiss = next(df.value for df in at.dataframe if "Fleiss' κ" in df.value.columns)
    assert set(fleiss["Fleiss' κ"]) == {"—"}
    assert set(fleiss["why no κ"]) == {"no example was decided by all 3 annotators"}


def _assignees(store, uid):

    return store.team.assignments.assigned_to(uid)


def test_guideline_images_are_links_never_fetched(app_env, monkeypatch):
    with LabelStore(app_env["db"]) as store:
        store.team.guidelines.save_guidelines(
            "Mark it like this: ![example](https://tracker.example/pixel.png)", "lead"
        )
    at = open_page("pages/team.py")
    at = _tab(at, "Guidelines")
    shown = [m.value for m in at.markdown if "tracker.example" in m.value]
    assert shown and all("\\![example]" in m for m in shown)  # shown as "!" and a link: no <img>
