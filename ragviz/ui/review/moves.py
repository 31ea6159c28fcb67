"""The Review page's callbacks: what a button, a control or a shortcut does to the example on screen.

Streamlit runs a callback before the next run, so each reads the session's data, store and annotator afresh
(:mod:`ragviz.ui.core.state`) and the page redraws already changed.
"""

from __future__ import annotations

import streamlit as st

from ragviz.analysis.quality.issues import normalize
from ragviz.analysis.review.edits import accept_changes, note_change, support_change, supported_flag, verdict_change
from ragviz.analysis.review.queue import next_unreviewed
from ragviz.data.labels import diff_labels
from ragviz.data.model import Example, Labels
from ragviz.ui.core import state
from ragviz.ui.core.keys import REVIEW_INDEX
from ragviz.ui.review import fragment as review_fragment
from ragviz.ui.team import queue as team_queue

__all__ = [
    "accept",
    "go",
    "go_next_unreviewed",
    "mark_support",
    "normalize_labels",
    "pick_supporting_keys",
    "write_note",
]


def go(row: int | None, message: str = "") -> None:
    """Show *row* and keep it as the annotator's position (written once the example is drawn:
    :func:`ragviz.ui.review.fragment.example_fragment`); at no row, only toast *message*."""
    if row is None:
        if message:
            review_fragment.toast(message)  # md: ours (in the session: a write's run hands over to the whole page)
        return
    st.session_state[REVIEW_INDEX] = row
    state.keep_position(row)


def accept(uid: str, advance: bool, within: list[int] | None = None, then: int | None = None) -> None:
    """Accept *uid* as shown; *advance*: go on to the next unreviewed example (*within*: "My assignments");
    *then*: the row to show after (a paired question's other answer while it is not reviewed)."""
    if not state.record_decision(uid, accept_changes(), "accept"):
        return
    if then is not None:
        go(then)
    elif advance:
        reviewed, index = state.store().reviewed_uids(state.annotator()), st.session_state[REVIEW_INDEX]
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
