"""The "Download report" button of the Dashboard and the Explainer: the stakeholder report of the loaded data
and the label store, built when clicked by :func:`ragviz.export.report.report_bytes` (what ``ragviz report``
calls), as HTML, and as PDF where WeasyPrint is installed (else its PDF button says what to install)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import streamlit as st

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.export.report import ReportRequest, pdf_unavailable, report_bytes, today
from ragviz.store.roles import can_download_report
from ragviz.ui.core import access, served, state
from ragviz.ui.core.present import FORCED_KEY

__all__ = ["download_report_button", "pdf_missing"]


@functools.cache
def pdf_missing() -> str | None:
    """What to install for PDF (``None``: PDF works here); asked once per process."""
    return pdf_unavailable()


def _report(against: LabelSelection, fmt: str) -> Callable[[], bytes]:
    """The report's bytes, built when the person clicks. What it reads from the session is read now, while the
    page runs: Streamlit calls the returned function outside the script run, where a session read logs
    "missing ScriptRunContext!" (44 lines a download)."""
    paths, store, dataset = state.current_paths(), state.store(), state.dataset()
    names = access.names_shown()  # a viewer's report names no one, as the app shows them no one
    store_shown = access.access().can_see_store  # where the store is: for admins only, as in the app

    def build() -> bytes:
        date = today()
        request = ReportRequest(
            paths=paths,
            db=store.location,  # the file, or the URL with its password masked: only its name is shown
            date=date,
            against=against,
            output=f"ragviz-report-{date}.{fmt}",
            format=fmt,
            names=names,
            store_shown=store_shown,
        )
        return report_bytes(dataset, store, request)

    return build


def download_report_button(against: LabelSelection, key: str, present: bool) -> None:
    """ "Download report" (HTML; and PDF when WeasyPrint is there) for those allowed
    (:func:`ragviz.store.roles.can_download_report`); nothing for the others, nor in a presentation someone
    chose (*present* without being a viewer: a projector shows no download button)."""
    chosen_presentation = present and not st.session_state.get(FORCED_KEY)
    granted = access.access()
    if chosen_presentation or not can_download_report(granted, served.served()) or not len(state.dataset()):
        return
    name = f"ragviz-report-{today()}"
    with st.container(horizontal=True):
        st.download_button(
            "Download report",
            data=_report(against, "html"),
            file_name=f"{name}.html",
            mime="text/html",
            key=f"{key}.html",
            icon=":material/summarize:",
            on_click="ignore",
            help="One HTML file for stakeholders: what people would say, how far the judge can be trusted, the "
            "distributions, worked examples and provenance. Opens offline; prints to A4 / Letter.",
        )
        missing = pdf_missing()
        if missing:
            st.button(
                "PDF", key=f"{key}.pdf", icon=":material/picture_as_pdf:", disabled=True, help=missing
            )  # md: ours
            st.caption("PDF needs WeasyPrint: `pip install 'ragviz[pdf]'` (hover PDF for its system libraries)")
        else:
            st.download_button(
                "PDF",
                data=_report(against, "pdf"),
                file_name=f"{name}.pdf",
                mime="application/pdf",
                key=f"{key}.pdf",
                icon=":material/picture_as_pdf:",
                on_click="ignore",
            )
