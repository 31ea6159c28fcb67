"""One RagChecker item on the Claims page: its texts, each side's claim matrix (an editor when the person may
edit), its 11 values beside the whole file's and the corrected file's download."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from ragviz.analysis.claims import (
    GT_ANSWER,
    RESPONSE,
    SIDES,
    chunk_column,
    label_options,
    matrix_columns,
    matrix_rows,
)
from ragviz.data.checked_claims import CheckedItem
from ragviz.ui.core import render, state

__all__ = [
    "CHUNKS_SHOWN",
    "CLAIM_COLUMN_WIDTH",
    "CLAIM_LINES",
    "CLAIM_LINE_CHARS",
    "ROW_HEIGHT",
    "WRAPPED_ROW_HEIGHT",
    "MATRIX_TITLES",
    "LABEL_COLUMN_WIDTH",
    "NUMBER_COLUMN_WIDTH",
    "WHOLE_COLUMN_WIDTH",
    "SCORE_HEIGHT",
    "chunk_windows",
    "claim_lines",
    "claim_matrix",
    "download",
    "editor_key",
    "item_texts",
    "labels_caption",
    "long_claims",
    "matrix_row_height",
    "pending_edits",
    "score_tables",
]


MATRIX_TITLES = {
    RESPONSE: "Response claims — entailed by the ground-truth answer? by each chunk?",
    GT_ANSWER: "Ground-truth answer claims — entailed by the response? by each chunk?",
}
SCORE_HEIGHT = 35 * 12 + 3  # the 11 values and the header row
# A matrix fits the 818 px the page has at 1280 px beside the sidebar (no sideways scrolling): the claim number, the
# claim, its whole-text label and CHUNKS_SHOWN chunks' labels; more chunks are shown CHUNKS_SHOWN at a time, picked
# right above the matrix. Streamlit stretches the columns to a wider window.
LABEL_COLUMN_WIDTH = 100  # px: a label cell holds "Contradiction" whole
WHOLE_COLUMN_WIDTH = 116  # px: the header "vs gt answer" and its edit mark
NUMBER_COLUMN_WIDTH = 36
CLAIM_COLUMN_WIDTH = 264
CHUNKS_SHOWN = 4
# A claim longer than the claim column's line wraps: every row of its matrix is then WRAPPED_ROW_HEIGHT tall (a
# grid wraps its cells' text only in rows taller than 64 px; one height for all rows) and holds CLAIM_LINES lines.
# A longer claim is shown whole under the matrix.
ROW_HEIGHT = 35  # px: Streamlit's row, one line
WRAPPED_ROW_HEIGHT = 66  # px: three lines of 19 px
CLAIM_LINES = 3
CLAIM_LINE_CHARS = 32  # a line of the claim column at 1280 px holds 34-37 characters (chromium): a margin for wide ones


def claim_lines(text: str) -> int:
    """How many lines of the claim column *text* takes, wrapped at words.

    >>> claim_lines("Nile flows through Egypt"), claim_lines("Nile stretches approximately 6,650 kilometers")
    (1, 2)
    """
    return max(1, len(textwrap.wrap(text, CLAIM_LINE_CHARS)))


def matrix_row_height(claims: Sequence[str]) -> int | None:
    """The rows' height of a matrix of *claims*: ``None`` (Streamlit's one line) when each fits a line, else
    :data:`WRAPPED_ROW_HEIGHT`, which wraps them."""
    return WRAPPED_ROW_HEIGHT if any(claim_lines(c) > 1 for c in claims) else None


def long_claims(claims: Sequence[str]) -> list[tuple[int, str]]:
    """The claims (numbered from 1) longer than a wrapped row holds: the page shows them whole under the matrix."""
    return [(n, c) for n, c in enumerate(claims, start=1) if claim_lines(c) > CLAIM_LINES]


def item_texts(item: CheckedItem) -> None:
    """Query and ground-truth answer beside the response, the retrieved chunks folded below."""
    left, right = st.columns(2, gap="medium")
    with left:
        st.html(render.text_block_html("Query", item.query))
        st.html(render.text_block_html("Ground-truth answer", item.gt_answer))
    with right:
        st.html(render.text_block_html("Response", item.response))
    with st.expander(f"Retrieved chunks ({item.n_chunks})", expanded=False):
        for c, chunk in enumerate(item.retrieved_context):
            st.html(render.text_block_html(f"chunk {c + 1} · {chunk.doc_id or 'no doc_id'}", chunk.text))


def labels_caption(n_changed: int, editable: bool = True) -> None:
    """How labels count, how to override one (only when *editable*), and the number of labels that
    differ from the file (0: not said)."""
    how = "Labels: only “Entailment” counts as true." + (" Pick a label in a cell to override it." if editable else "")
    st.caption(how + (f" {n_changed} label(s) differ from the file." if n_changed else ""))  # md: ours


def chunk_windows(n_chunks: int, shown: int = CHUNKS_SHOWN) -> list[range]:
    """The chunks a matrix shows at a time (0-based), *shown* at a time.

    >>> chunk_windows(4), chunk_windows(9)
    ([range(0, 4)], [range(0, 4), range(4, 8), range(8, 9)])
    """
    return [range(start, min(start + shown, n_chunks)) for start in range(0, max(n_chunks, 1), shown)]


def _window_label(chunks: range) -> str:
    return f"{chunks[0] + 1}–{chunks[-1] + 1}" if len(chunks) > 1 else f"{chunks[0] + 1}"


def _window_key(side: str) -> str:
    return f"claims.chunks.{side}"


def _window(item: CheckedItem, side: str) -> int:
    """Which of *item*'s chunk windows *side*'s matrix shows (the last one the person picked, within range)."""
    return min(st.session_state.get(_window_key(side)) or 0, len(chunk_windows(item.n_chunks)) - 1)


def editor_key(side: str, uid: str, window: int = 0) -> str:
    """The key of *side*'s matrix editor of item *uid* showing chunk window *window*; a new label version starts a
    fresh editor."""
    return f"claims.editor.{side}.{uid}.{state.redraw_count()}" + (f".{window}" if window else "")


def pending_edits(uid: str, item: CheckedItem) -> dict[str, Mapping[Any, Mapping[str, Any]]]:
    """The edits waiting in item *uid*'s matrix editors (*item*'s, each showing its chunk window), ``{side: {row:
    {column: label}}}``."""
    edits = {}
    for side in SIDES:
        editor = st.session_state.get(editor_key(side, uid, _window(item, side))) or {}
        edits[side] = editor.get("edited_rows") or {}
    return edits


def claim_matrix(item: CheckedItem, side: str, uid: str, editable: bool) -> None:
    """*side*'s claims with their labels, one select box per label cell when *editable*; with more than
    :data:`CHUNKS_SHOWN` chunks, which ones are shown is picked right above it."""
    st.markdown(f"**{MATRIX_TITLES[side]}**")
    rows = matrix_rows(item, side)
    if not rows:
        st.caption("No claims on this side.")
        return
    columns = matrix_columns(item, side)
    windows = chunk_windows(item.n_chunks)
    window = _window(item, side)
    if len(windows) > 1:
        st.session_state[_window_key(side)] = window
        window = (
            st.radio(  # never None: no index=None
                f"Chunks shown ({item.n_chunks} in all)",
                range(len(windows)),
                format_func=lambda w: _window_label(windows[w]),  # md: ours (chunk numbers)
                horizontal=True,
                key=_window_key(side),
            )
            or 0
        )
    options = label_options(item)
    config: dict[str, Any] = {
        "#": st.column_config.NumberColumn("#", width=NUMBER_COLUMN_WIDTH),
        "claim": st.column_config.TextColumn("claim", width=CLAIM_COLUMN_WIDTH),
    }
    for n, col in enumerate(columns[2:]):  # "Contradiction" whole (a "small" column showed "Contradicti")
        config[col] = st.column_config.SelectboxColumn(
            render.md_escape(col),
            options=options,
            required=True,
            width=WHOLE_COLUMN_WIDTH if n == 0 else LABEL_COLUMN_WIDTH,
        )
    shown = [*columns[:3], *(chunk_column(c) for c in windows[window] if item.n_chunks)]
    row_height = matrix_row_height([r["claim"] for r in rows])
    st.data_editor(
        pd.DataFrame(rows, columns=columns),
        key=editor_key(side, uid, window),
        hide_index=True,
        disabled=["#", "claim"] if editable else True,
        column_config=config,
        column_order=shown,
        width="stretch",
        row_height=row_height,
        height=min((row_height or ROW_HEIGHT) * len(rows) + ROW_HEIGHT + 3, 640),
    )
    for n, text in long_claims([r["claim"] for r in rows]):  # more than a wrapped cell holds: whole below
        st.html(render.text_block_html(f"Claim {n} in full", text))


def score_tables(
    item_rows: list[dict[str, Any]], aggregate_rows: list[dict[str, Any]], n_items: int, traces: bool = True
) -> None:
    """This item's 11 values (file vs now) above the whole file's aggregates (file vs now, also ×100);
    without *traces* (presenting, corrections hidden) only the values now."""
    item_columns = ["group", "metric", "file", "now", "delta"] if traces else ["group", "metric", "now"]
    aggregate_columns = ["group", "metric", "file", "now", "file ×100", "now ×100"]
    if not traces:
        aggregate_columns = ["group", "metric", "now", "now ×100"]
    # one above the other, each the page's width: side by side at 1280 px both ran past their half (Δ, file ×100 out
    # of view)
    st.markdown("**This item** — file's labels vs now" if traces else "**This item**")
    st.dataframe(
        pd.DataFrame(item_rows, columns=item_columns),
        hide_index=True,
        width="stretch",
        column_config={
            "file": st.column_config.NumberColumn("file", format="%.4f"),
            "now": st.column_config.NumberColumn("now", format="%.4f"),
            "delta": st.column_config.NumberColumn("Δ", format="%+.4f"),
        },
        height=SCORE_HEIGHT,
    )
    st.markdown(f"**All {n_items} items** — mean (0..1) and as RagChecker prints it (×100, 1 decimal)")
    st.dataframe(
        pd.DataFrame(aggregate_rows, columns=aggregate_columns),
        hide_index=True,
        width="stretch",
        column_config={
            "file": st.column_config.NumberColumn("file", format="%.4f"),
            "now": st.column_config.NumberColumn("now", format="%.4f"),
            "file ×100": st.column_config.NumberColumn("file ×100", format="%.1f"),
            "now ×100": st.column_config.NumberColumn("now ×100", format="%.1f"),
        },
        height=SCORE_HEIGHT,
    )


def download(data: bytes, file_name: str) -> None:
    """The corrected file's download button."""
    st.download_button(
        "Download corrected RagChecker JSON",
        data=data,
        file_name=file_name,
        mime="application/json",
        key="claims.download",
    )
