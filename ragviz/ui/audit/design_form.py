"""The Review page's "Draw a new sample" form: the sampling design (uniform, stratified, active, or paired when the
data holds two systems' answers), its column,
allocation, confidence column, floor or pilot, the budget and the seed.

Nothing here draws: :func:`draw_from_form` hands the choice to
:func:`ragviz.analysis.audits.samples.draw_design`, the function ``ragviz audit draw`` calls, so the same choice
and seed give the same members on the page and in the CLI. Column names come from the data and are escaped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from ragviz.analysis.audits.columns import confidence_columns, strata_columns
from ragviz.analysis.audits.designs import ACTIVE, DEFAULT_FLOOR, DESIGNS, PAIRED, STRATIFIED, UNIFORM
from ragviz.analysis.audits.samples import CONFIDENCE_COLUMN, draw_design
from ragviz.analysis.compare_systems.audit import draw_paired, question_pairs
from ragviz.analysis.compare_systems.pairs import CompareError
from ragviz.analysis.compare_systems.sample import two_systems
from ragviz.data.dataset import Dataset
from ragviz.store.audit_samples import AuditSample
from ragviz.store.label_store import LabelStore
from ragviz.ui.core import render
from ragviz.ui.core.keys import (
    AUDIT_ALLOCATION,
    AUDIT_BY,
    AUDIT_CALIBRATE,
    AUDIT_CONFIDENCE,
    AUDIT_DESIGN,
    AUDIT_FLOOR,
    AUDIT_N,
    AUDIT_PILOT,
    AUDIT_PILOT_METRIC,
    AUDIT_SEED,
    AUDIT_SYSTEMS,
)

__all__ = ["ALLOCATION_CHOICES", "DesignChoice", "design_form", "draw_from_form", "form_choice"]


PROPORTIONAL, FROM_CONFIDENCE, FROM_PILOT = "proportional", "neyman", "pilot"
ALLOCATION_CHOICES = {
    PROPORTIONAL: "Proportional to size",
    FROM_CONFIDENCE: "Neyman: judge's confidence",
    FROM_PILOT: "Neyman: pilot sample",
}
DESIGN_HELP = (
    "Uniform: every example alike. Stratified: each value of a column (the subset, the model…) gets its share "
    "of the audit, proportional to its size or (Neyman) larger where the judge errs more. Active: examples the "
    "judge is unsure of are drawn more often, each weighted by its chance of being drawn, with a floor so every "
    "example can be drawn. Paired (when the data holds two systems' answers): questions drawn alike, both answers of "
    "each reviewed, for the Dashboard's Compare systems. The corrected estimates use the estimator that matches the "
    "design."
)
PILOT_METRICS = ("adherence", "relevance", "utilization", "completeness")
UNCALIBRATED = (
    "Drawn from the confidence alone, the audit trusts it: a confidence that says nothing about the judge's "
    "errors made it 4–18 % wider than a uniform audit of 100 or more in our simulation. Calibrate on a small reviewed "
    "uniform sample (30–50) to avoid that."
)
FLOOR_FROM_PILOT = (
    "Floor (the share of the draw spread evenly over all examples): chosen from the pilot, the one whose draw its "
    "reviews say is least variable (1 = uniform where the confidence predicts nothing)."
)
NO_CONFIDENCE = (
    f"No judge confidence column (e.g. `{CONFIDENCE_COLUMN}`, 0–1 per row) in the loaded data: draw a uniform or "
    "a proportional stratified sample, or allocate from a pilot."
)


@dataclass(frozen=True)
class DesignChoice:
    """What the form asks :func:`ragviz.analysis.audits.samples.draw_design` for."""

    design: str = UNIFORM
    size: int = 100
    seed: int | None = None
    by: str | None = None
    allocation: str = PROPORTIONAL
    confidence: str = CONFIDENCE_COLUMN
    floor: float | None = DEFAULT_FLOOR  # None: calibrated, chosen from the pilot
    pilot: int | None = None
    pilot_metric: str = "adherence"
    systems: tuple[str, ...] | None = None  # paired: the two systems (None: the two the data has)


def form_choice(values: Any) -> DesignChoice:
    """The :class:`DesignChoice` in the session's form values (*values*: ``st.session_state``); ``ValueError``
    for a seed that is not a whole number."""
    seed_text = str(values.get(AUDIT_SEED) or "").strip()
    design = values.get(AUDIT_DESIGN) or UNIFORM
    allocation = values.get(AUDIT_ALLOCATION) or PROPORTIONAL
    try:
        seed = int(seed_text) if seed_text else None
    except ValueError:
        raise ValueError(f"the seed must be a whole number, got {seed_text!r}") from None
    calibrated = design == ACTIVE and bool(values.get(AUDIT_CALIBRATE)) and values.get(AUDIT_PILOT) is not None
    return DesignChoice(
        design=design,
        size=int(values.get(AUDIT_N) or 1),
        seed=seed,
        by=values.get(AUDIT_BY) if design == STRATIFIED else None,
        allocation=allocation if design == STRATIFIED else PROPORTIONAL,
        confidence=values.get(AUDIT_CONFIDENCE) or CONFIDENCE_COLUMN,
        floor=None if calibrated else float(values.get(AUDIT_FLOOR) or DEFAULT_FLOOR),
        pilot=values.get(AUDIT_PILOT) if (design == STRATIFIED and allocation == FROM_PILOT) or calibrated else None,
        pilot_metric=values.get(AUDIT_PILOT_METRIC) or "adherence",
        systems=tuple(values.get(AUDIT_SYSTEMS) or ()) or None if design == PAIRED else None,
    )


def draw_from_form(store: LabelStore, ds: Dataset, who: str, choice: DesignChoice) -> AuditSample:
    """Draw *choice* with :func:`ragviz.analysis.audits.samples.draw_design` (``ragviz audit draw``'s call);
    :class:`ValueError` (a design, allocation or store error) with the reason in one line."""
    if choice.design == PAIRED:  # questions drawn, both systems' answers of each (ragviz audit draw --design paired)
        try:
            return draw_paired(store, ds, choice.size, who, choice.seed, systems=choice.systems)
        except CompareError as exc:
            raise ValueError(exc.where_and_what()) from None
    pilot = None
    if choice.allocation == FROM_PILOT or (choice.design == ACTIVE and choice.pilot is not None):
        if choice.pilot is None:
            raise ValueError("Neyman from a pilot needs a pilot sample: draw and review one first")
        pilot = store.audits.get_sample(int(choice.pilot))
        if pilot is None:
            raise ValueError(f"no audit sample {choice.pilot} to take the pilot from")
    allocation = "neyman" if choice.allocation in (FROM_CONFIDENCE, FROM_PILOT) else PROPORTIONAL
    return draw_design(
        store,
        ds,
        choice.design,
        choice.size,
        who,
        choice.seed,
        choice.by,
        allocation,
        choice.confidence,
        choice.floor,
        pilot,
        choice.pilot_metric,
    )


def _confidence_input(ds: Dataset) -> bool:
    """The confidence column picker; ``False`` (and why) when the data has no column that could be one."""
    columns = confidence_columns(ds)
    if not columns:
        st.warning(NO_CONFIDENCE)  # md: ours
        return False
    st.selectbox(
        "Judge confidence column",
        columns,
        key=AUDIT_CONFIDENCE,
        help="A number 0–1 per row: the chance the judge is right on that example. Rows without a value are "
        "named when you draw.",
    )
    return True


def design_form(ds: Dataset, samples: list[AuditSample]) -> bool:
    """The form's widgets (inside the "Draw a new sample" expander); ``False`` when the choice cannot be drawn
    from this data (the reason is shown), so the caller disables Draw."""
    systems = two_systems(ds)
    design = st.radio(
        "Design",
        (*DESIGNS, PAIRED) if systems else DESIGNS,  # paired: the data holds two systems' answers
        key=AUDIT_DESIGN,
        horizontal=True,
        format_func=str.capitalize,  # md: ours
        help=DESIGN_HELP,
    )
    ok = True
    if design == STRATIFIED:
        st.selectbox(
            "Stratify by",
            strata_columns(ds),
            key=AUDIT_BY,
            format_func=lambda c: "subset (dataset_name)" if c == "dataset_name" else str(c),  # options: plain text
            help="Each value of this column is a stratum with its own share of the audit and its own correction.",
        )
        allocation = st.radio(
            "Allocation",
            list(ALLOCATION_CHOICES),
            key=AUDIT_ALLOCATION,
            format_func=ALLOCATION_CHOICES.__getitem__,  # md: ours
            help="Neyman gives a stratum more of the audit where the judge's error spreads more: estimated from the "
            "judge's confidence, or from the reviewed members of an earlier (pilot) sample.",
        )
        if allocation == FROM_CONFIDENCE:
            ok = _confidence_input(ds)
        elif allocation == FROM_PILOT:
            ok = _pilot_inputs(samples)
    elif design == ACTIVE:
        ok = _confidence_input(ds)
        uniform_first = sorted(samples, key=lambda s: s.design != "uniform")  # a uniform pilot's reviews also count
        if samples and st.checkbox(
            "Calibrate the confidence on a pilot sample",
            # on by default once a uniform sample exists (issue 36: never wider than uniform, the uncalibrated draw
            # is 4-18 % wider from 100 audited with a confidence that predicts nothing: BENCHMARKS)
            value=uniform_first[0].design == "uniform",
            key=AUDIT_CALIBRATE,
            help="Learn from an earlier sample's reviewed members (at least 10) how far people strayed from the judge "
            "at each confidence and judge value, and draw in proportion to that: a confidence that predicts nothing "
            "then draws a near-uniform sample instead of a wider one. A uniform pilot's reviews also count in the "
            "estimate, and the sample only tops up the chance the pilot already gave each example.",
        ):
            _pilot_inputs(uniform_first, with_metric=False)
            st.caption(FLOOR_FROM_PILOT)  # md: ours
        else:
            st.slider(
                "Floor",
                min_value=0.05,
                max_value=1.0,
                value=DEFAULT_FLOOR,
                step=0.05,
                key=AUDIT_FLOOR,
                help="The share of the draw spread evenly over all examples, so every example can be drawn "
                "(1 = uniform).",
            )
            st.caption(UNCALIBRATED)  # md: ours
    if design == PAIRED:
        return _paired_inputs(ds, systems)
    st.number_input(
        "Examples (on average)" if design == ACTIVE else "Examples",
        min_value=1,
        max_value=max(1, len(ds)),
        value=min(100, len(ds)),
        key=AUDIT_N,
        help="The budget: how many examples people will review"
        + (" (an active sample's size varies around it)." if design == ACTIVE else "."),
    )
    st.text_input("Seed (empty: a random one, recorded)", key=AUDIT_SEED)
    return ok


def _paired_inputs(ds: Dataset, systems: list[str]) -> bool:
    """A paired draw: the two systems (picked when the data holds more), and how many questions."""
    if len(systems) > 2:
        chosen = st.multiselect("Systems compared", systems, default=systems[:2], max_selections=2, key=AUDIT_SYSTEMS)
    else:
        chosen = systems
    if len(chosen) != 2:
        st.caption("Pick the two systems to compare.")  # md: ours
        return False
    try:
        n = len(question_pairs(ds, a=chosen[0], b=chosen[1]).pairs)
    except CompareError as exc:
        st.warning(render.md_escape(str(exc), limit=None))
        return False
    st.caption(render.md_escape(f"Questions both {chosen[0]} and {chosen[1]} answered: {n:,}", limit=None))
    st.number_input(
        "Questions",
        min_value=1,
        max_value=n,
        value=min(100, n),
        key=AUDIT_N,
        help="Drawn uniformly; people review both answers of each, side by side on this page.",
    )
    st.text_input("Seed (empty: a random one, recorded)", key=AUDIT_SEED)
    return True


def _pilot_inputs(samples: list[AuditSample], with_metric: bool = True) -> bool:
    if not samples:
        st.warning("No sample to take a pilot from yet: draw a small uniform sample and review it first.")  # md: ours
        return False
    by_id = {s.id: s for s in samples}
    st.selectbox(
        "Pilot sample",
        list(by_id),
        key=AUDIT_PILOT,
        format_func=lambda i: by_id[i].label(with_who=False),
        help="Its reviewed members give each stratum's spread of the judge's error (two per stratum at least).",
    )
    if with_metric:
        st.selectbox("Pilot metric", PILOT_METRICS, key=AUDIT_PILOT_METRIC)
    return True
