"""The page's word on writes the database did not take (:mod:`ragviz.ui.core.unsaved`): "Not saved: …",
what was not saved, and a Retry that stores each once (under its click id)."""

from __future__ import annotations

import streamlit as st

from ragviz.store.errors import StoreUnavailable
from ragviz.ui.core import render, state, unsaved

__all__ = ["RETRY_KEY", "retry_unsaved", "unsaved_banner"]


RETRY_KEY = "ragviz.retry_unsaved"


def retry_unsaved() -> None:
    """Store the session's unsaved writes in order, each under its click id (stored once however often
    this runs); stop at the first the database still does not take (it and the rest stay kept)."""
    for write in unsaved.pending():
        try:
            state.store_write(write)
        except StoreUnavailable as exc:
            unsaved.log_fault(exc, "retry not saved")
            st.toast("Still not saved: the database is unavailable. Your change is kept; retry in a moment.")
            return
        unsaved.drop(write)  # stored, or refused as stale (the page says which field changed)


def unsaved_banner() -> int:
    """On every page while this session holds writes the database did not take: :data:`unsaved.NOT_SAVED`,
    what they are, and the Retry button; how many it named."""
    kept = unsaved.pending()
    if not kept:
        return 0
    listed = ", ".join(w.described for w in kept[:5]) + (f" and {len(kept) - 5} more" if len(kept) > 5 else "")
    st.html(  # example ids come from the data: escaped
        '<div class="rv-unsaved" role="alert" style="border-left:4px solid #d33;padding:0.5rem 0.75rem;'
        'background:rgba(221,51,51,0.08);border-radius:0.25rem">'
        f"<b>{render.esc(unsaved.NOT_SAVED)}</b><br>"
        f'<span style="font-size:0.85rem">Kept: {render.esc(listed)}</span></div>'
    )
    st.button("Retry", key=RETRY_KEY, on_click=retry_unsaved, type="primary", icon=":material/refresh:")
    return len(kept)
