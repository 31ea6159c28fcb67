"""The Phoenix round trip as a person makes it in the app (issue 37, item 5): the Data page's "Open from Phoenix"
opens a project's traces, the Review page links each example back to its trace (in a new session too: the store
remembers where the file came from), a person's clicks on context sentences are her corrections, the Export page's
"Push to Phoenix" puts them on the trace's spans, and ``ragviz push phoenix`` then finds nothing left to send. A real Phoenix server,
`streamlit run` and Debian chromium; every wait is on what is asserted."""

from __future__ import annotations

import re
import uuid

import pytest

from ragviz.cli.main import main
from ragviz.export.traces.phoenix import trace_link
from tests.browser_wait import FRESH, expect, metric_value, sentence, settle
from tests.traces.test_phoenix_import import wait_for_traces
from tests.traces.test_phoenix_push import document_annotations, span_annotations
from tests.traces.trace_log import journey_traces, log_traces

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def open_from_phoenix(page, app_url: str, phoenix_url: str, project: str) -> None:
    """The Data page's "Open from Phoenix" tab, filled and pressed as a person does."""
    page.goto(f"{app_url}/data")
    settle(page)
    page.get_by_role("tab", name="Open from Phoenix").click()
    expect()(page.get_by_label("Phoenix URL")).to_be_editable()
    page.get_by_label("Phoenix URL").fill(phoenix_url, timeout=60_000)
    page.get_by_label("Project").fill(project)
    page.get_by_label("Project").press("Enter")
    settle(page)
    page.get_by_role("button", name="Open from Phoenix").click()


def test_open_from_phoenix_review_with_a_trace_link_and_push(phoenix_url, streamlit_server, page, tmp_path, capsys):
    project = f"app-{uuid.uuid4().hex[:8]}"
    spans = log_traces(phoenix_url, project, journey_traces())
    wait_for_traces(phoenix_url, project, 7)
    first = next(s for s in spans if s.parent is None and s.name == "rag-query")  # the first trace's root
    trace_id = format(first.context.trace_id, "032x")

    open_from_phoenix(page, streamlit_server.url, phoenix_url, project)
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect()(sidebar).to_contain_text("Loaded: 5 examples")
    expect()(page.get_by_text("Traces left out of the last Phoenix project opened (2)")).to_be_visible()

    page.goto(f"{streamlit_server.url}/review?id={trace_id}")
    expect()(metric_value(page, "Relevance")).to_be_visible()
    settle(page)
    link = page.locator(f"{FRESH} a").filter(has_text="Open its trace in Phoenix")
    expect()(link).to_have_attribute("href", trace_link(phoenix_url, trace_id))
    sentence(page, "0a").click()  # her corrections: 0a and 2a relevant
    expect()(sentence(page, "0a")).to_have_class(re.compile(r"\brv-relevant\b"))
    settle(page)
    sentence(page, "2a").click()
    expect()(sentence(page, "2a")).to_have_class(re.compile(r"\brv-relevant\b"))
    settle(page)

    page.goto(f"{streamlit_server.url}/export")  # an admin pushes from the Export page
    settle(page)
    expect()(page.get_by_label("Server URL")).to_be_editable()
    page.get_by_label("Server URL").fill(phoenix_url, timeout=60_000)
    page.get_by_label("Server URL").press("Enter")
    settle(page)
    page.get_by_role("button", name="Push to Phoenix").click()
    expect()(page.get_by_text("Pushed 1 examples: 4 span and 6 document annotations")).to_be_visible()
    capsys.readouterr()
    assert main(["push", "phoenix", "--url", phoenix_url, "--db", str(streamlit_server.db)]) == 0
    assert "pushed 0 examples" in (err := capsys.readouterr().err) and "1 unchanged" in err  # one ledger
    root_span = format(first.context.span_id, "016x")
    got = {a["name"]: a for a in span_annotations(phoenix_url, project, [root_span])}
    assert got["ragviz.relevance"]["metadata"]["relevant_keys"] == ["0a", "2a"]
    assert got["ragviz.relevance"]["identifier"] == f"ragviz:{streamlit_server.annotator}"
    retriever = next(s for s in spans if s.context.trace_id == first.context.trace_id and s.name == "retrieve")
    documents = document_annotations(phoenix_url, project, format(retriever.context.span_id, "016x"))
    relevant = sorted(d["documentPosition"] for d in documents if d["name"] == "ragviz.relevant" and d["score"] == 1.0)
    assert relevant == [0, 2]

    # the app's link lands on the trace in Phoenix's own UI
    phoenix_page = page.context.new_page()
    phoenix_page.goto(trace_link(phoenix_url, trace_id))
    phoenix_page.wait_for_url(re.compile(rf"/projects/[^/]+/traces/{trace_id}"), timeout=60_000)
