"""What a page says when the open data loaded with errors. The start-up data (``$RAGVIZ_DATA``, ``ragviz app DATA``)
is opened as it is, errors and all; the Data page lists them, and every other page says how many there are and names
the first few, so a file that loaded nothing is never shown as "No data loaded yet"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import streamlit as st

from ragviz.data.problems import Problem
from ragviz.ui.core import render

__all__ = ["MAX_NAMED", "load_errors_notice"]

MAX_NAMED = 5  # errors named on a page other than the Data page


def load_errors_notice(errors: Sequence[Problem], n_loaded: int) -> None:
    """With *errors* of loading the open data (of which *n_loaded* examples loaded): how many, what became of the
    data, and the first :data:`MAX_NAMED` as ``FILE:ROW: field: problem``, escaped. The file's name only: the
    Data page gives the paths to those who may see them. An error when nothing loaded, else a warning."""
    if not errors:
        return
    n = len(errors)
    what = "nothing of it loaded" if n_loaded == 0 else f"{n_loaded:,} examples loaded, the rows named were skipped"
    message = (
        f"The open data has {n:,} load error{'s' if n != 1 else ''}: {what}. Fix the data and open it again on the "
        "Data page, which lists every error."
    )
    (st.error if n_loaded == 0 else st.warning)(message)  # md: ours (counts)
    lines = [str(_named(e)) for e in errors[:MAX_NAMED]]
    more = [f"... and {n - MAX_NAMED:,} more on the Data page"] if n > MAX_NAMED else []
    st.html(render.problems_html([*lines, *more], "error"))


def _named(error: Problem) -> Problem:
    """*error* with its file named by its name, in its message too (a reader's message may quote the path)."""
    name = Path(error.path).name or error.path
    return replace(error, path=name, message=error.message.replace(error.path, name) if error.path else error.message)
