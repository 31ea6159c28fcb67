"""The Export page's pieces: the progress figures, what an export holds, the download buttons, the
per-example metrics table and the equivalent command line."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import streamlit as st

from ragviz.analysis.review_queue import Progress
from ragviz.export.files import MIME_TYPES, export_filename

DOWNLOADS = {
    "jsonl": "Download labels (JSONL)",
    "parquet": "Download labels (Parquet)",
    "csv": "Download metrics (CSV)",
    "ragas": "Download Ragas dataset (JSONL)",
    "deepeval": "Download DeepEval test cases (JSON)",
}
WHAT_AN_EXPORT_HOLDS = (
    "The export holds **every loaded example** with the current labels of the annotator named in the sidebar "
    "(the judge's labels where nothing was changed), scores recomputed from those labels, `llm_`-prefixed copies "
    "of the judge's original labels, and provenance (`label_source`, `reviewer`, `reviewed_at`). "
    "Loading an export back gives exactly the same labels and scores. The Ragas dataset "
    "(`EvaluationDataset.from_jsonl`) holds the texts and the retrieval ids, your corrected gold ids as "
    "`reference_context_ids`; the DeepEval test cases carry everything else in `additional_metadata.ragbench`."
)
TABLE_SHOWN_UP_TO = 500  # examples: larger data shows the metrics table only on request


def progress_metrics(n_examples: int, progress: Progress) -> None:
    """The loaded examples and how many the annotator reviewed and corrected."""
    c1, c2, c3 = st.columns(3)
    c1.metric("Examples", f"{n_examples:,}")
    c2.metric("Reviewed by you", f"{progress.reviewed:,}")
    c3.metric("Corrected by you", f"{progress.corrected:,}")


def what_an_export_holds() -> None:
    st.markdown(WHAT_AN_EXPORT_HOLDS)


def _deferred(build: Callable[[str], bytes], fmt: str) -> Callable[[], bytes]:
    return lambda: build(fmt)


def download_buttons(who: str, build: Callable[[str], bytes]) -> None:
    """One download button per format; *build* makes a format's bytes, only when the person clicks
    (a full export touches every example)."""
    with st.container(horizontal=True):
        for fmt, label in DOWNLOADS.items():
            st.download_button(
                label,  # md: ours
                data=_deferred(build, fmt),
                file_name=export_filename(who, fmt),
                mime=MIME_TYPES[fmt],
                key=f"export.{fmt}",
                type="primary" if fmt == "jsonl" else "secondary",
                on_click="ignore",
            )


def show_table_toggle(n_examples: int) -> bool:
    """Whether the person wants the per-example metrics table (on by default for small data)."""
    return st.toggle("Show the table", value=n_examples <= TABLE_SHOWN_UP_TO, key="export.show_table")


def metrics_table(table: pd.DataFrame) -> None:
    st.dataframe(table, hide_index=True, width="stretch")


def command_line(db: Path, who: str) -> None:
    """The ``ragviz export`` command that writes the same labels."""
    st.code(
        f"ragviz export --db {shlex.quote(str(db))} -o labels.jsonl --annotator {shlex.quote(who)}", language="bash"
    )
