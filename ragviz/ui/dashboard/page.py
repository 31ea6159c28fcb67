"""The Dashboard's pieces: the choice of current labels, metric family and cut-offs; the family's
distributions and subset means; judge-vs-human agreement; annotator agreement; the baseline judges;
and the triage links to the Review page. Each takes the figures it draws (computed in
:mod:`ragviz.analysis.dashboard.figures`, cached in :mod:`ragviz.ui.core.state`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import astuple
from typing import Any

import pandas as pd
import streamlit as st

from ragviz.analysis.agreement import (
    ADHERENT,
    BINARY_LABELS,
    SENTENCE_LABELS,
    Agreement,
    AnnotatorAgreement,
    kappa_matrix,
)
from ragviz.analysis.coverage import MIN_REVIEWED, too_few_words
from ragviz.analysis.dashboard.annotator_tables import fleiss_shown, pair_rows
from ragviz.analysis.dashboard.families import FAMILY_TITLES, RETRIEVAL, TONIC, TRACE, FamilyView, chart_means
from ragviz.analysis.dashboard.figures import (
    agreement_rows,
    baseline_rows,
    histogram_counts,
    interval_text,
)
from ragviz.analysis.dashboard.triage import Disagreement, Leverage
from ragviz.analysis.figure_intervals import INTERVAL_NOTE
from ragviz.analysis.labelsets.named import HUMAN
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.metrics.retrieval import DEFAULT_KS, parse_ks
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.ui.core import chart_specs, charts, queue_settings, render
from ragviz.ui.core.label_link import LABELS_PARAM, keep_in_url, labels_from_url
from ragviz.ui.dashboard.means import means_table, no_interval_words
from ragviz.ui.dashboard.tables import BASELINE_FIGURES, baselines_by_judge, trust_table

__all__ = [
    "AGAINST_KEY",
    "FAMILY_KEY",
    "LABELS_PARAM",
    "against_picker",
    "annotator_agreement",
    "baselines",
    "cutoffs_input",
    "family_figures",
    "family_header",
    "family_picker",
    "judge_agreement",
    "too_few_kappa_cell",
    "triage",
]


AGAINST_KEY, FAMILY_KEY = "dashboard.against", "dashboard.family"


def _three_decimals(columns: Iterable[str]) -> dict[str, Any]:
    """Column settings showing each of *columns* with three decimals."""
    return {k: st.column_config.NumberColumn(format="%.3f") for k in columns}


def against_picker(names: list[LabelSelection], present: bool) -> LabelSelection:
    """The label set the figures take as the truth: the one chosen in this session, else the URL's (``?labels=``,
    so a copied link opens the same labels), else human; kept in the URL (in presentation mode: not offered,
    the one chosen before)."""
    labels_from_url(names, AGAINST_KEY)
    if present:
        against = st.session_state.get(AGAINST_KEY, HUMAN)
        return against if against in names else HUMAN
    chosen = st.selectbox(
        "Current labels (the truth the figures use)",
        names,
        format_func=str,
        key=AGAINST_KEY,
        help="human: per example and label field, the latest human decision (as the team's export); gold: the "
        "team's agreed or adjudicated labels; judge:NAME: the labels judge version NAME stored; or one annotator. "
        "Examples nobody decided on (the version did not label) keep the judge's labels. The page's link carries "
        "the choice (?labels=, as ragviz agreement --against names it).",
    )
    chosen = chosen or HUMAN
    keep_in_url(chosen, HUMAN, AGAINST_KEY)
    return chosen


def family_picker(families: list[str], present: bool) -> str:
    """The metric family to show, one of *families* (in presentation mode: the one chosen before)."""
    if present:
        family = st.session_state.get(FAMILY_KEY, TRACE)
        return family if family in families else TRACE
    return (
        st.segmented_control(
            "Metric family",
            families,
            format_func=lambda family: FAMILY_TITLES.get(family, family),  # md: ours
            default=TRACE,
            key=FAMILY_KEY,
            help="The metric families the loaded data can be scored with; every value uses the current labels.",
        )
        or TRACE
    )


def cutoffs_input() -> tuple[int, ...]:
    """The retrieval cut-offs the person typed (the default ones while the text is not valid)."""
    text = st.text_input("Cut-offs k (comma-separated)", value=",".join(map(str, DEFAULT_KS)), key="dashboard.ks")
    try:
        return parse_ks(text)
    except ValueError as exc:
        st.html(render.problems_html([str(exc).replace("--k: ", "k: ")], "error"))
        return DEFAULT_KS


def family_header(family: str) -> None:
    st.header(f"{FAMILY_TITLES[family]} under the current labels")


def family_figures(
    view: FamilyView, ks: tuple[int, ...], n_reviewed: int, against: LabelSelection, downloads: bool
) -> None:
    """The family's distributions and subset means (charts and table); retrieval: one chart column per k."""
    systems = render.md_escape(", ".join(view.systems))
    by_system = f" · {len(view.systems)} retrieval systems ({systems})" if len(view.systems) > 1 else ""
    decided = f"labelled by judge version {against.version}" if against.kind == "version" else "with a human decision"
    st.caption(
        f"{view.n_examples:,} examples · {n_reviewed:,} {render.md_escape(decided)} "
        f"({render.md_escape(str(against))}){by_system}"
    )  # md: ours
    if view.family == TONIC:
        st.caption("answer_similarity is on Tonic's 0–5 scale: it is in the table below, not in the charts.")
    name = FAMILY_TITLES[view.family].split()[0].lower()
    color, color_title = ("system", "system") if len(view.systems) > 1 else ("dataset", "subset")
    columns = min(len(ks), 4) if view.family == RETRIEVAL else 4
    counts = histogram_counts(view.records, view.chart_metrics, color)
    spec = chart_specs.chart_spec(charts.histogram_chart, counts, view.chart_metrics, "", color, color_title, columns)
    chart_specs.show_spec(spec, f"{name}-distributions", "dashboard.dist", downloads=downloads, fill=True)
    st.subheader("Mean per subset, 95% interval (bootstrap; Wilson for 0/1 metrics)")
    spec = chart_specs.chart_spec(charts.means_chart, chart_means(view), columns)
    chart_specs.show_spec(spec, f"{name}-subset-means", "dashboard.means", downloads=downloads, fill=True, per_row=2)
    if without := no_interval_words(chart_means(view)):
        st.caption(without)  # md: ours (no_interval_words escapes the names)
    with st.expander("Means as a table"):
        st.dataframe(means_table(view.means), hide_index=True, width="stretch", column_config=_three_decimals(["mean"]))


def judge_agreement(
    agreement: Agreement, scatter: list[dict[str, Any]], against: LabelSelection, downloads: bool
) -> None:
    """The judge's labels against *against*'s on the examples a person decided on: per-label
    figures, score RMSEs, confusion matrices and the judge-vs-human scatter."""
    version = against.kind == "version"  # judge:NAME: that version's labels are the truth, on what it labelled
    if agreement.n_examples == 0:
        st.info(
            f"Judge version {render.md_escape(against.version)} labelled none of these examples."
            if version
            else "No example has a human decision yet: review some on the Review page to see judge-vs-human agreement."
        )
        return
    decided, truth = (
        (f"judge version {render.md_escape(against.version)} labelled", "its labels")
        if version
        else ("a person decided on", "the human labels")
    )
    st.caption(  # md: ours (decided / truth: literals around an md_escape'd version name)
        f"The judge's labels against {render.md_escape(str(against))}'s on the {agreement.n_examples} examples "
        f"{decided}; precision/recall treat {truth} as the truth. 95 % intervals over the examples: "
        + render.md_escape(
            INTERVAL_NOTE.replace("reviewed examples", "examples it labelled") if version else INTERVAL_NOTE
        )
        + "."
    )
    if agreement.too_few:
        by = f"labelled by judge version {render.md_escape(against.version)}"
        st.info(
            f"{agreement.too_few.capitalize().replace('Too few reviewed', f'Too few {by}')}: every figure below is "
            f"from {agreement.n_examples} examples {by}, with no interval until {agreement.minimum} are."
            if version
            else f"{agreement.too_few.capitalize()}: every figure below is from {agreement.n_examples} reviewed "
            f"examples, with no interval until {agreement.minimum} are reviewed."
        )  # md: ours, the version's name escaped
    table = trust_table(agreement_rows(agreement), intervals=not agreement.too_few)  # too few: said once above
    config = {"Figure": st.column_config.Column(width=92)}
    for label in agreement.labels:
        config[label] = st.column_config.Column(width=70, alignment="right")  # figures line up
        config[f"{label} 95%"] = st.column_config.Column(
            "95%",
            width=104,
            help=f"{label}: the figure's 95 % interval, or why there is none",  # md: ours
        )
    st.dataframe(table, hide_index=True, width="stretch", column_config=config)
    # each card says its state under it (a card read on its own, scrolled past the note above, said 1.000 as sure)
    too_few = agreement.too_few or ""
    if version:
        too_few = too_few.replace("reviewed", f"labelled by judge version {against.version}")
    too_few = render.md_escape(f"no interval: {too_few}") if too_few else ""
    cols = st.columns(len(agreement.scores) + 1)
    for col, (name, sa) in zip(cols, agreement.scores.items()):
        col.metric(
            f"{name} RMSE", "—" if sa.rmse is None else f"{sa.rmse:.3f}", help=f"over {sa.n} examples"
        )  # md: ours
        if sa.rmse is not None:
            col.caption(too_few or f"95 %: {interval_text(sa.rmse_interval, 3)}")  # md: ours
    accuracy = agreement.adherence_accuracy
    cols[-1].metric("adherence accuracy", "—" if accuracy is None else f"{accuracy:.3f}")
    if accuracy is not None:
        adherent = agreement.labels[ADHERENT].intervals.get("accuracy")
        cols[-1].caption(too_few or f"95 %: {interval_text(adherent, 3)}")  # md: ours
    cells = [(label, *astuple(agreement.labels[label].confusion)) for label in BINARY_LABELS]
    spec = chart_specs.chart_spec(charts.confusion_grid, cells)
    chart_specs.show_spec(spec, "judge-vs-human-confusion", "dashboard.confusion", downloads=downloads)
    shown = len({r["uid"] for r in scatter})
    if shown < agreement.n_examples:  # sampled by ragviz.analysis.dashboard.figures.scatter_sample
        st.caption(
            f"Judge vs human scores: a sample of {shown:,} of the {agreement.n_examples:,} decided examples "
            "(evenly spaced), one point per metric each."
        )
    spec = chart_specs.chart_spec(charts.scatter_chart, scatter)
    chart_specs.show_spec(spec, "judge-vs-human-scatter", "dashboard.scatter", downloads=downloads, fill=True)


def annotator_agreement(raters: AnnotatorAgreement, downloads: bool, names: bool = True) -> None:
    """Cohen's kappa per annotator pair (matrix and table) and Fleiss' kappa overall, per label; without
    *names* (viewers, presentation mode) only Fleiss' kappa, which names no one."""
    if not raters.has_pairs:
        st.caption(
            f"{len(raters.annotators)} annotator(s) with decisions on the loaded examples"
            + (f" ({render.md_escape(', '.join(raters.annotators))})" if raters.annotators and names else "")
            + ". Agreement needs two or more annotators who decided on the same examples."
        )
        return
    if not names:
        st.caption(f"Fleiss' κ over the examples all {len(raters.annotators)} annotators decided on.")
        st.dataframe(pd.DataFrame(fleiss_shown(raters.overall)), hide_index=True, width="stretch")
        return
    st.caption(
        "Cohen's κ per pair over the sentence decisions of the examples both decided on (n = shared examples); "
        "Fleiss' κ over the examples every annotator decided on. "
        + ", ".join(f"{render.md_escape(a)}: {raters.n_examples[a]:,} examples" for a in raters.annotators)  # md: ours
    )
    few = [p for p in raters.pairs if p.n_examples < MIN_REVIEWED]
    if few:
        st.caption(
            f"A pair that shared fewer than {MIN_REVIEWED} examples gets no κ: too few to say (its cell grey, "
            "n = shared of the minimum)."
        )
    rows = [too_few_kappa_cell(r) for r in kappa_matrix(raters.pairs)]
    spec = chart_specs.chart_spec(charts.kappa_matrix_chart, rows, SENTENCE_LABELS)
    chart_specs.show_spec(spec, "annotator-kappa", "dashboard.kappa", downloads=downloads)
    st.dataframe(pd.DataFrame(fleiss_shown(raters.overall)), hide_index=True, width="stretch")
    with st.expander("Every pair as a table"):
        pairs = pd.DataFrame(pair_rows(raters.pairs))
        if few:  # the figure of a few shared examples is not shown as if it said something
            small = pairs["shared examples"] < MIN_REVIEWED
            pairs["Cohen's κ"] = pairs["Cohen's κ"].where(~small, None)
            pairs["state"] = [
                too_few_words(n, MIN_REVIEWED) if n < MIN_REVIEWED else "" for n in pairs["shared examples"]
            ]
        st.dataframe(pairs, hide_index=True, width="stretch", column_config=_three_decimals(["Cohen's κ"]))


def too_few_kappa_cell(row: Mapping[str, Any]) -> dict[str, Any]:
    """A κ-matrix cell (:func:`ragviz.analysis.agreement.kappa_matrix`) as shown: below the minimum of shared
    examples no κ (a grey cell saying "too few") and the shared count against the minimum.

    >>> too_few_kappa_cell({"kappa": 1.0, "kappa_text": "1.00", "n_text": "n=3 ex.", "n_examples": 3})["n_text"]
    'n=3 of 10'
    """
    if row["n_examples"] >= MIN_REVIEWED:
        return dict(row)
    return {**row, "kappa": None, "kappa_text": "too few", "n_text": f"n={row['n_examples']} of {MIN_REVIEWED}"}


def baselines(table: list[dict[str, Any]] | None) -> None:
    """The RAGBench baseline judges' figures against the current labels (when the data has them)."""
    if table is None:
        st.caption(
            "The loaded data carries no baseline-judge score columns (gpt3_adherence, ragas_faithfulness, trulens_groundedness, …)."
        )
        return
    st.caption(
        "Hallucination AUROC: truth = not adherent, prediction = 1 − the judge's adherence score; RMSE against the "
        "relevance / utilization scores. Rows with no prediction are left out of that figure. The truth is the current labels, "
        "so human corrections move these numbers."
    )
    st.dataframe(
        pd.DataFrame(baselines_by_judge(baseline_rows(table))),
        hide_index=True,
        width="stretch",
        column_config=_three_decimals(BASELINE_FIGURES.values()),
    )


def _review_link(uid: str, label: str) -> None:
    st.page_link(
        "pages/review.py", label=label, query_params=queue_settings.review_query(uid), icon=":material/arrow_forward:"
    )  # md: ours


def triage(
    leverage: Mapping[str, Sequence[Leverage]], disagreements: Sequence[Disagreement], n_reviewed: int = 0
) -> None:
    """Links to the Review page: the examples where one change moves a metric's mean most (the
    person picks the metric), and those where judge and human disagree most (*n_reviewed*: examples with a human
    decision, which that list is drawn from)."""
    with st.container(key="dashboard-triage"):  # its links wrap instead of ending in "…" (render.theme_css)
        _triage_lists(leverage, disagreements, n_reviewed)


def _triage_lists(
    leverage: Mapping[str, Sequence[Leverage]], disagreements: Sequence[Disagreement], n_reviewed: int
) -> None:
    # the picker spans the page: in a half-width column its four options did not fit at 1280 px
    metric = (
        st.segmented_control(
            "Metric whose mean one change moves", TRACE_METRICS, default="adherence", key="dashboard.triage_metric"
        )
        or "adherence"
    )
    left, right = st.columns(2, gap="large")
    with left:
        st.subheader(f"One change moves the mean {metric} most")  # md: ours (a metric name of ragviz)
        ties = "every verdict flip moves it by 1/n" if metric == "adherence" else "the same move of its mean"
        st.caption(  # md: ours (a metric name of ragviz)
            f"Examples someone already reviewed are left out. Equal moves of the mean {metric} ({ties}) are ordered "
            "by the example's own size of effect: how far its best single change moves each of the four TRACe "
            "metrics, summed; then by row. The judge's confidence does not order them."
        )
        if not leverage[metric]:
            st.caption("No labeled example left to review.")
        for x in leverage[metric]:
            _review_link(x.uid, f"{render.md_escape(x.uid)} — {x.change}: mean {metric} {x.dataset_delta:+.4f}")
    with right:
        st.subheader("Judge and human disagree most")
        if not n_reviewed:
            st.caption("Nobody has reviewed an example yet: where judge and human disagree shows here once they do.")
        elif not disagreements:
            st.caption(f"No disagreement: people kept the judge's labels on all {n_reviewed:,} examples they reviewed.")
        for d in disagreements:
            deltas = ", ".join(f"{m} {v:+.2f}" for m, v in d.diff.deltas.items() if v)
            _review_link(
                d.uid,
                f"{render.md_escape(d.uid)} — {d.n_changes} decision(s) differ" + (f" ({deltas})" if deltas else ""),
            )
