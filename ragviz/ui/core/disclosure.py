"""A disclosure: a button that opens (and closes) what its caller draws under it. Closed, it is one ``st.button``, a
leaf element the browser does not redraw on a commit that leaves it unchanged; an ``st.expander`` or ``st.popover`` is
a block, redrawn with its whole shell (some 16 to 25 React components) on every one of the 3 to 5 commits of a J on
the Review page (issue 38). The chevron on its right says which way it goes; the page-wide keyboard script
(:mod:`ragviz.ui.core.page_keys`) gives the button ``aria-expanded`` from it."""

from __future__ import annotations

from typing import Final, Literal

import streamlit as st

__all__ = ["BUTTON_SUFFIX", "KEEP_WHILE_CLOSED", "disclosure", "is_open"]

#: The button's key is the state's key with this suffix: its element's class (``st-key-…-rv_disclose``) is what the
#: keyboard script finds it by.
BUTTON_SUFFIX = ".rv_disclose"

#: A widget's ``persist_state`` in a disclosure's panel: its value is kept while the panel is closed (not drawn), as
#: long as the person stays on the page (Streamlit otherwise forgets a widget's value on the first run that does not
#: draw it); its callers read the kept value from ``st.session_state`` meanwhile.
KEEP_WHILE_CLOSED: Final = "page"


def is_open(key: str) -> bool:
    """Whether the disclosure keeping its state under *key* is open (closed until the person opens it)."""
    return bool(st.session_state.get(key))


def _flip(key: str) -> None:
    st.session_state[key] = not is_open(key)


def disclosure(
    label: str,
    key: str,
    *,
    kind: Literal["primary", "secondary", "tertiary"] = "secondary",
    width: Literal["stretch", "content"] = "stretch",
) -> bool:
    """The button *label* (ragviz's own words: Markdown) with a chevron; a press opens or closes it, before the
    run that follows draws the page (its state is kept in the session under *key*, a plain value, not a widget's,
    so it outlives runs that do not draw it). Returns whether it is open: the caller then draws what it discloses
    right under it."""
    shown = is_open(key)
    st.button(
        label,  # md: ours (the callers' own words, which the Markdown scan checks at their calls)
        key=key + BUTTON_SUFFIX,
        on_click=_flip,
        args=(key,),
        type=kind,
        icon=":material/expand_less:" if shown else ":material/expand_more:",
        icon_position="right",
        width=width,
    )
    return shown
