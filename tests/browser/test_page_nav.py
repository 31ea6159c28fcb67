"""ragviz's own page navigation in the sidebar (ragviz/ui/core/page_nav.py, issue 38) as a person uses it: real links
(each the page's URL, so a modified click opens that page in a new tab), the page shown marked, a plain click or Enter
opening the page in the same session (what was chosen before is still there), every link reached with Tab, and
presentation mode kept in the links while it is on."""

from __future__ import annotations

import re

import pytest

from tests.browser_wait import expect, open_review, press, settle

pytestmark = pytest.mark.browser

TITLES = ["Home", "Data", "Review", "Export", "Label", "Judge", "Dashboard", "Explainer", "Compare", "Claims", "Team"]
PATHS = ["", "data", "review", "export", "label", "judge", "dashboard", "explainer", "compare", "claims", "team"]


def _nav(page):
    return page.get_by_role("navigation", name="Pages")


def _link(page, title: str):
    return _nav(page).get_by_role("link", name=title, exact=True)


def _shown(page, title: str) -> None:
    """The page *title* is the one marked in the list and its run is over."""
    expect()(_nav(page).locator('a[aria-current="page"]')).to_have_text(re.compile(rf"{title}$"))
    settle(page)


def test_the_links_are_the_pages_urls_with_their_icons_and_the_page_shown_is_marked(looking_server, page):
    page.goto(f"{looking_server.url}/export")
    _shown(page, "Export")
    links = _nav(page).get_by_role("link")
    expect()(links).to_have_count(len(TITLES))
    for i, (title, path) in enumerate(zip(TITLES, PATHS, strict=True)):
        link = links.nth(i)
        expect()(link).to_have_text(re.compile(rf"{title}$"))
        expect()(link).to_have_attribute("href", f"/{path}")
        if title == "Export":
            expect()(link).to_have_attribute("aria-current", "page")
        else:
            expect()(link).not_to_have_attribute("aria-current", "page")
    # the icons are drawn by Streamlit's icon font, not left as their glyph names ("download" as a word is ~70 px)
    page.wait_for_function("() => document.fonts.check('20px \"Material Symbols Rounded\"')")
    widths = page.evaluate("() => [...document.querySelectorAll('nav.rv-nav .rv-nav-icon')].map(e => e.scrollWidth)")
    assert len(widths) == len(TITLES) and all(0 < w <= 24 for w in widths), widths
    # the page shown stands out from the others
    colours = page.evaluate(
        "() => [...document.querySelectorAll('nav.rv-nav a')].map(a => getComputedStyle(a).backgroundColor)"
    )
    assert len({colours[i] for i in range(len(TITLES)) if TITLES[i] != "Export"}) == 1
    assert colours[TITLES.index("Export")] not in colours[: TITLES.index("Export")]


def test_a_click_opens_the_page_in_the_same_session_and_keeps_what_was_chosen(streamlit_server, page):
    open_review(page, f"{streamlit_server.url}/review")
    press(page, "j")
    expect()(page.get_by_text(re.compile(r"^Example 2 of 22"))).to_be_visible()
    page.evaluate("() => { window.__samePage = true; }")  # gone if the browser loaded a new document
    _link(page, "Data").click()
    _shown(page, "Data")
    expect()(page).to_have_url(re.compile(r"/data$"))
    _link(page, "Review").click()
    _shown(page, "Review")
    expect()(page.get_by_text(re.compile(r"^Example 2 of 22"))).to_be_visible()  # the session's place in the queue
    assert page.evaluate("() => window.__samePage === true")
    page.go_back()  # Back returns to the page before, as after a click on Streamlit's own list
    _shown(page, "Data")
    expect()(page).to_have_url(re.compile(r"/data(\?|$)"))


def test_tab_reaches_every_link_and_enter_follows_it(looking_server, page):
    page.goto(looking_server.url)
    _shown(page, "Home")
    page.evaluate("() => { window.__samePage = true; }")
    reached: list[str] = []
    for _ in range(40):  # the sidebar's collapse button and the header's come first
        page.keyboard.press("Tab")
        focused = page.evaluate(
            "() => document.activeElement.closest('nav.rv-nav') ? document.activeElement.textContent : null"
        )
        if focused is None and reached:
            break
        if focused is not None:
            reached.append(focused)
        if focused is not None and focused.endswith("Export"):
            break
    assert [t for t in TITLES if any(r.endswith(t) for r in reached)] == TITLES[: TITLES.index("Export") + 1], reached
    page.keyboard.press("Enter")
    _shown(page, "Export")
    expect()(page).to_have_url(re.compile(r"/export$"))
    assert page.evaluate("() => window.__samePage === true")


def test_a_modified_click_opens_the_page_in_a_new_tab(looking_server, page):
    page.goto(looking_server.url)
    _shown(page, "Home")
    with page.context.expect_page() as opened:
        _link(page, "Team").click(modifiers=["Control"])
    tab = opened.value
    _shown(tab, "Team")
    assert tab.url.endswith("/team")
    _shown(page, "Home")  # the first tab stayed where it was
    tab.close()


def test_while_presenting_the_links_keep_presentation_mode(looking_server, page):
    page.goto(f"{looking_server.url}/?present=1")
    _shown(page, "Home")
    expect()(_link(page, "Claims")).to_have_attribute("href", "/claims?present=1")
    _link(page, "Claims").click()
    _shown(page, "Claims")
    expect()(page).to_have_url(re.compile(r"/claims\?present=1$"))
    expect()(page.get_by_role("button", name=re.compile(r"^Presentation mode: on"))).to_be_visible()


def test_on_a_narrow_screen_choosing_a_page_closes_the_sidebar(looking_server, chromium_browser):
    context = chromium_browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(looking_server.url)
        settle(page)
        bar = page.locator('[data-testid="stSidebar"]')
        if bar.get_attribute("data-collapsed") != "false":
            page.get_by_test_id("stExpandSidebarButton").click()
        expect()(bar).to_have_attribute("data-collapsed", "false")
        _link(page, "Data").click()
        _shown(page, "Data")
        expect()(bar).to_have_attribute("data-collapsed", "true")  # the page chosen is not left under the sidebar
    finally:
        context.close()
