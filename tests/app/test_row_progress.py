"""The rows done / total bar of long work (``ragviz.ui.core.progress.RowProgress``): work shorter than its delay draws
no bar, so a small file's load sends none and the first page fetches no progress-bar script (issue 38); longer work
shows rows done / total while it runs."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _work(seconds: float) -> None:
    import time

    import streamlit as st

    from ragviz.ui.core.progress import RowProgress

    bar = RowProgress("Loading", 10)
    for done in range(1, 11):
        time.sleep(seconds / 10)
        bar("Loading", done, 10)
    st.session_state["drawn"] = bar.bar is not None
    st.session_state["text"] = bar.shown
    if not st.session_state.get("close", True):
        return
    bar.close()


def test_short_work_draws_no_bar():
    at = AppTest.from_function(_work, args=(0.05,), default_timeout=30).run()
    assert not at.exception
    assert at.session_state["drawn"] is False and not at.get("progress")
    assert at.session_state["text"] == ("Loading", 10)


def test_long_work_shows_rows_done_and_clears_the_bar():
    at = AppTest.from_function(_work, args=(1.2,), default_timeout=30)
    at.session_state["close"] = False  # the bar as the work left it
    at.run()
    assert not at.exception and at.session_state["drawn"] is True
    [bar] = at.get("progress")
    assert bar.proto.text == "Loading: 10 / 10 rows"
    at.session_state["close"] = True
    at.run()
    assert not at.exception and not at.get("progress")
