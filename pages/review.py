"""Review: a person goes through the examples one at a time. They read the judge's labels drawn on
the context and the response, override them (click context sentences round their labels, mark a
response sentence supported or not and pick its supporting sentences), watch TRACe move against the
judge's scores, and accept (the labels as shown are right), undo (the last action, wherever) or
reset. J / K / N walk the examples the sidebar filters keep; ``?uid=`` or ``?id=`` (with
``&dataset=`` / ``&model=`` when the id repeats) opens one example."""

from __future__ import annotations

from functools import partial

import streamlit as st

from ragviz.analysis.review.metrics import compare_metrics, override_effects
from ragviz.analysis.review.queue import neighbours, position_text, review_status, store_progress
from ragviz.data.labels import RESET_FIELD, Change
from ragviz.ui import phoenix as phoenix_ui
from ragviz.ui.audit import sample as audit_ui
from ragviz.ui.core import filters, state
from ragviz.ui.core.access import access
from ragviz.ui.core.keys import REJUDGE_ASKED, REVIEW_INDEX
from ragviz.ui.core.present import hide_review_editing, show_corrections
from ragviz.ui.review import answer, paired, sentence_editor, toolbar
from ragviz.ui.review import page as review
from ragviz.ui.review.actions import link_followed, shown_row, undo_last, undo_target
from ragviz.ui.review.fragment import example_fragment, whole_run
from ragviz.ui.review.moves import accept, go, go_next_unreviewed, normalize_labels
from ragviz.ui.team import queue as team_queue

state.require_app_shell()
toolbar.apply_presses()  # the navigation bar's buttons pressed since the last run (as a button's on_click)
sentence_editor.apply_events(state.dataset(), state.annotator())  # clicks on the text since the last run
page = state.require_data()  # (shows the warning of a click the store refused just now)
ds, store, who = page.dataset, page.store, page.annotator
editable = not hide_review_editing()  # presentation mode (?present=1): no editing control, no editing key
can_judge = access().can_judge  # the role this whole run (the sidebar's): a J's fragment run asks no store for it
traced = phoenix_ui.from_traces(ds)  # rows from traces (their links back): the open data's columns, once a whole run
traces = show_corrections(page.present)  # presentation mode shows corrections only when asked

seen = store.status_version(who)  # first: a decision stored before the sets are read reruns the page on the next J
reviewed, corrected = store.review_statuses(who)
prog, audit_on = store_progress(store, who, state.uid_set()), audit_ui.restore_queue()  # Queue: session, else URL
mine = team_queue.mine_words(ds, store, who, reviewed)  # "My assignments" on (a team's round): the Queue says it
flt, queue = review.filter_sidebar(prog, ds.subset_names, editable, traces, audit=audit_on, mine=mine)
allowed = filters.review_filter_rows(ds, flt, who, reviewed, corrected)
allowed = team_queue.my_assignments(ds, store, who, allowed, reviewed, queue)  # first in the open Queue's panel
audit = audit_ui.audit_queue(ds, store, who, page.present, queue)  # Queue: Audit sample (None when off)
advance = review.accept_toggle(queue, editable, audit=audit_on)  # under the Queue radio
allowed, advance = audit_ui.follow_queue(audit, allowed, advance, go, st.session_state.get(REVIEW_INDEX, 0))


drawn: dict = {}  # what the example part drew on this run (for the families' panel under it)


def example() -> None:  # the example part: a fragment (ragviz.ui.review.fragment)
    if review.families_open() and not whole_run():  # the open families' tables follow the example: the whole page
        st.rerun(scope="app")
    index, unknown_link = shown_row(ds, store, who, team_queue.walk_key(flt), allowed, go)  # resume, filter, link
    shown = state.example_labels(ds, index, who)
    ex, judge, current, uid = shown.example, shown.judge, shown.current, shown.example.uid
    # a link to nothing loaded stays in the URL, not the example shown; a move: the bar's script sets the URL
    url_uid = link_followed(uid, keep=unknown_link, by_script=not whole_run())
    rows = audit.pair(index) if audit is not None else None  # a paired sample: both answers of the question
    partner = None if rows is None else rows[1] if rows[0] == index else rows[0]
    then = partner if partner is not None and ds.uids[partner] not in reviewed else None  # Accept: then the other

    target = undo_target(ds, store, who, index) if editable else None
    issues = answer.flags(shown)
    status = review_status(uid, reviewed, corrected) if traces else ""
    where = audit.where(index, show_reviewed=traces) if audit is not None else position_text(index, len(ds), allowed)
    title = toolbar.tab_title(where)
    if whole_run():  # the browser tab says where the person is; a move (the fragment alone): the bar's script says it
        st.set_page_config(page_title=title)
    bar = toolbar.bar_data(
        *(audit.neighbours(index) if audit is not None else neighbours(allowed, index, len(ds))),
        has_judge=judge is not None,
        changed=uid in corrected,
        on_go=go,
        on_next_unreviewed=partial(go, audit.next_row, "Every member of the sample is reviewed.")
        if audit is not None
        else partial(go_next_unreviewed, reviewed, index, allowed),
        on_accept=partial(accept, uid, advance, team_queue.accept_within(allowed), then),
        on_undo=partial(undo_last, target, go, index),
        on_reset=partial(state.record_decision, uid, [Change(RESET_FIELD, None, None)], "reset"),
        undo_hint=target.hint if target else None,
        editable=editable,
        flags=issues,
        on_normalize=partial(normalize_labels, uid, ex, current),
        rejudge_help=None if page.present else review.rejudge_help(can_judge),
        on_rejudge=partial(st.session_state.__setitem__, REJUDGE_ASKED, uid),
        title=title,
        url_uid=url_uid,
    )
    guide = store.team.guidelines.current_guidelines()  # its button and panel, once an admin wrote any
    # nothing between the bar and the text (an audit's lines, the guidelines, a trace's link, a re-judge's outcome):
    # the text's element draws the bar too, one delta a J fewer (issue 38)
    alone = audit is None and guide is None and st.session_state.get(REJUDGE_ASKED) != uid
    alone = alone and not traced
    if not alone:
        toolbar.toolbar(bar)
    if st.session_state.pop(REJUDGE_ASKED, None) == uid:  # "Re-judge this example" was pressed
        review.rejudge_pressed(ex)
    if audit is not None:
        from ragviz.ui.audit.estimates import target_line  # altair and pandas: only with an audit sample

        audit_ui.progress_line(audit, on_go=go, traces=traces, target=target_line)
    team_queue.guidelines_panel(guide)
    if traced:
        phoenix_ui.trace_for_row(ds, index, store)  # an example from a trace links back to it

    if rows is not None and audit is not None:  # the question and documents once, the two answers side by side
        pair = tuple(shown if r == index else state.example_labels(ds, r, who) for r in rows)
        paired.question_header(where, pair[0], audit.systems())
        statuses = {p.example.uid: review_status(p.example.uid, reviewed, corrected) if traces else "" for p in pair}
        focus = rows.index(index)
        paired.paired_view(pair, rows, focus, audit.systems(), statuses, editable=editable, traces=traces)
    else:  # where, the question, the cards, the flags, the legend: drawn by the response editor (issue 38)
        cards = review.metric_cards_html(compare_metrics(ex, judge, current), against_judge=traces)
        head = review.example_header_html(where, status, ex, cards, review.quality_flags_html(issues))
        heading = sentence_editor.response_heading_html()  # the same on every example
        answer.response_panel(
            shown, editable, header=(head, heading), with_context=True, bar=bar if alone else None
        )  # + documents (+ the bar): one element
    drawn["shown"] = shown
    if traces:  # last: drawn or not, nothing after it moves (the text above keeps its identity and scroll)
        review.override_effects_table(override_effects(ex, shown.base, shown.changes))


def moved() -> bool:  # the store holds other decisions of who's than the page drew: one number compared, not two sets
    if seen is None:  # everyone's decisions have no version: the sets compared
        return store.review_statuses(who) != (reviewed, corrected)
    return store.status_version(who) != seen


example_fragment(example, moved, ds)
if "shown" in drawn:  # under the example, outside its fragment: a move (J) does not redraw it (issue 38)
    ex, shown = drawn["shown"].example, drawn["shown"]
    record = partial(state.record_decision, ex.uid)
    redraws = state.redraw_count()
    review.families_panel(ex, shown.judge, shown.current, record, redraws=redraws, editable=editable, traces=traces)
