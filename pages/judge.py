"""Judge page: a lead turns people's corrections into a judge version and proves it on examples it never saw.
Where the team's judge and people disagree (grouped by pattern), pick few-shot examples, write rubric notes, read
the exact prompt with its tokens and the comparison's cost, create the version, compare versions side by side on
the audit sample's reviewed members, promote one and re-judge. Admins create, compare, promote and re-judge;
annotators may look."""

import streamlit as st

from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.ui.audit.sample import loaded_samples, pick_sample
from ragviz.ui.core import access, render, state
from ragviz.ui.core.keys import JUDGE_DONE
from ragviz.ui.core.present import is_present
from ragviz.ui.core.team_judge import team_judge
from ragviz.ui.judge import page as ui
from ragviz.ui.judge import runs
from ragviz.ui.team import queue as team_queue

state.require_app_shell()

st.title("Improve the judge")
granted = access.access()
if not granted.can_review:
    st.info("Judge versions are for admins and annotators.", icon=":material/lock:")
    st.stop()
if is_present():
    st.info("Presentation mode: judge versions are not shown here (turn presentation mode off in the sidebar).")
    st.stop()
page = state.require_data()
ds, store = page.dataset, page.store
can_admin = granted.can_judge
if done := st.session_state.pop(JUDGE_DONE, None):
    st.success(render.md_escape(done, None))
if not can_admin:
    st.caption("You may look; admins create, compare, promote and re-judge.")

ui.versions_section(store)
team = team_judge()
settings = ui.judge_settings() if can_admin else None

blind = team_queue.blind_for_me(store)  # a blind round: counts of the person's own labels, no one else's
patterns, n_usable, n_test = ui.patterns_of(ds, store, LabelSelection.of(page.annotator) if blind else HUMAN)
ui.disagreements_section(patterns, n_usable, n_test, blind)

sample = pick_sample(loaded_samples(store), "judge.audit_pick", "Test set: audit sample")
test_set = ui.test_set_of(ds, store, sample) if sample is not None else None
if sample is None:
    ui.no_test_set(ds, store, can_admin)

ui.candidate_section(ds, store, patterns, test_set, settings, can_admin)
if sample is not None and test_set is not None and not blind:  # its figures are built from everyone's labels
    runs.compare_section(store, sample.id, test_set, settings, can_admin)
runs.promote_section(store, can_admin)
runs.rejudge_section(ds, store, settings, can_admin, team)
