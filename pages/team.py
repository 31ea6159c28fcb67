"""Team: a lead runs a labelling round: assigns examples with overlap, follows progress per annotator and
per example, settles the examples the annotators disagree on (adjudication), reads the annotator dashboard
(agreement with gold / each other / the judge, Krippendorff's alpha, the kappa matrix) and writes the
labelling guidelines. Admins see all of it; adjudicators (RAGVIZ_ADJUDICATORS) the adjudication; annotators
their own progress."""

import streamlit as st

from ragviz.analysis.team.adjudicate import adjudication_queue
from ragviz.ui.core import access, results, state
from ragviz.ui.team import adjudicate
from ragviz.ui.team import page as team

state.require_app_shell()

page = state.require_data()
granted = access.access()

st.title("Team")
if page.present:
    st.info("The Team page names annotators and shows their labels: it is not shown while presenting.")
    st.stop()
if not (granted.can_see_others or granted.can_adjudicate):
    mine = team.team_data().progress.annotators.get(page.annotator)
    if mine is None:
        st.info("You have no assignments among the loaded examples.")
    else:
        st.metric("Your assignments", f"{mine.done:,} of {mine.assigned:,} done")
    st.caption("Progress of the whole team, adjudication and the annotator dashboard are for admins.")
    st.stop()

team.show_message()
data = team.team_data()
team.summary(data)
if granted.can_see_others:
    progress, adjudication, annotators, guidelines = st.tabs(["Progress", "Adjudication", "Annotators", "Guidelines"])
    with progress:
        team.progress_tables(data, page.dataset)
        team.assign_panel(page.dataset, page.annotator, data)
    with annotators:
        team.annotator_dashboard(data, results.annotator_agreement())
    with guidelines:
        team.guidelines_editor(page.annotator, can_edit=granted.can_load)
else:
    adjudication = st.container()
with adjudication:
    adjudicate.adjudication_view(page.dataset, adjudication_queue(data.rounds), page.annotator)
