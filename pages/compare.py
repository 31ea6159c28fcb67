"""Compare page: a person picks two label sets (the judge's, the latest human decisions, one annotator's)
and sees, per example, the keys added or removed and the verdicts flipped, with the metric change each
caused; from there they open an example on the Review page."""

import streamlit as st

from ragviz.analysis.labelsets.named import label_set_names
from ragviz.ui import compare as ui
from ragviz.ui.core import results, state

state.require_app_shell()

store = state.require_data().store

st.title("Compare label sets")
a, b = ui.label_set_pickers(label_set_names(store))
if a == b:
    st.info("Choose two different label sets.")
    st.stop()

comparison = results.comparison(a, b)
ui.totals_metrics(comparison.common, len(comparison.diffs), comparison.totals)
if not comparison.diffs:
    ui.no_difference(a, b, comparison.common)
    st.stop()

ui.diff_table(comparison.table, a, b)
ui.example_links(comparison.diffs)
