"""Issue 29 item 9: the Dashboard's confusion-matrix counts are readable on their cells (WCAG AA, 4.5:1) in
the light and the dark theme and in the PNG download, and all four matrices are whole at 1280 px."""

from __future__ import annotations

import io

import pytest

from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser_wait import expect, settle
from tests.conftest import StreamlitServer
from tests.sample import SAMPLE_DATA

pytestmark = pytest.mark.browser

MATRIX_JS = """
svg => {
  const lum = c => { const m = c.match(/\\d+(\\.\\d+)?/g).map(Number);
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(m[0]) + 0.7152 * f(m[1]) + 0.0722 * f(m[2]); };
  const cells = [...svg.querySelectorAll('.mark-rect.role-mark path')].map(p => ({box: p.getBoundingClientRect(),
    fill: getComputedStyle(p).fill}));
  return [...svg.querySelectorAll('.mark-text.role-mark text')].map(t => {
    const r = t.getBoundingClientRect(); const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const cell = cells.find(c => c.box.left <= x && x <= c.box.right && c.box.top <= y && y <= c.box.bottom);
    const ink = getComputedStyle(t).fill;
    const [a, b] = [lum(ink), lum(cell.fill)].sort((p, q) => q - p);
    return {text: t.textContent, ink, fill: cell.fill, ratio: (a + 0.05) / (b + 0.05)}; });
}
"""


@pytest.fixture(scope="module")
def decided_server(tmp_path_factory):
    """The sample data with people's decisions on most examples (counts in every matrix cell)."""
    tmp = tmp_path_factory.mktemp("matrix")
    (tmp / "home").mkdir()
    dataset = load([SAMPLE_DATA]).dataset
    with LabelStore(tmp / "labels.db") as store:
        for i in range(len(dataset)):
            ex = dataset.example(i)
            if ex.labels is None:
                continue
            relevant = list(ex.labels.relevant_keys)
            kept = relevant[: len(relevant) // 2] if i % 3 else relevant + [k for k in ex.context_keys()[:1]]
            store.record(ex.uid, "browser-tester", [Change("relevant_keys", relevant, list(dict.fromkeys(kept)))])
    server = StreamlitServer(db=tmp / "labels.db", home=tmp / "home", log=tmp / "streamlit.log").start()
    yield server
    server.stop()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_confusion_matrix_counts_are_readable_and_whole(decided_server, chromium_browser, scheme):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{decided_server.url}/dashboard")
        chart = page.locator("[data-testid='stVegaLiteChart']").filter(has=page.locator("text=judge says relevant"))
        expect()(chart.first).to_be_visible(timeout=90_000)
        settle(page)
        svg = chart.first.locator("svg").first
        cells = svg.evaluate(MATRIX_JS)
        assert len(cells) == 16, cells  # four matrices of four counts
        assert [c for c in cells if c["ratio"] < 4.5] == [], cells
        main = page.locator("[data-testid='stMain']").bounding_box()
        box = svg.bounding_box()
        assert main and box and box["x"] + box["width"] <= main["x"] + main["width"], (box, main)
    finally:
        context.close()


def test_confusion_matrix_png_counts_are_readable():
    from PIL import Image

    from ragviz.ui.core import chart_specs, charts

    spec = chart_specs.chart_spec(charts.confusion_grid, [("relevant", 30, 25, 28, 27), ("utilized", 0, 5, 9, 100)])
    image = Image.open(io.BytesIO(chart_specs.spec_to_png(spec, scale=1))).convert("RGB")
    colours = {f"#{r:02x}{g:02x}{b:02x}" for _, (r, g, b) in image.getcolors(1 << 20)}
    fills = [f for f in charts.BLUES if f in colours]
    assert len(fills) >= 3  # the cells are drawn in the fixed fills
    for count, largest in [(30, 30), (25, 30), (27, 30), (0, 100), (5, 100), (100, 100)]:
        fill, ink = charts.cell_colours(count, largest)
        assert charts.contrast_ratio(fill, ink) >= 4.5


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_venn_card_follows_the_colour_scheme(decided_server, chromium_browser, scheme):
    """Issue 29 item 9: the Explainer's Venn cards were white in the dark theme."""
    from PIL import Image

    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{decided_server.url}/explainer")
        venn = page.locator("img.rv-venn").first
        expect()(venn).to_be_visible(timeout=90_000)
        settle(page)
        venn.scroll_into_view_if_needed()
        page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=venn.element_handle())
        shot = Image.open(io.BytesIO(venn.screenshot())).convert("L")
        card = shot.getpixel((12, shot.height // 2))  # the card left of the circles
        assert (card < 80) if scheme == "dark" else (card > 200), card
    finally:
        context.close()
