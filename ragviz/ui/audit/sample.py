"""Audit samples in the app: the Review queue's "Audit sample" mode (draw, grow, walk a sample of any design, see
how far it is). Nothing here computes: samples are the store's, pairing and estimates the analysis floor's (the
same functions ``ragviz estimate`` calls); every text from data or a person is escaped (:mod:`ragviz.ui.core.render`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from ragviz.analysis.audits.designs import PAIRED
from ragviz.analysis.audits.judge_confidence import with_judge_confidence
from ragviz.analysis.audits.samples import grow_design
from ragviz.analysis.audits.seed_notes import seed_notes
from ragviz.analysis.compare_systems.audit import grow_paired
from ragviz.analysis.estimates.audit_progress import audit_progress
from ragviz.analysis.review.audit_queue import AuditQueue
from ragviz.analysis.review.queue import nearest_match
from ragviz.data.dataset import Dataset
from ragviz.data.errors import BadInput
from ragviz.store.audit_samples import AuditSample, AuditSampleError, default_sample, population_fingerprint
from ragviz.store.label_store import LabelStore
from ragviz.ui.audit import design_form
from ragviz.ui.core import access, disclosure, render, state
from ragviz.ui.core.keys import (
    AUDIT_PICK,
    LAST_AUDIT,
    MESSAGE_KEY,
    QUEUE_CHOICE,
    QUEUE_KEY,
    SAMPLE_KEY,
)
from ragviz.ui.core.url_query import history_navigation, rewrite_query

__all__ = [
    "ALL_EXAMPLES",
    "AUDIT",
    "AuditQueue",
    "MESSAGE_KEY",
    "ONLY_ADMINS",
    "QUEUE_CHOICE",
    "QUEUE_KEY",
    "QUEUE_PARAM",
    "SAMPLE_KEY",
    "SAMPLE_PARAM",
    "audit_query",
    "audit_queue",
    "follow_queue",
    "loaded_samples",
    "pick_sample",
    "progress_line",
    "restore_queue",
    "reviewed_by_anyone",
    "team_sample_note",
]


ALL_EXAMPLES, AUDIT = "All examples", "Audit sample"
QUEUE_PARAM, SAMPLE_PARAM = "queue", "sample"  # the URL keeps the choice: ?queue=audit&sample=3
ONLY_ADMINS = "Only admins (RAGVIZ_ADMINS) draw, grow or choose the team's audit sample."


# -- which samples belong to the loaded data -------------------------------------------------------


@st.cache_resource(show_spinner=False, max_entries=8)
def _fingerprint(paths: tuple[str, ...]) -> str:
    return population_fingerprint(state.load_result(paths).dataset.uids)


def loaded_samples(store: LabelStore) -> list[AuditSample]:
    """The samples drawn from exactly the loaded examples, newest first."""
    samples = store.audits.list_samples()
    if not samples:  # no sample at all: the loaded data's fingerprint (a sort of every uid) is not needed
        return []
    fingerprint = _fingerprint(state.current_paths())
    return [s for s in samples if s.population == fingerprint]


def pick_sample(samples: list[AuditSample], key: str, label: str) -> AuditSample | None:
    """A picker over *samples* (only when there are several); the chosen sample, by default the team's
    (an admin's choice, :meth:`ragviz.store.audit_samples.AuditSamples.team_choice`), else the newest."""
    if not samples:
        return None
    ids = [s.id for s in samples]
    choice = state.store().audits.team_choice()
    if st.session_state.get(SAMPLE_KEY) not in ids:
        first = default_sample(samples, choice)
        st.session_state[SAMPLE_KEY] = first.id if first is not None else ids[0]
    if len(samples) > 1:
        by_id = {s.id: s for s in samples}
        with_who = access.access().can_review  # viewers and visitors see no one's name
        team = choice.sample_id if choice is not None else None
        picked = st.selectbox(
            label,
            ids,
            index=ids.index(st.session_state[SAMPLE_KEY]),
            format_func=lambda i: by_id[i].label(with_who) + (" · the team's" if i == team else ""),
            key=key,
        )  # md: ours (the label; options are plain text)
        st.session_state[SAMPLE_KEY] = picked
    return next(s for s in samples if s.id == st.session_state[SAMPLE_KEY])


def team_sample_note(sample: AuditSample) -> str:
    """Whether *sample* is the team's: who chose it and when (names only for reviewers), or that it is not."""
    choice = state.store().audits.team_choice()
    if choice is None:
        return "No admin has chosen the team's audit sample yet: the newest is used by default."
    if choice.sample_id != sample.id:
        return f"This is not the team's audit sample (that is sample {choice.sample_id})."
    by = f" by {choice.chosen_by}" if access.access().can_review else ""
    return f"The team's audit sample, chosen{by} on {choice.chosen_at[:10]}."


def reviewed_by_anyone(store: LabelStore) -> set[str]:
    """Examples any annotator reviewed (a sample is shared: each member needs one review)."""
    out: set[str] = set()
    for who in store.annotators():
        out |= store.reviewed_uids(who)
    return out


# -- Review: the queue mode ----------------------------------------------------------------------------


def restore_queue() -> bool:
    """Set the Queue choice before the sidebar is drawn: the one made in this session, else the
    URL's (``?queue=audit&sample=3``, so a reload or a copied link opens the same queue); on Back or
    Forward the URL's (the entry's queue, not the one chosen since). True in audit mode (then Accept
    stays on the example: the sidebar offers no "moves on" toggle)."""
    back = history_navigation()
    if QUEUE_KEY not in st.session_state or back:
        choice = None if back else st.session_state.get(QUEUE_CHOICE)
        if choice is None:
            choice = AUDIT if st.query_params.get(QUEUE_PARAM) == "audit" else ALL_EXAMPLES
            sample = st.query_params.get(SAMPLE_PARAM, "")
            if sample.isdigit():
                st.session_state[SAMPLE_KEY] = int(sample)
        st.session_state[QUEUE_KEY] = choice
    return st.session_state[QUEUE_KEY] == AUDIT


def audit_query(sample_id: int | None) -> dict[str, str]:
    """The URL's parameters of the audit queue (of sample *sample_id*, ``None``: not named), which
    :func:`restore_queue` reads back.

    >>> audit_query(3), audit_query(None)
    ({'queue': 'audit', 'sample': '3'}, {'queue': 'audit'})
    """
    return {QUEUE_PARAM: "audit"} | ({} if sample_id is None else {SAMPLE_PARAM: str(sample_id)})


def _keep_choice(sample: AuditSample | None) -> None:
    """Keep the Queue choice in the session and in the URL (the sample too)."""
    audit = st.session_state.get(QUEUE_KEY) == AUDIT
    st.session_state[QUEUE_CHOICE] = AUDIT if audit else ALL_EXAMPLES
    if audit:
        st.query_params.update(audit_query(None if sample is None else sample.id))
        return
    if QUEUE_PARAM in st.query_params or SAMPLE_PARAM in st.query_params:
        rewrite_query((QUEUE_PARAM, SAMPLE_PARAM))


def _refused() -> bool:
    """Drawing, growing and choosing are an admin's; checked again when the click arrives (a tab drawn
    before the role changed, or a crafted request, is refused here, not only hidden)."""
    if access.access().can_choose_sample:
        return False
    st.session_state[MESSAGE_KEY] = f"Not done: {ONLY_ADMINS}"
    return True


def _draw(ds: Dataset, who: str) -> None:
    if _refused():
        return
    try:
        sample = design_form.draw_from_form(state.store(), ds, who, design_form.form_choice(st.session_state))
    except ValueError as exc:  # a design, allocation or store error, or a seed that is not a whole number
        st.session_state[MESSAGE_KEY] = f"Not drawn: {exc}"
        return
    st.session_state[SAMPLE_KEY] = sample.id
    st.session_state.pop(AUDIT_PICK, None)
    design = "" if sample.design == "uniform" else f"{sample.design} "
    notes = "".join(f" {n}" for n in seed_notes(state.store(), sample))
    st.session_state[MESSAGE_KEY] = (
        f"Drew {design}sample {sample.id}: {sample.size:,} examples, seed {sample.seed}.{notes}"
    )


def _grow(ds: Dataset, sample: AuditSample, who: str, key: str) -> None:
    if _refused():
        return
    try:
        if sample.design == PAIRED:  # grown by questions: both answers of each (the size counts answers)
            grown = grow_paired(state.store(), ds, sample, int(st.session_state[key]) // 2, who)
        else:
            grown = grow_design(state.store(), ds, sample, int(st.session_state[key]), who)
    except (ValueError, BadInput) as exc:  # AuditSampleError, DesignError, CompareError
        st.session_state[MESSAGE_KEY] = f"Not grown: {exc}"
        return
    st.session_state[MESSAGE_KEY] = f"Sample {grown.id} now has {grown.size:,} examples."


GROW_HELP = {
    "uniform": "Adds the next examples of the same seeded random order: the grown sample is still uniformly random.",
    "stratified": "Adds the next examples of each stratum's seeded order, allocated as the sample was: still a "
    "stratified sample of the same design.",
    "active": "Raises the budget with the same seed and confidence: every member stays, examples between the two "
    "levels join (the size varies around the budget).",
    "paired": "Adds the next questions of the same seeded order, both systems' answers of each (the size counts "
    "answers: two per question).",
}


def _choose(sample_id: int, who: str) -> None:
    if _refused():
        return
    try:
        state.store().audits.choose_team_sample(sample_id, who)
    except AuditSampleError as exc:
        st.session_state[MESSAGE_KEY] = f"Not chosen: {exc}"
        return
    st.session_state[MESSAGE_KEY] = f"Sample {sample_id} is now the team's audit sample."


def audit_queue(
    ds: Dataset, store: LabelStore, who: str, present: bool, radio_in: DeltaGenerator | None
) -> AuditQueue | None:
    """The sidebar's queue mode: the Queue radio in *radio_in*, the open Queue's panel (``None``: closed, the radio
    not drawn and its kept value used). In "Audit sample" mode, in the sidebar: the sample picker, drawing a new
    sample and growing this one (not in presentation mode); returns the :class:`AuditQueue`, else ``None``."""
    if radio_in is None:
        mode = st.session_state.get(QUEUE_KEY, ALL_EXAMPLES)  # restore_queue set it
    else:
        # the choice restore_queue brought back after another page, set again this run: Streamlit marks a "page"
        # widget left on a page switch to forget its value when next drawn, and the radio would fall to All examples
        st.session_state[QUEUE_KEY] = st.session_state.get(QUEUE_KEY, ALL_EXAMPLES)
        with radio_in:
            mode = st.radio(  # a radio, not a segmented control: the page's button groups stay the sentence pickers
                "Queue",
                [ALL_EXAMPLES, AUDIT],
                key=QUEUE_KEY,
                horizontal=True,
                help="Audit sample: walk a random sample of the examples (uniform, stratified or active). Only "
                "people's labels on its members correct the judge's means (Dashboard, What people would say); "
                "examples reviewed because triage or a filter led there are not a random sample.",
                persist_state=disclosure.KEEP_WHILE_CLOSED,
            )
    with st.sidebar:  # the rest under the Queue's button
        if mode != AUDIT:
            st.session_state.pop(LAST_AUDIT, None)  # back in audit mode: open its next member again
            _keep_choice(None)
            return None
        if (message := st.session_state.pop(MESSAGE_KEY, None)) is not None:
            st.caption(render.md_escape(message, limit=None))
        samples = loaded_samples(store)
        sample = pick_sample(samples, "audit.pick", "Audit sample")
        _keep_choice(sample)
        if sample is not None:
            st.caption(render.md_escape(team_sample_note(sample), limit=None))
        if not present and not access.access().can_choose_sample:
            st.caption(ONLY_ADMINS)  # md: ours
        elif not present:
            with st.expander("Draw a new sample", expanded=sample is None):
                ready = design_form.design_form(with_judge_confidence(ds, state.store()), samples)
                st.button("Draw sample", key="audit.draw", on_click=_draw, args=(ds, who), disabled=not ready)
            if sample is not None:
                grow_key = f"audit.grow_to.{sample.id}.{sample.size}"
                now = max(sample.size, int(sample.params.get("budget", 0)))  # active: its budget
                st.number_input(
                    "Grow this sample to" + (" (on average)" if sample.design == "active" else ""),
                    min_value=now,
                    max_value=max(now, len(ds)),
                    value=min(len(ds), 2 * now),
                    key=grow_key,
                )
                st.button(
                    "Grow sample",
                    key="audit.grow",
                    on_click=_grow,
                    args=(ds, sample, who, grow_key),
                    help=GROW_HELP.get(sample.design, GROW_HELP["uniform"]),  # md: ours
                )
                choice = store.audits.team_choice()
                if choice is None or choice.sample_id != sample.id:
                    st.button(
                        "Make this the team's sample",
                        key="audit.choose",
                        on_click=_choose,
                        args=(sample.id, who),
                        help="The Dashboard, the Explainer and ragviz estimate --db use the team's sample unless "
                        "told otherwise; the choice is kept with your name and the time.",
                    )
        if sample is None:
            st.caption("No audit sample for the loaded data yet.")
            return None
        st.caption(
            "In audit mode the queue is the sample, in its random order: J / K and Next in sample walk it, "
            "filters are ignored and Accept stays on the example."
        )
    from ragviz.ui.team.queue import blind_for_me

    # a blind round: her own reviews only (how many others reviewed is a count built from their labels)
    reviewed = store.reviewed_uids(who) if blind_for_me(store) else reviewed_by_anyone(store)
    progress = audit_progress(sample.members, reviewed, sample.id)
    next_row = ds.index_of(progress.next_uid) if progress.next_uid is not None else None
    order = [r for r in (ds.index_of(uid) for uid in sample.members) if r is not None]  # loaded, in draw order
    return AuditQueue(sample, order, progress, next_row)


def follow_queue(
    queue: AuditQueue | None, allowed: list[int] | None, advance: bool, go: Callable[..., Any], index: int
) -> tuple[list[int] | None, bool]:
    """The rows the page keeps and whether Accept advances: the sample's member rows (sorted) when
    the audit queue is on (Accept stays put; J / K and "Next in sample" walk the random order,
    :meth:`AuditQueue.neighbours`), else *allowed* and *advance* unchanged. A newly chosen sample
    opens its next unreviewed member (*go* shows a row)."""
    if queue is None:
        return allowed, advance
    if st.session_state.get(LAST_AUDIT) != queue.key:
        st.session_state[LAST_AUDIT] = queue.key
        go(queue.next_row if queue.next_row is not None else nearest_match(queue.rows, index))
    return queue.rows, False


def progress_line(
    queue: AuditQueue,
    on_go: Callable[[int | None], Any],
    traces: bool = True,
    target: Callable[[AuditSample], None] | None = None,
) -> None:
    """The audit progress line above the example, with a button to the next member in draw order;
    without *traces* (presenting with corrections hidden) only the sample and its size: nothing says
    which or how many members were reviewed. Under it, the progress toward the planner's target with the
    sample's design when *target* draws it (:func:`ragviz.ui.audit.estimates.target_line`)."""
    if not traces:
        st.caption(f"Audit sample {queue.sample.id}: {queue.sample.size:,} examples")  # md: ours
        return
    with st.container(horizontal=True, vertical_alignment="center"):
        st.progress(
            queue.progress.reviewed / max(1, queue.progress.size),
            text=render.md_escape(queue.progress.line(), limit=None),
        )
        st.button(
            "Next in sample ▶",
            key="audit.next",
            disabled=queue.next_row is None,
            on_click=on_go,
            args=(queue.next_row,),
            help="The first member nobody reviewed yet, in the sample's random order (review in this order, so "
            "the finished part stays a random sample).",
        )
    if target is not None:
        target(queue.sample)
