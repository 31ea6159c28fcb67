"""Issue 34, item 10 in a real browser at 1280 x 800: the Team page's κ matrix with seven annotators fits the
window (it was 1,654 px wide), and so do its tables (the per-annotator agreement, 15 columns, was 1,649 px); e-mail addresses on the page are text, not mailto links (the κ caption, the
guidelines caption); a guideline image is a link, never fetched."""

from __future__ import annotations

import pytest

from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser_wait import expect, settle
from tests.conftest import StreamlitServer
from tests.sample import SAMPLE_DATA

pytestmark = pytest.mark.browser

LEAD = "lead@example.org"
SCROLLERS_JS = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')].map(t => {
  const s = t.querySelector('.dvn-scroller'); return s ? {scroll: s.scrollWidth, shown: s.clientWidth} : null; })"""
SEVEN = [f"annotator{i}@example.org" for i in range(1, 8)]


@pytest.fixture
def seven_server(tmp_path, monkeypatch):
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(tmp_path / "labels.db") as store:
        store.team.assignments.assign(list(ds.uids), 2, SEVEN, LEAD)
        for uid, names in store.team.assignments.assigned().items():
            ex = ds.example(ds.index_of(uid))
            for k, who in enumerate(names):
                keys = list(ex.labels.relevant_keys) if ex.labels else []
                change = [Change("relevant_keys", keys, keys[:-1])] if k and keys and len(uid) % 2 else None
                store.record(uid, who, change or [Change("review", None, "reviewed")], example=ex)
        store.team.guidelines.save_guidelines("Mark it like this: ![chart](http://127.0.0.1:9/pixel.png)", LEAD)
    monkeypatch.setenv("RAGVIZ_ADMINS", LEAD)
    (tmp_path / "home").mkdir()
    server = StreamlitServer(
        db=tmp_path / "labels.db", home=tmp_path / "home", log=tmp_path / "app.log", annotator=LEAD
    )
    server.start()
    yield server
    server.stop()


def test_the_kappa_matrix_of_seven_fits_1280_and_addresses_are_text(seven_server, chromium_browser):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(90_000)
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "pixel.png" in r.url else None)
    try:
        page.goto(f"{seven_server.url}/team")
        page.get_by_role("tab", name="Annotators").click()
        chart = page.locator("[data-testid='stVegaLiteChart']").filter(has=page.locator("text=Cohen's κ"))
        expect()(chart.first).to_be_visible()
        settle(page)
        main = page.locator("[data-testid='stMain']").bounding_box()
        box = chart.first.locator("svg, canvas").first.bounding_box()
        assert main and box and box["x"] + box["width"] <= main["x"] + main["width"], (box, main)
        caption = page.locator('[data-testid="stCaptionContainer"]').filter(has_text="annotator7@").first
        expect()(caption).to_be_visible()
        assert page.locator('a[href^="mailto:"]').count() == 0
        page.wait_for_function(f"() => ({SCROLLERS_JS})().filter(s => s && s.shown > 0).length >= 2")
        sizes = [s for s in page.evaluate(SCROLLERS_JS) if s and s["shown"] > 0]
        assert all(s["scroll"] <= s["shown"] + 1 for s in sizes), sizes
        page.get_by_role("tab", name="Guidelines").click()
        expect()(page.get_by_text("In force: version 1")).to_be_visible()  # "... by lead@example.org": text
        settle(page)
        assert page.locator('a[href^="mailto:"]').count() == 0
        assert page.locator('[class*="st-key-team-guidelines-preview"] img').count() == 0
        assert page.locator('[class*="st-key-team-guidelines-preview"] a[href*="pixel.png"]').count() == 1
        assert fetched == []
    finally:
        context.close()
