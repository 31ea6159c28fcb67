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
from ragviz.ui.review.page import quality_flags_html, unbroken_fractions

__all__ = ["FOCUSED_KEY", "metric_line_html", "metric_strip_html", "paired_view", "question_header"]

FOCUSED_KEY = "review-answer-focused"  # the focused answer's box (outlined by ragviz.ui.core.render.theme_css)


def question_header(where: str, a: ExampleLabels, systems: tuple[str, str]) -> None:
    """Where the page is and the question's identity, then the question, once for both answers."""
    ex = a.example
    st.html(
        f'<div style="font-family:system-ui,sans-serif;font-size:0.85rem;{render.MUTED}">{render.esc(where)} · '
        f"{render.esc(ex.dataset)} · id {render.long_text_html(ex.id, 120)} · two answers: "
        f"A {render.esc(systems[0])}, B {render.esc(systems[1])}</div>"
    )
    st.html(render.text_block_html("Question", ex.question))


def metric_strip_html(comparison: Sequence[MetricComparison], against_judge: bool = True) -> str:
    """The four TRACe scores of one answer as small cards (four in a row, two where half the page is narrow): the
    score with its counts, and the judge's when it differs (*against_judge*)."""
    cells = []
    for m in comparison:
        judge = f"judge {render.format_score(m.judge)}" if against_judge and m.delta else ""
        counts = _counts(m)
        cells.append(
            '<div style="border:1px solid color-mix(in srgb, currentColor 25%, transparent);border-radius:0.5rem;'
            'padding:0.25rem 0.45rem;min-width:0">'
            f'<div style="font-size:0.78rem">{render.esc(m.name.capitalize())}</div>'
            f'<div style="font-size:1.2rem;font-weight:600;line-height:1.3">{render.format_score(m.current)}</div>'
            f'<div style="font-family:ui-monospace,monospace;font-size:0.7rem;{render.MUTED}">'
            f"{unbroken_fractions(counts)}{'<br>' + judge if judge else ''}</div></div>"
        )
    return (  # four in a row, two where the column is narrow (ragviz.ui.core.render.theme_css's container query)
        '<div style="container:rv-strip / inline-size"><div class="rv-metric-strip" style="display:grid;gap:0.35rem;'
        f'font-family:system-ui,sans-serif">{"".join(cells)}</div></div>'
    )


def _counts(m: MetricComparison) -> str:
    """The formula's counts alone (``7 / 8``); for adherence the unsupported sentences (``unsupported: c``).

    >>> _counts(MetricComparison("relevance", 0.5, 0.5, "relevance = |R| / N = 4 / 8"))
    '4 / 8'
    >>> _counts(MetricComparison("adherence", 0.0, 0.0, "adherence = 0 if any unsupported (c, d) else 1"))
    'unsupported: c, d'
    """
    if m.name == "adherence":
        inside = m.formula.partition("(")[2].partition(")")[0]
        return "none unsupported" if inside.startswith("no ") else f"unsupported: {inside}"
    return m.formula.rsplit(" = ", 1)[-1]


def metric_line_html(letter: str, comparison: Sequence[MetricComparison]) -> str:
    """One line of answer *letter*'s scores over the documents, beside what a click there changes."""
    scores = " · ".join(f"{m.name} {render.format_score(m.current)}" for m in comparison)
    return f'<div style="font-family:system-ui,sans-serif;font-size:0.85rem">Answer {letter} now: {scores}</div>'


def _answer_heading(letter: str, system: str, status: str, focused: bool, on_focus: Callable[[], None]) -> None:
    """The heading "Answer A · gpt-4o · reviewed", and whether the documents and the keys act on this answer (else a
    button that moves them here)."""
    shown = f" · {render.esc(status)}" if status else ""
    mark = " · <b>the documents and keys act on it</b>" if focused else ""
    with st.container(horizontal=True, vertical_alignment="center"):
        st.html(
            f'<div style="font-family:system-ui,sans-serif"><b>Answer {letter}</b> · {render.esc(system)}{shown}'
            f"{mark}</div>",
            width="stretch",
        )
        if not focused:
            st.button(
                f"Work on answer {letter}",  # md: ours
                key="review.focus_other",
                shortcut="S",
                on_click=on_focus,
                help=f"Show answer {letter}'s labels on the documents; the page's keys (A, Reset) then act on it.",  # md: ours
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
) -> None:
    """Answers A and B (*pair*, at *rows*) side by side, then the documents once, labelled for the answer at
    *focus* (0: A, 1: B). *statuses*: uid -> its review status (empty: not said)."""
    st.html(render.legend_html())
    selected = None
    for i, (column, shown) in enumerate(zip(st.columns(2, gap="medium"), pair)):
        letter, uid = "AB"[i], shown.example.uid
        comparison = compare_metrics(shown.example, shown.judge, shown.current)
        with column, st.container(border=True, key=FOCUSED_KEY if i == focus else f"review-answer-{letter}"):
            _answer_heading(letter, systems[i], statuses.get(uid, ""), i == focus, partial(moves.go, rows[i]))
            st.html(metric_strip_html(comparison, against_judge=traces))
            chosen = answer.response_panel(shown, editable, slot=letter.lower(), focused=i == focus)
        if i == focus:
            selected, focused_scores = chosen, comparison
    focused, other = pair[focus], pair[1 - focus]
    st.markdown(f"**Documents** — labelled for answer {'AB'[focus]}")  # md: ours
    st.html(metric_line_html("AB"[focus], focused_scores))
    if focused.example.document_sentences != other.example.document_sentences:
        st.caption(f"The two answers were given different documents; these are answer {'AB'[focus]}'s.")  # md: ours
    st.html(quality_flags_html(answer.flags(focused)))  # the focused answer's (Normalize: the navigation bar)
    answer.context_panel(focused, selected, editable, view=f"pair:{pair[0].example.uid}")
