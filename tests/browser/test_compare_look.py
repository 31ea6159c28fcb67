"""The Compare page at 1280 px: the diff table fits beside the sidebar, every column in view (its 11 columns ran
~300 px past the page: "verdicts flipped" cut, the metric changes out of view), and the totals show whole (five in a
row cut "+104 / −11" to "+104 / −…"). Headless chromium on servers started from the sample data, after a person
changed an example's relevant keys and two verdicts, and from a RAGBench shard, after a person changed hundreds of
keys; the grid's scroller says whether its columns fit."""

from __future__ import annotations

import pytest

from ragviz.data.labels import Change, field_value, support_field
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser_wait import FRESH, expect, settle
from tests.conftest import StreamlitServer
from tests.ragbench_data import require_ragbench, shard
from tests.sample import SAMPLE_DATA

pytestmark = pytest.mark.browser

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"
SCROLLER_JS = """() => { const s = document.querySelector('[data-testid="stDataFrame"] .dvn-scroller');
  return s && s.clientWidth > 0 ? {scroll: s.scrollWidth, shown: s.clientWidth} : null; }"""


def test_the_diff_table_shows_every_column_at_1280(streamlit_server, page):
    ds = load([SAMPLE_DATA]).dataset
    ex = ds.example(ds.index_of(ML))
    with LabelStore(streamlit_server.db) as store:
        keys = list(ex.labels.relevant_keys)
        store.record(ML, "ana", [Change("relevant_keys", keys, keys[1:] + [ex.context_keys()[-1]])], example=ex)
        for s in ex.response_sentences[:2]:
            old = field_value(ex.labels, support_field(s.key))
            store.record(ML, "ana", [Change(support_field(s.key), old, dict(old, supported=not old["supported"]))])
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{streamlit_server.url}/compare")
    expect()(page.locator(FRESH).get_by_text("examples that differ").first).to_be_visible()
    settle(page)
    size = page.wait_for_function(SCROLLER_JS).json_value()
    assert size["scroll"] <= size["shown"] + 1, size


def test_the_totals_show_whole_at_1280(tmp_path, page):
    require_ragbench()
    data = shard("covidqa")
    ds = load([data]).dataset
    with LabelStore(tmp_path / "labels.db") as store:
        for i in range(40):  # every utilized sentence the other way round: hundreds of keys added and removed
            ex = ds.example(i)
            utilized = list(ex.labels.utilized_keys)
            flipped = [k for k in ex.context_keys() if k not in set(utilized)]
            store.record(ex.uid, "ana", [Change("utilized_keys", utilized, flipped)], example=ex)
    (tmp_path / "home").mkdir()
    server = StreamlitServer(
        db=tmp_path / "labels.db", home=tmp_path / "home", log=tmp_path / "app.log", data=str(data)
    )
    server.start()
    try:
        page.set_viewport_size({"width": 1280, "height": 800})
        page.goto(f"{server.url}/compare")
        value = page.locator(FRESH).locator('[data-testid="stMetric"]').filter(has_text="utilized keys ±")
        expect()(value).to_be_visible()
        settle(page)
        assert "+" in value.inner_text() and "/ −" in value.inner_text()
        cut = page.evaluate(
            """() => [...document.querySelectorAll('[data-testid="stMetricValue"] *')]
                 .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.innerText)"""
        )
        assert cut == [], cut
    finally:
        server.stop()
