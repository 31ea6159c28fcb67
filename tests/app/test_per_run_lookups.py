"""The label store and the open data are looked up once a run (``ragviz.ui.core.per_run``): a J of the Review page asked
for the store's cached resource seven times and read the data's choice from the store twice. What changes between
runs still counts from the next run: another ``$RAGVIZ_DB``, data another session opened."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ragviz.data.labels import Change
from ragviz.store.label_store import LabelStore
from tests.sample import ROOT

SAMPLE = str(ROOT / "sample_data")


def _store_twice() -> None:
    import streamlit as st

    from ragviz.ui.core import state

    first, again = state.store(), state.store()
    st.text(f"{first.location} {again is first}")


def test_the_store_is_looked_up_once_a_run_and_another_ragviz_db_counts_from_the_next_run(
    app_env, monkeypatch, tmp_path
):
    from ragviz.ui.core import state

    asked: list[str] = []
    where = state.default_db
    monkeypatch.setattr(state, "default_db", lambda: asked.append(str(where())) or where())
    at = AppTest.from_function(_store_twice, default_timeout=30).run()
    assert at.text[0].value == f"{app_env['db']} True"
    assert asked == [str(app_env["db"])]  # once, though asked twice
    other = tmp_path / "other.db"
    monkeypatch.setenv("RAGVIZ_DB", str(other))
    at.run()
    assert not at.exception
    assert at.text[0].value == f"{other} True"
    assert asked == [str(app_env["db"]), str(other)]


def _open_data() -> None:
    import streamlit as st

    from ragviz.ui.core import state

    st.text("before " + ",".join(state.current_paths()))
    wanted = st.session_state.get("open_now")
    if wanted:
        state.set_paths((wanted,))
        st.text("after " + ",".join(state.current_paths()))  # the same run sees what it chose


def test_data_chosen_in_the_run_or_by_another_session_shows_at_once_or_from_the_next_run(app_env, monkeypatch):
    monkeypatch.setenv("RAGVIZ_SERVED", "1")  # served: one open data for the team (scope "team")
    at = AppTest.from_function(_open_data, default_timeout=30).run()
    assert at.text[0].value == f"before {SAMPLE}"
    kept = str(app_env["tmp"] / "kept.jsonl")
    at.session_state["open_now"] = kept
    at.run()
    assert [t.value for t in at.text] == [f"before {SAMPLE}", f"after {kept}"]
    at.session_state["open_now"] = ""
    with LabelStore(app_env["db"]) as elsewhere:  # another session (or replica) opens other data
        elsewhere.sources.choose_data("team", [SAMPLE + "/x.jsonl"], "lead")
        at.run()
    assert not at.exception
    assert [t.value for t in at.text] == [f"before {SAMPLE}/x.jsonl"]


def _undo_hint(at: AppTest) -> str:
    from tests.apptest_helpers import text_editor

    return text_editor(at, "toolbar")["hint"]


def test_the_undo_hint_follows_decisions_made_elsewhere_and_moves_keep_it(app_env):
    """What Z undoes is kept across moves (a J writes no event) and read again as soon as the annotator's newest event
    changed, here from another connection (another tab or replica): a decision, then its undo."""
    from tests.apptest_helpers import open_page, press, text_editor

    at = open_page("pages/review.py")
    assert _undo_hint(at) == "Z: nothing to undo"
    press(at, "next")
    assert _undo_hint(at) == "Z: nothing to undo"
    uid = text_editor(at, "context")["uid"]
    with LabelStore(app_env["db"]) as elsewhere:
        elsewhere.record(uid, "tester", [Change("review", None, "reviewed")])
        at.run()
        assert _undo_hint(at) == "Z: undo 'accept' on this example"
        press(at, "next")  # a move: the same action, said from the next example
        assert _undo_hint(at) == "Z: undo 'accept' on example 2 (tech-001 · gpt-4o-mini)"
        elsewhere.undo(uid, "tester")
        at.run()
    assert _undo_hint(at) == "Z: nothing to undo"


def test_the_team_guidelines_are_read_once_a_run_of_the_review_page(app_env, monkeypatch):
    """Whether a team wrote guidelines decides where the navigation bar is drawn; the page asked the store, then the
    guidelines panel asked again: two reads a J where one says both."""
    from ragviz.store.team.guidelines import TeamGuidelines
    from tests.apptest_helpers import open_page, press

    with LabelStore(app_env["db"]) as store:
        store.team.guidelines.save_guidelines("Mark a sentence supported only when a document says it.", "lead")
    asked: list[int] = []
    read = TeamGuidelines.current_guidelines
    monkeypatch.setattr(TeamGuidelines, "current_guidelines", lambda self: asked.append(1) or read(self))
    at = open_page("pages/review.py")
    assert at.button(key="team.guidelines_button").label == "Guidelines (v1)"
    asked.clear()
    press(at, "next")
    assert len(asked) == 1, asked


def _position_of_drawn_data() -> None:
    from ragviz.data.load import load
    from ragviz.ui.core import state
    from tests.sample import ROOT

    drawn = load([str(ROOT / "sample_data")]).dataset
    state.keep_position(1)
    state.save_pending_position(drawn)


def test_a_moves_position_is_a_row_of_the_data_drawn_without_reading_the_open_data_again(app_env, monkeypatch):
    """Issue 38: the Review page's fragment writes a J's position as a row of the data its example was drawn from
    (its whole run's), not of the open data read from the store again after the example's delta."""
    from ragviz.data.load import load
    from ragviz.ui.core import state

    def unread() -> None:
        raise AssertionError("the open data was read again")

    monkeypatch.setattr(state, "dataset", unread)
    at = AppTest.from_function(_position_of_drawn_data, default_timeout=30).run()
    assert not at.exception, [e.value for e in at.exception]
    with LabelStore(app_env["db"]) as store:
        assert store.position("tester") == load([SAMPLE]).dataset.uids[1]
