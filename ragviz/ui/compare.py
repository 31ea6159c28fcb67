"""The Compare page's pieces: the two label-set pickers, the totals of the differences, the diff
table with its CSV download, and links to the examples that differ."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from ragviz.analysis.labelsets.diff import DiffTotals, ExampleDiff
from ragviz.analysis.labelsets.named import HUMAN, JUDGE
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.export.records import csv_line
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.ui.core import render
from ragviz.ui.core.label_link import keep_in_url, labels_from_url

__all__ = [
    "LABEL_SETS_HELP",
    "MAX_LINKS",
    "diff_csv",
    "diff_table",
    "example_links",
    "label_set_pickers",
    "no_difference",
    "totals_metrics",
]


LABEL_SETS_HELP = (
    "llm = the judge's labels; human = per example and label field, the latest human decision (as the team's "
    "export); judge:NAME = the labels judge version NAME stored; any other name = that annotator. "
    "Only examples both sets cover are compared (a person's set covers the examples they decided on)."
)
MAX_LINKS = 50  # examples linked under the table


def label_set_pickers(names: list[LabelSelection]) -> tuple[LabelSelection, LabelSelection]:
    """The label sets the person compares: A (before, the judge's by default) and B (after: human by default, else
    the one the page's link names, ``?labels=judge:v2``; kept in the link)."""
    after = HUMAN if HUMAN in names else names[-1]  # a blind round offers no "human"
    st.session_state.setdefault("compare.a", JUDGE)
    labels_from_url(names, "compare.b")
    st.session_state.setdefault("compare.b", after)
    col_a, col_b = st.columns(2)
    a = col_a.selectbox("Label set A (before)", names, format_func=str, key="compare.a")
    b = col_b.selectbox("Label set B (after)", names, format_func=str, key="compare.b")
    st.caption(LABEL_SETS_HELP + " The page's link carries B (?labels=, as ragviz agreement --against names it).")
    b = b or after
    keep_in_url(b, after, "compare.b")
    return a or JUDGE, b


def totals_metrics(n_compared: int, n_differ: int, totals: DiffTotals) -> None:
    cols = st.columns(5)
    cols[0].metric("examples compared", f"{n_compared:,}")
    cols[1].metric("examples that differ", f"{n_differ:,}")
    cols[2].metric("relevant keys ±", f"+{totals.relevant_added} / −{totals.relevant_removed}")
    cols[3].metric("utilized keys ±", f"+{totals.utilized_added} / −{totals.utilized_removed}")
    cols[4].metric("verdicts flipped", f"{totals.verdicts_flipped}")


def no_difference(a: str, b: str, n_compared: int) -> None:
    """No difference between *a* and *b* over the *n_compared* examples both cover; none covered by both is no
    agreement (it was said in green, under "examples that differ 0")."""
    if n_compared:
        st.success(f"{render.md_escape(a)} and {render.md_escape(b)} agree on every example they both cover.")
        return
    st.info(
        f"{render.md_escape(a)} and {render.md_escape(b)} share no example: nothing to compare yet. A person's labels "
        "(and human) cover only the examples someone decided on; review some on the Review page."
    )


def diff_csv(table: pd.DataFrame) -> str:
    """The diff as CSV, text cells neutralised against spreadsheet formulas and quoted when they hold a line
    break (:func:`ragviz.export.records.csv_line`); an empty cell for a missing value."""
    rows = table.astype(object).where(table.notna(), None).itertuples(index=False, name=None)
    return csv_line(list(table.columns)) + "".join(csv_line(row) for row in rows)


def diff_table(table: pd.DataFrame, a: str, b: str, download: bool = True) -> None:
    """The differences, one row per example, with the metric changes signed; downloadable as CSV (only
    when *download*: never for viewers and visitors, nor while presenting)."""
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config={f"Δ {m}": st.column_config.NumberColumn(format="%+.3f") for m in TRACE_METRICS},
    )
    if not download:
        return
    st.download_button(
        "Download the diff (CSV)",
        lambda: diff_csv(table),
        file_name=f"diff-{a}-vs-{b}.csv",
        mime="text/csv",
        icon=":material/download:",
        on_click="ignore",
    )


def example_links(diffs: Sequence[ExampleDiff]) -> None:
    """Links to the Review page for the first :data:`MAX_LINKS` examples that differ."""
    st.subheader("Open an example")
    for d in diffs[:MAX_LINKS]:
        st.page_link(
            "pages/review.py",
            label=f"{render.md_escape(d.uid)} — {d.n_changes} change(s)",
            query_params={"uid": d.uid},
            icon=":material/arrow_forward:",
        )
    if len(diffs) > MAX_LINKS:
        st.caption(f"… and {len(diffs) - MAX_LINKS} more in the table above.")
