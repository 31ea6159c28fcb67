"""The Dashboard's "What people would say" panel (judge-only, people-only and corrected means of an audit
sample with their intervals, lambda and gain, per subset, the planner) and the Explainer's plain-words
version of it.

Nothing here computes: the pairing is :mod:`ragviz.analysis.estimates.pairing`'s, the estimates
:mod:`ragviz.analysis.estimates.report`'s (the same functions ``ragviz estimate`` calls). Every text from data or
a person goes through :func:`ragviz.ui.core.render.md_escape` or :func:`ragviz.ui.core.render.esc`.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from ragviz.analysis.audits.design_plan import design_plan_text, plan_design, target_progress_text
from ragviz.analysis.audits.designs import DesignError
from ragviz.analysis.audits.sample_estimate import design_sentence, design_title, sample_report
from ragviz.analysis.coverage import MIN_AUDITED
from ragviz.analysis.estimates.pairing import Pairing
from ragviz.analysis.estimates.report import ALL, EstimateReport, plain_words, too_few_text
from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.store.audit_samples import AuditSample
from ragviz.store.label_store import LabelStore
from ragviz.ui.audit.sample import loaded_samples, pick_sample, team_sample_note
from ragviz.ui.audit.truth import estimator_names, truth_name, truth_words
from ragviz.ui.core import chart_specs, charts, render, state
from ragviz.ui.core.keys import AUDIT_TARGET

__all__ = [
    "corrects_note",
    "estimate_records",
    "design_table",
    "estimate_table",
    "estimates",
    "no_sample_notice",
    "people_would_say_panel",
    "plain_words_section",
    "planner",
    "show_report",
    "target_line",
]


# -- Dashboard and Explainer: the estimates --------------------------------------------------------------


@st.cache_data(show_spinner="Correcting the judge's means…", max_entries=16)
def _estimates(
    paths: tuple[str, ...],
    db: str,
    version: tuple[int, int],
    against: LabelSelection,
    sample_key: tuple[int, int],
    by: str | None,
    alpha: float,
) -> tuple[Pairing, EstimateReport, list[str]]:
    sample = state.store().audits.get_sample(sample_key[0])
    pairing, info, report = sample_report(state.load_result(paths).dataset, state.store(), sample, against, alpha, by)
    return pairing, report, info.warnings


def estimates(
    sample: AuditSample, against: LabelSelection, by: str | None = None, alpha: float = 0.05
) -> tuple[Pairing, EstimateReport]:
    """:func:`ragviz.analysis.audits.sample_estimate.sample_report` for *sample* under the *against* labels (the
    estimator that matches its design, as ``ragviz estimate --db``), cached per data, store version and sample
    size; the design's warnings join the pairing's. :class:`ragviz.analysis.audits.designs.DesignError` when the
    design cannot be read from the loaded data."""
    s = state.store()
    key = (sample.id, sample.size)
    pairing, report, warnings = _estimates(state.current_paths(), s.location, s.data_version(), against, key, by, alpha)
    return Pairing(pairing.examples, [*pairing.warnings, *warnings]), report


def estimate_records(report: EstimateReport, against: LabelSelection = HUMAN) -> list[dict[str, Any]]:
    """Chart rows: one per (metric, estimator) of the overall estimates (named by :func:`estimator_names`)."""
    out = []
    judge, truth, corrected = estimator_names(against)
    for name, m in report.overall.metrics.items():
        for who, point, low, high in (
            (judge, m.judge, None, None),
            (truth, m.human.estimate, m.human.low, m.human.high),
            (corrected, m.ppi.estimate, m.ppi.low, m.ppi.high),
        ):
            if point is not None:
                out.append({"metric": name, "estimate": who, "value": point, "low": low, "high": high})
    return out


SHORT_ESTIMATORS = {
    "uniform": "PPI++",
    "stratified": "stratified PPI++",
    "active": "inverse-probability-weighted PPI++",
}


def _ci(low: float | None, high: float | None) -> str:
    return "no interval" if low is None or high is None else f"{low:.3f} – {high:.3f}"


def estimate_table(report: EstimateReport, by: bool, against: LabelSelection = HUMAN) -> pd.DataFrame:
    """The estimates as a table (one row per metric, and per subset when *by*; *against*'s column named for it)."""
    rows = []
    truth = truth_name(against)
    for r in report.rows():
        if not by and r["group"] != ALL:
            continue
        rows.append(
            {
                **({"subset": r["group"]} if by else {}),
                "metric": r["metric"],
                "audited n": r["n_labeled"],
                "judge only": r["judge"],
                f"{truth} only": r["human"],
                f"{truth} 95% CI": _ci(r["human_low"], r["human_high"]),
                "corrected": r["ppi"],
                "corrected 95% CI": _ci(r["ppi_low"], r["ppi_high"]),
                "lambda": r["lambda"],
                f"worth n {truth}-only": r["gain"],
            }
        )
    return pd.DataFrame(rows)


def design_table(report: EstimateReport) -> pd.DataFrame:
    """A stratified or active sample's saving per metric: its effective sample size, the uniform audit as precise,
    the examples and people-hours that design saved (a metric the design could not estimate says why)."""
    rows = []
    for name, m in report.overall.metrics.items():
        d = m.design or {}
        rows.append(
            {
                "metric": name,
                "effective n": d.get("effective_n"),
                "uniform n as precise": None if d.get("too_few") else d.get("uniform_equivalent"),
                "examples saved": d.get("saved_examples"),
                "people-hours saved": d.get("saved_hours"),
                **(
                    {"problem": d["problem"]}
                    if "problem" in d
                    else {"problem": d["too_few"]}
                    if d.get("too_few")
                    else {}
                ),
            }
        )
    return pd.DataFrame(rows)


def _notes(lines: list[str]) -> None:
    if lines:
        st.html(render.problems_html(lines, "warning", prose=True))  # sentences, not PATH:ROW lines


def no_sample_notice() -> None:
    st.caption(
        "No audit sample for the loaded data yet. On the Review page choose Queue: Audit sample, draw a "
        "uniformly random sample and review it; the corrected estimates appear here."
    )


def people_would_say_panel(store: LabelStore, against: LabelSelection, present: bool) -> None:
    """The Dashboard panel: per metric the judge-only, people-only and corrected (PPI++) means with their
    95 % intervals as one chart, lambda and the gain, per subset on demand, and the planner."""
    sample = pick_sample(loaded_samples(store), "dashboard.audit_pick", "Audit sample")
    if sample is None:
        no_sample_notice()
        return
    try:
        pairing, report = estimates(sample, against)
    except DesignError as exc:
        st.warning(render.md_escape(f"No corrected estimates: {exc}", limit=None))
        return
    overall = report.overall
    members = (
        f"members labelled by judge version {against.version}" if against.kind == "version" else "reviewed members"
    )
    st.caption(
        render.md_escape(
            f"{sample.label(with_who=not present)} · {overall.n_labeled:,} {members} are the audit ({against}'s labels), "
            f"{overall.n_unlabeled:,} examples judge-only · corrected = the judge on every example, its bias "
            f"removed by the audit ({SHORT_ESTIMATORS.get(report.design_name, 'PPI++')}, {report.intervals_used()} intervals)"
            f" · design: {design_title(report)}",
            limit=None,
        )
    )
    st.caption(render.md_escape(team_sample_note(sample), limit=None))
    st.caption(render.md_escape(corrects_note(store, [e.uid for e in pairing.examples]), limit=None))
    if not show_report(pairing, report, "examples", "what-people-would-say", "audit.chart", present, against):
        return
    if st.toggle("Per subset", key="audit.by_subset"):
        _, by_subset = estimates(sample, against, by="dataset_name")
        st.dataframe(
            estimate_table(by_subset, by=True, against=against),
            hide_index=True,
            width="stretch",
            column_config=_number_columns(against),
        )
        shown = set(report.notes())
        _notes([truth_words(n, against) for n in by_subset.notes() if n not in shown])
    planner(pairing, report)


def corrects_note(store: LabelStore, uids: list[str]) -> str:
    """Which judge version(s) the corrected estimates correct: the ones whose labels the examples carry."""
    from ragviz.judge.versions.registry import judged_by

    parts = [
        f"{name.removesuffix(' judge labels') if ' ' in name else 'judge version ' + name} ({n:,} examples)"
        for name, n in judged_by(store, uids)
    ]
    return "Judge labels corrected: " + ", ".join(parts) if parts else "No judged example to correct"


def show_report(
    pairing: Pairing,
    report: EstimateReport,
    what: str,
    name: str,
    key: str,
    present: bool,
    against: LabelSelection = HUMAN,
) -> bool:
    """The notes, the three estimates per metric as one chart (downloads named *name*, widget keys from
    *key*) and as a table, for an audit of *what* (``examples``, ``items``) under *against*'s labels (a judge
    version's: the words say what it labelled, :func:`truth_words`); ``False`` (and a line saying why) when fewer
    than two audited *what* leave nothing to show."""
    overall = report.overall
    _notes([truth_words(n, against) for n in (*pairing.warnings, *report.notes())])
    if overall.n_labeled < 2:
        st.info(
            render.md_escape(
                f"Judge version {against.version} labelled fewer than two members of the audit sample: no corrected "
                "estimates against its labels."
                if against.kind == "version"
                else "Review at least two members of the audit sample to see corrected estimates.",
                limit=None,
            )
        )
        return False
    if overall.n_labeled < MIN_AUDITED:
        st.warning(
            render.md_escape(
                truth_words(
                    f"{too_few_text(overall.n_labeled).capitalize()}. The intervals below are honest about how little "
                    f"{overall.n_labeled:,} reviewed {what} say (wide, within 0–1); ",
                    against,
                )
                + (
                    "the Explainer says no corrected figure until then."
                    if what == "examples"
                    else "no corrected figure is said in words until then."
                ),
                limit=None,
            )
        )
    spec = chart_specs.chart_spec(
        charts.estimates_chart, estimate_records(report, against), 4, estimator_names(against)
    )
    chart_specs.show_spec(spec, name, key, downloads=not present, fill=True, per_row=2)
    table = estimate_table(report, by=False, against=against)
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        height=35 * (len(table) + 1) + 3,
        column_config=_number_columns(against),
    )
    truth = truth_name(against)
    st.caption(
        render.md_escape(
            f"lambda: how much the correction trusts the judge (0 = {truth} only, 1 = fully). Worth n {truth}-only: "
            f"the effective sample size, the audit {truth} alone would need for an interval as narrow as the "
            f"corrected one (at most the number of {what}).",
            limit=None,
        )
    )
    if report.design_name != "uniform":
        _design_saving(report, what)
    return True


def _number_columns(against: LabelSelection = HUMAN) -> dict[str, Any]:
    three = st.column_config.NumberColumn(format="%.3f")
    truth = truth_name(against)
    return {
        "judge only": three,
        f"{truth} only": three,
        "corrected": three,
        "lambda": st.column_config.NumberColumn(format="%.2f"),
        f"worth n {truth}-only": st.column_config.NumberColumn(format="%.0f"),
        "effective n": st.column_config.NumberColumn(format="%.0f"),
        "uniform n as precise": st.column_config.NumberColumn(format="%.0f"),
        "examples saved": st.column_config.NumberColumn(format="%.0f"),
        "people-hours saved": st.column_config.NumberColumn(format="%.1f"),
    }


def _design_saving(report: EstimateReport, what: str) -> None:
    """A stratified or active sample's saving against a uniform audit of equal precision, per metric."""
    st.markdown(f"**Saved by the {report.design_name} design**")  # md: ours
    table = design_table(report)
    st.dataframe(
        table, hide_index=True, width="stretch", height=35 * (len(table) + 1) + 3, column_config=_number_columns()
    )
    minutes = (report.design or {}).get("minutes_per_example", 4)
    st.caption(  # md: ours
        f"Effective n: the {what} people alone would need for an interval as narrow. Uniform n as precise: the "
        f"uniform random audit whose corrected interval is as narrow as this design's. Saved: the {what} that "
        f"audit would need beyond this one, at {minutes:g} minutes each (negative: the design cost more)."
    )
    if (said := design_sentence(report, what)) is not None:
        st.markdown(render.md_escape(said, limit=None))


def planner(pairing: Pairing, report: EstimateReport) -> None:
    """How many audited examples a target interval half-width needs with the sample's design (and with a uniform
    audit, and people alone), from the audit so far (:func:`ragviz.analysis.audits.design_plan.plan_design`). The
    target is kept for the Review queue, which counts toward it."""
    metrics = list(report.overall.metrics)
    st.subheader("How many to audit")
    left, right = st.columns(2)
    default = metrics.index("adherence") if "adherence" in metrics else 0
    with left:
        metric = st.selectbox("Metric", metrics, index=default, key="audit.plan_metric")
    with right:
        half = st.number_input(
            "Target ± (half-width of the 95% interval)",
            min_value=0.001,
            max_value=0.5,
            value=float(st.session_state.get(AUDIT_TARGET, (None, 0.02))[1]),
            step=0.005,
            format="%.3f",
            key="audit.plan_half",
        )
    if metric is not None:
        st.session_state[AUDIT_TARGET] = (metric, float(half))
        st.markdown(render.md_escape(design_plan_text(plan_design(pairing, report, metric, float(half)))))


def target_line(sample: AuditSample) -> None:
    """The Review queue's progress toward the planner's target (the Dashboard's "How many to audit", default
    ± 0.05 on adherence) with the sample's design: the size it gives from the audit so far, which moves as
    reviews come in."""
    metric, half = st.session_state.get(AUDIT_TARGET, ("adherence", 0.05))
    try:
        pairing, report = estimates(sample, HUMAN)
    except DesignError as exc:
        st.caption(render.md_escape(f"No target: {exc}", limit=None))
        return
    if metric not in report.overall.metrics:
        return
    p = plan_design(pairing, report, metric, float(half))
    share = 0.0 if not p.n_design else min(1.0, p.n_now / p.n_design)
    st.progress(share, text=render.md_escape(target_progress_text(p), limit=None))


def plain_words_section(store: LabelStore) -> None:
    """The Explainer's version for stakeholders, over all loaded examples: one sentence per metric (the
    ``human`` label set on the team's audit sample, or the one picked on the Dashboard)."""
    samples = loaded_samples(store)
    with st.container(border=True):
        st.markdown("**In plain words** · all loaded examples, what people would say")
        sample = pick_sample(samples, "explainer.audit_pick", "Audit sample")
        if sample is None:
            st.caption("Draw and review an audit sample (Review, Queue: Audit sample) to say what people would say.")
            return
        try:
            _, report = estimates(sample, HUMAN)
        except DesignError as exc:
            st.warning(render.md_escape(f"No corrected figure: {exc}", limit=None))
            return
        lines = [text for name, m in report.overall.metrics.items() if (text := plain_words(name, m)) is not None]
        if lines and (said := design_sentence(report)) is not None:
            lines.append(said)
        for text in lines:
            st.markdown(render.md_escape(text, limit=None))
        for note in report.notes()[:1]:
            st.caption(render.md_escape(note, limit=None))
