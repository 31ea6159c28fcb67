"""Team: a lead runs a labelling round: assigns examples with overlap, follows progress per annotator and
per example, settles the examples the annotators disagree on (adjudication), reads the annotator dashboard
(agreement with gold / each other / the judge, Krippendorff's alpha, the kappa matrix) and writes the
labelling guidelines. Admins see all of it; adjudicators (RAGVIZ_ADJUDICATORS) the adjudication; annotators
their own progress."""

import streamlit as st

from ragviz.ui.core import access, state
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
    mine = team.progress_data().annotators.get(page.annotator)
    if mine is None:
        st.info("You have no assignments among the loaded examples.")
    else:
        st.metric("Your assignments", f"{mine.done:,} of {mine.assigned:,} done")
    st.caption("Progress of the whole team, adjudication and the annotator dashboard are for admins.")
    st.stop()

team.show_message()
data = team.team_data()  # the round's figures, cached until anyone decides, assigns or settles
progress = data.progress
summary = st.container()
tabs = ["Progress", "Adjudication", "Annotators", "Guidelines"] if granted.can_see_others else ["Adjudication"]
# keyed and lazy: only the open tab runs, and a message drawn above the tabs keeps the open one open
shown = dict(zip(tabs, st.tabs(tabs, key="team.tab", on_change="rerun")))  # md: ours
if "Progress" in shown and shown["Progress"].open:
    with shown["Progress"]:
        team.progress_tables(progress, data, page.dataset)
        team.assign_panel(page.dataset, page.annotator, progress)
if shown["Adjudication"].open:
    with shown["Adjudication"]:
        adjudicate.adjudication_view(page.dataset, data.table.queue(), page.annotator)
if "Annotators" in shown and shown["Annotators"].open:
    with shown["Annotators"]:
        team.annotator_dashboard(data)
if "Guidelines" in shown and shown["Guidelines"].open:
    with shown["Guidelines"]:
        team.guidelines_editor(page.annotator, can_edit=granted.can_load)
with summary:
    team.summary(progress, data)
