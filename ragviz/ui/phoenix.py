"""Traces in the app: the Data page's "Open from Phoenix" tab and the Review page's link back to an example's
trace. The API key typed here lives in the widget for this run only: it is never put in the session's kept state,
the store, a file or a log."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from ragviz.export.traces.phoenix import trace_link
from ragviz.ui.core import render

__all__ = ["PHOENIX_URL_ENV", "PHOENIX_URL_KEY", "PhoenixRequest", "phoenix_base_url", "phoenix_tab", "trace_link_line"]

#: Where the team's Phoenix is, for the Review page's trace links (also set by "Open from Phoenix").
PHOENIX_URL_ENV = "RAGVIZ_PHOENIX_URL"
PHOENIX_URL_KEY = "traces.phoenix_url"


@dataclass(frozen=True)
class PhoenixRequest:
    """A Phoenix project to open: its server, project, the newest *limit* traces, the key typed (or None)."""

    url: str
    project: str
    limit: int
    api_key: str | None


def phoenix_tab() -> PhoenixRequest | None:
    """The tab's fields and button; the request on the run the button is pressed."""
    st.caption(
        "A Phoenix project's RAG traces, one example per trace: the question from the root span, the documents of "
        "its retriever span in position order, the answer. Traces without documents or an answer are listed and left "
        "out. See docs/from-your-traces.md."
    )  # md: ours
    url = st.text_input("Phoenix URL", key="data.phoenix.url", placeholder="http://localhost:6006")
    project = st.text_input("Project", key="data.phoenix.project")
    limit = st.number_input(
        "Newest traces", min_value=1, max_value=100_000, value=1000, step=100, key="data.phoenix.limit"
    )
    key = st.text_input(
        "API key (only if the server asks for one; used for this request, never stored)",
        type="password",
        key="data.phoenix.key",
    )
    pressed = st.button("Open from Phoenix", key="data.phoenix.open", disabled=not (url.strip() and project.strip()))
    if not pressed:
        return None
    return PhoenixRequest(url.strip(), project.strip(), int(limit), key.strip() or None)


def phoenix_base_url() -> str | None:
    """The Phoenix the links point to: the one opened in this session, else ``$RAGVIZ_PHOENIX_URL``."""
    return st.session_state.get(PHOENIX_URL_KEY) or os.environ.get(PHOENIX_URL_ENV) or None


def trace_link_line(side_car: Mapping[str, Any] | None, base_url: str | None) -> None:
    """ "Open its trace in Phoenix" under the example's header, when it came from a trace and a Phoenix is known."""
    if not isinstance(side_car, Mapping) or not side_car.get("trace_id") or not base_url:
        return
    href = trace_link(base_url, str(side_car["trace_id"]))
    st.html(
        f'<div style="font-family:system-ui,sans-serif;font-size:0.85rem">'
        f'<a href="{render.esc(href)}" target="_blank" rel="noopener">Open its trace in Phoenix ↗</a>'
        f' <span style="color:#57606a">(trace {render.esc(str(side_car["trace_id"]))})</span></div>'
    )
