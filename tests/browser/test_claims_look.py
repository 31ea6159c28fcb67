"""The Claims page at 1280 px, RagChecker's own example open: the score tables show every column (side by side, each
in half the page, both ran past their half: "Δ" and "file ×100" were out of view), and so do the two claim matrices
(their four chunks' columns ran 168 px past the page). Headless chromium on a server
started from the sample data; the grid's scroller says whether its columns fit."""

from __future__ import annotations

import pytest

from tests.browser_wait import FRESH, expect, settle

pytestmark = pytest.mark.browser

SCROLLERS_JS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')].map(t => {
  const s = t.querySelector('.dvn-scroller'); return s ? {scroll: s.scrollWidth, shown: s.clientWidth} : null; })"""


def test_the_matrices_and_score_tables_show_every_column_at_1280(streamlit_server, page):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{streamlit_server.url}/claims")
    page.get_by_role("button", name="Open RagChecker's example").click(timeout=90_000)
    expect()(page.locator(FRESH).get_by_text("This item", exact=False).first).to_be_visible()
    settle(page)
    tables = page.locator('[data-testid="stDataFrame"]')
    expect()(tables).to_have_count(4)  # the two claim matrices, then this item's values and all items' means
    page.wait_for_function(f"() => ({SCROLLERS_JS})().every(s => s && s.shown > 0)")
    sizes = page.evaluate(SCROLLERS_JS)
    assert all(s["scroll"] <= s["shown"] + 1 for s in sizes), sizes
