"""The role of the person on this run (:mod:`ragviz.data.roles`) and the sidebar every page shows with it."""

from __future__ import annotations

import streamlit as st

from ragviz.data.roles import Access
from ragviz.ui.core import render, served, state
from ragviz.ui.core.present import FORCED_KEY, is_present

__all__ = ["access", "names_shown", "sidebar"]


def access() -> Access:
    """This run's role; a person who may not review sees every page in presentation mode (nothing
    they click is recorded: :func:`ragviz.ui.core.state.record_decision` records nothing then)."""
    granted = served.access(state.annotator(), state.store())
    st.session_state[FORCED_KEY] = not granted.can_review
    return granted


def names_shown() -> bool:
    """Whether this run may show people's names (annotators, who decided, who drew a sample): only to a
    reviewer, and not while presenting. Viewers and visitors see no one's identity."""
    return access().can_review and not is_present()


def sidebar() -> None:
    """Sidebar shown on every page: sign-in, the annotator and their role (a viewer sees no name but
    their own signed-in one), the unverified-names banner, the label database (admins only), what is loaded."""
    granted = access()
    with st.sidebar:
        served.sign_in_box(state.store())
        st.html(_who_html(granted))
        served.unverified_names_notice()
        if granted.can_see_store and not is_present():  # not on a projector
            st.html(  # a URL's password masked; plain HTML, not st.code: its highlighter is 1.5 MB of JavaScript
                '<div class="rv-store" style="font-size:0.875rem;color:#808495">Label database<br>'
                f'<code style="overflow-wrap:anywhere">{render.esc(state.store().location)}</code></div>'
            )
        st.caption(f"Loaded: {len(state.dataset()):,} examples from {len(state.current_paths())} path(s)")


def _who_html(granted: Access) -> str:
    """The sidebar's "who": a reviewer's name (a name of any length: cut, with "show all"); a viewer's
    only when signed in (their own); a visitor's none."""
    style = 'class="rv-annotator" style="font-size:0.875rem;color:#808495"'
    if granted.can_review:
        return f"<div {style}>Annotator: <b>{render.long_text_html(state.annotator(), 60)}</b> ({granted.role})</div>"
    who = served.signed_in(state.store())
    if who is not None:
        return f"<div {style}>Signed in as <b>{render.long_text_html(who.names[0], 60)}</b> ({granted.role})</div>"
    return f"<div {style}>Not signed in ({granted.role})</div>"
