"""Opening a page of the app under Streamlit's AppTest, the way every page test starts."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def open_page(page: str, **query: str) -> AppTest:
    """Run app.py switched to *page* (e.g. ``"pages/review.py"``) with *query* as URL query
    parameters; fail on any exception the page raised."""
    at = AppTest.from_file(APP, default_timeout=90)
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(page)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at
