"""Compare page: a person picks two label sets (the judge's, the latest human decisions, one annotator's, a
judge version's) and sees, per example, the keys added or removed and the verdicts flipped, with the metric change each
caused; from there they open an example on the Review page.

Presentation mode (always for viewers) shows no difference until the presenter turns on "Show
corrections", compares only the judge's and the latest human labels (no one's name) and offers no download.
"""

import streamlit as st

from ragviz.analysis.labelsets.named import HUMAN, JUDGE, label_sets
from ragviz.judge.versions.registry import version_label_sets
from ragviz.ui import compare as ui
from ragviz.ui.core import access, results, state
from ragviz.ui.core.present import show_corrections
from ragviz.ui.team import queue as team_queue

state.require_app_shell()

page = state.require_data()
granted = access.access()

st.title("Compare label sets")
if not show_corrections(page.present):
    st.info(
        "Presentation mode hides which examples were corrected: turn on Show corrections under Presentation mode in the sidebar to compare."
    )
    st.stop()
names = (
    [*label_sets(page.store), *version_label_sets(page.store)]
    if granted.can_review and not page.present
    else [JUDGE, HUMAN]
)
offered = team_queue.blind_label_sets(names, page.store, page.annotator)
if offered != names:  # a blind round: no one else's labels until their examples are adjudicated
    st.caption(
        "A blind labelling round is on: you compare the judge's labels and your own (the gold labels too once"
        " every assignment is decided); other annotators' labels are for admins."
    )
    names = offered
a, b = ui.label_set_pickers(names)
if a == b:
    st.info("Choose two different label sets.")
    st.stop()

comparison = results.comparison(a, b)
if not comparison.common:  # no totals of nothing compared
    ui.no_difference(a, b, 0)
    st.stop()
ui.totals_metrics(comparison.common, len(comparison.diffs), comparison.totals)
if not comparison.diffs:
    ui.no_difference(a, b, comparison.common)
    st.stop()

ui.diff_table(comparison.table, a, b, download=granted.can_export and not page.present)
ui.example_links(comparison.diffs)
