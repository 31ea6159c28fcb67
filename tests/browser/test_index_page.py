"""The app as ``ragviz app`` serves it (serve.py, ragviz.ui.core.index_page), in chromium: a page's URL connects to
the server at once (no probe of the page's path first) with the first page's scripts already asked for, and the
page list's links, Back and the example in the URL work as before."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from ragviz.data.load import load
from tests.browser_wait import expect, open_review
from tests.sample import SAMPLE_DATA

pytestmark = pytest.mark.browser


def test_a_review_link_connects_at_once_and_draws_its_example(looking_server, chromium_browser):
    uid = load([str(SAMPLE_DATA)]).dataset.uids[1]
    url = looking_server.url
    warm = chromium_browser.new_context()
    open_review(warm.new_page(), f"{url}/review")  # the app's first run has registered the text editor
    warm.close()

    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(30_000)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    try:
        open_review(page, f"{url}/review?uid={quote(uid, safe='')}")
        expect()(page).to_have_title("Example 2 of 22 · Review · ragviz")
        editor = [u for u in asked if u.endswith("/ragviz.sentence_editor/editor.js")]
        assert [u for u in asked if "/review/_stcore/" in u] == []  # Streamlit's probe of the page's path
        assert len(editor) == 1  # preloaded by the page, used by Streamlit's loader
        assert asked.index(editor[0]) < asked.index(f"{url}/_stcore/health")  # asked before Streamlit connects

        page.get_by_role("navigation", name="Pages").get_by_role("link", name="Data", exact=True).click()
        expect()(page).to_have_url(f"{url}/data")  # the page list's links under the app's root, as before
        expect()(page.get_by_role("heading", name="Data", exact=True)).to_be_visible()
        page.go_back()
        expect()(page).to_have_url(re.compile(rf"^{re.escape(url)}/review\?uid="))
        expect()(page).to_have_title("Example 2 of 22 · Review · ragviz")
    finally:
        context.close()
