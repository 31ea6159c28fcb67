"""The Label page under AppTest, judging the sample data through the local stub server."""

from __future__ import annotations

import sqlite3

import pytest
from streamlit.testing.v1 import AppTest

from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page
from tests.openai_stub_server import StubServer
from tests.sample import SAMPLE_DATA

KEY = "sk-test-PageSecret-55c0ffee11"


@pytest.fixture
def server():
    with StubServer() as stub:
        yield stub


def open_label(app_env, monkeypatch) -> AppTest:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return open_page("pages/label.py")


def fill_settings(at: AppTest, server: StubServer, key: str = KEY) -> None:
    at.text_input(key="label.model").set_value("gpt-4o-mini")
    at.text_input(key="label.base_url").set_value(server.base_url)
    at.text_input(key="label.api_key").set_value(key)
    at.run()


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_label_first_k_lands_in_store_and_key_stays_in_session(app_env, monkeypatch, server):
    examples = list(load([str(SAMPLE_DATA)]).dataset)
    at = open_label(app_env, monkeypatch)
    fill_settings(at, server)
    at.segmented_control(key="label.selection").set_value("first_k").run()
    at.number_input(key="label.k").set_value(3).run()
    assert metric(at, "Examples") == "3" and metric(at, "Calls needed") == "3"
    assert metric(at, "Cost (est.)").startswith("$")

    at.button(key="label.run").click().run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    assert len(server.calls) == 3
    assert (
        metric(at, "Judged") == "3" and metric(at, "Failed") == "0" and metric(at, "Requests") == "4"
    )  # + the format probe
    results = at.dataframe[0].value
    assert list(results["status"]) == ["judged"] * 3
    with LabelStore(app_env["db"]) as store:
        for ex in examples[:3]:
            labels = store.judge.labels(ex.uid)
            assert labels is not None and labels.provenance.name == "gpt-4o-mini"
        assert store.judge.labels(examples[3].uid) is None
    # After the run the estimate shows them as cached; running again makes no request.
    assert metric(at, "Already cached") == "3" and metric(at, "Calls needed") == "0"
    at.button(key="label.run").click().run(timeout=60)
    assert len(server.calls) == 3 and metric(at, "Cached") == "3"

    with sqlite3.connect(app_env["db"]) as conn:
        conn.execute("PRAGMA wal_checkpoint(FULL)")
    for f in app_env["tmp"].rglob("*"):
        if f.is_file():
            assert KEY.encode() not in f.read_bytes(), f


def test_failures_show_raw_output_as_text(app_env, monkeypatch, server):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)  # the configured judge: its raw answers are shown
    examples = list(load([str(SAMPLE_DATA)]).dataset)
    server.script[examples[0].question] = ["malformed"] * 3
    at = open_label(app_env, monkeypatch)
    fill_settings(at, server)
    at.segmented_control(key="label.selection").set_value("first_k").run()
    at.number_input(key="label.k").set_value(2).run()
    at.button(key="label.run").click().run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    assert metric(at, "Failed") == "1" and metric(at, "Judged") == "1"
    assert any("not valid JSON" in e.label for e in at.expander)
    assert any(c.value.startswith('{"relevance_explanation": "cut off"') for c in at.code)
    with LabelStore(app_env["db"]) as store:
        assert store.judge.labels(examples[0].uid) is None
        assert store.judge.labels(examples[1].uid) is not None


def test_missing_key_for_openai_is_a_clear_message(app_env, monkeypatch, server):
    at = open_label(app_env, monkeypatch)
    at.segmented_control(key="label.selection").set_value("first_k").run()
    assert at.button(key="label.run").disabled  # Run stays off until the judge can run, and says why
    note = " ".join(i.value for i in at.info)
    assert "needs an OpenAI API key" in note and "OPENAI\\_API\\_KEY on the server" in note
    assert "--" not in note  # plain words, no CLI flags
    assert server.requests == []


def _rejudge_script():
    import streamlit as st

    from ragviz.ui.core import state
    from ragviz.ui.core.access import access
    from ragviz.ui.label import page as ui
    from ragviz.ui.review.page import rejudge_help

    ds = state.dataset()
    if st.button(
        "Re-judge", key="review.rejudge", help=rejudge_help(access().can_judge)
    ):  # the Review page's bar has it; a click
        ui.rejudge(ds.example(0))  # asks the judge again
    st.caption(f"version {state.redraw_count()}")


def test_rejudge_makes_the_new_labels_the_review_base(app_env, monkeypatch, server):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    first = list(load([str(SAMPLE_DATA)]).dataset)[0]
    at = AppTest.from_function(_rejudge_script, default_timeout=60)
    at.session_state["label.model"] = "gpt-4o-mini"
    at.session_state["label.base_url"] = server.base_url
    at.session_state["label.api_key"] = KEY
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="review.rejudge").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(server.calls) == 1 and any("now the base for review" in s.value for s in at.success)
    with LabelStore(app_env["db"]) as store:
        assert store.base_labels(first).provenance.name == "gpt-4o-mini"
    server.script[first.question] = ["malformed"] * 3
    at.button(key="review.rejudge").click().run()
    assert any("not usable" in e.value for e in at.error)
    with LabelStore(app_env["db"]) as store:
        assert store.base_labels(first).provenance.name == "gpt-4o-mini"  # unchanged by the failure


def test_rejudge_on_review_uses_the_base_url_and_key_typed_on_the_label_page(app_env, monkeypatch, server):
    """Issue 29.7: the Base URL and key typed on the Label page used to be dropped on changing page, so
    the Review page's "Re-judge this example" called the server's own judge (here: no key, refused)
    while its help said "with the settings of the Label page". Now they last the session and the help
    names them."""
    from tests.apptest_helpers import _run_page

    at = open_label(app_env, monkeypatch)
    fill_settings(at, server)
    at = _run_page(at, "pages/review.py", {"id": "ml-vs-programming"})
    from tests.apptest_helpers import press, toolbar_button

    words = toolbar_button(at, "rejudge")["help"]  # the button's title, plain text
    assert server.base_url in words and "the key typed there" in words
    assert KEY not in words
    press(at, "rejudge")
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert len(server.calls) == 1 and any("now the base for review" in s.value for s in at.success)
    assert server.requests[-1].authorization == f"Bearer {KEY}"
