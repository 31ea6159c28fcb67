"""Presentation mode: one flag that hides every editing control so the app can be shown on a projector.

Turned on by the sidebar's "Presentation mode" button or by opening any page with ``?present=1`` (``?present=0`` turns it
off). The flag lives in the session, so it survives moving between pages; while it is on the page
URL carries ``present=1`` so a copied link opens in the same mode.
"""

from __future__ import annotations

from typing import Literal

import streamlit as st

from ragviz.ui.core.keys import FORCED_KEY, PRESENT_KEY, PRESENT_TOGGLE, SHOW_CORRECTIONS_KEY

__all__ = [
    "CORRECTIONS_PAGES",
    "FORCED_KEY",
    "PARAM",
    "PRESENT_KEY",
    "REVIEW_EDITING_KEYS",
    "SHOW_CORRECTIONS_KEY",
    "corrections_label",
    "css_class_of_key",
    "hide_review_editing",
    "hiding_css",
    "is_present",
    "present_label",
    "present_toggle",
    "show_corrections",
]


PARAM = "present"
_ON = ("1", "true", "yes", "on")


def is_present() -> bool:
    """True when presentation mode is on: always for a person who may only view; else the query
    parameter wins over the session flag."""
    if st.session_state.get(FORCED_KEY):
        return True
    value = st.query_params.get(PARAM)
    if value is not None:
        st.session_state[PRESENT_KEY] = value.strip().lower() in _ON
    return bool(st.session_state.get(PRESENT_KEY, False))


def _flip() -> None:
    """The presentation button's press: the mode turns the other way, in the session and in the URL."""
    on = not is_present()
    st.session_state[PRESENT_KEY] = on
    if on:
        st.query_params[PARAM] = "1"
    elif PARAM in st.query_params:
        del st.query_params[PARAM]


def _flip_corrections() -> None:
    st.session_state[SHOW_CORRECTIONS_KEY] = not st.session_state.get(SHOW_CORRECTIONS_KEY, False)


def present_label(on: bool, corrections: bool = False) -> str:
    """The sidebar's presentation button: it says whether the mode is on, and whether the presenter shows the
    corrections (*corrections*).

    >>> present_label(True), present_label(True, corrections=True)
    ('Presentation mode: on', 'Presentation mode: on · corrections shown')
    """
    return f"Presentation mode: {'on' if on else 'off'}" + (" · corrections shown" if on and corrections else "")


#: The pages whose "Show corrections" (:func:`show_corrections`) is offered under the presentation button while presenting.
CORRECTIONS_PAGES = ("review", "compare", "claims")


def corrections_label(shown: bool) -> str:
    """The button under the presentation button while presenting a page that shows corrections.

    >>> corrections_label(False)
    'Show corrections: off'
    """
    return f"Show corrections: {'on' if shown else 'off'}"


def _switch_icon(on: bool) -> str:
    return ":material/toggle_on:" if on else ":material/toggle_off:"


def present_toggle(corrections: bool = False) -> bool:
    """The sidebar's presentation mode: a button naming whether it is on (filled while on, so a presenter sees it
    at a glance, with a switch's picture on its right) that turns it the other way; under it, on a page that shows
    corrections (*corrections*) while presenting, "Show corrections", a button of the same kind. Buttons, not
    toggles: a first page fetches no toggle scripts for them, and a button is a leaf the browser does not redraw on a
    J, where the popover they waited in was a block redrawn on every commit (issue 38). Returns whether presentation
    mode is on."""
    on = is_present()
    if not on:  # turned on anew, the mode hides the corrections again (as the toggle's state went with it)
        st.session_state.pop(SHOW_CORRECTIONS_KEY, None)
    kind: Literal["primary", "secondary"] = "primary" if on else "secondary"
    corrections = corrections and on
    shown = corrections and bool(st.session_state.get(SHOW_CORRECTIONS_KEY, False))
    with st.sidebar:
        st.button(
            present_label(on, shown),  # md: ours
            key=PRESENT_TOGGLE,
            on_click=_flip,
            type=kind,
            icon=_switch_icon(on),
            icon_position="right",
            width="stretch",
            disabled=bool(st.session_state.get(FORCED_KEY)),  # a viewer: always presenting
        )
        if corrections:
            st.button(
                corrections_label(shown),  # md: ours
                key=SHOW_CORRECTIONS_KEY + ".button",
                on_click=_flip_corrections,
                icon=_switch_icon(shown),
                icon_position="right",
                width="stretch",
            )
    if on and not st.session_state.get(FORCED_KEY) and st.query_params.get(PARAM) != "1":
        st.query_params[PARAM] = "1"
    return on


# Keys (or key prefixes) of the Review page's editing widgets; Streamlit gives each keyed element
# the class ``st-key-<key with every character outside [a-zA-Z0-9_-] replaced by "-">``. The rest of its editing
# (Accept, Undo, Reset, Normalize, the support and key controls) is drawn by the text's element, which draws none of
# it while presenting (``ragviz.ui.review.sentence_editor``).
REVIEW_EDITING_KEYS = ("review.advance",)


def css_class_of_key(key: str) -> str:
    """The CSS class Streamlit puts on the element with widget key *key*.

    >>> css_class_of_key("review.support.a/b")
    'st-key-review-support-a-b'
    """
    return "st-key-" + "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_-") else "-" for ch in key.strip())


def hiding_css(keys: tuple[str, ...] | list[str]) -> str:
    """A ``<style>`` block hiding the elements whose key is one of *keys* or, for a key ending in
    ``.``, starts with it."""
    selectors = []
    for key in keys:
        cls = css_class_of_key(key)
        selectors.append(f'[class*="{cls}"]' if key.endswith(".") else f".{cls}")
    return f"<style>{', '.join(selectors)} {{ display: none !important; }}</style>"


def hide_review_editing() -> bool:
    """On the Review page: in presentation mode, hide every editing control and return True. The
    page then does not draw its editing controls at all (so their keyboard shortcuts do not exist
    either) and records nothing; this style is a second guard for any control it still draws."""
    if not is_present():
        return False
    st.html(hiding_css(REVIEW_EDITING_KEYS))
    st.caption("Presentation mode: editing is hidden (turn it off in the sidebar).")
    return True


def show_corrections(present: bool) -> bool:
    """Whether the Review page shows the traces of corrections (review status, reviewed / corrected
    progress and filters, deltas against the judge, what each override changed): always outside
    presentation mode; in it only when the presenter turns on "Show corrections" under the presentation button
    (:func:`present_toggle`, drawn before the page on :data:`CORRECTIONS_PAGES`)."""
    return not present or bool(st.session_state.get(SHOW_CORRECTIONS_KEY, False))
