"""Blind means blind (issue 34): during a blind round an annotator sees her own labels and the judge's only — no
gold (whether an example of hers has gold would tell her that her partner agreed), no counts built from others'
labels, no other names; once every assignment is decided she may see gold. The round's agreement counts its
assigned annotators on their assigned examples only, the others named apart. AppTest with a real store."""

from __future__ import annotations

import json

from ragviz.analysis.team.alpha import round_alpha
from ragviz.analysis.team.gold import team_round
from ragviz.analysis.team.kappas import annotator_agreement
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, open_queue
from tests.sample import SAMPLE_JSONL

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"
REVIEW = [Change("review", None, "reviewed")]


def _round(db, *, all_done: bool = False) -> list[str]:
    """tester (the app's annotator) and bob label the first two examples; bob drops a relevant key of ML."""
    ds = load([SAMPLE_JSONL]).dataset
    ex = ds.example(ds.index_of(ML))
    keys = list(ex.labels.relevant_keys)
    uids = [ds.uids[i] for i in range(2)]
    with LabelStore(db) as store:
        store.team.assignments.assign(uids, 2, ["tester", "bob"], "lead")
        store.record(ML, "tester", REVIEW)
        store.record(ML, "bob", [Change("relevant_keys", keys, keys[:-1])])
        if all_done:
            for uid in uids[1:]:
                store.record(uid, "tester", REVIEW)
                store.record(uid, "bob", REVIEW)
        assert store.team.assignments.round_open() is not all_done
    return uids


def _options(at) -> set[str]:
    return {o for s in at.selectbox for o in s.options if isinstance(o, str)}


def test_during_a_blind_round_an_annotator_sees_no_gold_no_others_and_no_counts_from_them(app_env, monkeypatch):
    _round(app_env["db"])
    monkeypatch.setenv("RAGVIZ_ADMINS", "lead")  # tester is an annotator
    explainer = open_page("pages/explainer.py", uid=ML)
    offered = set(explainer.selectbox(key="explainer.other").options)
    assert offered == {"tester"}  # not gold (ML has none: bob disagreed), not bob, not "human" (bob's, last)
    html = "".join(h.proto.body for h in explainer.get("html"))
    assert "Human said (tester)" in html and "nobody has reviewed" not in html
    compare = open_page("pages/compare.py")
    assert not {"gold", "bob", "human"} & _options(compare)
    dashboard = open_page("pages/dashboard.py")
    against = next(s for s in dashboard.selectbox if s.label.startswith("Current labels"))
    assert set(against.options) == {"tester"}
    data = open_page("pages/data.py")
    names = [df.value for df in data.dataframe if "annotator" in df.value.columns]
    assert names and list(names[0]["annotator"]) == ["tester"]  # bob is not named
    judge = open_page("pages/judge.py")
    assert any("these count your own labels only" in c.value for c in judge.caption)
    assert any("No disagreement" in i.value for i in judge.info)  # bob's dropped key is not counted for tester
    assert not any(s.value == "Where the judge and people disagree" for s in judge.subheader)


def test_once_every_assignment_is_decided_she_may_see_gold(app_env, monkeypatch):
    _round(app_env["db"], all_done=True)
    monkeypatch.setenv("RAGVIZ_ADMINS", "lead")
    compare = open_page("pages/compare.py")
    assert "gold" in _options(compare) and not {"bob", "human"} & _options(compare)
    monkeypatch.setenv("RAGVIZ_ADMINS", "tester")  # an admin sees everyone, during the round too
    data = open_page("pages/data.py")
    names = [df.value for df in data.dataframe if "annotator" in df.value.columns]
    assert set(names[0]["annotator"]) == {"tester", "bob"}


def test_the_rounds_agreement_counts_its_assigned_annotators_only_and_names_the_others(tmp_path, capsys):
    ds = load([SAMPLE_JSONL]).dataset
    uids = [ds.uids[i] for i in range(4)]
    db = tmp_path / "labels.db"
    with LabelStore(db) as store:
        store.team.assignments.assign(uids[:2], 2, ["ana", "bo"], "lead")
        for uid in uids[:2]:
            for who in ("ana", "bo", "imp"):  # imp: labels imported from elsewhere, in no round
                ex = ds.example(ds.index_of(uid))
                keys = list(ex.labels.relevant_keys)
                change = [Change("relevant_keys", keys, [])] if who == "imp" else REVIEW
                store.record(uid, who, change, example=ex)
        store.record(uids[2], "ana", REVIEW)  # ana outside her assignments (an adjudicator's own review, say)
        store.record(uids[2], "imp", REVIEW)
        everyone = annotator_agreement(ds, None, store)
        the_round = annotator_agreement(ds, None, store, assigned=store.team.assignments.assigned())
        rounds = team_round(ds, store)
        alpha = round_alpha(rounds.values(), n_boot=50)
    assert everyone.annotators == ("ana", "bo", "imp")
    assert the_round.annotators == ("ana", "bo") and the_round.n_examples == {"ana": 2, "bo": 2}
    assert the_round.left_out == {"ana": 1, "imp": 3}
    assert all(p.kappa in (None, 1.0) for p in the_round.pairs)  # ana and bo agree everywhere
    assert alpha["relevant"].n_examples == 2  # uids[2] (ana and imp, outside the round) is not counted
    from ragviz.cli.main import main

    assert main(["agreement", str(SAMPLE_JSONL), "--db", str(db), "--annotators"]) == 0
    out = capsys.readouterr()
    figures = json.loads(out.out)
    assert figures["annotators"] == {"ana": 2, "bo": 2} and figures["left_out"] == {"ana": 1, "imp": 3}
    assert "not counted: imp's 3 decided examples outside the round's assignments" in out.err


def test_an_annotator_whose_assignments_skip_the_first_example_resumes_where_she_was(app_env):
    """Issue 34, 7: "My assignments" moved the first run to her nearest assigned row before the saved position
    was read, and overwrote it."""
    ds = load([SAMPLE_JSONL]).dataset
    mine = [ds.uids[i] for i in (3, 5, 7)]
    with LabelStore(app_env["db"]) as store:
        store.team.assignments.assign(mine, 1, ["tester"], "lead")
        store.save_position("tester", mine[1])
    at = open_page("pages/review.py")
    assert at.session_state["review.index"] == 5 and at.query_params["uid"] == mine[1]
    with LabelStore(app_env["db"]) as store:
        assert store.position("tester") == mine[1]  # not overwritten by the nearest assigned row (3)


def test_the_audit_queue_counts_only_her_own_reviews_during_a_blind_round(app_env, monkeypatch):
    ds = load([SAMPLE_JSONL]).dataset
    with LabelStore(app_env["db"]) as store:
        sample = store.audits.draw_sample(ds.uids, 4, "lead", seed=1)
        store.team.assignments.assign(list(sample.members), 2, ["tester", "bob"], "lead")
        for uid in sample.members[:3]:
            store.record(uid, "bob", REVIEW)  # bob is ahead of her
        store.record(sample.members[0], "tester", REVIEW)
    monkeypatch.setenv("RAGVIZ_ADMINS", "lead")
    at = open_page("pages/review.py")
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.radio(key="review.queue").set_value("Audit sample").run()
    progress = [p.proto.text.replace("\\", "") for p in at.get("progress")]
    assert any("1 of 4 reviewed" in t for t in progress), progress  # not bob's 3
