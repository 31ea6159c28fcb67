"""Phoenix's evaluations in the app (issue 37 follow-up, item 1): "Open from Phoenix" turns a trace's document
relevance and hallucination evaluations into the judge's labels (the Review page marks every sentence of the
relevant document), says which judge version they are, and shows Phoenix's evaluations with how they map. A real
Phoenix server, `streamlit run` and Debian chromium."""

from __future__ import annotations

import re
import uuid

import pytest

from ragviz.export.traces.phoenix import phoenix_client
from tests.browser_wait import FRESH, expect, metric_value, sentence, settle
from tests.traces.test_phoenix_browser import open_from_phoenix
from tests.traces.test_phoenix_import import wait_for_traces
from tests.traces.trace_log import journey_traces, log_traces

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_open_from_phoenix_makes_its_evaluations_the_judges_labels(phoenix_url, streamlit_server, page, screenshot):
    project = f"app-evals-{uuid.uuid4().hex[:8]}"
    spans = log_traces(phoenix_url, project, journey_traces()[:1])  # three documents of one and two sentences
    wait_for_traces(phoenix_url, project, 1)
    root = next(s for s in spans if s.parent is None)
    retriever = next(s for s in spans if s.name == "retrieve")
    trace_id = format(root.context.trace_id, "032x")
    client = phoenix_client(phoenix_url, None)
    client.spans.log_span_annotations(
        span_annotations=[{"name": "hallucination", "annotator_kind": "LLM", "span_id": format(root.context.span_id,
                           "016x"), "result": {"label": "hallucinated", "explanation": "Mountains are not <b>in</b> it."}}],
        sync=True,
    )  # fmt: skip
    client.spans.log_document_annotations(
        document_annotations=[{"name": "relevance", "annotator_kind": "LLM", "span_id": format(retriever.context.span_id,
                               "016x"), "document_position": 0, "result": {"label": "relevant"}}],
        sync=True,
    )  # fmt: skip

    open_from_phoenix(page, streamlit_server.url, phoenix_url, project)
    expect()(page.locator('[data-testid="stSidebar"]')).to_contain_text("Loaded: 1 examples")
    note = "judge labels from Phoenix evaluations: 1 examples as judge version phoenix-hallucination_relevance"
    expect()(page.get_by_text(note)).to_be_visible()

    page.goto(f"{streamlit_server.url}/review?id={trace_id}")
    expect()(metric_value(page, "Relevance")).to_be_visible()
    settle(page)
    for key in ("0a", "0b"):  # document 0 judged relevant: both of its sentences
        expect()(sentence(page, key)).to_have_class(re.compile(r"\brv-relevant\b"))
    for key in ("1a", "2a"):
        expect()(sentence(page, key)).not_to_have_class(re.compile(r"\brv-relevant\b"))
    shown = page.locator(FRESH).filter(has_text="Phoenix evaluations of this trace").last
    expect()(shown).to_contain_text("relevance (document 0): relevant")
    expect()(shown).to_contain_text("hallucination: hallucinated — Mountains are not <b>in</b> it.")  # escaped
    expect()(shown).to_contain_text("every sentence of a relevant document is relevant")
    screenshot(page, "review-phoenix-evaluations")
