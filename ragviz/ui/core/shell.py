"""Every page runs inside app.py's navigation, even as the first request of a server (:func:`require_app_shell`),
and inside :func:`store_faults`: the one place a database that is unavailable becomes one calm message."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ragviz.store.errors import StoreError, StoreUnavailable
from ragviz.ui.core import render, unsaved
from ragviz.ui.core.keys import SHELL_KEY

__all__ = ["CANNOT_OPEN", "SHELL_KEY", "TRY_AGAIN_KEY", "require_app_shell", "store_faults"]


CANNOT_OPEN = (
    "The label database cannot be opened just now. This page works again as soon as it can be; whoever "
    "runs ragviz finds the reason in the server's log."
)
TRY_AGAIN_KEY = "ragviz.try_again"


@contextmanager
def store_faults() -> Iterator[None]:
    """Run a page (app.py wraps the sidebar and the page in it): a store error that reaches here — the
    database restarting, gone, cut off, locked or full — ends the page with one calm message and a Try
    again button instead of a traceback; the details go to the server's log (:func:`unsaved.log_fault`).
    Clicks the database did not take are kept and offered for a retry (:mod:`ragviz.ui.core.retry`)."""
    try:
        yield
    except StoreError as exc:
        unsaved.log_fault(exc, "page not drawn")
        said = unsaved.OUTAGE if isinstance(exc, StoreUnavailable) else CANNOT_OPEN
        st.html(  # ours, escaped all the same
            '<div class="rv-outage" role="alert" style="border-left:4px solid #e8a33d;padding:0.6rem 0.9rem;'
            f'background:rgba(232,163,61,0.10);border-radius:0.25rem">{render.esc(said)}</div>'
        )
        st.button("Try again", key=TRY_AGAIN_KEY, icon=":material/refresh:")  # a click runs the page again


def require_app_shell() -> None:
    """Make sure this page runs inside app.py's navigation, even as the first request of a server.

    Streamlit starts every server in its legacy "pages/ folder" mode until some run calls
    ``st.navigation``; a deep link such as ``/review?id=…`` opened first after a (re)start would run
    the page script alone — no sidebar, no page list, no wide layout. Calling this at the top of a
    page leaves that mode (process-wide) and reruns, so app.py runs and routes to the same page.
    """
    try:  # a Streamlit internal: if a release moves it, pages still work, only without this fix
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:
        return

    first_run_of_session = not st.session_state.get(SHELL_KEY)
    st.session_state[SHELL_KEY] = True
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        # Only a session's first run reruns: a rerun drops that run's button clicks, and a
        # session's first run has none. (AppTest puts the flag back before every run; there the
        # page keeps running on its own, as it always does under AppTest.)
        if first_run_of_session:
            st.rerun()
