"""The Review page's renderers: the sidebar filters, the example's header, the live metric cards, the override
effects, the label-quality flags, the re-judge help and the other metric families' button and panel (the navigation bar:
:mod:`ragviz.ui.review.toolbar`). The text itself (context and response, clickable, with the selected response sentence's explanation and controls) is
drawn by :mod:`ragviz.ui.review.sentence_editor`.

Each function draws the data it is given. Widgets hand the person's choice back: a button or control
calls the ``on_…`` callback it was given (Streamlit runs that before the next run, so the page
redraws already changed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ragviz.analysis.review.metrics import MetricComparison, OverrideEffect
from ragviz.analysis.review.queue import Progress, ReviewFilter
from ragviz.data.model import Example, Labels
from ragviz.data.problems import Problem
from ragviz.ui.core import disclosure, queue_settings, render
from ragviz.ui.core.queue_settings import ADVANCE_KEY

__all__ = [
    "ADVANCE_KEY",
    "FILTERS_HELP",
    "FLAGS_SHOWN",
    "NO_BREAK_DIVIDE",
    "accept_toggle",
    "choose_link_match",
    "example_header_html",
    "FAMILIES_OPEN",
    "families_open",
    "families_panel",
    "filter_sidebar",
    "filters_on",
    "metric_cards_html",
    "override_effects_table",
    "progress_html",
    "QUEUE_HELP",
    "QUEUE_OPEN",
    "QUEUE_PANEL",
    "REJUDGE_REFUSED",
    "quality_flags_html",
    "queue_label",
    "rejudge_help",
    "rejudge_pressed",
    "unbroken_fractions",
]

#: A fraction's slash with no-break spaces: a narrow column wraps a formula at "=", never inside "4 / 6".
NO_BREAK_DIVIDE = "\u00a0/\u00a0"


def unbroken_fractions(text: str) -> str:
    """*text* escaped for HTML, each of its "="-separated parts that holds a fraction kept on one line: the no-break
    spaces alone do not hold "|R ∩ U| / |R|" together, since Unicode lets a line break after "|"."""
    parts = []
    for part in text.split(" = "):
        shown = render.esc(part).replace(" / ", NO_BREAK_DIVIDE)
        parts.append(f'<span style="white-space:nowrap">{shown}</span>' if " / " in part else shown)
    return " = ".join(parts)


def filters_on(flt: ReviewFilter) -> list[str]:
    """The filters *flt* sets, as the sidebar's toggles name them (the subsets chosen after "Subset: ")."""
    on = [
        label
        for label, set_ in (
            ("Unreviewed only", flt.unreviewed),
            ("Corrected only", flt.corrected),
            ("Adherence 0", flt.adherence_zero),
            ("Has label-quality flags", flt.has_flags),
        )
        if set_
    ]
    if flt.subsets:
        on.append("Subset: " + ", ".join(flt.subsets))
    return on + (["Judge unsure"] if flt.judge_unsure else [])


FLAGS_SHOWN = 3  # label-quality flags listed outright; more go in a closed expander


_FILTER_KEYS = (
    ("review.f_unreviewed", "Unreviewed only"),
    ("review.f_corrected", "Corrected only"),
    ("review.f_adherence0", "Adherence 0"),
    ("review.f_flags", "Has label-quality flags"),
)


def _filter_of(values: Callable[[str], Any], show_corrections: bool) -> ReviewFilter:
    """The filter the sidebar's widgets (or their values kept in the session) say: *values* maps a widget's key to
    its value."""
    on = {key: bool(values(key)) for key, _ in _FILTER_KEYS}
    return ReviewFilter(
        unreviewed=show_corrections and on["review.f_unreviewed"],
        corrected=show_corrections and on["review.f_corrected"],
        adherence_zero=on["review.f_adherence0"],
        has_flags=on["review.f_flags"],
        subsets=tuple(values("review.f_subsets") or ()),
        judge_unsure=bool(values("review.f_unsure")),
    )


def filter_sidebar(
    prog: Progress,
    subset_names: Sequence[str],
    editable: bool = True,
    show_corrections: bool = True,
    audit: bool = False,
    mine: str | None = None,
) -> tuple[ReviewFilter, DeltaGenerator | None]:
    """Progress and the "Queue" disclosure in the sidebar (closed until the person opens it), with the filters in its
    panel (under the queue's settings); returns the filter and, while it is open, the panel's part for the Queue radio
    (:func:`ragviz.ui.audit.sample.audit_queue`), "My assignments" and :func:`accept_toggle` (``None`` while closed:
    they read their kept values). Its button says the queue, how many filters are set (not in the audit queue,
    *audit*, which ignores them) and, where Accept may move on (not in presentation mode, *editable* off, nor in the
    audit queue), whether it does; *mine*: "My assignments" on (a team's round), in words. Without
    *show_corrections* no progress and no reviewed / corrected filters."""
    with st.sidebar:
        if show_corrections:
            st.html(progress_html(prog))
        moves_on = editable and not audit  # the audit queue's Accept stays on the example
        now = queue_settings.settings_now(subset_names)  # as left (the module queue_settings says where from)
        advance = moves_on and bool(now[ADVANCE_KEY])
        n_filters = None if audit else len(filters_on(_filter_of(now.get, show_corrections)))
        label = queue_label(audit, advance if moves_on else None, mine, n_filters)
        # closed until asked, and then not drawn at all: the first page does not fetch the widgets' scripts (the
        # multiselect's alone are 15 files; issue 38), and a J does not run them. A disclosure, not a popover: a
        # popover is a block the browser redraws with its shell on every commit of a J (some 60 React components a J);
        # the disclosure's button is a leaf. One for the queue and the filters (which examples J / K walk). What it is
        # for is its panel's first line, not a tooltip: a button's tooltip is some 30 components redrawn on every J
        if not disclosure.disclosure(label, QUEUE_OPEN):  # md: ours (queue_label: literals and numbers only)
            flt = _filter_of(now.get, show_corrections)
            if not audit and (on := filters_on(flt)):  # the filters set, said outside (the audit queue ignores them)
                st.caption(render.md_escape("Filtered: " + "; ".join(on), limit=None))
            return flt, None
        panel = st.container(border=True, key=QUEUE_PANEL)
        queue = panel.container()  # first in it: the Queue radio, "My assignments" and the Accept toggle
        queue.caption(QUEUE_HELP)
        with panel:
            st.caption(FILTERS_HELP)
            flt = _filter_of(
                {
                    "review.f_unreviewed": show_corrections and _toggle("Unreviewed only", "review.f_unreviewed"),
                    "review.f_corrected": show_corrections and _toggle("Corrected only", "review.f_corrected"),
                    "review.f_adherence0": _toggle("Adherence 0", "review.f_adherence0"),
                    "review.f_flags": _toggle("Has label-quality flags", "review.f_flags"),
                    "review.f_subsets": _subsets(subset_names, now[queue_settings.SUBSET_KEY]),
                    "review.f_unsure": _toggle(
                        "Judge unsure",
                        "review.f_unsure",
                        help="Examples the judge was unsure of: asked several times (Samples per example on the Label "
                        "page, ragviz label --samples), its answers disagreed on some metric (confidence below 0.75)",
                    ),
                }.get,
                show_corrections,
            )
    return flt, queue


def _toggle(label: str, key: str, help: str | None = None) -> bool:
    """One of the filters' toggles, its value kept while the Queue is closed, across pages and in the URL."""
    return queue_settings.drawn(
        key,
        lambda changed: st.toggle(  # md: ours (literals)
            label, key=key, help=help, on_change=changed, persist_state=disclosure.KEEP_WHILE_CLOSED
        ),
    )


def _subsets(subset_names: Sequence[str], kept: list[str]) -> list[str]:
    """The "Subset" filter, its choice (*kept*: as left, of *subset_names* only) kept while the Queue is closed, across
    pages and in the URL."""
    key = queue_settings.SUBSET_KEY
    return queue_settings.drawn(
        key,
        lambda changed: st.multiselect(
            "Subset", subset_names, key=key, on_change=changed, persist_state=disclosure.KEEP_WHILE_CLOSED
        ),
        value=kept,
    )


def accept_toggle(queue: DeltaGenerator | None, editable: bool = True, audit: bool = False) -> bool:
    """Under the Queue radio in the open Queue's panel *queue* (:func:`filter_sidebar`; ``None``: closed, its kept
    value), "Accept moves to the next unreviewed"; returns whether accepting moves on. Presentation mode (*editable*
    off) and the audit queue (*audit*: Accept stays on the example) have no such option."""
    if not editable or audit:
        return False
    if queue is None:
        return bool(queue_settings.left_as(ADVANCE_KEY))
    with queue:  # on until turned off: its default is the session's (a widget's own would clash with it)
        return queue_settings.drawn(
            ADVANCE_KEY,
            lambda changed: st.toggle(
                "Accept moves to the next unreviewed",
                key=ADVANCE_KEY,
                on_change=changed,
                persist_state=disclosure.KEEP_WHILE_CLOSED,
            ),
        )


QUEUE_OPEN = "review.queue_open"  # whether the person opened the Queue (a disclosure's state: kept across J / K)
QUEUE_PANEL = "review.queue_panel"  # the open Queue's panel (its element's class: st-key-review-queue_panel)
FILTERS_HELP = "**Filters**: which examples J / K / N walk"
QUEUE_HELP = "Which examples J / K walk (every example, or an audit sample) and where Accept goes next"


def queue_label(audit: bool, advance: bool | None, mine: str | None = None, filters: int | None = None) -> str:
    """The sidebar's queue button: the queue (*mine*: the person's assignments, in words), how many *filters* are set
    (``None``: not said, as in the audit queue, which ignores them) and, where Accept may move on (*advance* not
    ``None``), whether it does; the settings in its closed panel said on it.

    >>> queue_label(False, True, filters=0)
    'Queue: all examples · no filters · Accept → next unreviewed'
    >>> queue_label(True, None)
    'Queue: audit sample'
    >>> queue_label(False, False, "my assignments, 2 open", 1)
    'Queue: my assignments, 2 open · 1 filter · Accept stays'
    """
    accept = "" if advance is None else " · Accept → next unreviewed" if advance else " · Accept stays"
    said = "" if filters is None else f" · {filters or 'no'} filter{'' if filters == 1 else 's'}"
    return f"Queue: {'audit sample' if audit else mine or 'all examples'}{said}{accept}"


def progress_html(prog: Progress) -> str:
    """How far the annotator is, as words over a bar: an HTML block, not ``st.progress`` (whose script the
    browser would fetch for this one bar on the first page, issue 38)."""
    pct = round(100 * prog.fraction, 1)
    return (
        f'<div class="rv-progress" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="{pct}" '
        f'aria-label="{render.esc(prog)}" style="font-family:system-ui,sans-serif;font-size:0.875rem">'
        f"<div>{render.esc(prog)}</div>"
        '<div style="height:0.5rem;margin-top:0.25rem;border-radius:0.25rem;background:rgba(140,149,159,0.3)">'
        f'<div style="width:{pct}%;height:100%;border-radius:0.25rem;background:#ff4b4b"></div></div></div>'
    )


def choose_link_match(link: str, choices: Sequence[tuple[int, str]], on_choose: Callable[[int], Any]) -> None:
    """A deep link's id names several examples: say so and offer one button per match (*choices*
    are ``(row, label)``); *on_choose* gets the chosen row."""
    st.warning(
        f"The link's id {render.md_escape(repr(link))} names {len(choices)} examples (in several subsets or generation models)."
        " Choose one, or add &dataset=…&model=… to the link to open one directly.",
        icon=":material/call_split:",
    )
    for n, (row, label) in enumerate(choices):
        st.button(render.md_escape(label), key=f"review.link_choice.{n}", on_click=on_choose, args=(row,))


def example_header_html(position: str, status: str, example: Example, *after: str) -> str:
    """Where the page is, the example's review status (none when *status* is empty) and identity, then its
    question, then the HTML blocks *after* (the cards, the flags, the legend): one block, drawn by the response
    editor above the response (:mod:`ragviz.ui.review.header`), since each element costs the browser a redraw on
    every J (issue 38)."""
    shown = f"<b>{render.esc(status)}</b> · " if status else ""
    return (
        f'<div style="font-family:system-ui,sans-serif;font-size:0.85rem;{render.MUTED}">{render.esc(position)} · '
        f"{shown}{render.esc(example.dataset)} · id {render.long_text_html(example.id, 120)} · "
        f"model {render.esc(example.generation_model or '—')}</div>"
        f'<div style="margin-top:1rem">{render.text_block_html("Question", example.question)}</div>'
        + "".join(f'<div style="margin-top:1rem">{part}</div>' for part in after if part)
    )


_CARD = "border:1px solid rgba(140,149,159,0.45);border-radius:0.5rem;padding:0.75rem 1rem;min-width:0"
_CARDS = (
    "display:grid;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));gap:1rem;font-family:system-ui,sans-serif"
)


def _delta_html(delta: str | None, colour: bool) -> str:
    """The delta against the judge as a pill: an arrow and the signed number in the page's own text colour on a
    tint (green up, vermilion down; grey when *colour* is off), readable in either theme."""
    if delta is None:
        return ""
    up = not delta.startswith("-")
    tint = render.GREY if not colour else render.GREEN if up else render.VERMILION
    r, g, b = (int(tint[i : i + 2], 16) for i in (1, 3, 5))
    return (
        f'<div class="rv-metric-delta" style="display:inline-block;margin-top:0.25rem;'
        f'padding:0 0.5rem;border-radius:1rem;font-size:0.875rem;background:rgba({r},{g},{b},0.22)">'
        f'<span aria-hidden="true">{"↑" if up else "↓"}</span> {render.esc(delta)}</div>'
    )


def metric_cards_html(comparison: Sequence[MetricComparison], against_judge: bool = True) -> str:
    """One card per TRACe metric: the current score, its delta against the judge's, the formula;
    without *against_judge* (presentation mode hiding corrections) only the score and formula."""
    cards = []
    for m in comparison:
        name = m.name.capitalize()
        delta = render.format_delta(m.delta) if against_judge else None
        value = render.format_score(m.current)
        cards.append(
            f'<div class="rv-metric" data-metric="{render.esc(name)}" data-value="{render.esc(value)}" '
            f'data-delta="{render.esc(delta or "")}" '
            f'style="{_CARD}" title="Current labels; the delta is against the judge\'s labels.">'
            f'<div class="rv-metric-label" style="font-size:0.875rem">{render.esc(name)}</div>'
            f'<div class="rv-metric-value" style="font-size:2rem;line-height:1.3">{render.esc(value)}</div>'
            + _delta_html(delta, m.name not in ("relevance", "utilization"))
            + f'<div class="rv-formula" style="font-family:ui-monospace,monospace;font-size:0.75rem;'
            f'margin-top:0.5rem;{render.MUTED}">{unbroken_fractions(m.formula)}'
            + (
                f"<br>judge {render.format_score(m.judge)} → now {render.format_score(m.current)}"
                if against_judge
                else ""
            )
            + "</div></div>"
        )
    return f'<div class="rv-metrics" style="{_CARDS}">{"".join(cards)}</div>'


def override_effects_table(effects: Sequence[OverrideEffect]) -> None:
    """A closed expander with what each override changed; nothing without overrides."""
    if not effects:
        return
    import pandas as pd  # here, not at the top: a page without overrides does not need pandas

    with st.expander(f"What each override changed ({len(effects)})", expanded=False):
        st.dataframe(pd.DataFrame([e.as_row() for e in effects]), hide_index=True, width="stretch")


def quality_flags_html(issues: Sequence[Problem]) -> str:
    """The label-quality flags as one HTML block: their count, then the flags (more than :data:`FLAGS_SHOWN` in a
    closed disclosure, so a long list does not push the page down). The Normalize button is on the navigation bar
    (:func:`ragviz.ui.review.toolbar.bar_data`)."""
    head = f"<strong>Label-quality flags: {len(issues)}</strong>"
    if not issues:
        return f'<div class="rv-flags">{head}</div>'
    lines = render.problems_html([f"{p.field}: {p.message}" for p in issues])
    if len(issues) > FLAGS_SHOWN:  # one line until opened
        summary = f'<summary style="cursor:pointer">{head} · show them</summary>'
        return f'<div class="rv-flags"><details>{summary}{lines}</details></div>'
    return f'<div class="rv-flags"><p style="margin:0 0 0.5rem">{head}</p>{lines}</div>'


#: Said when "Re-judge this example" is pressed by someone who is no longer an admin (the bar was drawn before).
REJUDGE_REFUSED = "Not re-judged: only an admin can ask the judge again, and your role has changed. Nothing was sent."


def rejudge_help(can_judge: bool) -> str | None:
    """What "Re-judge this example" asks, as its help (plain text), for an admin (*can_judge*: the role of the page's
    whole run, as the example's annotator is); ``None`` for anyone else (a call spends money). The page calls
    :func:`ragviz.ui.label.page.rejudge`, which imports the judge's client, only on a press."""
    if not can_judge:
        return None
    from ragviz.ui.label.options import rejudge_help as words

    return words(markdown=False)


def rejudge_pressed(example: Example) -> None:
    """ "Re-judge this example" was pressed: ask the judge again (:func:`ragviz.ui.label.page.rejudge`, whose openai
    client is imported only then) when the person is an admin now, else say that nothing was sent. A call spends
    money, and the bar may have been drawn under a role the person no longer has (a J draws it under the whole run's)."""
    from ragviz.ui.core.access import access

    if not access().can_judge:
        st.warning(REJUDGE_REFUSED, icon=":material/block:")  # md: ours
        return
    from ragviz.ui.label.page import rejudge

    rejudge(example)


FAMILIES_OPEN = "review.families_open"  # whether the person opened "Other metric families" (kept across J / K)


def families_open() -> bool:
    """Whether the person opened "Other metric families" (:func:`families_panel`)."""
    return disclosure.is_open(FAMILIES_OPEN)


def families_panel(
    example: Example,
    judge: Labels | None,
    current: Labels | None,
    on_change: Callable[..., Any],
    *,
    redraws: int,
    editable: bool,
    traces: bool = True,
) -> None:
    """The "Other metric families" button and, while it is open, their panel under it: a rerun with it closed runs
    none of its tables or editors (and the page needs no pandas until then). Closed, it is one button where an
    expander was a block the browser redrew on every commit of a J, some 25 React components each (issue 38).
    *traces*: show the judge's scores and the deltas (not while presenting with corrections hidden)."""
    if disclosure.disclosure("Other metric families", FAMILIES_OPEN):
        from ragviz.ui.review.families import render_families_panel

        with st.container(border=True, key="review.families_panel"):
            render_families_panel(example, judge, current, on_change, redraws=redraws, editable=editable, traces=traces)
