"""Export page: the corrected label set (RAGBench schema, JSONL / Parquet) and per-example metrics (CSV)."""

import shlex

import pandas as pd
import streamlit as st

from ragviz.analysis.review_queue import progress
from ragviz.export.files import MIME_TYPES, export_bytes, export_filename
from ragviz.export.rows import metrics_records
from ragviz.ui import state

state.require_app_shell()

st.title("Export")

page = state.require_data()
ds, store, who = page.dataset, page.store, page.annotator
prog = progress(state.uid_set(), store.reviewed_uids(who), store.corrected_uids(who))

c1, c2, c3 = st.columns(3)
c1.metric("Examples", f"{len(ds):,}")
c2.metric("Reviewed by you", f"{prog.reviewed:,}")
c3.metric("Corrected by you", f"{prog.corrected:,}")

st.markdown(
    "The export holds **every loaded example** with the current labels of the annotator named in the sidebar "
    "(the judge's labels where nothing was changed), scores recomputed from those labels, `llm_`-prefixed copies "
    "of the judge's original labels, and provenance (`label_source`, `reviewer`, `reviewed_at`). "
    "Loading an export back gives exactly the same labels and scores."
)


def make(fmt: str):
    """Build the bytes only when the person clicks (a full export touches every example)."""
    return lambda: export_bytes(ds, store, who, fmt)


@st.cache_resource(show_spinner="Computing the metrics…", max_entries=8)
def _metrics_table(
    paths: tuple[str, ...], store_path: str, store_version: tuple[int, int], annotator: str, _store
) -> pd.DataFrame:
    """The per-example metrics table, once per data, label store (path and version) and annotator:
    it scores every example. Shared read-only (never modified after it is built)."""
    return pd.DataFrame(metrics_records(state.load_result(paths).dataset, _store, annotator))


DOWNLOADS = {
    "jsonl": "Download labels (JSONL)",
    "parquet": "Download labels (Parquet)",
    "csv": "Download metrics (CSV)",
}
with st.container(horizontal=True):
    for fmt, label in DOWNLOADS.items():
        st.download_button(
            label,
            data=make(fmt),
            file_name=export_filename(who, fmt),
            mime=MIME_TYPES[fmt],
            key=f"export.{fmt}",
            type="primary" if fmt == "jsonl" else "secondary",
            on_click="ignore",
        )

st.subheader("Per-example metrics (current labels)")
if st.toggle("Show the table", value=len(ds) <= 500, key="export.show_table"):
    table = _metrics_table(state.current_paths(), str(store.path), store.data_version(), who, store)
    st.dataframe(table, hide_index=True, width="stretch")

st.subheader("From the command line")
st.code(
    f"ragviz export --db {shlex.quote(str(store.path))} -o labels.jsonl --annotator {shlex.quote(who)}", language="bash"
)
