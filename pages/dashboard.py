"""Dashboard: how the metrics are distributed, how far the judge can be trusted, what to review next."""

import pandas as pd
import streamlit as st

from ragviz.agreement import BINARY_LABELS
from ragviz.compare import HUMAN, JUDGE, label_set_names
from ragviz.dashboard import agreement_rows, dashboard_data
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.ui import charts, state
from ragviz.ui.state import require_app_shell

require_app_shell()

page = state.require_data()
store, present = page.store, page.present


@st.cache_data(show_spinner="Computing the dashboard…", max_entries=16)
def _data(paths: tuple[str, ...], against: str, store_version: tuple[int, int]):
    return dashboard_data(state.load_result(paths).dataset, state.examples_of(paths), against, state.store())


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
data = _data(state.current_paths(), against, store.data_version())

# -- distributions and means ---------------------------------------------------------------------------
st.header("TRACe under the current labels")
st.caption(f"{len(data.records):,} examples · {data.n_reviewed:,} with a human decision ({against})")
charts.show_chart(charts.distribution_chart(data.records, TRACE_METRICS), "trace-distributions", "dashboard.dist", downloads=not present)
st.subheader("Mean per subset, 95% bootstrap interval")
charts.show_chart(charts.means_chart(data.means), "trace-subset-means", "dashboard.means", downloads=not present)
with st.expander("Means as a table"):
    st.dataframe(pd.DataFrame(data.means), hide_index=True, width="stretch")

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
    st.dataframe(pd.DataFrame(agreement_rows(agreement)), hide_index=True, width="stretch", column_config={
        k: st.column_config.NumberColumn(format="%.3f") for k in ("Cohen's κ", "precision", "recall", "F1", "accuracy")
    })
    cols = st.columns(len(agreement.scores) + 1)
    for col, (name, sa) in zip(cols, agreement.scores.items()):
        col.metric(f"{name} RMSE", "—" if sa.rmse is None else f"{sa.rmse:.3f}", help=f"over {sa.n} examples")
    cols[-1].metric("adherence accuracy", "—" if agreement.adherence_accuracy is None else f"{agreement.adherence_accuracy:.3f}")
    confusion = None
    for label in BINARY_LABELS:
        c = agreement.labels[label].confusion
        chart = charts.confusion_chart(label, c.tp, c.fp, c.fn, c.tn)
        confusion = chart if confusion is None else confusion | chart
    charts.show_chart(confusion, "judge-vs-human-confusion", "dashboard.confusion", downloads=not present)
    charts.show_chart(charts.scatter_chart(data.scatter), "judge-vs-human-scatter", "dashboard.scatter", downloads=not present)

# -- baseline judges -------------------------------------------------------------------------------------------
st.header("RAGBench baseline judges against the current labels")
if data.baselines is None:
    st.caption("The loaded data carries no baseline-judge score columns (gpt3_adherence, ragas_faithfulness, trulens_groundedness, …).")
else:
    st.caption(
        "Hallucination AUROC: truth = not adherent, prediction = 1 − the judge's adherence score; RMSE against the "
        "relevance / utilization scores. Rows with no prediction are left out of that figure. The truth is the current labels, "
        "so human corrections move these numbers."
    )
    shown = [{k: v for k, v in row.items() if "_n_" not in k} for row in data.baselines]
    st.dataframe(pd.DataFrame(shown), hide_index=True, width="stretch", column_config={
        k: st.column_config.NumberColumn(format="%.3f") for k in shown[0] if k.endswith(("auroc", "rmse"))
    })

# -- triage --------------------------------------------------------------------------------------------------
st.header("What to review next")
left, right = st.columns(2, gap="large")
with left:
    st.subheader("One change moves the mean most")
    metric = st.segmented_control("Metric", TRACE_METRICS, default="adherence", key="dashboard.triage_metric") or "adherence"
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
