"""Whether sign-in is configured (``[auth]`` in ``.streamlit/secrets.toml``) is looked up once a run: without a secrets
file every ``st.secrets`` lookup opens Streamlit's secrets paths again, and a run of the Review page asked 38 times
(76 files opened). A secrets file written between two runs still counts from the next run, as Streamlit reads it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import streamlit
from streamlit import config
from streamlit.runtime.secrets import Secrets
from streamlit.testing.v1 import AppTest

from tests.apptest_helpers import open_page

_opened: list[str] | None = None  # the secrets files opened while a test listens


def _listen(event: str, args: tuple) -> None:
    if event == "open" and _opened is not None and str(args[0]).endswith("secrets.toml"):
        _opened.append(str(args[0]))


sys.addaudithook(_listen)  # an audit hook cannot be removed: it only counts while _opened is a list


@pytest.fixture
def opened():
    global _opened
    _opened = []
    try:
        yield _opened
    finally:
        _opened = None


def test_a_run_of_the_review_page_reads_the_secrets_paths_once(app_env, opened):
    paths = config.get_option("secrets.files")
    if any(Path(p).exists() for p in paths):
        pytest.skip(f"a secrets file exists here ({paths}): Streamlit keeps it parsed, nothing is re-read")
    at = open_page("pages/review.py")
    assert len(opened) == len(paths), opened  # each path tried once (it was 76 opens: 2 paths x 38 lookups)
    at.run()
    assert not at.exception
    assert len(opened) == 2 * len(paths), opened  # the next run looks again: a file added since counts


def _shows_sign_in() -> None:
    import streamlit as st

    from ragviz.ui.core import served

    st.text(f"sign-in {served.sign_in_configured()} {served.sign_in_configured()}")


def test_a_secrets_file_written_between_runs_counts_from_the_next_run(tmp_path, monkeypatch):
    secrets_file = tmp_path / "secrets.toml"
    monkeypatch.setattr(streamlit, "secrets", Secrets())  # Streamlit's own reader, on a file of this test
    before = config.get_option("secrets.files")
    config.set_option("secrets.files", [str(secrets_file)])
    try:
        at = AppTest.from_function(_shows_sign_in, default_timeout=30)
        at.run()
        assert at.text[0].value == "sign-in False False"
        secrets_file.write_text(
            '[auth]\nredirect_uri = "http://127.0.0.1:8501/oauth2callback"\ncookie_secret = "x"\n', encoding="utf-8"
        )
        at.run()
        assert at.text[0].value == "sign-in True True"
    finally:
        config.set_option("secrets.files", before)
