"""A move on the Review page asks the server for nothing over HTTP (issue 38): the tab's icon is the app's own PNG as a
``data:`` URL. Served from Streamlit's ``/media/`` (no cache header), Chrome fetched it again on every J, since the
bar's script puts the example in the URL: one more request for the server beside the run, on every move."""

from __future__ import annotations

import pytest

from tests.browser_wait import expect, open_review, press, settle

pytestmark = pytest.mark.browser


def test_the_tab_keeps_its_icon_and_a_move_fetches_nothing(streamlit_server, page):
    page.set_viewport_size({"width": 1280, "height": 800})
    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    icon = page.locator("link[rel='shortcut icon']")
    assert icon.get_attribute("href").startswith("data:image/png;base64,")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    where = page.locator(".rv-head > div").first
    for _ in range(2):
        before = where.inner_text()
        press(page, "j")
        expect()(where).not_to_have_text(before)
        settle(page)
    assert [u for u in asked if u.startswith(streamlit_server.url)] == []
    assert icon.get_attribute("href").startswith("data:image/png;base64,")
