"""Traces in the app: the Data page's "Open from Phoenix" tab and the Review page's link back to an example's
trace. The API key typed here lives in the widget for this run only: it is never put in the session's kept state,
the store, a file or a log."""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from ragviz.data.dataset import PATH_COL, Dataset
from ragviz.data.formats.openinference import EVALUATIONS, SIDECAR
from ragviz.store.label_store import LabelStore
from ragviz.store.trace_pushes import record_trace_source, trace_source_url
from ragviz.ui.core import render

__all__ = [
    "EVALUATED_KEY",
    "MAPPING_NOTE",
    "MAPPING_RULES",
    "PHOENIX_URL_ENV",
    "PHOENIX_URL_KEY",
    "SKIPPED_KEY",
    "PhoenixRequest",
    "PushRequest",
    "evaluations_html",
    "open_phoenix",
    "phoenix_base_url",
    "phoenix_tab",
    "push_form",
    "push_result",
    "skipped_traces",
    "from_traces",
    "trace_for_row",
    "trace_link_line",
]

#: Where the team's Phoenix is, for the Review page's trace links of data not opened from Phoenix in the app.
PHOENIX_URL_ENV = "RAGVIZ_PHOENIX_URL"
PHOENIX_URL_KEY = "traces.phoenix_url"  # the last Phoenix opened in this session (the Export page's push default)
SKIPPED_KEY = "traces.skipped"  # the skipped-trace lines of the last "Open from Phoenix"
EVALUATED_KEY = "traces.evaluated"  # what the last "Open from Phoenix" made of the traces' evaluations
#: How Phoenix's evaluations map to the judge's labels, said where they are opened and shown.
MAPPING_RULES = (
    "hallucination / faithfulness → every response sentence supported or unsupported (the evaluator names no "
    "sentence); QA correctness → answer similarity 5 or 0; document relevance → every sentence of a relevant "
    "document is relevant, none of an unrelated or unevaluated one; labels no evaluator gives are empty"
)
MAPPING_NOTE = (
    "Phoenix's evaluations of kind LLM become the judge's labels, as a judge version named for the evaluators "
    f"(phoenix-<names>): {MAPPING_RULES}. Other evaluations are shown read-only."
)


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
        "its retriever span in position order (a reranker's output documents when it has one), the answer. Traces "
        "without documents or an answer are listed and left out. " + MAPPING_NOTE + " See docs/from-your-traces.md."
    )  # md: ours
    url = st.text_input("Phoenix URL", key="data.phoenix.url", placeholder="http://localhost:6006")
    project = st.text_input("Project", key="data.phoenix.project")
    limit = st.number_input(
        "Newest traces",
        min_value=1,
        max_value=100_000,
        value=1000,
        step=100,
        key="data.phoenix.limit",
        width=render.NUMBER_WIDTH,
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


def open_phoenix(request: PhoenixRequest, store: LabelStore, problem_key: str) -> str | None:
    """Read a Phoenix project's traces into a kept file (``phoenix-<project>.jsonl``, like an upload), registered
    with the server it came from; its path when it loads. A refusal (unreachable, unknown project, 401, no trace
    that can be an example, a load error) goes to ``st.session_state[problem_key]`` as (what, lines)."""
    from ragviz.data.errors import BadInput
    from ragviz.export.traces.evaluation_labels import save_evaluation_labels  # the judge's client: not for Review
    from ragviz.export.traces.phoenix import phoenix_traces
    from ragviz.export.traces.rows_file import rows_jsonl, skipped_lines
    from ragviz.ui.core import state

    st.session_state[problem_key] = None
    try:
        with st.spinner(f"Reading the traces of {request.project}…"):
            mapped = phoenix_traces(request.url, request.project, request.api_key, limit=request.limit)
    except BadInput as refused:
        st.session_state[problem_key] = (f"{request.url} {request.project}", refused.lines())
        return None
    skipped = skipped_lines(mapped.skipped, request.project)
    if not mapped.rows:
        st.session_state[problem_key] = (request.project, [*skipped, "no trace could be an example: nothing opened"])
        return None
    kept = store.sources.keep_upload(f"phoenix-{request.project}.jsonl", io.BytesIO(rows_jsonl(mapped.rows)))
    if not (result := state.load_result((str(kept),))).ok:
        st.session_state[problem_key] = (request.project, [str(p) for p in result.errors])
        return None
    store.sources.register_upload(kept)
    record_trace_source(store, kept.name, "phoenix", request.url)  # the Review page's links to each trace
    evaluated = save_evaluation_labels(store, result.dataset, state.annotator())
    st.session_state[PHOENIX_URL_KEY] = request.url  # the Export page's push
    st.session_state[SKIPPED_KEY] = skipped
    st.session_state[EVALUATED_KEY] = evaluated.lines()
    return str(kept)


def skipped_traces() -> None:
    """What the last "Open from Phoenix" made of the traces' evaluations, and the traces it left out (folded)."""
    if evaluated := st.session_state.get(EVALUATED_KEY):
        st.html(render.problems_html(evaluated, "info", prose=True))
    lines = st.session_state.get(SKIPPED_KEY)
    if not lines:
        return
    with st.expander(f"Traces left out of the last Phoenix project opened ({len(lines)})"):
        st.html(render.problems_html(lines[:500], "warning"))


def phoenix_base_url(store: LabelStore, data_path: str | None) -> str | None:
    """The Phoenix the Review page's links point to: the one the example's data file was opened from (the Data
    page records it in the store), else ``$RAGVIZ_PHOENIX_URL``."""
    from_file = trace_source_url(store, Path(data_path).name) if data_path else None
    return from_file or os.environ.get(PHOENIX_URL_ENV) or None


def from_traces(dataset: Dataset) -> bool:
    """Whether *dataset*'s rows may carry a trace's link or evaluations (:func:`trace_for_row` draws them)."""
    names = dataset.table.column_names
    return SIDECAR in names or EVALUATIONS in names


def trace_for_row(dataset: Dataset, index: int, store: LabelStore) -> None:
    """The Review page's link back to example *index*'s trace (nothing when it did not come from one)."""
    if not from_traces(dataset):
        return  # not data from traces: no row is read (a J reads the example's columns elsewhere)
    names = dataset.table.column_names
    wanted = [c for c in (SIDECAR, PATH_COL, EVALUATIONS) if c in names]
    row = dataset.table.select(wanted).slice(index, 1).to_pylist()[0]
    side_car = row.get(SIDECAR)
    if isinstance(side_car, Mapping) and side_car.get("trace_id"):  # the store is asked only for a trace's example
        trace_link_line(side_car, phoenix_base_url(store, row.get(PATH_COL)))
    if row.get(EVALUATIONS):
        st.html(evaluations_html(row[EVALUATIONS]))


def evaluations_html(evaluations: list[Mapping[str, Any]]) -> str:
    """The trace's Phoenix evaluations as Phoenix holds them: ``name (document N): label (score) — explanation``
    each, escaped, under how they map to the judge's labels."""
    items = []
    for e in evaluations:
        score = "" if e.get("score") is None else f" ({float(e['score']):.3g})"
        why = f" — {render.esc(str(e['explanation']))}" if e.get("explanation") else ""
        where = "" if e.get("document_position") is None else f" (document {int(e['document_position'])})"
        items.append(
            f"<li><b>{render.esc(str(e.get('name')))}</b>{where}: {render.esc(str(e.get('label') or '—'))}{score}{why}</li>"
        )
    return (
        '<div style="font-family:system-ui,sans-serif;font-size:0.85rem">Phoenix evaluations of this trace (opened '
        f"in the app or imported with --db, those that map are the judge's labels: {render.esc(MAPPING_RULES)}):"
        f'<ul style="margin:0.2rem 0">{"".join(items)}</ul></div>'
    )


def trace_link_line(side_car: Mapping[str, Any] | None, base_url: str | None) -> None:
    """ "Open its trace in Phoenix" under the example's header, when it came from a trace and a Phoenix is known."""
    if not isinstance(side_car, Mapping) or not side_car.get("trace_id") or not base_url:
        return
    from ragviz.export.traces.phoenix import trace_link  # ragviz.export: not on every page's first run (issue 38)

    href = trace_link(base_url, str(side_car["trace_id"]))
    st.html(
        f'<div style="font-family:system-ui,sans-serif;font-size:0.85rem">'
        f'<a href="{render.esc(href)}" target="_blank" rel="noopener">Open its trace in Phoenix ↗</a>'
        f' <span style="color:#57606a">(trace {render.esc(str(side_car["trace_id"]))})</span></div>'
    )


@dataclass(frozen=True)
class PushRequest:
    """Push the labels to *target* (``phoenix`` / ``langfuse``) at *url* with the keys typed (never kept)."""

    target: str
    url: str
    api_key: str | None
    documents_kind: str
    public_key: str | None = None
    secret_key: str | None = None


def push_form(default_url: str | None) -> PushRequest | None:
    """The Export page's "Push to Phoenix / Langfuse" (admins): the request on the run its button is pressed."""
    st.subheader("Push to Phoenix / Langfuse")
    st.caption(
        "The reviewed examples that came from traces go back as annotations (Phoenix) or scores (Langfuse) on their "
        "spans, once: only what changed since the last push to that server is sent. See docs/from-your-traces.md."
    )  # md: ours
    target = st.radio("To", ["Phoenix", "Langfuse"], horizontal=True, key="export.push.target")
    url = st.text_input("Server URL", value=default_url or "", key="export.push.url")
    api_key = public = secret = None
    kind = "HUMAN"
    if target == "Phoenix":
        api_key = st.text_input(
            "API key (if the server asks for one; never stored)", type="password", key="export.push.key"
        )
        as_llm = st.checkbox(
            "Send document labels as kind LLM (Phoenix's retrieval metrics, nDCG / precision / hit rate, count only "
            "those; Phoenix then cannot tell them from a model's)",
            key="export.push.llm",
        )
        kind = "LLM" if as_llm else "HUMAN"
    else:
        public = st.text_input("Public key", key="export.push.public")
        secret = st.text_input("Secret key (never stored)", type="password", key="export.push.secret")
    ready = bool(url.strip()) and (target == "Phoenix" or bool(public and secret))
    if not st.button(f"Push to {target}", key="export.push.go", disabled=not ready):  # md: ours
        return None
    return PushRequest(str(target).lower(), url.strip(), api_key or None, kind, public or None, secret or None)


def push_result(pushed: int, written: int, what: str, unchanged: int, refused: list[str]) -> None:
    """What a push did, and the examples refused (one line each)."""
    st.success(f"Pushed {pushed} examples: {written} {what}; {unchanged} unchanged since the last push.")  # md: ours
    if refused:
        st.warning(f"{len(refused)} examples refused:")  # md: ours
        st.html(render.problems_html(refused, "warning"))
