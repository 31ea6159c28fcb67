"""Dashboard: how the metrics are distributed, how far the judge can be trusted, what to review next."""

import pandas as pd
import streamlit as st

from ragviz.analysis.agreement import (
    BINARY_LABELS,
    SENTENCE_LABELS,
    annotator_agreement,
    kappa_matrix,
)
from ragviz.analysis.compare import HUMAN, JUDGE, label_set_names
from ragviz.analysis.dashboard import (
    FAMILY_TITLES,
    RETRIEVAL,
    TRACE,
    agreement_rows,
    dashboard_data,
    families_present,
    family_view,
)
from ragviz.metrics.retrieval import DEFAULT_KS, parse_ks
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.ui import charts, render, state
from ragviz.ui.state import require_app_shell

require_app_shell()

page = state.require_data()
store, present = page.store, page.present


@st.cache_data(show_spinner="Computing the dashboard…", max_entries=16)
def _data(paths: tuple[str, ...], against: str, db: str, store_version: tuple[int, int]):
    return dashboard_data(state.load_result(paths).dataset, state.examples_of(paths), against, state.store())


@st.cache_data(show_spinner=False, max_entries=4)
def _families(paths: tuple[str, ...]) -> list[str]:
    return families_present(state.examples_of(paths))


@st.cache_data(show_spinner="Computing the metric family…", max_entries=32)
def _family(
    paths: tuple[str, ...], against: str, db: str, store_version: tuple[int, int], family: str, ks: tuple[int, ...]
):
    return family_view(state.load_result(paths).dataset, state.examples_of(paths), against, state.store(), family, ks)


@st.cache_data(show_spinner="Computing annotator agreement…", max_entries=8)
def _annotators(paths: tuple[str, ...], db: str, store_version: tuple[int, int]):
    return annotator_agreement(state.load_result(paths).dataset, state.examples_of(paths), state.store())


st.title("Dashboard")
names = [n for n in label_set_names(store) if n != JUDGE]
if present:
    against = st.session_state.get("dashboard.against", HUMAN)
    against = against if against in names else HUMAN
else:
    against = st.selectbox(
        "Current labels (the truth the figures use)",
        names,
        key="dashboard.against",
        help="human: each example's latest human decision; or one annotator. Examples nobody decided on keep the judge's labels.",
    )
# keyed on the store file too: data_version() is only unique within one store
paths, db, version = state.current_paths(), str(store.path), store.data_version()
data = _data(paths, against, db, version)

# -- distributions and means ---------------------------------------------------------------------------
families = _families(paths) or [TRACE]
if present:
    family = st.session_state.get("dashboard.family", TRACE)
    family = family if family in families else TRACE
else:
    family = (
        st.segmented_control(
            "Metric family",
            families,
            format_func=FAMILY_TITLES.get,
            default=TRACE,
            key="dashboard.family",
            help="The metric families the loaded data can be scored with; every value uses the current labels.",
        )
        or TRACE
    )
ks: tuple[int, ...] = DEFAULT_KS
if family == RETRIEVAL and not present:
    ks_text = st.text_input("Cut-offs k (comma-separated)", value=",".join(map(str, DEFAULT_KS)), key="dashboard.ks")
    try:
        ks = parse_ks(ks_text)
    except ValueError as exc:
        st.html(render.problems_html([str(exc).replace("--k: ", "k: ")], "error"))
st.header(f"{FAMILY_TITLES[family]} under the current labels")
if family == TRACE:
    records, means, chart_metrics, systems = data.records, data.means, TRACE_METRICS, ()
else:
    view = _family(paths, against, db, version, family, ks)
    records, means, chart_metrics, systems = view.records, view.means, view.chart_metrics, view.systems
n_examples = len({r["uid"] for r in records})
by_system = f" · {len(systems)} retrieval systems ({', '.join(systems)})" if len(systems) > 1 else ""
st.caption(f"{n_examples:,} examples · {data.n_reviewed:,} with a human decision ({against}){by_system}")
if family == "tonic":
    st.caption("answer_similarity is on Tonic's 0–5 scale: it is in the table below, not in the charts.")
name = FAMILY_TITLES[family].split()[0].lower()
color = ("system", "system") if len(systems) > 1 else ("dataset", "subset")
columns = min(len(ks), 4) if family == RETRIEVAL else 4  # retrieval: one column per k
charts.show_chart(
    charts.distribution_chart(records, chart_metrics, color=color[0], color_title=color[1], columns=columns),
    f"{name}-distributions",
    "dashboard.dist",
    downloads=not present,
)
st.subheader("Mean per subset, 95% bootstrap interval")
charts.show_chart(
    charts.means_chart(
        sorted((m for m in means if m["metric"] in chart_metrics), key=lambda m: chart_metrics.index(m["metric"])),
        columns,
    ),
    f"{name}-subset-means",
    "dashboard.means",
    downloads=not present,
)
with st.expander("Means as a table"):
    st.dataframe(pd.DataFrame(means), hide_index=True, width="stretch")

# -- judge vs human ----------------------------------------------------------------------------------------
st.header("How much can we trust the judge?")
agreement = data.judge_agreement
if agreement.n_examples == 0:
    st.info("No example has a human decision yet: review some on the Review page to see judge-vs-human agreement.")
else:
    st.caption(
        f"The judge's labels against {against}'s on the {agreement.n_examples} examples a person decided on; "
        "precision/recall treat the human labels as the truth."
    )
    st.dataframe(
        pd.DataFrame(agreement_rows(agreement)),
        hide_index=True,
        width="stretch",
        column_config={
            k: st.column_config.NumberColumn(format="%.3f")
            for k in ("Cohen's κ", "precision", "recall", "F1", "accuracy")
        },
    )
    cols = st.columns(len(agreement.scores) + 1)
    for col, (name, sa) in zip(cols, agreement.scores.items()):
        col.metric(f"{name} RMSE", "—" if sa.rmse is None else f"{sa.rmse:.3f}", help=f"over {sa.n} examples")
    cols[-1].metric(
        "adherence accuracy", "—" if agreement.adherence_accuracy is None else f"{agreement.adherence_accuracy:.3f}"
    )
    confusion = None
    for label in BINARY_LABELS:
        c = agreement.labels[label].confusion
        chart = charts.confusion_chart(label, c.tp, c.fp, c.fn, c.tn)
        confusion = chart if confusion is None else confusion | chart
    charts.show_chart(confusion, "judge-vs-human-confusion", "dashboard.confusion", downloads=not present)
    charts.show_chart(
        charts.scatter_chart(data.scatter), "judge-vs-human-scatter", "dashboard.scatter", downloads=not present
    )

# -- several annotators ---------------------------------------------------------------------------------------
st.header("Do the annotators agree?")
raters = _annotators(paths, db, version)
if not raters.has_pairs:
    st.caption(
        f"{len(raters.annotators)} annotator(s) with decisions on the loaded examples"
        + (f" ({', '.join(raters.annotators)})" if raters.annotators else "")
        + ". Agreement needs two or more annotators who decided on the same examples."
    )
else:
    st.caption(
        "Cohen's κ per pair over the sentence decisions of the examples both decided on (n = shared examples); "
        "Fleiss' κ over the examples every annotator decided on. "
        + ", ".join(f"{a}: {raters.n_examples[a]:,} examples" for a in raters.annotators)
    )
    charts.show_chart(
        charts.kappa_matrix_chart(kappa_matrix(raters.pairs), SENTENCE_LABELS),
        "annotator-kappa",
        "dashboard.kappa",
        downloads=not present,
    )
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "label": m.label,
                    "annotators": m.n_raters,
                    "shared examples": m.n_examples,
                    "decisions": m.n_decisions,
                    "Fleiss' κ": m.kappa,
                }
                for m in raters.overall
            ]
        ),
        hide_index=True,
        width="stretch",
        column_config={"Fleiss' κ": st.column_config.NumberColumn(format="%.3f")},
    )
    with st.expander("Every pair as a table"):
        st.dataframe(
            pd.DataFrame(
                [
                    {
                        "annotator A": p.rater_a,
                        "annotator B": p.rater_b,
                        "label": p.label,
                        "shared examples": p.n_examples,
                        "decisions": p.n_decisions,
                        "Cohen's κ": p.kappa,
                    }
                    for p in raters.pairs
                ]
            ),
            hide_index=True,
            width="stretch",
            column_config={"Cohen's κ": st.column_config.NumberColumn(format="%.3f")},
        )

# -- baseline judges -------------------------------------------------------------------------------------------
st.header("RAGBench baseline judges against the current labels")
if data.baselines is None:
    st.caption(
        "The loaded data carries no baseline-judge score columns (gpt3_adherence, ragas_faithfulness, trulens_groundedness, …)."
    )
else:
    st.caption(
        "Hallucination AUROC: truth = not adherent, prediction = 1 − the judge's adherence score; RMSE against the "
        "relevance / utilization scores. Rows with no prediction are left out of that figure. The truth is the current labels, "
        "so human corrections move these numbers."
    )
    shown = [{k: v for k, v in row.items() if "_n_" not in k} for row in data.baselines]
    st.dataframe(
        pd.DataFrame(shown),
        hide_index=True,
        width="stretch",
        column_config={
            k: st.column_config.NumberColumn(format="%.3f") for k in shown[0] if k.endswith(("auroc", "rmse"))
        },
    )

# -- triage --------------------------------------------------------------------------------------------------
st.header("What to review next")
left, right = st.columns(2, gap="large")
with left:
    st.subheader("One change moves the mean most")
    metric = (
        st.segmented_control("Metric", TRACE_METRICS, default="adherence", key="dashboard.triage_metric") or "adherence"
    )
    items = data.leverage[metric]
    if not items:
        st.caption("No labeled example.")
    for x in items:
        st.page_link(
            "pages/review.py",
            label=f"{x.uid} — {x.change}: mean {metric} {x.dataset_delta:+.4f}",
            query_params={"uid": x.uid},
            icon=":material/arrow_forward:",
        )
with right:
    st.subheader("Judge and human disagree most")
    if not data.disagreements:
        st.caption("No disagreement yet (or nothing reviewed).")
    for d in data.disagreements:
        deltas = ", ".join(f"{m} {v:+.2f}" for m, v in d.diff.deltas.items() if v)
        st.page_link(
            "pages/review.py",
            label=f"{d.uid} — {d.n_changes} decision(s) differ" + (f" ({deltas})" if deltas else ""),
            query_params={"uid": d.uid},
            icon=":material/arrow_forward:",
        )
