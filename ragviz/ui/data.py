"""The Data page's pieces: the annotator name, the "Load data" box (sample, upload, path), a refused
load's errors, and the report of what is loaded (counts, validation problems, label-quality flags)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from ragviz.analysis.quality.issues import issue_rows
from ragviz.data.limits import MB, UPLOAD_ENV, upload_limit_mb
from ragviz.data.load import LoadResult
from ragviz.data.problems import Problem
from ragviz.store.uploads import shown_name
from ragviz.ui.core import render
from ragviz.ui.core.keys import ANNOTATOR_INPUT, LAST_UPLOAD
from ragviz.ui.home import NO_SAMPLE
from ragviz.ui.phoenix import PhoenixRequest, phoenix_tab

if TYPE_CHECKING:
    from streamlit.runtime.uploaded_file_manager import UploadedFile

    from ragviz.ui.core.filters import QualityReport

__all__ = [
    "ANNOTATOR_INPUT",
    "LAST_UPLOAD",
    "LoadRequest",
    "MAX_ERRORS_SHOWN",
    "annotator_box",
    "load_box",
    "loaded_report",
    "quality_heading",
    "quality_report",
    "rejected_notice",
    "upload_limit",
    "uploads_box",
]


MAX_ERRORS_SHOWN = 500  # of a refused load


def annotator_box(
    annotator: str,
    known: Sequence[str],
    on_change: Callable[[], None],
    *,
    sign_in: bool = False,
    verified: bool = False,
) -> None:
    """The annotator's name (*on_change* reads it from ``st.session_state[ANNOTATOR_INPUT]``) and
    the annotators with saved work in the database. With sign-in configured (*sign_in*) the name is
    the signed-in user's and cannot be typed (*verified*: someone is signed in)."""
    with st.container(border=True):
        st.subheader("Annotator")
        if sign_in and verified:
            st.markdown(f"Signed in as **{render.md_escape(annotator)}**: your decisions are kept under this name.")
        elif sign_in:
            st.info("Sign in (sidebar) to review under your own name.")
        else:
            st.text_input(
                "Your name (labels are kept per annotator)",
                value=annotator,
                key=ANNOTATOR_INPUT,
                on_change=on_change,
                max_chars=80,
            )
        if known:
            st.caption("Annotators with saved work in this database:")
            st.dataframe(pd.DataFrame({"annotator": known}), hide_index=True, height=min(36 * (len(known) + 1), 180))


@dataclass(frozen=True)
class LoadRequest:
    """What the person asked for in the "Load data" box on this run: add to the loaded data (else
    replace it), load the sample data, use a newly uploaded file, open a typed path, open a Phoenix project."""

    add: bool
    sample: bool
    upload: UploadedFile | None
    path: str | None
    phoenix: PhoenixRequest | None = None


def load_box(
    sample_name: str, path_off: str | None = None, sample_loaded: bool = False, sample_here: bool = True
) -> LoadRequest:
    """The "Load data" box: one tab each for the sample data (folder *sample_name*), an upload and
    a path. An upload is returned once, on the run it arrives. *path_off* (a sentence) disables the
    path field and says why (served without a data folder). *sample_loaded*: the sample is what is
    loaded (its button is then a plain one: loading it again is not the next step); *sample_here* off: this install
    has none (the tab says so, its button is off, and the box opens on the upload instead)."""
    with st.container(border=True):
        st.subheader("Load data")
        add = st.checkbox("Add to the data already loaded (instead of replacing it)", key="data.add")
        sample_tab, upload_tab, path_tab, phoenix_tab_ = st.tabs(
            ["Sample data", "Upload a file", "Open a path", "Open from Phoenix"],
            default=None if sample_here else "Upload a file",  # not on a tab whose one button is off
        )
        with sample_tab:
            loaded_note = " It is loaded now." if sample_loaded else ""
            st.caption(
                f"About 20 hand-written examples in the RAGBench schema ({sample_name}/).{loaded_note}"
                if sample_here
                else NO_SAMPLE + " Upload a file or open a path in the other tabs."
            )  # md: ours
            sample = st.button(
                "Load the sample data",
                key="data.load_sample",
                type="secondary" if sample_loaded or not sample_here else "primary",
                disabled=not sample_here,
            )
        with upload_tab:
            cap = upload_limit()
            up = st.file_uploader(
                "RAGBench Parquet, JSONL, JSON or CSV (raw {question, documents, response} rows are split into sentences)",
                type=["parquet", "jsonl", "json", "csv"],
                key="data.upload",
                max_upload_size=cap,
                help=f"Up to {cap} MB (server.maxUploadSize / {UPLOAD_ENV}). The same file uploaded twice is kept once.",
            )
            new_upload = up is not None and st.session_state.get(LAST_UPLOAD) != up.file_id
            if up is not None and new_upload:
                st.session_state[LAST_UPLOAD] = up.file_id
        with path_tab:
            typed = st.text_input(
                "A file or a directory (e.g. a folder of RAGBench Parquet shards, as Hugging Face publishes them)",
                key="data.path",
                disabled=path_off is not None,
            )
            if path_off is not None:
                st.caption(path_off)  # md: ours
            opened = st.button("Open", key="data.open", disabled=path_off is not None or not typed.strip())
        with phoenix_tab_:
            phoenix = phoenix_tab()
    return LoadRequest(add, sample, up if new_upload else None, typed.strip() if opened else None, phoenix)


def upload_limit() -> int:
    """The upload cap in MB (:func:`ragviz.data.limits.upload_limit_mb`)."""
    return upload_limit_mb(st.get_option("server.maxUploadSize"))


def uploads_box(uploads: Sequence[Path], on_remove: Callable[[str], None]) -> None:
    """The uploads the store keeps, each with its size and a Remove button (*on_remove* gets its path)."""
    if not uploads:
        return
    with st.expander(f"Uploaded files kept ({len(uploads)})"):
        st.caption("Removing an upload deletes the kept file; label decisions on its examples stay in the store.")
        for i, path in enumerate(uploads):
            row = st.container(horizontal=True, vertical_alignment="center")
            size = path.stat().st_size / MB if path.exists() else 0.0
            row.markdown(f"{render.md_escape(shown_name(path.name), 120)} · {size:,.1f} MB")
            row.button("Remove", key=f"data.remove_upload.{i}", on_click=on_remove, args=(str(path),))


def rejected_notice(rejected: tuple[str, list[str]] | None) -> None:
    """The errors of the last load that was refused: ``(what was loaded, error lines)``."""
    if not rejected:
        return
    _, errors = rejected
    st.error(f"Not loaded — {len(errors)} error(s). The data already loaded and your saved work are unchanged.")
    st.html(render.problems_html(errors[:MAX_ERRORS_SHOWN], "error"))


def loaded_report(paths: Sequence[str], result: LoadResult, full_paths: bool = True) -> None:
    """The paths loaded (only their file names unless *full_paths*: where uploads are kept is next to
    the label store, which only admins see), the examples per subset, and the validation errors and warnings."""
    ds = result.dataset
    st.html(render.problems_html(paths if full_paths else [Path(p).name for p in paths], "info"))  # escaped
    subsets = pd.Series(ds.datasets).value_counts().rename_axis("dataset").reset_index(name="examples")
    c1, c2, c3 = st.columns(3)
    c1.metric("Examples", f"{len(ds):,}")
    c2.metric("Errors", len(result.errors))
    c3.metric("Warnings", len(result.warnings))
    st.dataframe(subsets, hide_index=True)
    if len(ds):  # (nothing loaded: the Review page would only say so)
        st.page_link("pages/review.py", label="Start reviewing", icon=":material/fact_check:")
    if result.errors:
        st.markdown("**Validation errors** (these rows were skipped)")
        st.dataframe(pd.DataFrame([_problem_row(p, full_paths) for p in result.errors]), hide_index=True)
    if result.warnings:
        with st.expander(f"Validation warnings ({len(result.warnings)})"):
            st.dataframe(pd.DataFrame([_problem_row(p, full_paths) for p in result.warnings]), hide_index=True)


def _problem_row(problem: Problem, full_path: bool) -> dict[str, object]:
    """A load problem as a table row: where (the row blank for the whole file) and what; its level is the table's."""
    return {
        "path": problem.path if full_path else Path(problem.path).name,
        "row": "" if problem.row is None else str(problem.row),
        "field": problem.field,
        "message": problem.message,
    }


def quality_heading() -> None:
    st.subheader("Label-quality report")
    st.caption(
        "Counted on the labels as loaded (the judge's). Fix them on the Review page; “Normalize” fixes the mechanical ones."
    )


def quality_report(report: QualityReport, n_examples: int, max_detailed: int) -> None:
    """The label-quality flags of the loaded labels: per kind, and one by one for the first
    *max_detailed* flagged examples."""
    if not report.counts:
        st.success("No label-quality issue found.")
        return
    st.dataframe(pd.DataFrame(issue_rows(report.counts, report.example_counts)), hide_index=True)
    st.caption(
        f"{report.flagged:,} of {n_examples:,} examples have at least one flag (filter “Has label-quality flags” on Review)."
    )
    with st.expander(f"The flags one by one (first {max_detailed} flagged examples)"):
        st.dataframe(pd.DataFrame(report.rows), hide_index=True)
