"""A page's link carries its label set: ``?labels=gold``, ``?labels=judge:v2``, ``?labels=annotator:NAME`` in
``ragviz agreement --against``'s words (:func:`ragviz.analysis.labelsets.selection.parse_label_set`), matched to
the page's picker options (:func:`~ragviz.analysis.labelsets.selection.pick_offered`). The Dashboard, the Compare
page and the Explainer share it: read before the picker is drawn, written back when a person picks another."""

from __future__ import annotations

import streamlit as st

from ragviz.analysis.labelsets.selection import LabelSelection, pick_offered
from ragviz.data.errors import BadInput
from ragviz.ui.core import render

__all__ = ["LABELS_PARAM", "keep_in_url", "labels_from_url"]

#: The URL parameter naming a page's label set.
LABELS_PARAM = "labels"


def _read_key(key: str) -> str:
    return f"{key}.labels_read"  # the ?labels= text this session applied to the picker *key* already


def labels_from_url(offered: list[LabelSelection], key: str) -> None:
    """Before the picker (session key *key*) is drawn: the one of *offered* that ``?labels=`` names, once per
    session and link; a label set the page does not offer is said in one line naming those it does."""
    text = st.query_params.get(LABELS_PARAM)
    if text is None or st.session_state.get(_read_key(key)) == text:
        return
    st.session_state[_read_key(key)] = text
    try:
        st.session_state[key] = pick_offered(text, offered, field=f"?{LABELS_PARAM}=")
    except BadInput as refused:
        st.warning(render.md_escape(str(refused), 300))


def keep_in_url(chosen: LabelSelection, default: LabelSelection, key: str) -> None:
    """The picker's choice in the URL (a copied link opens it); none for *default*, which needs no parameter."""
    if chosen != default:
        st.query_params[LABELS_PARAM] = st.session_state[_read_key(key)] = chosen.argument()  # ours: not read back
    elif LABELS_PARAM in st.query_params:
        del st.query_params[LABELS_PARAM]
