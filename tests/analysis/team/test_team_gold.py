"""Gold folding over a real store: all agree -> "agreed"; disagree -> the adjudication queue, then "adjudicated"
with who settled; not ready -> the judge's labels. The gold label set, the gold export and the dashboard's figures."""

from __future__ import annotations

import pytest

from ragviz.analysis.labelsets.named import GOLD, resolve_label_set
from ragviz.analysis.team.adjudicate import adjudication_queue, settle_example, shown_now
from ragviz.analysis.team.dashboard import team_figures
from ragviz.analysis.team.gold import team_round
from ragviz.analysis.team.progress import team_progress
from ragviz.data.labels import RELEVANT_FIELD, REVIEW_FIELD, REVIEWED, support_field
from ragviz.data.load import load
from ragviz.export.rows import export_rows
from ragviz.store.label_store import LabelStore
from tests.sample import SAMPLE_JSONL

TEAM = ["ana", "bo", "cy"]


@pytest.fixture
def round_store(tmp_path):
    ds = load([str(SAMPLE_JSONL)]).dataset
    store = LabelStore(tmp_path / "labels.db")
    ex = [ds.example(i) for i in range(3)]
    store.team.assignments.assign([e.uid for e in ex], 3, TEAM, "lead")
    accept = [(REVIEW_FIELD, None, REVIEWED)]
    for who in TEAM:  # example 0: everyone accepts the judge's labels
        store.record(ex[0].uid, who, accept, example=ex[0])
    store.record(ex[1].uid, "ana", accept, example=ex[1])  # example 1: cy drops 0b from relevant, bo flips c
    old = list(ex[1].labels.relevant_keys)
    store.record(ex[1].uid, "cy", [(RELEVANT_FIELD, old, [k for k in old if k != "0b."])], example=ex[1])
    sup = {"supported": False, "supporting_keys": [], "explanation": "not in the documents"}
    before = ex[1].labels.support_for("a")
    was = {
        "supported": before.supported,
        "supporting_keys": list(before.supporting_keys),
        "explanation": before.explanation,
    }
    store.record(ex[1].uid, "bo", [(support_field("a"), was, sup)], example=ex[1])
    store.record(ex[2].uid, "ana", accept, example=ex[2])  # example 2: only ana so far
    yield ds, store, ex
    store.close()


def test_gold_folds_agreed_adjudicated_and_waiting(round_store):
    ds, store, ex = round_store
    rounds = team_round(ds, store)
    r0, r1, r2 = (rounds[e.uid] for e in ex)
    assert r0.ready and not r0.differences and r0.gold.source == "agreed" and r0.gold.by == "ana, bo, cy"
    assert r1.ready and set(r1.differences) == {("relevant", "0b"), ("supported", "a"), ("supporting", "a")}
    assert r1.gold is None and adjudication_queue(rounds) == [ex[1].uid]
    assert not r2.ready and r2.gold is None and r2.done == ("ana",)

    _, seen = shown_now(ex[1], store)
    settle_example(
        ex[1], store, "lead", {("relevant", "0b"): False, ("supported", "a"): True, ("supporting", "a"): ("0b",)}, seen
    )
    rounds = team_round(ds, store)
    gold = rounds[ex[1].uid].gold
    assert gold.source == "adjudicated" and gold.by == "lead"
    assert "0b" not in gold.labels.relevant_keys and gold.labels.support_for("a").supported is True
    assert adjudication_queue(rounds) == []

    gold_set = resolve_label_set(ds, GOLD, store)
    assert sorted(gold_set.labels) == [0, 1]
    rows = export_rows(ds, store, GOLD)
    assert [r["label_source"] for r in rows[:3]] == ["agreed", "adjudicated", "llm"]
    assert rows[1]["reviewer"] == "lead" and rows[0]["reviewer"] == "ana, bo, cy" and rows[2]["reviewer"] is None
    assert "0b" not in rows[1]["all_relevant_sentence_keys"]


def test_progress_and_dashboard_figures_match_a_hand_count(round_store):
    ds, store, ex = round_store
    progress = team_progress(store)
    assert progress.as_dict()["annotators"] == {
        "ana": {"assigned": 3, "done": 3},
        "bo": {"assigned": 3, "done": 2},
        "cy": {"assigned": 3, "done": 2},
    }
    assert progress.example_text(ex[2].uid) == "1/3" and progress.example_text(ex[0].uid) == "3/3"
    figures = team_figures(team_round(ds, store), {}, n_boot=100)
    by = {a.name: a for a in figures.annotators}
    assert by["ana"].decided == 3 and by["bo"].decided == 2
    n_ctx = len(ex[0].context_keys()) + len(ex[1].context_keys())
    # cy differs from ana and bo on one relevant label of example 1, each of them once per other annotator
    assert by["cy"].with_others["relevant"].n == 2 * (n_ctx + len(ex[2].context_keys()) * 0)
    assert by["cy"].with_others["relevant"].equal == 2 * n_ctx - 2
    assert by["ana"].with_judge["relevant"].value == 1.0  # ana accepted the judge's labels everywhere
    assert by["cy"].with_gold["relevant"].n == len(ex[0].context_keys())  # gold exists on example 0 only so far
    assert figures.n_agreed == 1 and figures.n_waiting == 1 and figures.n_ready == 2
    assert figures.alpha["relevant"].alpha is not None and figures.alpha["relevant"].alpha < 1


def test_each_share_counts_its_examples_once_and_says_too_few_below_the_minimum(round_store):
    """A share over 2 examples read 100 % as surely as one over 200: it now counts its examples (an example compared
    with two other annotators once, not twice) and says "too few reviewed to say (N of 10)" below MIN_REVIEWED."""
    ds, store, _ = round_store
    by = {a.name: a for a in team_figures(team_round(ds, store), {}, n_boot=100).annotators}
    cy = by["cy"]
    assert cy.with_others["relevant"].examples == 2  # examples 0 and 1, each compared with ana and bo
    assert cy.with_gold["relevant"].examples == 1 and by["ana"].with_judge["relevant"].examples == 3
    assert cy.with_others["relevant"].too_few == "too few reviewed to say (2 of 10)"
    assert cy.as_dict()["with_others"]["relevant"]["too_few"] == "too few reviewed to say (2 of 10)"
    assert cy.with_others["relevant"].text().endswith(", too few reviewed to say (2 of 10)")
