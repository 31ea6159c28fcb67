"""The Export page at 1280 px: the per-example metrics table fits the page (its nine columns ran 71 px past it, the
label source out of view), the id pinned and the other columns a person picks; the CSV download keeps every column.
Headless chromium on a server started from the sample data; the grid's scroller says whether its columns fit."""

from __future__ import annotations

import csv

import pytest

from ragviz.export.rows import METRICS_COLUMNS
from ragviz.ui.export.table import PREVIEW_COLUMNS
from tests.browser_wait import FRESH, expect, settle

pytestmark = pytest.mark.browser

SCROLLER_JS = """() => { const s = document.querySelector('[data-testid="stDataFrame"] .dvn-scroller');
  return s && s.clientWidth > 0 ? {scroll: s.scrollWidth, shown: s.clientWidth} : null; }"""


def _headers(page) -> list[str]:
    """The column headers the grid draws (its accessible table, drawn off screen: one ``th`` per shown column)."""
    grid = page.locator(f'{FRESH} [data-testid="stDataFrame"]')
    return grid.locator("th[role=columnheader]").evaluate_all("hs => hs.map(h => h.textContent.trim())")


def test_the_metrics_table_fits_at_1280_and_the_csv_keeps_every_column(streamlit_server, page, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{streamlit_server.url}/export")
    expect()(page.locator(f'{FRESH} [data-testid="stDataFrame"]')).to_be_visible(timeout=90_000)
    settle(page)
    page.wait_for_function(f"({SCROLLER_JS})() !== null")
    size = page.evaluate(SCROLLER_JS)
    assert size["scroll"] <= size["shown"] + 1, size  # nothing to scroll sideways to
    # the grid draws its accessible table a frame after its canvas: wait for the headers, then read them
    page.wait_for_function(
        f"() => document.querySelectorAll('[data-testid=stDataFrame] th[role=columnheader]').length === {len(PREVIEW_COLUMNS) + 1}"
    )
    assert _headers(page) == ["id", *PREVIEW_COLUMNS]

    # a column picked is shown, in the table's order; the id stays
    page.get_by_role("button", name="label_source", exact=True).click()
    settle(page)
    page.wait_for_function("() => document.querySelector('[data-testid=stDataFrame] table').ariaColCount === '8'")
    assert _headers(page) == ["id", *PREVIEW_COLUMNS, "label_source"]

    # the download holds every column, whatever the table shows
    page.get_by_role("radiogroup", name="Format").get_by_text("Metrics (CSV)").click()
    button = page.locator('[data-testid="stDownloadButton"] button').filter(has_text="Download metrics (CSV)")
    expect()(button).to_be_visible()
    with page.expect_download() as got:
        button.click()
    path = tmp_path / "metrics.csv"
    got.value.save_as(path)
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == list(METRICS_COLUMNS) and len(rows) == 23
