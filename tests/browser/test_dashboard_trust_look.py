"""The Dashboard's "How much can we trust the judge?" table at 1280 px, after a person reviewed 12 examples (enough
for intervals) and corrected some: it fits
beside the sidebar, every column in view (16 columns, a figure and its interval per label kind, ran ~280 px past the
page: accuracy and its interval, TP..TN out of view); and the RAGBench baseline judges' table on a RAGBench shard (a
column per judge and figure ran ~480 px past it). Headless chromium on servers started from the sample data and from a
RAGBench shard."""

from __future__ import annotations

import pytest

from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser_wait import FRESH, expect, settle
from tests.conftest import StreamlitServer
from tests.ragbench_data import require_ragbench, shard
from tests.sample import SAMPLE_DATA

pytestmark = pytest.mark.browser


def test_the_judge_trust_table_shows_every_column_at_1280(streamlit_server, page):
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(streamlit_server.db) as store:
        for i in range(12):
            ex = ds.example(i)
            if ex.labels is None:
                continue
            keys = list(ex.labels.relevant_keys)
            change = Change("relevant_keys", keys, keys[1:]) if i % 2 else Change(REVIEW_FIELD, None, REVIEWED)
            store.record(ex.uid, "ana", [change], example=ex)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{streamlit_server.url}/dashboard")
    heading = page.locator(FRESH).get_by_role("heading", name="How much can we trust the judge?")
    expect()(heading).to_be_visible()
    settle(page)
    assert_table_under_fits(page, heading)


def assert_table_under_fits(page, heading) -> None:
    """The first table under *heading* shows all its columns (its grid's scroller is no wider than shown)."""
    heading.scroll_into_view_if_needed()
    table = heading.locator("xpath=following::*[@data-testid='stDataFrame'][1]")
    table.scroll_into_view_if_needed()
    expect()(table).to_be_visible()
    size = table.evaluate(
        "t => { const s = t.querySelector('.dvn-scroller'); return {scroll: s.scrollWidth, shown: s.clientWidth}; }"
    )
    assert 0 < size["shown"] and size["scroll"] <= size["shown"] + 1, size


def test_the_baseline_judges_table_shows_every_column_at_1280(tmp_path, page):
    require_ragbench()
    (tmp_path / "home").mkdir()
    server = StreamlitServer(
        db=tmp_path / "labels.db", home=tmp_path / "home", log=tmp_path / "app.log", data=str(shard("covidqa"))
    )
    server.start()
    try:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(f"{server.url}/dashboard")
        heading = page.locator(FRESH).get_by_role("heading", name="RAGBench baseline judges against the current labels")
        expect()(heading).to_be_visible()
        settle(page)
        assert_table_under_fits(page, heading)
    finally:
        server.stop()
