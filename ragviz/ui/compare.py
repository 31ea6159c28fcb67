"""The Compare page's pieces: the two label-set pickers, the totals of the differences, the diff
table with its CSV download, and links to the examples that differ."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from ragviz.analysis.labelsets.diff import DiffTotals, ExampleDiff
from ragviz.analysis.labelsets.named import HUMAN, JUDGE
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.export.records import csv_line
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.ui.core import queue_settings, render
from ragviz.ui.core.label_link import keep_in_url, labels_from_url

__all__ = [
    "LABEL_SETS_HELP",
    "MAX_LINKS",
    "SHOWN_WIDTHS",
    "diff_csv",
    "diff_table",
    "shown_diff",
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
    """The totals in two rows of three columns: five in one row cut "+104 / −11" to "+104 / −…" at 1280 px."""
    top, bottom = st.columns(3), st.columns(3)
    top[0].metric("examples compared", f"{n_compared:,}")
    top[1].metric("examples that differ", f"{n_differ:,}")
    top[2].metric("verdicts flipped", f"{totals.verdicts_flipped:,}")
    bottom[0].metric("relevant keys ±", f"+{totals.relevant_added:,} / −{totals.relevant_removed:,}")
    bottom[1].metric("utilized keys ±", f"+{totals.utilized_added:,} / −{totals.utilized_removed:,}")


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


#: The table's columns at 1280 px (818 px for the table beside the sidebar), in px: Streamlit stretches them to a
#: wider window. Every header shows whole, and a uid up to ~42 characters; each example's number of changes is in its
#: link below the table and in the CSV (a "changes" column left the uids cut at 34 characters).
SHOWN_WIDTHS = {
    "uid": 292,
    "relevant ±": 92,
    "utilized ±": 92,
    "verdicts flipped": 116,
    "Δ relevance": 54,
    "Δ utilization": 54,
    "Δ completeness": 62,
    "Δ adherence": 54,
}
_SHORT = {"relevance": "Δ rel", "utilization": "Δ util", "completeness": "Δ compl", "adherence": "Δ adh"}
_VERDICT = {"supported": "✓", "unsupported": "✗"}


def _signed(added: str, removed: str) -> str:
    """``+0a +1c −0b``: the keys a list gained and lost, in one cell."""
    return " ".join([*(f"+{k}" for k in added.split()), *(f"−{k}" for k in removed.split())])


def _flips(flipped: str) -> str:
    """``a: supported→unsupported, b: …`` as ``a ✓→✗, b …``."""
    return re.sub(r"\b(un)?supported\b", lambda m: _VERDICT[m.group(0)], flipped).replace(": ", " ")


def shown_diff(table: pd.DataFrame) -> pd.DataFrame:
    """The diff *table* as the page shows it, narrow enough for 1280 px: each list's added and removed keys in one
    column (``+0a −0b``), verdict flips as ``a ✓→✗``, no count of changes (each example's link says it); the CSV
    keeps the table's own columns and words.

    >>> t = pd.DataFrame([{"uid": "u", "changes": 3, "relevant +": "0a 1c", "relevant −": "0b", "utilized +": "",
    ...     "utilized −": "", "verdicts flipped": "a: supported→unsupported, c: unsupported→supported"}])
    >>> shown_diff(t).iloc[0].to_dict()
    {'uid': 'u', 'relevant ±': '+0a +1c −0b', 'utilized ±': '', 'verdicts flipped': 'a ✓→✗, c ✗→✓'}
    """
    shown = table[["uid"]].copy()
    for name in ("relevant", "utilized"):
        shown[f"{name} ±"] = [_signed(a, r) for a, r in zip(table[f"{name} +"], table[f"{name} −"], strict=True)]
    shown["verdicts flipped"] = [_flips(f) for f in table["verdicts flipped"]]
    for column in table.columns:
        if column.startswith("Δ "):
            shown[column] = table[column]
    return shown


def diff_table(table: pd.DataFrame, a: str, b: str, download: bool = True) -> None:
    """The differences, one row per example, with the metric changes signed (:func:`shown_diff`: no sideways
    scrolling at 1280 px); downloadable as CSV (only when *download*: never for viewers and visitors, nor while
    presenting)."""
    config = {
        column: st.column_config.Column(width=width)
        for column, width in SHOWN_WIDTHS.items()
        if not column.startswith("Δ ")
    }
    config["relevant ±"] = st.column_config.Column(
        width=SHOWN_WIDTHS["relevant ±"], help="relevant keys B adds (+) and removes (−) from A's"
    )
    config["utilized ±"] = st.column_config.Column(
        width=SHOWN_WIDTHS["utilized ±"], help="utilized keys B adds (+) and removes (−) from A's"
    )
    config["verdicts flipped"] = st.column_config.Column(
        width=SHOWN_WIDTHS["verdicts flipped"],
        help="response sentences whose verdict differs: a ✓→✗ = supported in A, unsupported in B",
    )
    for m in TRACE_METRICS:
        config[f"Δ {m}"] = st.column_config.NumberColumn(
            _SHORT.get(m, f"Δ {m}"),  # md: ours (ragviz's metric names)
            format="%+.3f",
            width=SHOWN_WIDTHS.get(f"Δ {m}"),
            help=f"Δ {m}: B's minus A's",  # md: ours
        )
    st.dataframe(shown_diff(table), hide_index=True, width="stretch", column_config=config)
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
            query_params=queue_settings.review_query(d.uid),
            icon=":material/arrow_forward:",
        )
    if len(diffs) > MAX_LINKS:
        st.caption(f"… and {len(diffs) - MAX_LINKS} more in the table above.")
