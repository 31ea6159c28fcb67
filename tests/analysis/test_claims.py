"""The Claims page's core without Streamlit: pending editor edits as changes, the items as the annotator
sees them (overrides folded in, unfitting overrides reported), statuses and the corrected file."""

from __future__ import annotations

import json

from ragviz.analysis.claims import (
    corrected_file,
    corrected_file_name,
    current_items,
    item_statuses,
    item_uids,
    item_with_overrides,
    pending_changes,
    reset_changes,
    review_changes,
)
from ragviz.data.checked_claims import CheckedItem, RetrievedChunk
from ragviz.data.claim_overrides import claim_uid
from ragviz.data.formats.ragchecker import parse_ragchecker
from ragviz.data.labels import Change
from ragviz.store.label_store import LabelStore


def _item(query_id: str = "q") -> CheckedItem:
    return CheckedItem(
        query_id,
        "Which river is longest?",
        "The Nile.",
        "The Nile — 6 650 km.",
        (RetrievedChunk("d0", "t"), RetrievedChunk(None, "u")),
        ("c0", ("Nile", "is", "longest")),
        ("g0",),
        ("Neutral", "Entailment"),
        ("Entailment",),
        (("Neutral", "Neutral"), ("Entailment", "Neutral")),
        (("Entailment", "Neutral"),),
    )


def test_pending_changes_cover_both_editors_response_first():
    item = _item()
    edits = {"gt_answer": {0: {"vs response": "Neutral"}}, "response": {1: {"chunk 2": "Contradiction"}}}
    assert pending_changes(item, edits) == [
        Change("claim:retrieved2response:1:1", "Neutral", "Contradiction"),
        Change("claim:response2answer:0", "Entailment", "Neutral"),
    ]
    assert pending_changes(item, {"response": {}, "gt_answer": {}}) == []
    assert pending_changes(item, {"response": {0: {"vs gt answer": "Neutral"}}}) == []  # unchanged cell


def test_review_and_reset_are_one_event_each():
    assert review_changes() == [Change("review", None, "reviewed")]
    assert reset_changes() == [Change("reset", None, None)]


def test_item_with_overrides_folds_or_keeps_the_file_item():
    item = _item()
    assert item_with_overrides(item, [("claim:answer2response:0", "Entailment")]).answer2response == (
        "Entailment",
        "Entailment",
    )
    assert item_with_overrides(item, [("claim:answer2response:7", "Entailment")]) is item


def test_current_items_fold_each_annotators_overrides_and_report_what_no_longer_fits(tmp_path):
    items = [_item("a"), _item("b"), _item("c")]
    assert item_uids(items, "f.json") == [claim_uid("f.json", q) for q in "abc"]
    store = LabelStore(tmp_path / "s.db")
    store.record(claim_uid("f.json", "a"), "ann", [Change("claim:answer2response:0", "Neutral", "Entailment")])
    store.record(claim_uid("f.json", "c"), "ann", [Change("claim:answer2response:5", "Neutral", "Entailment")])
    store.record(claim_uid("f.json", "b"), "bob", [Change("claim:response2answer:0", "Entailment", "Neutral")])

    currents, problems = current_items(items, "f.json", store, "ann")
    assert currents[0].answer2response == ("Entailment", "Entailment")
    assert currents[1] is items[1] and currents[2] is items[2]
    assert problems == [
        "ragchecker:f.json/c: claim:answer2response:5: claim 5 does not exist (the item has 2 response claims)"
    ]
    assert current_items(items, "f.json", store, "bob")[0][1].response2answer == ("Neutral",)
    assert current_items(items, "other.json", store, "ann") == (items, [])


def test_item_statuses_corrected_wins_over_reviewed():
    assert item_statuses(["a", "b", "c", "d"], reviewed={"a", "b"}, corrected={"b", "c"}) == [
        "reviewed",
        "corrected",
        "corrected",
        "",
    ]


def test_corrected_file_is_ragchecker_json_that_reads_back():
    item = item_with_overrides(_item(), [("claim:retrieved2answer:1:0", "Entailment")])
    data = corrected_file([item])
    assert "6 650 km" in data.decode("utf-8") and "—" in data.decode("utf-8")  # UTF-8, not \\u escapes
    again = parse_ragchecker(json.loads(data), "x.json").items[0]
    assert again.retrieved2answer == (("Entailment", "Entailment"),)
    assert again.gt_answer_claims == item.gt_answer_claims and again.response_claims == item.response_claims
    assert corrected_file_name("checking_outputs.json") == "checking_outputs-corrected.json"
