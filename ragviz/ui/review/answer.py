"""One answer on the Review page: its response sentences with the selected sentence's verdict and support,
and the documents labelled for it with its label-quality flags. The single view draws one answer; the paired view
(:mod:`ragviz.ui.review.paired`) draws two responses side by side over one set of documents.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from ragviz.analysis.quality.issues import label_issues
from ragviz.analysis.review.edits import default_response_key, document_spans, response_spans, supporting_key_options
from ragviz.ui.core import state
from ragviz.ui.core.state import ExampleLabels
from ragviz.ui.review import moves, sentence_editor
from ragviz.ui.review import page as review

__all__ = ["context_panel", "response_panel"]


def response_panel(shown: ExampleLabels, editable: bool, slot: str = "", focused: bool = True) -> str | None:
    """The response as clickable sentences, then the selected sentence's explanation and, when *editable*, its
    verdict, note and supporting keys: beside the explanation in the single view, under it in a paired *slot*
    (``"a"`` / ``"b"``: half the width; a click on the answer not *focused* moves the focus). Returns the selected response key."""
    ex, current, uid = shown.example, shown.current, shown.example.uid
    selected = sentence_editor.selected_key(uid, ex.response_keys(), default_response_key(response_spans(ex, current)))
    spans = response_spans(ex, current, selected, shown.base)
    sentence_editor.response_editor(uid, spans, selected, slot=slot, focused=focused)
    said, change = (st.container(), st.container()) if slot else st.columns([0.55, 0.45], gap="medium")
    with said:
        chosen = review.explanation(spans, selected)
    if chosen is not None and editable:
        with change:
            review.support_controls(
                chosen,
                supporting_key_options(ex, chosen),
                key_suffix=f"{uid}.{chosen.key}.{state.redraw_count()}",
                on_status=partial(moves.mark_support, uid, current, shown.base, chosen.key),
                on_keys=partial(moves.pick_supporting_keys, uid, current, chosen.key),
                on_note=partial(moves.write_note, uid, current, chosen.key),
            )
    return selected


def context_panel(
    shown: ExampleLabels, selected: str | None, editable: bool, present: bool, view: str | None = None
) -> None:
    """The documents labelled for *shown* (clicks edit its labels; Shift+click links to its *selected* response
    sentence) with, beside them, its label-quality flags and (for an admin) the re-judge button. *view*: what the
    documents stay while the labels drawn change (a paired question's), so a change of focus keeps their scroll."""
    ex, judge, current, uid = shown.example, shown.judge, shown.current, shown.example.uid
    left, right = st.columns([0.66, 0.34], gap="medium")
    with right:
        review.quality_flags(
            label_issues(ex, current) if current is not None else [],
            on_normalize=partial(moves.normalize_labels, uid, ex, current) if editable else None,
        )
        if not present and review.rejudge_button():
            from ragviz.ui.label.page import rejudge  # the openai client is imported only when asked

            rejudge(ex)
    with left:
        judged = set(judge.relevant_keys) | set(judge.utilized_keys) if judge else set()
        sentence_editor.context_editor(
            uid,
            current,
            document_spans(ex, current, selected),
            judged | sentence_editor.touched(uid),
            editable,
            selected,
            view=view,
        )
