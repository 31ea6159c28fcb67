"""The first screen's pieces: what ragviz does, what is loaded and how far the review is, the one
"Start reviewing" action, and a 30-second tour of the sentence keys on the sample's worked example."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ragviz.analysis.overview import Overview
from ragviz.analysis.review.edits import document_spans, response_spans
from ragviz.analysis.review.queue import Progress
from ragviz.data.model import Example
from ragviz.ui.core import render, state

__all__ = [
    "NO_SAMPLE",
    "TOUR_EXAMPLE_ID",
    "WHAT_RAGVIZ_DOES",
    "intro",
    "loaded",
    "nothing_loaded",
    "tour",
    "tour_example",
]


WHAT_RAGVIZ_DOES = (
    "ragviz shows an LLM judge's labels of RAG answers on the text itself: which context sentences are "
    "relevant and utilized, and which response sentences they support. You accept or correct those labels, "
    "watch the metrics (RAGBench TRACe, RagChecker, Tonic, retrieval, EM/F1) recompute as you go, and export "
    "the corrected labels."
)
TOUR_EXAMPLE_ID = "ml-vs-programming"  # the sample's worked example
#: Where the sample data is missing (an installed ragviz: the wheel does not carry it).
NO_SAMPLE = "This install has no sample data: it is the sample_data folder of a checkout of ragviz's repository."


def tour_example() -> Example | None:
    """The sample's worked example (from the bundled sample data, whatever else is loaded); ``None`` where this
    install has no sample data."""
    if not state.SAMPLE_DATA.is_dir():
        return None
    ds = state.load_result((str(state.SAMPLE_DATA),)).dataset
    rows = ds.indices_of_id(TOUR_EXAMPLE_ID)
    return ds.example(rows[0]) if rows else None


def intro() -> None:
    st.title("ragviz")
    st.markdown(WHAT_RAGVIZ_DOES)


def nothing_loaded(on_load_sample: Callable[[], None] | None, sample_here: bool = True) -> None:
    """With nothing loaded: the one action is loading the sample data (or going to the Data page);
    *on_load_sample* ``None``: this person may not load data (served: admins only); *sample_here* off: this install
    has no sample data (:data:`NO_SAMPLE`), and the Data page is the one way."""
    with st.container(border=True):
        st.subheader("Nothing is loaded yet")
        if on_load_sample is None:
            st.caption("An admin of this app loads the data (RAGVIZ_DATA, or the Data page).")
            return
        if not sample_here:
            st.caption(NO_SAMPLE)  # md: ours
            st.page_link("pages/data.py", label="Open your own file on the Data page", icon=":material/folder_open:")
            return
        st.button(
            "Load the sample data",
            key="home.load_sample",
            type="primary",
            on_click=on_load_sample,
            help="About 20 hand-written examples in the RAGBench schema.",
        )
        st.page_link("pages/data.py", label="Or open your own file on the Data page", icon=":material/folder_open:")


def loaded(
    view: Overview, prog: Progress | None, annotator: str, on_start: Callable[[], None], present: bool = False
) -> None:
    """What is loaded (examples, subsets, who labelled them), the annotator's progress (*prog*; ``None``
    in presentation mode: no name, nothing about what was corrected), and the primary "Start reviewing"
    button (*on_start* opens the Review page where the annotator was)."""
    with st.container(border=True):
        st.subheader("What is loaded")
        c1, c2, c3 = st.columns(3)
        c1.metric("Examples", f"{view.examples:,}")
        c2.metric("Subsets", f"{len(view.subsets):,}")
        if prog is not None:
            c3.metric("Reviewed by you", f"{prog.reviewed:,} / {prog.total:,}", help=f"{prog.corrected:,} corrected")
            st.progress(prog.fraction, text=f"{render.md_escape(annotator, 80)}: {prog}")
        st.html(
            f'<div class="rv-overview" style="font-size:0.9rem;line-height:1.7">'
            f"<div><b>Subsets:</b> {render.esc(view.subsets_text())}</div>"
            f"<div><b>Labelled by:</b> {render.esc(view.labelled_by_text())}</div></div>"
        )
        with st.container(horizontal=True, vertical_alignment="center"):
            label = (
                "Show the examples" if prog is None else "Continue reviewing" if prog.reviewed else "Start reviewing"
            )
            if st.button(label, key="home.start", type="primary", icon=":material/fact_check:"):  # md: ours
                on_start()
            if not present:
                st.page_link("pages/data.py", label="Load other data", icon=":material/folder_open:")


def tour(example: Example | None, present: bool = False) -> None:
    """Sentence keys and shortcuts, shown on the sample's worked example (*example*; a text-only
    tour when the sample is not at hand). *present*: only the keys that move, since nothing can be
    accepted or undone on a projector."""
    with st.container(border=True):
        st.subheader("The 30-second tour")
        st.markdown(
            "Every sentence has a **key**. A context sentence's key is its document's number and a letter: "
            "**0a** is the first sentence of document 0, **1b** the second of document 1. A response sentence's "
            "key is a letter alone: **a**, **b**. The coloured chip before each sentence shows its key and the "
            "judge's label:"
        )
        st.html(render.legend_html())
        if example is not None and example.labels is not None:
            a_support = example.labels.support_for("a")
            backing = ", ".join(a_support.supporting_keys) if a_support is not None else ""
            st.markdown(
                f"In the sample's worked example, response sentence **a** is supported by **{render.md_escape(backing)}**; "
                "selecting **a** on the Review page outlines those context sentences. Here is its first document and "
                "its response:"
            )
            st.html(render.document_html(0, document_spans(example, example.labels, "a")[0]))
            st.html(render.response_html(response_spans(example, example.labels, "a")))
        if present:
            st.markdown("On the Review page, move through the examples with **J** next · **K** previous.")
        else:
            st.markdown(
                "On the Review page, correct a label where you see it, and use the keys: "
                "**J** next · **K** previous · **N** next unreviewed · **A** accept · **Z** undo."
            )
