"""The page's URL query from Python: whether this run is the browser's Back or Forward, and a rewrite of some of its
parameters as one message (Streamlit sends one, and the browser makes one history entry, per change of
``st.query_params``: a parameter deleted is one of each)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

__all__ = ["history_navigation", "rewrite_query"]


def history_navigation() -> bool:
    """Whether this run is the browser's Back or Forward (Streamlit reruns the page with the entry's URL)."""
    ctx = get_script_run_ctx()
    return bool(ctx is not None and getattr(ctx, "is_history_navigation", False))


def rewrite_query(drop: Iterable[str], add: Mapping[str, str | list[str]] | None = None) -> None:
    """The URL's query without the parameters *drop*, with *add*'s (the others kept, repeated values too), written as
    one message: one history entry."""
    dropped = set(drop)
    kept: dict[str, str | list[str]] = {k: st.query_params.get_all(k) for k in st.query_params if k not in dropped}
    st.query_params.from_dict(kept | dict(add or {}))
