"""Compare two label sets: per example, the keys added/removed and verdicts flipped, with the metric change each caused."""

import pandas as pd
import streamlit as st

from ragviz.compare import HUMAN, JUDGE, diff_label_sets, diff_totals, label_set_names, resolve_label_set
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.ui import state
from ragviz.ui.state import require_app_shell

require_app_shell()

store = state.require_data().store


@st.cache_data(show_spinner="Comparing…", max_entries=16)
def _diffs(paths: tuple[str, ...], a: str, b: str, store_version: tuple[int, int]):
    dataset = state.load_result(paths).dataset
    examples = state.examples_of(paths)
    set_a = resolve_label_set(dataset, a, state.store(), examples=examples)
    set_b = resolve_label_set(dataset, b, state.store(), examples=examples)
    common = len(set_a.shared_rows(set_b))
    return diff_label_sets(dataset, set_a, set_b), common


st.title("Compare label sets")
names = label_set_names(store)
col_a, col_b = st.columns(2)
a = col_a.selectbox("Label set A (before)", names, index=names.index(JUDGE), key="compare.a")
b = col_b.selectbox("Label set B (after)", names, index=names.index(HUMAN), key="compare.b")
st.caption(
    "llm = the judge's labels; human = each example's latest human decision; any other name = that annotator. "
    "Only examples both sets cover are compared (a person's set covers the examples they decided on)."
)
if a == b:
    st.info("Choose two different label sets.")
    st.stop()

diffs, common = _diffs(state.current_paths(), a, b, store.data_version())
totals = diff_totals(diffs)
cols = st.columns(5)
cols[0].metric("examples compared", f"{common:,}")
cols[1].metric("examples that differ", f"{len(diffs):,}")
cols[2].metric("relevant keys ±", f"+{totals.relevant_added} / −{totals.relevant_removed}")
cols[3].metric("utilized keys ±", f"+{totals.utilized_added} / −{totals.utilized_removed}")
cols[4].metric("verdicts flipped", f"{totals.verdicts_flipped}")

if not diffs:
    st.success(f"{a} and {b} agree on every example they both cover." if common else f"{a} and {b} share no example.")
    st.stop()

table = pd.DataFrame([d.as_row() for d in diffs])
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    column_config={f"Δ {m}": st.column_config.NumberColumn(format="%+.3f") for m in TRACE_METRICS},
)
st.download_button(
    "Download the diff (CSV)", table.to_csv(index=False), file_name=f"diff-{a}-vs-{b}.csv", mime="text/csv",
    icon=":material/download:", on_click="ignore",
)
st.subheader("Open an example")
for d in diffs[:50]:
    st.page_link("pages/review.py", label=f"{d.uid} — {d.n_changes} change(s)", query_params={"uid": d.uid}, icon=":material/arrow_forward:")
if len(diffs) > 50:
    st.caption(f"… and {len(diffs) - 50} more in the table above.")
