"""The Review page for a paired audit sample (``ragviz audit draw --design paired``): the question and the documents
once, the two systems' answers side by side, each editable and each with its live TRACe scores.

One answer has the focus (the row the page shows, in the URL): the documents show and take its context labels, and
the page's keys act on it (A accepts it, Reset resets it). The other answer's verdicts and supporting keys stay
editable in its own column; a click on its response, or its "Work on this answer" button (S), moves the focus.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial

import streamlit as st

from ragviz.analysis.review.metrics import MetricComparison, compare_metrics
from ragviz.ui.core import render
from ragviz.ui.core.state import ExampleLabels
from ragviz.ui.review import answer, moves
from ragviz.ui.review.page import NO_BREAK_DIVIDE

__all__ = ["header", "metric_strip_html", "paired_view"]


def header(where: str, a: ExampleLabels, systems: tuple[str, str]) -> None:
    """Where the page is and the question's identity, then the question, once for both answers."""
    ex = a.example
    st.html(
        f'<div style="font-family:system-ui,sans-serif;font-size:0.85rem;{render.MUTED}">{render.esc(where)} · '
        f"{render.esc(ex.dataset)} · id {render.long_text_html(ex.id, 120)} · two answers: "
        f"A {render.esc(systems[0])}, B {render.esc(systems[1])}</div>"
    )
    st.html(render.text_block_html("Question", ex.question))


def metric_strip_html(comparison: Sequence[MetricComparison], against_judge: bool = True) -> str:
    """The four TRACe scores of one answer in one line of small cards (half a page wide): the score, and against the
    judge's when *against_judge*, with the formula's counts."""
    cells = []
    for m in comparison:
        was = f" <span>(judge {render.format_score(m.judge)})</span>" if against_judge and m.delta else ""
        cells.append(
            '<div style="flex:1 1 0;min-width:6.5rem;border:1px solid color-mix(in srgb, currentColor 25%, '
            'transparent);border-radius:0.5rem;padding:0.3rem 0.5rem">'
            f'<div style="font-size:0.8rem">{render.esc(m.name.capitalize())}</div>'
            f'<div style="font-size:1.25rem;font-weight:600">{render.format_score(m.current)}{was}</div>'
            f'<div style="font-family:ui-monospace,monospace;font-size:0.7rem;{render.MUTED}">'
            f"{render.esc(m.formula.split(' = ', 1)[-1]).replace(' / ', NO_BREAK_DIVIDE)}</div></div>"
        )
    return (
        '<div class="rv-metric-strip" style="display:flex;flex-wrap:wrap;gap:0.4rem;'
        f'font-family:system-ui,sans-serif">{"".join(cells)}</div>'
    )


def _answer_heading(letter: str, system: str, status: str, focused: bool, on_focus: Callable[[], None]) -> None:
    """The heading "Answer A · gpt-4o · reviewed", and whether the documents and the keys act on this answer (else a button
    that moves them here)."""
    shown = f" · {render.esc(status)}" if status else ""
    mark = " · <b>the documents and keys act on it</b>" if focused else ""
    st.html(
        f'<div style="font-family:system-ui,sans-serif"><b>Answer {letter}</b> · {render.esc(system)}{shown}'
        f"{mark}</div>"
    )
    if not focused:
        st.button(
            f"Work on answer {letter}",
            key="review.focus_other",
            shortcut="S",
            on_click=on_focus,
            help=f"Show answer {letter}'s labels on the documents; the page's keys (A, Reset) then act on it.",
        )


def paired_view(
    pair: tuple[ExampleLabels, ExampleLabels],
    rows: tuple[int, int],
    focus: int,
    systems: tuple[str, str],
    statuses: Mapping[str, str],
    *,
    editable: bool,
    traces: bool,
    present: bool,
) -> None:
    """Answers A and B (*pair*, at *rows*) side by side, then the documents once, labelled for the answer at
    *focus* (0: A, 1: B). *statuses*: uid -> its review status (empty: not said)."""
    st.html(render.legend_html())
    selected = None
    for i, (column, shown) in enumerate(zip(st.columns(2, gap="medium"), pair)):
        letter, uid = "AB"[i], shown.example.uid
        with column, st.container(border=True):
            _answer_heading(letter, systems[i], statuses.get(uid, ""), i == focus, partial(moves.go, rows[i]))
            st.html(metric_strip_html(compare_metrics(shown.example, shown.judge, shown.current), against_judge=traces))
            chosen = answer.response_panel(shown, editable, slot=letter.lower(), focused=i == focus)
        if i == focus:
            selected = chosen
    focused, other = pair[focus], pair[1 - focus]
    st.markdown(f"**Documents** — labelled for answer {'AB'[focus]}")  # md: ours
    if focused.example.document_sentences != other.example.document_sentences:
        st.caption(f"The two answers were given different documents; these are answer {'AB'[focus]}'s.")  # md: ours
    answer.context_panel(focused, selected, editable, present, view=f"pair:{pair[0].example.uid}")
