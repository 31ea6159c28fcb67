"""The "Other metric families" panel of the Review page: Tonic, retrieval per system and answer
EM/F1 for the judge's and the current labels side by side, with the overrides a person can make
(gold relevance of retrieved chunks, answer_similarity, per-document chunk labels).

The panel records nothing itself: every override goes to *on_change* (a list of
:class:`ragviz.data.labels.Change`), which the Review page wires to the same ``record`` it uses for
its other edits, so undo, reset, statuses and export treat them like any other label change.
Table edits are read from the editor's state on the next run (as the context-sentence editor
does: this works in the browser and under AppTest), recorded once, then the page reruns.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from ragviz.data.labels import SIMILARITY_FIELD, Change, field_value
from ragviz.data.model import Example, Labels
from ragviz.metrics.families import (
    chunk_changes,
    chunk_rows,
    relevance_change,
    retrieved_rows,
    score_rows,
    similarity_change,
    similarity_value,
    systems_table,
    unretrieved_gold,
)
from ragviz.metrics.retrieval import DEFAULT_KS, parse_ks
from ragviz.ui.core import render
from ragviz.ui.core.keys import FAMILIES_KEY as KEY

__all__ = ["KEY", "OnChange", "render_families_panel"]


OnChange = Callable[[list[Change]], Any]


def _keys(key: str, uid: str, redraws: int) -> dict[str, str]:
    return {
        "retrieved": f"{key}.retrieved.{uid}.{redraws}",
        "chunks": f"{key}.chunks.{uid}.{redraws}",
        "similarity": f"{key}.similarity.{uid}.{redraws}",
        "clear": f"{key}.clear_similarity.{uid}.{redraws}",
        "k": f"{key}.k",
        "handled": f"{key}.handled",
    }


def _pending(editor_key: str, handled_key: str) -> dict | None:
    """Edits waiting in an editor's state that were not recorded yet (each edit is recorded once)."""
    edits = (st.session_state.get(editor_key) or {}).get("edited_rows") or {}
    if not edits:
        return None
    marker = (editor_key, json.dumps(edits, sort_keys=True, default=str))
    if st.session_state.get(handled_key) == marker:
        return None
    st.session_state[handled_key] = marker
    return edits


def _record(on_change: OnChange, changes: list[Change]) -> None:
    try:
        on_change(changes)
    except ValueError as exc:  # e.g. the store refused a value: say which field and why
        st.html(render.problems_html([str(exc)], "error"))


def _set_similarity(example: Example, labels: Labels | None, widget_key: str, on_change: OnChange) -> None:
    change = similarity_change(example, labels, st.session_state.get(widget_key))
    if change is not None:
        _record(on_change, [change])


def _clear_similarity(labels: Labels | None, on_change: OnChange) -> None:
    old = field_value(labels, SIMILARITY_FIELD)
    if old is not None:
        _record(on_change, [Change(SIMILARITY_FIELD, old, None)])


def _score_table(rows: list[dict[str, Any]], traces: bool = True) -> pd.DataFrame:
    """The scores, judge beside now with the delta; without *traces* (presenting, corrections hidden) now only."""
    return pd.DataFrame(
        rows, columns=["family", "metric", "judge", "now", "delta"] if traces else ["family", "metric", "now"]
    )


def render_families_panel(
    example: Example,
    judge: Labels | None,
    current: Labels | None,
    on_change: OnChange,
    *,
    key: str = KEY,
    redraws: int = 0,
    editable: bool = True,
    traces: bool = True,
) -> None:
    """Draw the panel for *example*; *redraws* (the session's redraw counter) renews the editors'
    keys after each recorded decision; ``editable=False`` (presentation mode) draws no control;
    ``traces=False`` (presenting with corrections hidden) shows the current scores without the judge's."""
    keys = _keys(key, example.uid, redraws)
    shown_retrieved = retrieved_rows(example, current)
    if editable:
        edits = _pending(keys["retrieved"], keys["handled"])
        change = relevance_change(example, current, shown_retrieved, edits) if edits else None
        chunk_edits = _pending(keys["chunks"], keys["handled"] + ".chunks")
        changes = ([change] if change else []) + (chunk_changes(example, current, chunk_edits) if chunk_edits else [])
        if changes:
            _record(on_change, changes)
            st.rerun()

    ks_text = st.text_input(
        "Cut-offs k (comma-separated)",
        value=",".join(map(str, DEFAULT_KS)),
        key=keys["k"],
        help="Recall@k, Precision@k, Hit@k and nDCG@k are shown for each k.",
    )
    try:
        ks: Sequence[int] = parse_ks(ks_text)
    except ValueError as exc:
        st.html(render.problems_html([str(exc).replace("--k: ", "k: ")], "error"))
        ks = DEFAULT_KS

    st.markdown("**Scores** — judge's labels vs the current labels (Δ = now − judge)" if traces else "**Scores**")
    scores = _score_table(score_rows(example, judge, current, ks), traces)
    st.dataframe(
        scores,
        hide_index=True,
        width="stretch",
        column_config={
            "judge": st.column_config.NumberColumn("judge", format="%.3f"),
            "now": st.column_config.NumberColumn("now", format="%.3f"),
            "delta": st.column_config.NumberColumn("Δ", format="%+.3f"),
        },
        height=min(35 * (len(scores) + 1) + 3, 560),
    )
    st.caption(
        "Tonic: chunk d is relevant / used when any of its sentences is (unless chunk labels are set); "
        "overall = mean of the values, answer_similarity / 5. Retrieval: gold = the relevant ids "
        "(the judge column uses the data's own). Answer EM/F1 compare the response with the reference answer."
    )

    systems = systems_table(example, current, ks)
    if len(systems) and len(systems[0]) > 2:
        st.markdown("**Retrieval systems side by side** (current gold)")
        st.dataframe(pd.DataFrame(systems), hide_index=True, width="stretch")

    # -- controls -----------------------------------------------------------------------------
    if shown_retrieved:
        st.markdown(
            "**Retrieved chunks** — tick *relevant* to set the gold judgement" if editable else "**Retrieved chunks**"
        )
        if editable:
            st.data_editor(
                pd.DataFrame(shown_retrieved, columns=["system", "rank", "doc_id", "relevant"]),
                key=keys["retrieved"],
                hide_index=True,
                disabled=["system", "rank", "doc_id"],
                column_config={
                    "rank": st.column_config.NumberColumn("rank", width="small"),
                    "doc_id": st.column_config.TextColumn("doc id"),
                    "relevant": st.column_config.CheckboxColumn("relevant", width="small"),
                },
                width="stretch",
            )
        else:
            st.dataframe(pd.DataFrame(shown_retrieved), hide_index=True, width="stretch")
        missing = unretrieved_gold(example, current)
        if missing:
            st.html(
                f'<div style="font-size:0.8rem;{render.MUTED}">Relevant but not retrieved (counted by Recall@k): '
                + ", ".join(f"<code>{render.esc(d)}</code>" for d in missing)
                + "</div>"
            )

    if example.reference_answer:
        golds = (
            [example.reference_answer] if isinstance(example.reference_answer, str) else list(example.reference_answer)
        )
        st.html(render.text_block_html("Reference answer", "\n".join(golds)))
        if editable:
            value = similarity_value(example, current)
            cols = st.columns([0.7, 0.3], vertical_alignment="bottom")
            with cols[0]:
                st.number_input(
                    "answer_similarity (0–5, Tonic's judge score against the reference answer)",
                    min_value=0.0,
                    max_value=5.0,
                    step=0.5,
                    value=value,
                    format="%.1f",
                    key=keys["similarity"],
                    on_change=_set_similarity,
                    args=(example, current, keys["similarity"], on_change),
                    placeholder="not scored",
                )
            with cols[1]:
                st.button(
                    "Clear override",
                    key=keys["clear"],
                    disabled=current is None or current.answer_similarity is None,
                    on_click=_clear_similarity,
                    args=(current, on_change),
                )

    documents = chunk_rows(example, current)
    if documents and editable:
        st.markdown(
            f"**Chunk labels for Tonic** ({render.md_escape(documents[0]['source'])}) — tick to set them directly"
        )
        st.data_editor(
            pd.DataFrame(documents, columns=["document", "relevant", "used", "text"]),
            key=keys["chunks"],
            hide_index=True,
            disabled=["document", "text"],
            column_config={
                "document": st.column_config.NumberColumn("doc", width="small"),
                "relevant": st.column_config.CheckboxColumn("relevant", width="small"),
                "used": st.column_config.CheckboxColumn("used", width="small"),
                "text": st.column_config.TextColumn("text", width="large"),
            },
            width="stretch",
        )
