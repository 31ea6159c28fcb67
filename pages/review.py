"""Review: a person goes through the examples one at a time. They read the judge's labels drawn on
the context and the response, override them (tick relevant / utilized context sentences, mark a
response sentence supported or not and pick its supporting sentences), watch TRACe move against the
judge's scores, and accept, undo or reset. J / K / N walk the examples the sidebar filters keep;
``?uid=`` or ``?id=`` opens one example."""

from __future__ import annotations

from functools import partial

import streamlit as st

from ragviz.analysis.quality import label_issues, normalize
from ragviz.analysis.review import (
    accept_changes,
    context_edit_decision,
    context_table,
    default_response_key,
    document_spans,
    response_spans,
    support_change,
    supported_flag,
    supporting_key_options,
)
from ragviz.analysis.review_metrics import compare_metrics, override_effects
from ragviz.analysis.review_queue import (
    link_row,
    nearest_match,
    neighbours,
    next_unreviewed,
    position_text,
    progress,
    resume_row,
    review_status,
)
from ragviz.data.labels import RESET_FIELD, Change, diff_labels
from ragviz.data.model import Example, Labels
from ragviz.ui import audit as audit_ui
from ragviz.ui import review, state
from ragviz.ui.families import render_families_panel
from ragviz.ui.present import hide_review_editing
from ragviz.ui.render import md_escape

INDEX = "review.index"  # the row on screen
LINK = "review.applied_link"  # the deep link already followed

# Callbacks run before the next run; they read the session's data, store and annotator afresh.


def go(row: int | None, message: str = "") -> None:
    """Show *row* and keep it as the annotator's position; at no row, only toast *message*."""
    if row is None:
        if message:
            st.toast(message)  # md: ours
        return
    st.session_state[INDEX] = row
    state.save_position(state.dataset().uids[row])


def accept(uid: str, current: Labels | None, judge: Labels | None, advance: bool) -> None:
    state.record_decision(uid, accept_changes(current, judge), "accept")
    if advance:
        reviewed = state.store().reviewed_uids(state.annotator())
        go(next_unreviewed(state.dataset().uids, reviewed, st.session_state[INDEX]), "Every example is reviewed.")


def go_next_unreviewed(reviewed: set[str], index: int, allowed: list[int] | None) -> None:
    go(next_unreviewed(state.dataset().uids, reviewed, index, allowed), "No unreviewed example left here.")


def mark_support(uid: str, labels: Labels | None, response_key: str, status: str | None) -> None:
    state.record_decision(uid, [support_change(labels, response_key, supported=supported_flag(status))])


def pick_supporting_keys(uid: str, labels: Labels | None, response_key: str, keys: list[str]) -> None:
    state.record_decision(uid, [support_change(labels, response_key, supporting_keys=keys)])


def normalize_labels(uid: str, example: Example, labels: Labels | None) -> None:
    if labels is not None:  # unlabeled examples have no flags, hence no Normalize button
        state.record_decision(uid, diff_labels(labels, normalize(labels, example)), "normalize")


state.require_app_shell()
page = state.require_data()
ds, store, who = page.dataset, page.store, page.annotator
hide_review_editing()  # presentation mode (?present=1): no editing controls
if (ticks := review.take_context_ticks()) is not None:  # the context editor's ticks since the last run
    row, edits = ticks
    ticked = ds.example(row)
    state.record_decision(ticked.uid, context_edit_decision(ticked, store.current_labels(ticked, who), edits))

reviewed, corrected = store.reviewed_uids(who), store.corrected_uids(who)
flt, advance = review.filter_sidebar(progress(state.uid_set(), reviewed, corrected), ds.subset_names)
allowed = state.review_filter_rows(ds, flt, who, reviewed, corrected)
audit = audit_ui.audit_queue(ds, store, who, page.present)  # Queue: Audit sample (None when off)
if audit is not None:  # walk the sample; "Next in sample" follows its random order
    allowed, advance = audit.rows, False
    if st.session_state.get("review.last_audit") != audit.key:
        st.session_state["review.last_audit"] = audit.key
        go(audit.next_row if audit.next_row is not None else nearest_match(allowed, st.session_state.get(INDEX, 0)))

# -- which example: a changed filter's nearest match, a new deep link's row, else where the annotator was
if st.session_state.get("review.last_filter") != flt:
    st.session_state["review.last_filter"] = flt
    go(nearest_match(allowed, st.session_state.get(INDEX, 0)))
link = st.query_params.get("uid") or st.query_params.get("id")
if link and link != st.session_state.get(LINK):
    st.session_state[LINK] = link
    linked = link_row(ds, uid=st.query_params.get("uid"), example_id=st.query_params.get("id"))
    if linked is None:
        st.warning(f"No loaded example has the id or uid in the link: {md_escape(repr(link))}")
    else:
        go(linked)
if INDEX not in st.session_state or not 0 <= st.session_state[INDEX] < len(ds):
    st.session_state[INDEX] = resume_row(ds, store.position(who))
index = st.session_state[INDEX]
shown = state.example_labels(ds, index, who)
ex, judge, current, uid = shown.example, shown.judge, shown.current, shown.example.uid
if st.query_params.get("uid") != uid:
    st.query_params["uid"] = uid
if "id" in st.query_params:
    del st.query_params["id"]
st.session_state[LINK] = uid

# -- draw it; the widgets call back into the functions above
review.navigation_bar(
    *neighbours(allowed, index, len(ds)),
    has_judge=judge is not None,
    changed=current != judge,
    on_go=go,
    on_next_unreviewed=partial(go_next_unreviewed, reviewed, index, allowed),
    on_accept=partial(accept, uid, current, judge, advance),
    on_undo=partial(state.undo_decision, uid, "Nothing to undo on this example."),
    on_reset=partial(state.record_decision, uid, [Change(RESET_FIELD, None, None)], "reset"),
)
if audit is not None:
    audit_ui.progress_line(audit, on_go=go)
review.example_header(position_text(index, len(ds), allowed), review_status(uid, reviewed, corrected), ex)
review.metric_cards(compare_metrics(ex, judge, current))
review.override_effects_table(override_effects(ex, shown.base, shown.changes))

left, right = st.columns([0.58, 0.42], gap="medium")
with right:
    selected = review.sentence_picker(uid, ex.response_keys(), default_response_key(response_spans(ex, current)))
    chosen = review.response_panel(response_spans(ex, current, selected), selected)
    if chosen is not None:
        review.support_controls(
            chosen,
            supporting_key_options(ex, chosen),
            key_suffix=f"{uid}.{chosen.key}.{state.label_version()}",
            on_status=partial(mark_support, uid, current, chosen.key),
            on_keys=partial(pick_supporting_keys, uid, current, chosen.key),
        )
    review.quality_flags(
        label_issues(ex, current) if current is not None else [],
        on_normalize=partial(normalize_labels, uid, ex, current),
    )
    if not page.present:
        from ragviz.ui.label import rejudge_control  # imports the openai client only on this page

        rejudge_control(ex)
with left:
    review.context_panel(
        document_spans(ex, current, selected),
        context_table(ex, current),
        f"review.context.{uid}.{state.label_version()}",
        index,
    )
with st.expander("Other metric families", expanded=False):
    render_families_panel(
        ex,
        judge,
        current,
        partial(state.record_decision, uid),
        version=state.label_version(),
        editable=not page.present,
    )
