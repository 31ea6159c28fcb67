"""The role of the person on this run (:mod:`ragviz.data.roles`) and the sidebar every page shows with it."""

from __future__ import annotations

import streamlit as st

from ragviz.data.roles import Access
from ragviz.ui.core import render, served, state
from ragviz.ui.core.present import FORCED_KEY

__all__ = ["access", "sidebar"]


def access() -> Access:
    """This run's role; a person who may not review sees every page in presentation mode (nothing
    they click is recorded: :func:`ragviz.ui.core.state.record_decision` records nothing then)."""
    granted = served.access(state.annotator())
    st.session_state[FORCED_KEY] = not granted.can_review
    return granted


def sidebar() -> None:
    """Sidebar shown on every page: sign-in, the annotator and their role, the unverified-names
    banner, the label database (admins only), what is loaded."""
    granted = access()
    with st.sidebar:
        served.sign_in_box()
        st.html(  # a name of any length: cut, with "show all"
            '<div class="rv-annotator" style="font-size:0.875rem;color:#808495">Annotator: '
            f"<b>{render.long_text_html(state.annotator(), 60)}</b> ({granted.role})</div>"
        )
        served.unverified_names_notice()
        if granted.can_see_store:
            st.html(  # a URL's password masked; plain HTML, not st.code: its highlighter is 1.5 MB of JavaScript
                '<div class="rv-store" style="font-size:0.875rem;color:#808495">Label database<br>'
                f'<code style="overflow-wrap:anywhere">{render.esc(state.store().location)}</code></div>'
            )
        st.caption(f"Loaded: {len(state.dataset()):,} examples from {len(state.current_paths())} path(s)")
