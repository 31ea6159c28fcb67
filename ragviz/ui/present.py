"""Presentation mode: one flag that hides every editing control so the app can be shown on a projector.

Turned on by the sidebar toggle or by opening any page with ``?present=1`` (``?present=0`` turns it
off). The flag lives in the session, so it survives moving between pages; while it is on the page
URL carries ``present=1`` so a copied link opens in the same mode.
"""

from __future__ import annotations

import streamlit as st

PRESENT_KEY = "ragviz.present"
PARAM = "present"
_ON = ("1", "true", "yes", "on")


def is_present() -> bool:
    """True when presentation mode is on (the query parameter wins over the session flag)."""
    value = st.query_params.get(PARAM)
    if value is not None:
        st.session_state[PRESENT_KEY] = value.strip().lower() in _ON
    return bool(st.session_state.get(PRESENT_KEY, False))


def _toggled() -> None:
    on = bool(st.session_state.get("ragviz.present_toggle"))
    st.session_state[PRESENT_KEY] = on
    if on:
        st.query_params[PARAM] = "1"
    elif PARAM in st.query_params:
        del st.query_params[PARAM]


def present_toggle() -> bool:
    """The sidebar toggle; returns whether presentation mode is on."""
    on = is_present()
    st.session_state["ragviz.present_toggle"] = on
    with st.sidebar:
        st.toggle(
            "Presentation mode",
            key="ragviz.present_toggle",
            on_change=_toggled,
            help="Hide every editing control (also: open any page with ?present=1).",
        )
    if on and st.query_params.get(PARAM) != "1":
        st.query_params[PARAM] = "1"
    return on
