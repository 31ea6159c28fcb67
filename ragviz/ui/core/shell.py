"""Every page runs inside app.py's navigation, even as the first request of a server (:func:`require_app_shell`)."""

from __future__ import annotations

import streamlit as st

from ragviz.ui.core.keys import SHELL_KEY

__all__ = ["SHELL_KEY", "require_app_shell"]


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
