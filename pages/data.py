"""Data page: load the sample data, upload a file or open a path; see the validation and label-quality
report; choose the annotator name."""

from pathlib import Path

import pandas as pd
import streamlit as st

from ragviz.analysis.quality import ISSUE_DESCRIPTIONS
from ragviz.data.load import load, load_bytes
from ragviz.ui import render, state
from ragviz.ui.state import FILTER_CACHE

state.require_app_shell()

LAST_PROBLEM = "data.rejected"
LAST_UPLOAD = "data.last_upload"

st.title("Data")


def set_annotator() -> None:
    name = (st.session_state.get("data.annotator") or "").strip()
    if name:
        st.session_state[state.ANNOTATOR_KEY] = name
        st.session_state.pop("review.index", None)  # resume where this annotator was


def use_paths(paths: list[str], add: bool) -> None:
    """Switch to *paths* (or add them) only when they load without errors; else keep what is loaded."""
    wanted = tuple(dict.fromkeys([*(state.current_paths() if add else ()), *paths]))
    result = load(list(paths))
    if not result.ok:
        st.session_state[LAST_PROBLEM] = (", ".join(paths), [str(p) for p in result.errors])
        return
    st.session_state[LAST_PROBLEM] = None
    state.set_paths(wanted)
    st.session_state.pop("review.index", None)
    st.session_state.pop(FILTER_CACHE, None)


# -- annotator --------------------------------------------------------------------------------------
with st.container(border=True):
    st.subheader("Annotator")
    known = state.store().annotators()
    st.text_input(
        "Your name (labels are kept per annotator)",
        value=state.annotator(),
        key="data.annotator",
        on_change=set_annotator,
        max_chars=80,
    )
    if known:
        st.caption("Annotators with saved work in this database:")
        st.dataframe(pd.DataFrame({"annotator": known}), hide_index=True, height=min(36 * (len(known) + 1), 180))

# -- load -------------------------------------------------------------------------------------------
with st.container(border=True):
    st.subheader("Load data")
    add = st.checkbox("Add to the data already loaded (instead of replacing it)", key="data.add")
    sample, upload, path = st.tabs(["Sample data", "Upload a file", "Open a path"])
    with sample:
        st.caption(f"About 20 hand-written examples in the RAGBench schema ({state.SAMPLE_DATA.name}/).")
        if st.button("Load the sample data", key="data.load_sample", type="primary"):
            use_paths([str(state.SAMPLE_DATA)], add)
    with upload:
        up = st.file_uploader(
            "RAGBench Parquet, JSONL, JSON or CSV (raw {question, documents, response} rows are split into sentences)",
            type=["parquet", "jsonl", "json", "csv"],
            key="data.upload",
        )
        if up is not None and st.session_state.get(LAST_UPLOAD) != up.file_id:
            st.session_state[LAST_UPLOAD] = up.file_id
            data = up.getvalue()
            checked = load_bytes(up.name, data)
            if not checked.ok:
                st.session_state[LAST_PROBLEM] = (up.name, [str(p) for p in checked.errors])
            else:
                saved = state.store().save_upload(up.name, data)
                use_paths([str(saved)], add)
    with path:
        typed = st.text_input(
            "A file or a directory (e.g. a folder of RAGBench Parquet shards: ../shared/ragbench)", key="data.path"
        )
        if st.button("Open", key="data.open", disabled=not typed.strip()):
            target = Path(typed.strip()).expanduser()
            use_paths([str(target)], add)

rejected = st.session_state.get(LAST_PROBLEM)
if rejected:
    name, errors = rejected
    st.error(f"Not loaded — {len(errors)} error(s). The data already loaded and your saved work are unchanged.")
    st.html(render.problems_html(errors[:500], "error"))

# -- report -----------------------------------------------------------------------------------------
paths = state.current_paths()
with st.container(border=True):
    st.subheader("What is loaded")
    if not paths:
        st.info("Nothing loaded yet.")
        st.stop()
    result = state.load_result(paths)
    ds = result.dataset
    st.html(render.problems_html(paths, "info"))  # the paths, escaped
    subsets = pd.Series(ds.datasets).value_counts().rename_axis("dataset").reset_index(name="examples")
    c1, c2, c3 = st.columns(3)
    c1.metric("Examples", f"{len(ds):,}")
    c2.metric("Errors", len(result.errors))
    c3.metric("Warnings", len(result.warnings))
    st.dataframe(subsets, hide_index=True)
    st.page_link("pages/review.py", label="Start reviewing", icon=":material/fact_check:")
    if result.errors:
        st.markdown("**Validation errors** (these rows were skipped)")
        st.dataframe(pd.DataFrame([p.__dict__ for p in result.errors]), hide_index=True)
    if result.warnings:
        with st.expander(f"Validation warnings ({len(result.warnings)})"):
            st.dataframe(pd.DataFrame([p.__dict__ for p in result.warnings]), hide_index=True)

with st.container(border=True):
    st.subheader("Label-quality report")
    st.caption(
        "Counted on the labels as loaded (the judge's). Fix them on the Review page; “Normalize” fixes the mechanical ones."
    )
    report = state.quality_report()
    if not report.counts:
        st.success("No label-quality issue found.")
    else:
        st.dataframe(
            pd.DataFrame(
                [
                    (k, ISSUE_DESCRIPTIONS.get(k, k), n, report.example_counts.get(k, 0))
                    for k, n in sorted(report.counts.items(), key=lambda kv: -kv[1])
                ],
                columns=["issue", "what", "occurrences", "examples"],
            ),
            hide_index=True,
        )
        st.caption(
            f"{report.flagged:,} of {len(ds):,} examples have at least one flag (filter “Has label-quality flags” on Review)."
        )
        with st.expander(f"The flags one by one (first {state.MAX_DETAILED} flagged examples)"):
            st.dataframe(pd.DataFrame(report.rows), hide_index=True)
