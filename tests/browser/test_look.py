"""Real-browser tests of how the app looks and orients a person (issue 13, items 3, 4, 6, 7, 9, 11, 13, 14).

One `streamlit run` server on the sample data (started as `make run` starts it, from the repository with
its .streamlit/config.toml, no OPENAI_API_KEY) serves every test here; Debian chromium drives it, in the
light and the dark colour scheme.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.browser_wait import FRESH, WAIT, click_support, expect, metric_card, open_review, select_sentence, settle
from tests.conftest import StreamlitServer
from tests.sample import ROOT, SAMPLE_DATA

pytestmark = pytest.mark.browser

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"
SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def look_server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("look")
    (tmp / "home").mkdir()
    key = os.environ.pop("OPENAI_API_KEY", None)  # the server starts without a judge key
    try:
        server = StreamlitServer(db=tmp / "labels.db", home=tmp / "home", log=tmp / "streamlit.log").start()
    finally:
        if key is not None:
            os.environ["OPENAI_API_KEY"] = key
    yield server
    server.stop()


@pytest.fixture(params=["light", "dark"])
def themed_page(request, chromium_browser):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=request.param)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    context.close()


def wait_drawn(page):
    page.wait_for_load_state("networkidle")
    settle(page)


# -- item 6: Streamlit's chrome is a viewer's -------------------------------------------------------


def test_no_deploy_button_no_developer_menu_and_c_opens_nothing(look_server, page):
    page.goto(f"{look_server.url}/export")
    expect()(page.locator('[data-testid="stMetric"]').first).to_be_visible(timeout=60_000)
    wait_drawn(page)
    expect()(page.locator('[data-testid="stAppDeployButton"]')).to_have_count(0)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("c")  # Streamlit's "Clear caches" shortcut in developer mode
    page.get_by_role("button", name="Main menu").click()  # the menu answers: the key press was handled
    menu = page.get_by_role("menu")
    expect()(menu).to_be_visible()
    for developer_item in ("Clear cache", "Rerun", "Deploy"):
        expect()(menu.get_by_text(developer_item)).to_have_count(0)
    expect()(page.get_by_text("Clear caches")).to_have_count(0)
    expect()(page.get_by_role("dialog")).to_have_count(0)


def test_no_ragviz_shortcut_is_one_of_streamlits_own_keys():
    """Streamlit binds ``c`` (clear caches) and ``r`` (rerun); a ragviz shortcut must not."""
    sources = [
        *(ROOT / "ragviz" / "ui").rglob("*.py"),
        *(ROOT / "pages").glob("*.py"),
        ROOT / "app.py",
        ROOT / "serve.py",
    ]
    keys = {m.lower() for p in sources for m in re.findall(r'shortcut="([^"]+)"', p.read_text())}
    assert keys and not keys & {"c", "r"}, keys


# -- item 9: the first screen orients --------------------------------------------------------------


def test_first_screen_says_what_ragviz_is_what_is_loaded_and_where_to_start(look_server, page):
    page.goto(look_server.url)
    main = page.locator('[data-testid="stMain"]')
    expect()(main).to_contain_text("ragviz shows an LLM judge's labels", timeout=60_000)
    expect()(page.locator(f'{FRESH} [data-testid="stMetric"]').filter(has_text="Examples")).to_contain_text("22")
    expect()(main).to_contain_text("techqa_sample (7)")
    expect()(main).to_contain_text("Labelled by: gpt-4o (21)")
    expect()(main).to_contain_text(re.compile(r"\d+ / 22 reviewed"))
    # the tour shows the keys on the sample's worked example
    keys = page.locator(".rv-key").evaluate_all("els => els.map(e => e.textContent.split(' ')[0])")
    assert {"0a", "0b", "a", "b"} <= set(keys), keys
    expect()(main).to_contain_text("1b")
    # no "Load the sample data" when it is loaded; one primary action
    expect()(page.get_by_role("button", name="Load the sample data")).to_have_count(0)
    start = page.get_by_role("button", name=re.compile("(Start|Continue) reviewing"))
    assert start.get_attribute("kind") == "primary"
    assert main.locator('button[kind="primary"]').count() == 1
    start.click()
    expect()(page).to_have_url(re.compile(r"/review\?uid="), timeout=60_000)
    # the Data page no longer pushes the sample either
    page.goto(f"{look_server.url}/data")
    sample = page.get_by_role("button", name="Load the sample data")
    expect()(sample).to_be_visible(timeout=60_000)
    assert sample.get_attribute("kind") == "secondary"


# -- item 3: the judge-vs-human scatter is faceted --------------------------------------------------


def symbols_per_facet(svg_text: str) -> list[int]:
    """The number of plotted points in each panel of a vl-convert SVG of the scatter."""
    root = ET.fromstring(svg_text)
    counts = []
    for group in root.iter(f"{SVG_NS}g"):
        if "mark-symbol" in (group.get("class") or "").split():
            counts.append(sum(1 for _ in group.iter(f"{SVG_NS}path")))
    return counts


def test_scatter_panels_show_only_their_own_metric(look_server, page, tmp_path):
    open_review(page, f"{look_server.url}/review?uid={ML}")
    click_support(page, "✓ supported")  # c: adherence 0 -> 1 on one example
    expect()(metric_card(page, "Adherence")).to_contain_text("+1.000")
    page.goto(f"{look_server.url}/dashboard")
    button = page.locator(".st-key-dashboard-scatter-svg button")
    expect()(button).to_be_visible(timeout=90_000)
    with page.expect_download(timeout=90_000) as info:
        button.click()
    target = tmp_path / "scatter.svg"
    info.value.save_as(target)
    counts = symbols_per_facet(target.read_text())
    assert len(counts) == 4, counts  # relevance, utilization, completeness, adherence
    from ragviz.store.label_store import LabelStore

    with LabelStore(look_server.db) as store:
        n = len(store.reviewed_uids(look_server.annotator))
    assert n >= 1
    # each panel: at most one point per reviewed example (every metric's points in every panel: 4 x n)
    assert all(1 <= c <= n for c in counts), (counts, n)


# -- item 4: the Venn is drawn ----------------------------------------------------------------------


def test_explainer_venn_is_drawn(look_server, page):
    page.goto(f"{look_server.url}/explainer?uid={ML}")
    venns = page.locator("img.rv-venn")
    expect()(venns).to_have_count(2, timeout=60_000)
    for i in range(2):
        venns.nth(i).scroll_into_view_if_needed()
        page.wait_for_function(
            "el => el.complete && el.naturalWidth > 0", arg=venns.nth(i).element_handle(), timeout=60_000
        )
        box = venns.nth(i).bounding_box()
        assert box and box["width"] > 200 and box["height"] > 100


# -- item 7: both themes readable; supported green, unsupported red ----------------------------------

CONTRAST_JS = """
els => {
  const parse = c => {
    const s = c.match(/color\\(srgb ([^)]+)\\)/);  // color-mix() computes to color(srgb r g b / a), 0..1
    if (s) { const [rgb, a] = s[1].split('/'); const p = rgb.trim().split(/\\s+/).map(Number);
      return [p[0] * 255, p[1] * 255, p[2] * 255, a === undefined ? 1 : Number(a)]; }
    const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) throw new Error('colour not understood: ' + c);
    const p = m[1].split(',').map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => { const a = top[3] + under[3] * (1 - top[3]); if (a === 0) return [0,0,0,0];
    return [0,1,2].map(i => (top[i] * top[3] + under[i] * under[3] * (1 - top[3])) / a).concat([a]); };
  const background = el => { const layers = [];
    for (let e = el; e; e = e.parentElement) layers.push(parse(getComputedStyle(e).backgroundColor));
    let c = [0,0,0,0]; for (let i = layers.length - 1; i >= 0; i--) c = over(layers[i], c);
    return c[3] === 0 ? [255,255,255,1] : c; };
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  return els.filter(e => e.textContent.trim()).map(e => {
    const bg = background(e); const fg = over(parse(getComputedStyle(e).color), bg);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return {text: e.textContent.trim().slice(0, 40), ratio: (a + 0.05) / (b + 0.05)}; });
}
"""


def low_contrast(page, selector: str, minimum: float) -> list[dict]:
    return [r for r in page.locator(selector).evaluate_all(CONTRAST_JS) if r["ratio"] < minimum]


def test_both_themes_readable_legend_matches_chips_supported_green(look_server, themed_page):
    page = themed_page
    open_review(page, f"{look_server.url}/review?uid={ML}")
    expect()(page.locator(".rv-legend")).to_be_visible()
    # every legend entry, chip and highlighted sentence: text readable on what is behind it (WCAG AA 4.5)
    for selector in (".rv-legend span", ".rv-key", ".rv-sent", ".rv-resp", ".rv-explanation div"):
        assert not low_contrast(page, selector, 4.5), (selector, low_contrast(page, selector, 4.5))
    # the legend has a chip of every colour a sentence chip uses
    legend = set(page.locator(".rv-legend span[style*='monospace']").evaluate_all(
        "els => els.map(e => getComputedStyle(e).backgroundColor)"))  # fmt: skip
    chips = set(page.locator(".rv-doc .rv-key, .rv-response .rv-key").evaluate_all(
        "els => els.map(e => getComputedStyle(e).backgroundColor)"))  # fmt: skip
    assert chips <= legend, (chips, legend)
    green, red = "rgb(0, 158, 115)", "rgb(213, 94, 0)"  # Okabe-Ito bluish green and vermilion
    green_chip, red_chip = "rgb(0, 122, 90)", "rgb(179, 68, 0)"  # their darker shades under white text
    chip = page.locator('.rv-resp[data-key="a"] .rv-key')  # a is supported
    assert chip.evaluate("e => getComputedStyle(e).backgroundColor") == green_chip
    assert page.locator('.rv-resp[data-key="a"]').evaluate("e => getComputedStyle(e).borderBottomColor") == green
    c_chip = page.locator('.rv-resp[data-key="c"] .rv-key').evaluate("e => getComputedStyle(e).backgroundColor")
    assert c_chip in (green_chip, red_chip)
    # the verdict control: the chosen verdict is green for supported, red for unsupported (not Streamlit's red)
    settle(page)
    select_sentence(page, "a")  # a click on the response sentence selects it
    settle(page)

    def verdict(key: str):  # the chosen button of the group labelled "Sentence <key> is", under the response
        return page.get_by_role("group", name=f"Sentence {key} is", exact=True).locator('[aria-pressed="true"]')

    chosen = verdict("a")
    expect()(chosen).to_have_count(1)
    expect()(chosen).to_contain_text("supported")
    expect()(chosen).to_have_css("border-color", green)
    select_sentence(page, "c")  # a click on the response sentence selects it
    settle(page)
    status = page.locator(".rv-explanation").inner_text()
    chosen = verdict("c")
    expect()(chosen).to_have_css("border-color", green if "✓ supported" in status else red)


def test_explainer_readable_in_both_themes(look_server, themed_page):
    page = themed_page
    page.goto(f"{look_server.url}/explainer?uid={ML}")
    expect()(page.locator(".rv-formula-card").first).to_be_visible(timeout=60_000)
    wait_drawn(page)
    for selector in (".rv-formula-card div", ".rv-formula-card span", ".rv-resp"):
        assert not low_contrast(page, selector, 4.5), (selector, low_contrast(page, selector, 4.5))


# -- item 11: the Label page without a key ---------------------------------------------------------


def test_label_page_without_a_key_says_what_is_needed_and_run_is_off(look_server, page):
    page.goto(f"{look_server.url}/label")
    run = page.get_by_role("button", name="Run the judge")
    expect()(run).to_be_visible(timeout=60_000)
    expect()(run).to_be_disabled()
    note = page.locator('[data-testid="stAlert"]').filter(has_text="API key")
    expect()(note).to_contain_text("needs an OpenAI API key")
    expect()(note).to_contain_text("OPENAI_API_KEY on the server")
    expect()(note).to_contain_text("Type your own key")
    assert "--" not in note.inner_text()
    page.get_by_role("textbox", name="API key").fill("sk-typed-by-the-person")
    page.get_by_role("textbox", name="API key").press("Enter")
    expect()(run).to_be_enabled()


# -- item 13: the Export page's command line works when pasted ----------------------------------------


def pasted_export(page, url: str, workdir: Path) -> tuple[str, list[dict]]:
    """The Export page's command line, run as pasted into a shell in *workdir*: (command, exported rows)."""
    page.goto(f"{url}/export")
    code = page.locator('[data-testid="stCode"]').filter(has_text="ragviz export")
    expect()(code).to_be_visible(timeout=60_000)
    hidden = code.evaluate("e => [...e.querySelectorAll('*')].some(d => d.scrollWidth > d.clientWidth + 1)")
    assert not hidden, "the command runs out of its box"
    shown = code.inner_text().strip()  # the lines a person copies, each long part on its own after a backslash
    assert all(line.endswith(" \\") for line in shown.splitlines()[:-1]), shown
    command = " ".join(shown.replace("\\\n", " ").split())  # a wrapped line is still one command
    assert str(SAMPLE_DATA) in command and shlex.split(command)[0] == "ragviz", command
    # a shell whose PATH has the venv's `ragviz` (this checkout's code first on the path)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, "PATH": path, "PYTHONPATH": str(ROOT)}
    workdir.mkdir()
    done = subprocess.run(["bash", "-c", shown], cwd=workdir, env=env, capture_output=True, text=True)
    assert done.returncode == 0, (command, done.stderr)
    return command, [json.loads(line) for line in (workdir / "labels.jsonl").read_text().splitlines()]


def test_export_command_line_names_the_data_and_works_when_pasted(look_server, page, tmp_path):
    """Data opened through RAGVIZ_DATA (as `make run` opens it) is registered nowhere: the hint names it."""
    command, rows = pasted_export(page, look_server.url, tmp_path / "first")
    assert len(rows) == 22
    if "--annotator" not in command:  # nobody decided anything yet: the judge's labels, as the download
        assert all(r["label_source"] != "human" for r in rows)
        open_review(page, f"{look_server.url}/review?uid={ML}")
        click_support(page, "✓ supported")
        expect()(metric_card(page, "Adherence")).to_contain_text("+1.000")
        command, rows = pasted_export(page, look_server.url, tmp_path / "after-a-decision")
    assert f"--annotator {look_server.annotator}" in command
    row = next(r for r in rows if r["id"] == "ml-vs-programming" and r["generation_model_name"] == "gpt-4o-mini")
    assert row["label_source"] == "human" and row["reviewer"] == look_server.annotator


# -- item 14: no label cut short -------------------------------------------------------------------


def test_dashboard_triage_lines_are_whole(look_server, page):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{look_server.url}/dashboard")
    links = page.locator("[data-testid='stMain'] [data-testid='stPageLink'] p").filter(has_text=" — ")
    expect()(links.first).to_be_visible(timeout=90_000)
    cut = links.evaluate_all(
        """els => els.filter(e => {
             for (let a = e; a && a.dataset.testid !== 'stPageLink'; a = a.parentElement)
               if (a.scrollWidth > a.clientWidth + 1) return true;
             return false; }).map(e => e.textContent)"""
    )
    assert cut == []
    # the metric picker's options are whole: none is clipped by a box around it
    picker = page.locator("[data-testid='stButtonGroup']").filter(has_text="completeness").last
    for option in ("relevance", "utilization", "completeness", "adherence"):
        whole = picker.get_by_role("radio", name=option, exact=True).evaluate(
            """e => { const r = e.getBoundingClientRect();
                 for (let a = e.parentElement; a; a = a.parentElement) {
                   if (getComputedStyle(a).overflowX === 'visible') continue;
                   const q = a.getBoundingClientRect();
                   if (r.left < q.left - 1 || r.right > q.right + 1) return false; }
                 return true; }"""
        )
        assert whole, option


def test_dashboard_charts_fill_a_wide_window(look_server, page):
    """Issue 29 item 9: the faceted charts stayed ~800 px wide at 1920 px; their four panels now share
    the page's width, with one legend under them."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{look_server.url}/dashboard")
    charts = page.locator(f'{FRESH} [data-testid="stVegaLiteChart"]')
    expect()(charts.nth(3)).to_be_visible(timeout=90_000)
    settle(page)
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:  # the columns take their widths a moment after the charts appear (on a loaded machine, seconds)
        page.wait_for_function(
            """sel => { const c = document.querySelectorAll(sel);
                 if (c.length < 4) return false;
                 const a = c[0].getBoundingClientRect(), d = c[3].getBoundingClientRect();
                 return d.right - a.left > 1400 && Math.abs(a.top - d.top) < 2; }""",
            arg=f'{FRESH} [data-testid="stVegaLiteChart"]',
            timeout=WAIT,
        )
    except PlaywrightTimeout:
        pass  # the assertions below say what the layout was
    first, fourth = charts.nth(0).bounding_box(), charts.nth(3).bounding_box()
    assert fourth["x"] + fourth["width"] - first["x"] > 1400, (first, fourth)
    assert abs(first["y"] - fourth["y"]) < 2  # one row: relevance … adherence
    expect()(page.locator(".rv-legend").first).to_contain_text("techqa_sample")


# where a point mark of the subset named is drawn, and where its drawing (Vega's SVG, which shows nothing beyond it) ends
# The chart is looked up again on each poll: a handle taken once goes stale when the chart's element is drawn anew
# (CI, loaded, timed out on a detached one while the page showed the dot).
POINT_BOX_JS = """
([selector, nth, subset]) => { const el = document.querySelectorAll(selector)[nth]; if (!el) return null;
  const svg = el.querySelector('svg'); if (!svg) return null;
  const dot = [...svg.querySelectorAll('path[aria-roledescription="point"]')]
    .find(p => (p.getAttribute('aria-label') || '').includes('dataset: ' + subset + ';'));
  if (!dot) return null;
  const d = dot.getBoundingClientRect(), s = svg.getBoundingClientRect();
  return {left: d.left, right: d.right, top: d.top, bottom: d.bottom, svg_left: s.left, svg_right: s.right}; }
"""


def test_a_subsets_mean_of_one_is_a_whole_dot(look_server, page):
    """The sample's medqa_sample subset has adherence 1 on every example: its mean's dot sits on the axis's end,
    and was drawn half (the panel's drawing ends at 1.0, and Streamlit gives a chart no padding on the right)."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{look_server.url}/dashboard")
    charts = page.locator(f'{FRESH} [data-testid="stVegaLiteChart"]')
    adherence = 7  # 4 histograms, then the means of relevance … adherence
    adherence_means = charts.nth(adherence)
    expect()(adherence_means).to_be_visible(timeout=90_000)
    settle(page)
    adherence_means.scroll_into_view_if_needed()
    selector = f'{FRESH} [data-testid="stVegaLiteChart"]'
    box = page.wait_for_function(POINT_BOX_JS, arg=[selector, adherence, "medqa_sample"], timeout=WAIT).json_value()
    assert box["right"] - box["left"] > 4, box  # a dot, drawn
    assert box["svg_left"] <= box["left"] and box["right"] <= box["svg_right"], box  # all of it inside the drawing


@pytest.mark.parametrize("path", ["judge", "team"])
def test_a_lone_number_fields_buttons_sit_beside_its_number(look_server, page, path):
    """At 1920 px the Judge page's "Sample size" and the Team page's "Annotators per example" stretched over the
    page: their − / + sat ~1,100 px right of the number they change."""
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{look_server.url}/{path}")
    field = page.locator(f'{FRESH} [data-testid="stNumberInput"]').first
    expect()(field).to_be_visible(timeout=90_000)
    settle(page)
    number = field.locator("input").bounding_box()
    plus = field.locator('[data-testid="stNumberInputStepUp"]').bounding_box()
    assert plus["x"] + plus["width"] - number["x"] <= 300, (number, plus)
