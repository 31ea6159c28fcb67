"""Dashboard: a person sees how the metrics are distributed under the current labels, how far the judge
can be trusted, where the annotators' agreement is (Team page), how the RAGBench baseline judges fare, and what to review
next."""

import streamlit as st

from ragviz.analysis.dashboard.families import RETRIEVAL, TRACE
from ragviz.analysis.dashboard.figures import trace_view
from ragviz.analysis.labelsets.named import HUMAN, JUDGE, label_sets
from ragviz.judge.versions.registry import version_label_sets
from ragviz.metrics.retrieval import DEFAULT_KS
from ragviz.ui.audit import estimates as audit_estimates
from ragviz.ui.audit import systems as compare_systems
from ragviz.ui.audit.truth import panel_title
from ragviz.ui.core import access, render, report, results, state
from ragviz.ui.dashboard import page as ui
from ragviz.ui.team import queue as team_queue

state.require_app_shell()

page = state.require_data()
store, present = page.store, page.present

st.title("Dashboard")
names = access.names_shown()  # viewers and presenters: the latest human labels, no one's name
offered = [*(n for n in label_sets(store) if n != JUDGE), *version_label_sets(store)] if names else [HUMAN]
against = ui.against_picker(team_queue.blind_label_sets(offered, store, page.annotator), present)
data = results.dashboard_data(against)
report.download_report_button(against, key="dashboard.report", present=present)

family = ui.family_picker(results.metric_families() or [TRACE], present)
ks = ui.cutoffs_input() if family == RETRIEVAL and not present else DEFAULT_KS
ui.family_header(family)
view = trace_view(data) if family == TRACE else results.family_view(against, family, ks)
ui.family_figures(view, ks, data.n_reviewed, against, downloads=not present)

st.header(render.md_escape(panel_title(against), limit=None))
audit_estimates.people_would_say_panel(store, against, present)
compare_systems.compare_systems_panel(store, against, present)  # only when the data holds two systems

st.header("How much can we trust the judge?")
ui.judge_agreement(data.judge_agreement, data.scatter, against, downloads=not present)

st.header("Do the annotators agree?")
st.caption(
    "Annotator agreement (Cohen's κ per pair, Fleiss' κ, Krippendorff's α per label kind) is on the Team page, "
    "with progress, adjudication and the annotator dashboard."
)
st.page_link("pages/team.py", label="Open the Team page", icon=":material/groups:")

st.header("RAGBench baseline judges against the current labels")
ui.baselines(data.baselines)

if not present:  # a reviewer's to-do list, not a figure for the audience
    st.header("What to review next")
    ui.triage(data.leverage, data.disagreements, data.n_reviewed)
