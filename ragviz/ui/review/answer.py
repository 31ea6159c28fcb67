"""One answer on the Review page: its response sentences with the selected sentence's verdict and support,
and the documents labelled for it. The single view draws one answer; the paired view
(:mod:`ragviz.ui.review.paired`) draws two responses side by side over one set of documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from ragviz.analysis.quality.issues import label_issues
from ragviz.analysis.review.edits import (
    ContextSpan,
    default_response_key,
    document_spans,
    response_spans,
    supporting_key_options,
)
from ragviz.data.model import Labels
from ragviz.data.problems import Problem
from ragviz.ui.core.state import ExampleLabels
from ragviz.ui.review import moves, sentence_editor, sentence_panel, toolbar

__all__ = ["context_panel", "flags", "response_panel"]


def response_panel(
    shown: ExampleLabels,
    editable: bool,
    slot: str = "",
    focused: bool = True,
    header: Sequence[str] = (),
    with_context: bool = False,
    bar: dict | None = None,
) -> str | None:
    """The response as clickable sentences with, under it in the same component, the selected sentence's explanation
    and, when *editable*, its verdict, note and supporting keys (:mod:`ragviz.ui.review.sentence_panel`: one element
    to redraw per J where they were four widgets, issue 38); a paired *slot* (``"a"`` / ``"b"``) draws its own (a click
    on the answer not *focused* moves the focus). *header*: the page's header above the response, as HTML blocks
    (:func:`ragviz.ui.review.page.example_header_html`); *with_context* (the single view): the documents under it in
    the same element (as :func:`context_panel` draws them); *bar*: the navigation bar above it all in the same element
    (:func:`ragviz.ui.review.toolbar.bar_data`). Returns the selected response key."""
    ex, current, uid = shown.example, shown.current, shown.example.uid
    selected = sentence_editor.selected_key(uid, ex.response_keys(), default_response_key(response_spans(ex, current)))
    spans = response_spans(ex, current, selected, shown.base)
    chosen = next((s for s in spans if s.key == selected), None)
    explain = sentence_panel.explanation_data(chosen) if chosen is not None else None
    controls = None
    if chosen is not None and editable:
        controls = sentence_panel.controls_data(chosen, supporting_key_options(ex, chosen))
        sentence_panel.register(
            uid,
            controls,
            on_status=partial(moves.mark_support, uid, current, shown.base, chosen.key),
            on_keys=partial(moves.pick_supporting_keys, uid, current, chosen.key),
            on_note=partial(moves.write_note, uid, current, chosen.key),
        )
    context = sentence_editor.context_payload(*_context_args(shown, selected, editable)) if with_context else None
    sentence_editor.response_editor(
        uid,
        spans,
        selected,
        slot=slot,
        focused=focused,
        explain=explain,
        controls=controls,
        header=header,
        context=context,
        bar=bar,
        on_press=toolbar.queue_press,
    )
    return selected


def flags(shown: ExampleLabels) -> list[Problem]:
    """*shown*'s label-quality flags (none without labels)."""
    return label_issues(shown.example, shown.current) if shown.current is not None else []


def context_panel(shown: ExampleLabels, selected: str | None, editable: bool, view: str | None = None) -> None:
    """The documents labelled for *shown*, the page's width (clicks edit its labels; Shift+click links to its
    *selected* response sentence). *view*: what the documents stay while the labels drawn change (a paired
    question's), so a change of focus keeps their scroll. The flags and Normalize are above (the header block, the
    navigation bar)."""
    sentence_editor.context_editor(*_context_args(shown, selected, editable), view=view)


def _context_args(
    shown: ExampleLabels, selected: str | None, editable: bool
) -> tuple[str, Labels | None, list[list[ContextSpan]], set[str], bool, str | None]:
    """The context editor's arguments for *shown* (:func:`ragviz.ui.review.sentence_editor.context_editor`): the
    judge's labelled sentences and those the person touched stay unfolded."""
    judge, current, uid = shown.judge, shown.current, shown.example.uid
    judged = set(judge.relevant_keys) | set(judge.utilized_keys) if judge else set()
    return (
        uid,
        current,
        document_spans(shown.example, current, selected),
        judged | sentence_editor.touched(uid),
        editable,
        selected,
    )
