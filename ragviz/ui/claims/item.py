"""One RagChecker item on the Claims page: its texts, each side's claim matrix (an editor when the person may
edit), its 11 values beside the whole file's and the corrected file's download."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from ragviz.analysis.claims import GT_ANSWER, RESPONSE, SIDES, label_options, matrix_columns, matrix_rows
from ragviz.data.checked_claims import CheckedItem
from ragviz.ui.core import render, state

__all__ = [
    "MATRIX_TITLES",
    "LABEL_COLUMN_WIDTH",
    "SCORE_HEIGHT",
    "claim_matrix",
    "download",
    "editor_key",
    "item_texts",
    "labels_caption",
    "pending_edits",
    "score_tables",
]


MATRIX_TITLES = {
    RESPONSE: "Response claims — entailed by the ground-truth answer? by each chunk?",
    GT_ANSWER: "Ground-truth answer claims — entailed by the response? by each chunk?",
}
SCORE_HEIGHT = 35 * 12 + 3  # the 11 values and the header row
LABEL_COLUMN_WIDTH = 110  # px: a label cell holds "Contradiction" and its select arrow


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


def editor_key(side: str, uid: str) -> str:
    """The key of *side*'s matrix editor of item *uid*; a new label version starts a fresh editor."""
    return f"claims.editor.{side}.{uid}.{state.redraw_count()}"


def pending_edits(uid: str) -> dict[str, Mapping[Any, Mapping[str, Any]]]:
    """The edits waiting in item *uid*'s matrix editors, ``{side: {row: {column: label}}}``."""
    return {side: (st.session_state.get(editor_key(side, uid)) or {}).get("edited_rows") or {} for side in SIDES}


def claim_matrix(item: CheckedItem, side: str, uid: str, editable: bool) -> None:
    """*side*'s claims with their labels, one select box per label cell when *editable*."""
    st.markdown(f"**{MATRIX_TITLES[side]}**")
    rows = matrix_rows(item, side)
    if not rows:
        st.caption("No claims on this side.")
        return
    columns = matrix_columns(item, side)
    options = label_options(item)
    config: dict[str, Any] = {
        "#": st.column_config.NumberColumn("#", width=LABEL_COLUMN_WIDTH // 3),
        "claim": st.column_config.TextColumn("claim", width="large"),
    }
    for col in columns[2:]:  # "Contradiction" whole (a "small" column showed "Contradicti")
        config[col] = st.column_config.SelectboxColumn(
            render.md_escape(col), options=options, required=True, width=LABEL_COLUMN_WIDTH
        )
    st.data_editor(
        pd.DataFrame(rows, columns=columns),
        key=editor_key(side, uid),
        hide_index=True,
        disabled=["#", "claim"] if editable else True,
        column_config=config,
        width="stretch",
        height=min(35 * (len(rows) + 1) + 3, 640),
    )


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
