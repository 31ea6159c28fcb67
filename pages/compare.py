"""Compare two label sets: per example, the keys added/removed and verdicts flipped, with the metric change each caused."""

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from ragviz.analysis.compare import (
    HUMAN,
    JUDGE,
    DiffTotals,
    ExampleDiff,
    diff_label_sets,
    diff_totals,
    label_set_names,
    resolve_label_set,
)
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.ui import state
from ragviz.ui.state import require_app_shell

require_app_shell()

store = state.require_data().store


@dataclass(frozen=True)
class Comparison:
    """What the page shows for one pair of label sets."""

    diffs: list[ExampleDiff]
    common: int
    totals: DiffTotals
    table: pd.DataFrame


@st.cache_resource(show_spinner="Comparing…", max_entries=16)
def _compare(
    paths: tuple[str, ...], store_path: str, a: str, b: str, store_version: tuple[int, int], _store
) -> Comparison:
    """Everything the page shows for *a* vs *b*, once per data, label store (path and version) and
    pair: it walks every example. Shared read-only (never modified after it is built)."""
    dataset = state.load_result(paths).dataset
    examples = state.examples_of(paths)
    set_a = resolve_label_set(dataset, a, _store, examples=examples)
    set_b = resolve_label_set(dataset, b, _store, examples=examples)
    diffs = diff_label_sets(dataset, set_a, set_b)
    return Comparison(
        diffs, len(set_a.shared_rows(set_b)), diff_totals(diffs), pd.DataFrame([d.as_row() for d in diffs])
    )


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

comparison = _compare(state.current_paths(), str(store.path), a, b, store.data_version(), store)
diffs, common, totals, table = comparison.diffs, comparison.common, comparison.totals, comparison.table
cols = st.columns(5)
cols[0].metric("examples compared", f"{common:,}")
cols[1].metric("examples that differ", f"{len(diffs):,}")
cols[2].metric("relevant keys ±", f"+{totals.relevant_added} / −{totals.relevant_removed}")
cols[3].metric("utilized keys ±", f"+{totals.utilized_added} / −{totals.utilized_removed}")
cols[4].metric("verdicts flipped", f"{totals.verdicts_flipped}")

if not diffs:
    st.success(f"{a} and {b} agree on every example they both cover." if common else f"{a} and {b} share no example.")
    st.stop()

st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    column_config={f"Δ {m}": st.column_config.NumberColumn(format="%+.3f") for m in TRACE_METRICS},
)
st.download_button(
    "Download the diff (CSV)",
    lambda: table.to_csv(index=False),
    file_name=f"diff-{a}-vs-{b}.csv",
    mime="text/csv",
    icon=":material/download:",
    on_click="ignore",
)
st.subheader("Open an example")
for d in diffs[:50]:
    st.page_link(
        "pages/review.py",
        label=f"{d.uid} — {d.n_changes} change(s)",
        query_params={"uid": d.uid},
        icon=":material/arrow_forward:",
    )
if len(diffs) > 50:
    st.caption(f"… and {len(diffs) - 50} more in the table above.")
