"""Issue 39: a paired audit sample on Review shows the question and the documents once and the two systems' answers
side by side; each answer's verdicts go to its own row, the page's keys act on the focused answer."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ragviz.analysis.compare_systems.audit import draw_paired
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from ragviz.ui.review.sentence_editor import EVENTS
from tests.apptest_helpers import (
    component_data,
    edit_sentence,
    open_page,
    open_queue,
    press,
    response_editor,
    text_editor,
)
from tests.sample import SAMPLE_DATA


def _responses(at: AppTest) -> dict[str, dict]:
    """The response editors on the page by slot ("" for the single view's)."""
    out = {}
    for element in at.get("bidi_component"):
        data = component_data(element.proto)
        if data.get("kind") == "response":
            out[data.get("slot", "")] = data
    return out


def _open_paired(app_env) -> tuple:
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(app_env["db"]) as store:
        sample = draw_paired(store, ds, 3, "tester", seed=4)
    at = open_page("pages/review.py")
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.radio(key="review.queue").set_value("Audit sample").run()
    assert not at.exception, [e.value for e in at.exception]
    return ds, sample, at


def test_both_answers_of_a_question_side_by_side_each_edited_on_its_own_row(app_env):
    ds, sample, at = _open_paired(app_env)
    a_uid, b_uid = sample.members[0], sample.members[1]
    assert at.query_params["uid"] in ([a_uid], a_uid)  # the first question's first answer has the focus
    responses = _responses(at)
    assert set(responses) == {"a", "b"} and responses["a"]["uid"] == a_uid and responses["b"]["uid"] == b_uid
    assert responses["a"]["focused"] and not responses["b"]["focused"]
    assert text_editor(at, "context")["uid"] == a_uid  # the documents once, labelled for the focused answer
    assert sum(1 for h in at.get("html") if "Question" in h.proto.body) == 1  # the question once
    bodies = " ".join(h.proto.body for h in at.get("html"))
    assert "Audit sample #1: question 1 of 3" in bodies and "Answer A" in bodies and "Answer B" in bodies

    # each answer's verdict control edits its own row; the other answer's stays as it was
    for slot in ("b", "a"):
        chosen = response_editor(at, slot)["controls"]["status"]
        edit_sentence(at, "verdict", "supported" if chosen == "unsupported" else "unsupported", slot=slot)
    with LabelStore(app_env["db"]) as store:
        edited = {uid for uid in (a_uid, b_uid) if store.effective(uid, "tester")}
    assert edited == {a_uid, b_uid}

    # a click on B's response moves the focus there: the documents then show and take B's labels
    key = responses["b"]["sentences"][-1][0]
    at.session_state[EVENTS] = [{"uid": b_uid, "kind": "select", "key": key, "slot": "b"}]
    at.run()
    assert at.query_params["uid"] in ([b_uid], b_uid)
    assert text_editor(at, "context")["uid"] == b_uid and _responses(at)["b"]["focused"]
    # Accept acts on the focused answer
    press(at, "accept")
    with LabelStore(app_env["db"]) as store:
        last = store.last_action("tester")
    assert last is not None and (last.kind, last.example_uid) == ("accept", b_uid)
    # S (Work on answer A) moves the focus back; accepting A then opens nothing new: J walks questions
    next(b for b in at.button if b.key == "review.focus_other").click().run()
    assert at.query_params["uid"] in ([a_uid], a_uid)
    press(at, "next")
    assert at.query_params["uid"] in ([sample.members[2]], sample.members[2])
    assert ds.ids[ds.index_of(sample.members[2])] == ds.ids[ds.index_of(sample.members[3])]


def test_accepting_one_answer_moves_the_focus_to_its_unreviewed_partner(app_env):
    _, sample, at = _open_paired(app_env)
    press(at, "accept")
    assert at.query_params["uid"] in ([sample.members[1]], sample.members[1])
    press(at, "accept")  # both reviewed: the focus stays
    assert at.query_params["uid"] in ([sample.members[1]], sample.members[1])


def test_presenting_a_paired_question_shows_both_answers_without_controls_or_review_status(app_env):
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(app_env["db"]) as store:
        sample = draw_paired(store, ds, 3, "tester", seed=4)
        store.record(
            sample.members[1],
            "tester",
            [Change(REVIEW_FIELD, None, REVIEWED)],
            example=ds.example(ds.index_of(sample.members[1])),
        )
    at = open_page("pages/review.py", present="1", queue="audit", sample="1")
    assert set(_responses(at)) == {"a", "b"}
    assert not [r for r in _responses(at).values() if r.get("controls")]  # no verdict, note or keys control
    assert all(r["explain"] for r in _responses(at).values())  # the explanation is shown
    bodies = " ".join(h.proto.body for h in at.get("html"))
    assert "Answer A" in bodies and "Answer B" in bodies
    assert "reviewed" not in bodies and "judge 0" not in bodies  # no status, no judge's score beside people's
