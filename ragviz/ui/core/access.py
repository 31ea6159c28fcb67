"""The role of the person on this run (:mod:`ragviz.store.roles`) and the sidebar every page shows with it."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ragviz.store.roles import Access
from ragviz.store.uploads import shown_name
from ragviz.ui.core import render, served, state
from ragviz.ui.core.present import FORCED_KEY, is_present

__all__ = ["access", "names_shown", "open_data_note", "sidebar"]


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
    their own signed-in one), the unverified-names banner, the label database (admins only), what is loaded:
    how many examples, which files, whose choice (the person's own, or the team's with who opened it, the
    name only where :func:`names_shown`) and since when."""
    granted = access()
    with st.sidebar:
        served.sign_in_box(state.store())
        who = _who_html(granted)
        if served.unverified_names_notice_due():  # the banner under the name
            st.html(who)
            served.unverified_names_notice()
            who = ""
        # one block, not four: each element is a message and a React element on every page's first run (issue 38)
        st.html(who + _loaded_html(granted))


def _loaded_html(granted: Access) -> str:
    """The label database (an admin's, not on a projector), how many examples from how many paths, which files."""
    store = ""
    if granted.can_see_store and not is_present():  # a URL's password masked; plain HTML, not st.code (1.5 MB)
        store = (
            f'<div class="rv-store" style="font-size:0.875rem;margin-top:1rem;{render.MUTED}">Label database<br>'
            f'<code style="overflow-wrap:anywhere">{render.esc(state.store().location)}</code></div>'
        )
    loaded = f"Loaded: {len(state.dataset()):,} examples from {len(state.current_paths())} path(s)"
    return (  # file names and a person's name: escaped
        f'{store}<div class="rv-loaded" style="font-size:0.875rem;margin-top:1rem;{render.MUTED}">{loaded}</div>'
        f'<div class="rv-open-data" style="font-size:0.8rem;margin-top:0.25rem;{render.MUTED}">'
        f"{render.long_text_html(open_data_note(show_who=names_shown()), 160)}</div>"
    )


def _who_html(granted: Access) -> str:
    """The sidebar's "who": a reviewer's name (a name of any length: cut, with "show all"); a viewer's
    only when signed in (their own); a visitor's none."""
    style = f'class="rv-annotator" style="font-size:0.875rem;{render.MUTED}"'
    if granted.can_review:
        return f"<div {style}>Annotator: <b>{render.long_text_html(state.annotator(), 60)}</b> ({granted.title})</div>"
    who = served.signed_in(state.store())
    if who is not None:
        return f"<div {style}>Signed in as <b>{render.long_text_html(who.names[0], 60)}</b> ({granted.title})</div>"
    return f"<div {style}>Not signed in ({granted.role})</div>"


def open_data_note(show_who: bool) -> str:
    """Which data is open and since when, for the sidebar and the Data page: the files' names, who
    opened them (*show_who*: not for a person who may only view) and when; or that it is the start-up data."""
    paths = state.current_paths()
    if not paths:
        return "Nothing loaded."
    names = [shown_name(Path(p).name) or p for p in paths]
    listed = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    choice = state.chosen_data()
    if choice is None:
        return f"{listed}: the data this app was started with."
    when = choice.ts[:16].replace("T", " ") + " UTC"
    whose = "the team's data" if state.data_scope() == state.TEAM_SCOPE else "kept for you"
    who = f", opened by {choice.chosen_by}" if show_who else ""
    return f"{listed}: {whose}{who}, {when}."
