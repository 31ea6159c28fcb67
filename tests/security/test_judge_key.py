"""Issue 16, the judge's key: the server's OPENAI_API_KEY goes only to the server's configured endpoint; a
Base URL typed in the page needs the person's own key, and when served a place on RAGVIZ_JUDGE_URLS; what
such a server answers is shown only as labels or a short error."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ragviz.data.load import load
from ragviz.judge.client import DEFAULT_BASE_URL, NO_KEY_PLACEHOLDER, JudgeConfigError
from ragviz.judge.endpoint import endpoint_access
from tests.apptest_helpers import open_page_as
from tests.openai_stub_server import StubServer
from tests.sample import SAMPLE_DATA

SERVER_KEY = "sk-server-Secret-0123456789"
USER_KEY = "sk-user-Own-9876543210"


@pytest.fixture
def server():
    with StubServer() as stub:
        yield stub


def test_the_server_key_goes_only_to_the_configured_endpoint():
    env = {"OPENAI_API_KEY": SERVER_KEY, "OPENAI_BASE_URL": "https://llm.corp/v1/"}
    own = endpoint_access("", None, served=True, environ=env)
    assert (own.base_url, own.api_key, own.own) == ("https://llm.corp/v1", SERVER_KEY, True)
    assert endpoint_access("https://llm.corp/v1", None, served=True, environ=env).api_key == SERVER_KEY
    assert (
        endpoint_access(None, None, served=False, environ={"OPENAI_API_KEY": SERVER_KEY}).base_url == DEFAULT_BASE_URL
    )

    local_other = endpoint_access("http://169.254.169.254/latest", None, served=False, environ=env)
    assert local_other.api_key == NO_KEY_PLACEHOLDER and not local_other.own
    assert endpoint_access("http://localhost:8000/v1", USER_KEY, served=False, environ=env).api_key == USER_KEY

    with pytest.raises(JudgeConfigError, match="RAGVIZ_JUDGE_URLS"):
        endpoint_access("http://169.254.169.254/latest", USER_KEY, served=True, environ=env)
    allowed = {**env, "RAGVIZ_JUDGE_URLS": "https://api.together.xyz/v1, http://vllm.corp:8000"}
    with pytest.raises(JudgeConfigError, match="your own key"):
        endpoint_access("https://api.together.xyz/v1", None, served=True, environ=allowed)
    ok = endpoint_access("https://api.together.xyz/v1", USER_KEY, served=True, environ=allowed)
    assert ok.api_key == USER_KEY and not ok.own
    assert endpoint_access("http://vllm.corp:8000/v1", USER_KEY, served=True, environ=allowed).api_key == USER_KEY
    for bad in ["https://api.together.xyz/v1evil", "https://api.together.xyz.evil.com/v1", "http://vllm.corp:8001/v1"]:
        with pytest.raises(JudgeConfigError):
            endpoint_access(bad, USER_KEY, served=True, environ=allowed)
    with pytest.raises(JudgeConfigError, match="http"):
        endpoint_access("file:///etc/passwd", USER_KEY, served=False, environ=env)


def _label_page(monkeypatch, server: StubServer, key: str = "") -> AppTest:
    monkeypatch.setenv("OPENAI_API_KEY", SERVER_KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("RAGVIZ_ADMINS", "lead@example.org")  # served, only a signed-in admin runs the judge
    at = open_page_as("pages/label.py", "lead@example.org")
    at.text_input(key="label.model").set_value("gpt-4o-mini")
    at.text_input(key="label.base_url").set_value(server.base_url)
    at.text_input(key="label.api_key").set_value(key)
    at.segmented_control(key="label.selection").set_value("first_k").run()
    at.number_input(key="label.k").set_value(1).run()
    return at


def test_a_typed_base_url_never_gets_the_server_key(app_env, monkeypatch, server):
    at = _label_page(monkeypatch, server)
    assert any("your own key" in c.value for c in at.caption)
    at.button(key="label.run").click().run(timeout=60)
    assert not at.exception
    assert server.requests and all(SERVER_KEY not in r.authorization for r in server.requests)


def test_served_a_typed_base_url_must_be_allowed_and_keyed(app_env, monkeypatch, server):
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    at = _label_page(monkeypatch, server)
    # the Run button is off, and the reason is said above it
    assert at.button(key="label.run").disabled and server.requests == []
    assert any("RAGVIZ_JUDGE_URLS" in i.value.replace("\\", "") for i in at.info)

    monkeypatch.setenv("RAGVIZ_JUDGE_URLS", server.base_url)
    at.run()
    assert at.button(key="label.run").disabled and server.requests == []
    assert any("your own key" in i.value.replace("\\", "") for i in at.info)

    at.text_input(key="label.api_key").set_value(USER_KEY).run()
    at.button(key="label.run").click().run(timeout=60)
    assert not at.exception
    assert [r.authorization for r in server.calls] == [f"Bearer {USER_KEY}"]


def test_a_typed_servers_answer_is_shown_only_as_a_short_error(app_env, monkeypatch, server):
    first = list(load([str(SAMPLE_DATA)]).dataset)[0]
    server.script[first.question] = ["malformed"] * 3
    at = _label_page(monkeypatch, server, key=USER_KEY)
    at.button(key="label.run").click().run(timeout=60)
    assert not at.exception
    assert not any("cut off" in c.value for c in at.code)  # the raw answer is not shown
    assert all(len(t.value) <= 300 for t in at.text)
