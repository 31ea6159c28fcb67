"""The Review page's example as a Streamlit fragment (issue 38): a move (J / K / N, a link's choice, the audit's
"Next in sample") or a click that only selects reruns the example alone, not the sidebar and its filters (70
websocket messages per J became 50). Anything that stored (or tried to store) a decision reruns the whole page
instead: the sidebar's progress, the filters' rows and the reviewed status then follow the store.

A write is seen by what every write leaves in the session (:func:`writes_signature`): the redraw count (bumped by a
stored or refused decision), the writes kept for a retry, and a stale notice waiting to be shown. A toast a write's
callback says waits in the session for the whole page's run (:func:`toast`).
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ragviz.data.dataset import Dataset
from ragviz.store.errors import StoreError
from ragviz.ui.core import state, unsaved
from ragviz.ui.review import sentence_editor, toolbar

__all__ = ["SIGNATURE_KEY", "TOASTS_KEY", "WHOLE_KEY", "example_fragment", "toast", "whole_run", "writes_signature"]

SIGNATURE_KEY = "review.fragment.writes"  # the writes' signature when the whole page last ran
TOASTS_KEY = "review.fragment.toasts"  # toasts waiting for the next run (:func:`toast`)
WHOLE_KEY = "review.fragment.whole"  # True while the example is drawn by a run of the whole page


def whole_run() -> bool:
    """Whether the example is being drawn by a run of the whole page (else by a run of the fragment alone: a move,
    a selection). What only a whole run needs to say (the browser tab's title through ``st.set_page_config``, which
    costs a message) is said then; a fragment run leaves it to the navigation bar's script (issue 38)."""
    return bool(st.session_state.get(WHOLE_KEY, False))


def writes_signature() -> tuple[int, tuple[str, ...], bool]:
    """What a write changes in the session: the redraw count, the unsaved writes' click ids, a stale notice."""
    return (
        state.redraw_count(),
        tuple(w.client_id for w in unsaved.pending()),
        state.STALE_KEY in st.session_state,
    )


def toast(message: str) -> None:
    """Say *message* in a toast on the page's next run (a toast from a callback is lost when the run that follows
    is the fragment's handing over to the whole page)."""
    st.session_state.setdefault(TOASTS_KEY, []).append(message)


def _show_toasts() -> None:
    for message in st.session_state.pop(TOASTS_KEY, None) or []:
        st.toast(message)  # md: ours (toast()'s callers escape what they quote, as the scan checks there)


def _moved(store_moved: Callable[[], bool]) -> bool:
    """*store_moved*, or True when the store cannot be read (the whole page then says so, calmly: a fragment's run
    is not inside app.py's :func:`ragviz.ui.core.shell.store_faults`)."""
    try:
        return store_moved()
    except StoreError:
        return True


def example_fragment(
    draw: Callable[[], None], store_moved: Callable[[], bool] = lambda: False, drawn: Dataset | None = None
) -> None:
    """Run *draw*, the page's example part, as a Streamlit fragment with the toasts a write's callback left
    (:func:`toast`). On a rerun of the fragment alone, the text editor's queued clicks are carried out first (the
    page's top does that on a whole run); when a write happened since the whole page last ran, or *store_moved* says
    the store holds other decisions than the whole page drew (another replica, tab or person), the whole page reruns
    instead. The position a move kept (:func:`ragviz.ui.core.state.keep_position`, a row of *drawn*: the data *draw*
    draws from, else the open data) is written after *draw*, whether it drew or stopped. A text click the database
    could not keep is drawn back as stored by the editor's data (:func:`ragviz.ui.review.sentence_editor.context_editor`),
    on either run."""
    st.session_state[SIGNATURE_KEY] = writes_signature()
    st.session_state[WHOLE_KEY] = True  # this run of the whole page; the fragment's own runs find it False

    @st.fragment
    def example() -> None:
        toolbar.apply_presses()  # the bar's presses first, as a button's on_click ran before the fragment
        if st.session_state.get(SIGNATURE_KEY) != writes_signature() or _moved(store_moved):  # the whole page
            st.rerun(scope="app")
        if sentence_editor.has_events():  # (the open data is read once a run: a J reads it after its delta)
            sentence_editor.apply_events(state.dataset(), state.annotator())
        if st.session_state.get(SIGNATURE_KEY) != writes_signature():  # a decision from the text editor
            st.rerun(scope="app")
        _show_toasts()
        try:
            draw()
        finally:
            st.session_state[WHOLE_KEY] = False
            state.save_pending_position(drawn)  # a move's: after the example's delta, not before it (issue 38)

    example()
