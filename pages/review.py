"""Review: a person goes through the examples one at a time. They read the judge's labels drawn on
the context and the response, override them (click context sentences round their labels, mark a
response sentence supported or not and pick its supporting sentences), watch TRACe move against the
judge's scores, and accept (the labels as shown are right), undo (the last action, wherever) or
reset. J / K / N walk the examples the sidebar filters keep; ``?uid=`` or ``?id=`` (with
``&dataset=`` / ``&model=`` when the id repeats) opens one example."""

from __future__ import annotations

from functools import partial

import streamlit as st

from ragviz.analysis.quality.issues import label_issues, normalize
from ragviz.analysis.review.edits import (
    accept_changes,
    default_response_key,
    document_spans,
    note_change,
    response_spans,
    support_change,
    supported_flag,
    supporting_key_options,
    verdict_change,
)
from ragviz.analysis.review.metrics import compare_metrics, override_effects
from ragviz.analysis.review.queue import (
    neighbours,
    next_unreviewed,
    position_text,
    progress,
    review_status,
)
from ragviz.data.labels import RESET_FIELD, Change, diff_labels
from ragviz.data.model import Example, Labels
from ragviz.ui import phoenix as phoenix_ui
from ragviz.ui.audit import estimates as audit_estimates
from ragviz.ui.audit import sample as audit_ui
from ragviz.ui.core import state
from ragviz.ui.core.keys import REVIEW_INDEX
from ragviz.ui.core.present import hide_review_editing, show_corrections
from ragviz.ui.review import page as review
from ragviz.ui.review import sentence_editor
from ragviz.ui.review.actions import link_followed, shown_row, undo_last, undo_target
from ragviz.ui.review.fragment import example_fragment
from ragviz.ui.team import queue as team_queue

INDEX = REVIEW_INDEX  # the row on screen

# Callbacks run before the next run; they read the session's data, store and annotator afresh.


def go(row: int | None, message: str = "") -> None:
    """Show *row* and keep it as the annotator's position; at no row, only toast *message*."""
    if row is None:
        if message:
            st.toast(message)  # md: ours
        return
    st.session_state[INDEX] = row
    state.save_position(state.dataset().uids[row])


def accept(uid: str, advance: bool, within: list[int] | None = None) -> None:  # within: "My assignments"
    if not state.record_decision(uid, accept_changes(), "accept"):
        return
    if advance:
        reviewed, index = state.store().reviewed_uids(state.annotator()), st.session_state[INDEX]
        go(next_unreviewed(state.dataset().uids, reviewed, index, within), team_queue.all_reviewed(within))


def go_next_unreviewed(reviewed: set[str], index: int, allowed: list[int] | None) -> None:
    go(next_unreviewed(state.dataset().uids, reviewed, index, allowed), "No unreviewed example left here.")


def mark_support(uid: str, labels: Labels | None, base: Labels | None, response_key: str, status: str | None) -> None:
    state.record_decision(uid, [verdict_change(labels, base, response_key, supported_flag(status))])


def write_note(uid: str, labels: Labels | None, response_key: str, note: str) -> None:
    state.record_decision(uid, [note_change(labels, response_key, note)])


def pick_supporting_keys(uid: str, labels: Labels | None, response_key: str, keys: list[str]) -> None:
    state.record_decision(uid, [support_change(labels, response_key, supporting_keys=keys)])


def normalize_labels(uid: str, example: Example, labels: Labels | None) -> None:
    if labels is not None:  # unlabeled examples have no flags, hence no Normalize button
        state.record_decision(uid, diff_labels(labels, normalize(labels, example)), "normalize")


state.require_app_shell()
sentence_editor.apply_events(state.dataset(), state.annotator())  # clicks on the text since the last run
page = state.require_data()  # (shows the warning of a click the store refused just now)
ds, store, who = page.dataset, page.store, page.annotator
editable = not hide_review_editing()  # presentation mode (?present=1): no editing control, no editing key
traces = show_corrections(page.present)  # presentation mode shows corrections only when asked

reviewed, corrected = store.reviewed_uids(who), store.corrected_uids(who)
prog, audit_on = progress(state.uid_set(), reviewed, corrected), audit_ui.restore_queue()  # Queue: session, else URL
flt, advance = review.filter_sidebar(prog, ds.subset_names, editable, traces, audit=audit_on)
allowed = state.review_filter_rows(ds, flt, who, reviewed, corrected)
allowed = team_queue.my_assignments(ds, store, who, allowed, reviewed)  # "My assignments" first (a team's round)
audit = audit_ui.audit_queue(ds, store, who, page.present)  # Queue: Audit sample (None when off)
allowed, advance = audit_ui.follow_queue(audit, allowed, advance, go, st.session_state.get(INDEX, 0))


def example() -> None:  # a fragment: a move reruns this alone (ragviz.ui.review.fragment)
    index, unknown_link = shown_row(ds, store, who, team_queue.walk_key(flt), allowed, go)  # resume, filter, link
    shown = state.example_labels(ds, index, who)
    ex, judge, current, uid = shown.example, shown.judge, shown.current, shown.example.uid
    link_followed(uid, keep=unknown_link)  # a link to nothing loaded stays in the URL, not the example shown
    target = undo_target(ds, store, who, index) if editable else None
    review.navigation_bar(
        *(audit.neighbours(index) if audit is not None else neighbours(allowed, index, len(ds))),
        has_judge=judge is not None,
        changed=uid in corrected,
        on_go=go,
        on_next_unreviewed=partial(go, audit.next_row, "Every member of the sample is reviewed.")
        if audit is not None
        else partial(go_next_unreviewed, reviewed, index, allowed),
        on_accept=partial(accept, uid, advance, team_queue.accept_within(allowed)),
        on_undo=partial(undo_last, target, go, index),
        on_reset=partial(state.record_decision, uid, [Change(RESET_FIELD, None, None)], "reset"),
        undo_hint=target.hint if target else None,
        editable=editable,
    )
    if audit is not None:
        audit_ui.progress_line(audit, on_go=go, traces=traces, target=audit_estimates.target_line)
    team_queue.guidelines_panel(store)
    status = review_status(uid, reviewed, corrected) if traces else ""
    where = audit.where(index, show_reviewed=traces) if audit is not None else position_text(index, len(ds), allowed)
    st.set_page_config(page_title=f"{where} · Review · ragviz")  # the browser tab says where the person is
    review.example_header(where, status, ex)
    phoenix_ui.trace_for_row(ds, index, store)  # an example from a trace links back to it
    review.metric_cards(compare_metrics(ex, judge, current), against_judge=traces)
    with st.container():  # holds its place when empty: the text below keeps its identity (and scroll) on an edit
        if traces:
            review.override_effects_table(override_effects(ex, shown.base, shown.changes))
    selected = sentence_editor.selected_key(uid, ex.response_keys(), default_response_key(response_spans(ex, current)))
    sentence_editor.response_editor(uid, spans := response_spans(ex, current, selected, shown.base), selected)
    said, change = st.columns([0.55, 0.45], gap="medium")  # right under the response: the selected sentence
    with said:
        chosen = review.explanation(spans, selected)
    if chosen is not None and editable:
        with change:
            review.support_controls(
                chosen,
                supporting_key_options(ex, chosen),
                key_suffix=f"{uid}.{chosen.key}.{state.label_version()}",
                on_status=partial(mark_support, uid, current, shown.base, chosen.key),
                on_keys=partial(pick_supporting_keys, uid, current, chosen.key),
                on_note=partial(write_note, uid, current, chosen.key),
            )
    left, right = st.columns([0.66, 0.34], gap="medium")
    with right:
        review.quality_flags(
            label_issues(ex, current) if current is not None else [],
            on_normalize=partial(normalize_labels, uid, ex, current) if editable else None,
        )
        if not page.present and review.rejudge_button():
            from ragviz.ui.label.page import rejudge  # the openai client is imported only when asked

            rejudge(ex)
    with left:
        judged = set(judge.relevant_keys) | set(judge.utilized_keys) if judge else set()
        kept = judged | sentence_editor.touched(uid)
        sentence_editor.context_editor(uid, current, document_spans(ex, current, selected), kept, editable, selected)
    record = partial(state.record_decision, uid)
    review.families_expander(
        ex, judge, current, record, version=state.label_version(), editable=editable, traces=traces
    )


example_fragment(example)
