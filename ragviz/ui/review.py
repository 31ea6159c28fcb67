"""The Review page's renderers: the sidebar filters, the navigation bar, the example's header, the
live metric cards, the override effects, the response with its support controls, the label-quality
flags and the context documents with their override editor.

Each function draws the data it is given. Widgets hand the person's choice back: a picker returns
it, a button or control calls the ``on_…`` callback it was given (Streamlit runs that before the next
run, so the page redraws already changed), and the context editor's ticks are read on the next run
by :func:`take_context_ticks` (the editor's state is there both in the browser and under AppTest).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from ragviz.analysis.quality import MECHANICAL_KINDS
from ragviz.analysis.review import SUPPORTED, UNSUPPORTED, ContextSpan, ResponseSpan
from ragviz.analysis.review_metrics import MetricComparison, OverrideEffect
from ragviz.analysis.review_queue import Progress, ReviewFilter
from ragviz.data.model import Example
from ragviz.data.problems import Problem
from ragviz.ui import render

SUPPORT_CHOICE_LABELS = {SUPPORTED: "✓ supported", UNSUPPORTED: "✗ unsupported"}

EDITOR = "review.editor"  # (context editor key, row index) of the editor drawn last


def filter_sidebar(prog: Progress, subset_names: Sequence[str]) -> tuple[ReviewFilter, bool]:
    """Progress and the filters in the sidebar; returns the filter and whether accepting moves on
    to the next unreviewed example."""
    with st.sidebar:
        st.progress(prog.fraction, text=str(prog))
        st.caption("Filters")
        flt = ReviewFilter(
            unreviewed=st.toggle("Unreviewed only", key="review.f_unreviewed"),
            corrected=st.toggle("Corrected only", key="review.f_corrected"),
            adherence_zero=st.toggle("Adherence 0", key="review.f_adherence0"),
            has_flags=st.toggle("Has label-quality flags", key="review.f_flags"),
            subsets=tuple(st.multiselect("Subset", subset_names, key="review.f_subsets")),
        )
        advance_after_accept = st.toggle("Accept moves to the next unreviewed", value=True, key="review.advance")
    return flt, advance_after_accept


def navigation_bar(
    prev_row: int | None,
    next_row: int | None,
    *,
    has_judge: bool,
    changed: bool,
    on_go: Callable[[int | None], Any],
    on_next_unreviewed: Callable[[], Any],
    on_accept: Callable[[], Any],
    on_undo: Callable[[], Any],
    on_reset: Callable[[], Any],
) -> None:
    """Previous / Next / Next unreviewed / Accept / Undo / Reset with their shortcuts (K, J, N, A, Z).
    *changed*: the current labels differ from the judge's (else there is nothing to reset)."""
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            "◀ Previous", key="review.prev", shortcut="K", disabled=prev_row is None, on_click=on_go, args=(prev_row,)
        )
        st.button(
            "Next ▶", key="review.next", shortcut="J", disabled=next_row is None, on_click=on_go, args=(next_row,)
        )
        st.button("Next unreviewed", key="review.next_unreviewed", shortcut="N", on_click=on_next_unreviewed)
        st.button(
            "Accept judge labels",
            key="review.accept",
            shortcut="A",
            type="primary",
            disabled=not has_judge,
            on_click=on_accept,
        )
        st.button("Undo", key="review.undo", shortcut="Z", on_click=on_undo)
        st.button(
            "Reset to judge" if has_judge else "Reset to loaded labels",
            key="review.reset",
            on_click=on_reset,
            disabled=not changed,
            help=None
            if has_judge
            else "This example has no judge labels: reset returns to the labels the file carried.",
        )


def example_header(position: str, status: str, example: Example) -> None:
    """Where the page is, the example's review status and identity, then its question."""
    st.html(
        f'<div style="font-family:system-ui,sans-serif;font-size:0.85rem;color:#57606a">{render.esc(position)} · '
        f"<b>{render.esc(status)}</b> · {render.esc(example.dataset)} · id {render.long_text_html(example.id, 120)} · "
        f"model {render.esc(example.generation_model or '—')}</div>"
    )
    st.html(render.text_block_html("Question", example.question))


def metric_cards(comparison: Sequence[MetricComparison]) -> None:
    """One card per TRACe metric: the current score, its delta against the judge's, the formula."""
    cols = st.columns(4)
    for col, m in zip(cols, comparison):
        with col:
            st.metric(
                m.name.capitalize(),  # md: ours
                render.format_score(m.current),
                delta=render.format_delta(m.delta),
                delta_color="off" if m.name in ("relevance", "utilization") else "normal",
                help="Current labels; the delta is against the judge's labels.",
                border=True,
            )
            st.html(
                f'<div class="rv-formula" style="font-family:ui-monospace,monospace;font-size:0.75rem;color:#57606a">'
                f"{render.esc(m.formula)}<br>judge {render.format_score(m.judge)} → now {render.format_score(m.current)}</div>"
            )


def override_effects_table(effects: Sequence[OverrideEffect]) -> None:
    """A closed expander with what each override changed; nothing without overrides."""
    if not effects:
        return
    with st.expander(f"What each override changed ({len(effects)})", expanded=False):
        st.dataframe(pd.DataFrame([e.as_row() for e in effects]), hide_index=True, width="stretch")


def sentence_picker(uid: str, response_keys: Sequence[str], default: str | None) -> str | None:
    """The "Response" heading and the response-sentence picker; returns the selected key (``None``
    for a response without sentences)."""
    st.markdown("**Response**")
    if not response_keys:
        return None
    return st.segmented_control(
        "Response sentence (its supporting context sentences light up)",
        response_keys,
        default=default,
        required=True,
        key=f"review.sentence.{uid}",
    )


def response_panel(spans: Sequence[ResponseSpan], selected: str | None) -> ResponseSpan | None:
    """The response with its support verdicts and the selected sentence's explanation; returns the
    selected sentence's span (``None`` when none is selected)."""
    st.html(render.response_html(spans))
    chosen = next((s for s in spans if s.key == selected), None)
    if chosen is not None:
        st.html(render.explanation_html(chosen))
    return chosen


def _with_value(widget_key: str, on_choice: Callable[[Any], Any]) -> None:
    on_choice(st.session_state[widget_key])


def support_controls(
    span: ResponseSpan,
    key_options: Sequence[str],
    key_suffix: str,
    on_status: Callable[[str | None], Any],
    on_keys: Callable[[list[str]], Any],
) -> None:
    """The selected sentence's verdict (supported / unsupported) and its supporting context keys;
    a change calls *on_status* with the verdict or *on_keys* with the keys. *key_suffix* makes the
    widget keys (``review.support.<suffix>``, ``review.keys.<suffix>``)."""
    status_key = f"review.support.{key_suffix}"
    keys_key = f"review.keys.{key_suffix}"
    st.segmented_control(
        f"Sentence {render.md_escape(span.key)} is",
        [SUPPORTED, UNSUPPORTED],
        format_func=lambda state: SUPPORT_CHOICE_LABELS[state],
        default=span.status if span.status in (SUPPORTED, UNSUPPORTED) else None,
        key=status_key,
        on_change=_with_value,
        args=(status_key, on_status),
    )
    st.multiselect(
        f"Context sentences supporting {render.md_escape(span.key)}",
        key_options,
        default=list(dict.fromkeys(span.supporting_keys)),
        key=keys_key,
        on_change=_with_value,
        args=(keys_key, on_keys),
    )


def quality_flags(issues: Sequence[Problem], on_normalize: Callable[[], Any]) -> None:
    """The label-quality flags and a button that applies the mechanical fixes (*on_normalize*)."""
    st.markdown(f"**Label-quality flags: {len(issues)}**")
    if not issues:
        return
    st.html(render.problems_html([f"{p.field}: {p.message}" for p in issues]))
    mechanical = sum(1 for p in issues if p.kind in MECHANICAL_KINDS)
    st.button(
        f"Normalize labels ({mechanical} mechanical fix{'es' if mechanical != 1 else ''})",  # md: ours
        key="review.normalize",
        disabled=not mechanical,
        help="Strip trailing dots, drop duplicate keys and keys that name no sentence — one correction, undoable. "
        "The other flags need your judgement.",
        on_click=on_normalize,
    )


def context_panel(
    documents: Sequence[Sequence[ContextSpan]], table: list[dict[str, Any]], editor_key: str, row: int
) -> None:
    """The legend, each document's sentences and the relevant / utilized editor over *table*
    (the rows of :func:`ragviz.analysis.review.context_table` for the example at *row*), then the
    shortcuts. Ticks come back through :func:`take_context_ticks` on the next run."""
    st.html(render.legend_html())
    for d, doc_spans in enumerate(documents):
        st.html(render.document_html(d, doc_spans))
    st.markdown("**Relevant / utilized** — tick to override")
    st.session_state[EDITOR] = (editor_key, row)
    frame = pd.DataFrame(table, columns=["document", "key", "text", "relevant", "utilized"])
    frame["text"] = frame["text"].map(render.table_text)  # the whole sentence is drawn above (up to 1 MB)
    st.data_editor(
        frame,
        key=editor_key,
        hide_index=True,
        disabled=["document", "key", "text"],
        column_order=("key", "relevant", "utilized", "text"),
        column_config={
            "key": st.column_config.TextColumn("key", width="small"),
            "text": st.column_config.TextColumn("sentence", width="large"),
            "relevant": st.column_config.CheckboxColumn("relevant", width="small"),
            "utilized": st.column_config.CheckboxColumn("utilized", width="small"),
        },
        height=min(36 * (len(frame) + 1) + 4, 420),
        width="stretch",
    )
    st.caption("Shortcuts: J next · K previous · N next unreviewed · A accept · Z undo")


def take_context_ticks() -> tuple[int, dict[Any, dict[str, Any]]] | None:
    """The ticks made in the context editor drawn last, as ``(row index of its example, the editor's
    {row: {column: value}})``; each edit is handed out once. ``None`` without new ticks."""
    pending = st.session_state.get(EDITOR)
    if not pending:
        return None
    key, row = pending
    edits = (st.session_state.get(key) or {}).get("edited_rows") or {}
    if not edits:
        return None
    st.session_state[EDITOR] = None
    return row, edits
