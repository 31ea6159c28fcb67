"""What a run looks up once: a value kept in the session for the script run it was computed in.

Streamlit starts every run, a fragment's too, with a new ``cursors`` dict on the run's context; a value kept beside
the dict it was computed under is this run's, and the next run computes it again. So a lookup asked many times a
run (whether sign-in is configured, the label store's cached resource) costs one lookup a run, and what changed
between runs (a secrets file, ``$RAGVIZ_DB``) counts from the next run."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

__all__ = ["forget", "once_a_run"]

T = TypeVar("T")


def once_a_run(key: str, compute: Callable[[], T]) -> T:
    """``compute()``, kept under the session state's *key* for the rest of this run (computed each call outside a
    script run: nothing to keep it for)."""
    ctx = get_script_run_ctx()
    if ctx is None:
        return compute()
    memo = st.session_state.get(key)
    if memo is not None and memo[0] is ctx.cursors:
        return memo[1]
    value = compute()
    st.session_state[key] = (ctx.cursors, value)
    return value


def forget(key: str) -> None:
    """Drop what :func:`once_a_run` kept under *key*: the run changed it (the next call computes it again)."""
    st.session_state.pop(key, None)
