"""The Claims page's "What people would say": an audit sample of a RagChecker file's items, the next
item of it to review, and the claim metrics' judge-only, people-only and corrected means.

The sample is drawn and stored like the Review page's (:meth:`ragviz.store.audit_samples.AuditSamples.draw_sample`,
over the file's item uids, so it belongs to that file); the pairing is
:func:`ragviz.analysis.estimates.claims.pair_claims`, the estimates
:func:`ragviz.analysis.estimates.report.estimate_report` (the functions ``ragviz estimate --family
ragchecker`` calls).
"""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from ragviz.analysis.coverage import MIN_AUDITED
from ragviz.analysis.estimates.claims import pair_claims
from ragviz.analysis.estimates.report import estimate_report
from ragviz.data.checked_claims import CheckedItem
from ragviz.store.audit_samples import AuditSample, AuditSampleError
from ragviz.store.label_store import LabelStore
from ragviz.ui.audit.estimates import show_report
from ragviz.ui.core import render
from ragviz.ui.core.keys import CLAIMS_AUDIT_ERROR, CLAIMS_INDEX

__all__ = ["claims_audit_panel"]


def claims_audit_panel(
    store: LabelStore,
    file_name: str,
    items: Sequence[CheckedItem],
    currents: Sequence[CheckedItem],
    uids: Sequence[str],
    who: str,
    editable: bool,
) -> None:
    """The panel under the scores: draw a sample (annotators and admins, not while presenting), go to
    its next unreviewed item, and read the corrected claim metrics from *who*'s labels."""
    st.header("What people would say")
    samples = store.audits.list_samples(uids)
    sample = samples[0] if samples else None
    if sample is None:
        st.caption(
            "No audit sample of this file's items yet. A uniformly random sample that people review corrects "
            "the judge's claim labels' means over every item (PPI++), with a 95 % interval."
        )
        if editable:
            _draw_controls(store, uids, who)
        return
    reviewed = store.reviewed_uids(who)
    audited = set(sample.members) & reviewed
    st.caption(
        render.md_escape(
            f"Audit sample {sample.id}: {sample.size:,} of the file's {len(uids):,} items, seed {sample.seed} · "
            f"{len(audited):,} reviewed (your labels) · corrected = the file's labels on every item, their bias "
            "removed by the audit (PPI++)",
            limit=None,
        )
    )
    if editable:
        _next_in_sample(sample, reviewed, uids)
    pairing = pair_claims(file_name, items, currents, audited)
    report = estimate_report(pairing)
    show_report(pairing, report, "items", f"{file_name}-what-people-would-say", "claims.audit.chart", not editable)


def _draw_controls(store: LabelStore, uids: Sequence[str], who: str) -> None:
    if len(uids) < 2:
        st.caption("An audit sample needs a file of at least two items: an interval needs two reviewed.")
        return
    left, right = st.columns([1, 2], vertical_alignment="bottom")
    with left:
        size = st.number_input(
            "Sample size (items)",
            min_value=2,
            max_value=len(uids),
            value=min(len(uids), MIN_AUDITED),
            step=1,
            key="claims.audit.size",
        )
    with right:
        st.button(
            "Draw audit sample",
            key="claims.audit.draw",
            icon=":material/casino:",
            on_click=_draw,
            args=(store, list(uids), int(size), who),
        )
    if (problem := st.session_state.pop(CLAIMS_AUDIT_ERROR, None)) is not None:
        st.error(render.md_escape(problem))


def _draw(store: LabelStore, uids: list[str], size: int, who: str) -> None:
    """Draw the sample and open its first member (a callback: it runs before the item picker exists)."""
    try:
        drawn = store.audits.draw_sample(uids, size, who)
    except AuditSampleError as exc:
        st.session_state[CLAIMS_AUDIT_ERROR] = str(exc)
        return
    st.session_state[CLAIMS_INDEX] = uids.index(drawn.members[0])


def _next_in_sample(sample: AuditSample, reviewed: set[str], uids: Sequence[str]) -> None:
    pending = [uid for uid in sample.members if uid not in reviewed]
    if not pending:
        st.success(f"Every one of the sample's {sample.size:,} items is reviewed.")
        return
    position = sample.members.index(pending[0]) + 1
    st.button(
        f"Next in sample: member {position:,} of {sample.size:,}",
        key="claims.audit.next",
        icon=":material/skip_next:",
        on_click=_go,
        args=(list(uids).index(pending[0]),),
        help="The sample's members in their random order; review each as it is (Mark reviewed) or corrected.",
    )


def _go(index: int) -> None:
    st.session_state[CLAIMS_INDEX] = index
