"""The Review page's navigation bar (drawn by ragviz/ui/review/sentence_editor/editor.js) as a person meets it while the page opens and in a
1280 px window (issue 38): a shortcut pressed before the bar is drawn is not lost, and the bar is one row.

The first tests run the bar's real script in chromium on a blank page (served by Playwright's router) that holds the
page's early element as Streamlit draws it, the bar then mounted as Streamlit mounts it: the order "key pressed, then
bar drawn" is certain rather than a race with the server.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragviz.ui.review import sentence_editor, toolbar
from tests.browser_wait import expect, open_review, settle, shows_uid

pytestmark = pytest.mark.browser

ORIGIN = "http://rv.test"
SCRIPT = f"{ORIGIN}/_stcore/bidi-components/{toolbar.NAME}/editor.js"
BAR = {
    "kind": "toolbar",
    "buttons": [
        {"id": "prev", "label": "◀ Previous", "shortcut": "K", "disabled": True},
        {"id": "next", "label": "Next ▶", "shortcut": "J", "disabled": False},
        {"id": "accept", "label": "Accept as shown", "shortcut": "A", "disabled": False, "primary": True},
    ],
    "hint": "Z: nothing to undo",
}

MOUNT_JS = """async ([script, data, slot]) => {
  const mod = await import(script);
  window.sent = window.sent || [];
  const parent = document.getElementById(slot);
  mod.default({ data, parentElement: parent, setTriggerValue: (name, value) => window.sent.push([slot, name, value]) });
}"""


def mount_then(statements: str) -> str:
    """MOUNT_JS, then *statements* in the task that drew."""
    return MOUNT_JS.replace("\n}", f";\n  {statements}\n}}")


URL_NOW = "return [new URLSearchParams(location.search).get('uid'), history.length];"  # the URL's example, the history
MOUNT_THEN_URL_JS = mount_then(URL_NOW)
MOUNT_KEY_URL_JS = mount_then(
    f"document.dispatchEvent(new KeyboardEvent('keydown', {{key: 'x', bubbles: true}})); {URL_NOW}"
)
MOUNT_POPSTATE_JS = mount_then("window.dispatchEvent(new PopStateEvent('popstate'));")  # the browser's Back
# two drawings in one task
MOUNT_TWICE_JS = """async ([script, first, then, slot]) => {
  const mod = await import(script);
  const parentElement = document.getElementById(slot);
  const setTriggerValue = (name, value) => window.sent.push([slot, name, value]);
  mod.default({ data: first, parentElement, setTriggerValue });
  mod.default({ data: then, parentElement, setTriggerValue });
}"""
# two frames drawn, and the tasks queued from their callbacks run
AFTER_FRAME = (
    """() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 0))))"""
)
PRELOAD = [f"_stcore/bidi-components/{sentence_editor.NAME}/editor.css", "static/js/BidiComponent.test.js"]


@pytest.fixture
def blank_page(chromium_browser):
    """A Review page of its own origin: the page's early element (toolbar.early_html, as Streamlit draws it), a slot
    for the bar and a text field; the bar's script served from the package as Streamlit serves it, any other file
    empty."""
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(20_000)
    js = (Path(sentence_editor.ASSETS) / "editor.js").read_text(encoding="utf-8")
    asked: list[str] = []

    def serve(route) -> None:
        url = route.request.url
        asked.append(url)
        if url == SCRIPT:
            route.fulfill(status=200, content_type="text/javascript", body=js)
        elif url.endswith((".js", ".css")):
            route.fulfill(status=200, content_type="text/javascript" if url.endswith(".js") else "text/css", body="")
        else:
            early = toolbar.early_html(True, "", PRELOAD)
            body = f'<!doctype html>{early}<div id="bar"></div><input id="field" aria-label="field">'
            route.fulfill(status=200, content_type="text/html", body=body)

    page.route(f"{ORIGIN}/**", serve)
    page.goto(f"{ORIGIN}/review")
    page.evaluate("async (script) => { await import(script); }", SCRIPT)  # the early element's request, evaluated
    page.asked = asked  # type: ignore[attr-defined]
    yield page
    context.close()


def test_a_shortcut_pressed_before_the_bar_is_drawn_is_pressed_once_it_is(blank_page):
    page = blank_page
    page.keyboard.press("k")  # Previous: disabled on the bar that comes, so dropped then
    page.keyboard.press("x")  # no shortcut
    page.locator("#field").press("j")  # typed into a text field: not a shortcut
    page.evaluate("() => document.activeElement.blur()")
    page.keyboard.press("j")
    assert page.evaluate("() => window.sent || []") == []  # nothing to press yet: no bar
    assert page.locator("#field").input_value() == "j"

    page.evaluate(MOUNT_JS, [SCRIPT, BAR, "bar"])
    expect()(page.locator(".rv-toolbar button[data-id=next]")).to_be_visible()
    assert page.evaluate("() => window.sent") == [["bar", "press", {"id": "next"}]]  # the J, once; K dropped

    page.keyboard.press("a")  # with the bar drawn, a shortcut presses at once
    assert page.evaluate("() => window.sent")[-1] == ["bar", "press", {"id": "accept"}]
    assert len(page.evaluate("() => window.sent")) == 2


def test_the_early_element_asks_for_the_next_files_before_the_components_are_mounted(blank_page):
    """The editor's styles and Streamlit's component loader are asked for by the page's first element, and the
    editor's script (which draws the bar) with them (Streamlit would ask for each only once it mounts the component,
    after the run)."""
    page = blank_page
    links = page.evaluate("() => [...document.querySelectorAll('link')].map((l) => [l.rel, l.href])")
    assert links == [["preload", f"{ORIGIN}/{PRELOAD[0]}"], ["modulepreload", f"{ORIGIN}/{PRELOAD[1]}"]]
    assert SCRIPT in page.asked  # type: ignore[attr-defined]


def test_keys_pressed_once_the_review_page_is_left_are_not_queued(blank_page):
    """Another page of the app (the early element gone, no bar): J does nothing, and is not pressed later."""
    page = blank_page
    page.evaluate("() => document.querySelector('script[data-rv-early]').remove()")  # the person went elsewhere
    page.keyboard.press("j")
    page.evaluate(MOUNT_JS, [SCRIPT, BAR, "bar"])
    expect()(page.locator(".rv-toolbar button[data-id=next]")).to_be_visible()
    assert page.evaluate("() => window.sent") == []


def test_a_move_is_in_the_url_and_the_tab_once_its_example_is_drawn(blank_page):
    """J changes neither the URL nor the tab's title while the server draws the next example, nor in the task that
    draws it: both cost the browser's own process work that would slow the server's run, or the frame that shows the
    example, on one machine (issue 38). Once that frame is drawn, the example is in the URL as one new history entry
    and its position in the tab's title; drawing the same example again adds no entry; Back goes to the example
    before."""
    page = blank_page
    first = {"uid": "ex/1/m", "title": "Example 1 of 22 · Review · ragviz"}
    second = {"uid": "ex/2/m", "title": "Example 2 of 22 · Review · ragviz"}

    def state() -> tuple[str, str, int]:
        return tuple(
            page.evaluate("() => [new URLSearchParams(location.search).get('uid'), document.title, history.length]")
        )

    page.evaluate(MOUNT_JS, [SCRIPT, {**BAR, **first}, "bar"])
    page.evaluate(AFTER_FRAME)
    uid, title, entries = state()
    assert (uid, title) == (first["uid"], first["title"])
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("j")
    page.wait_for_function("() => window.sent.length > 0")
    assert page.evaluate("() => window.sent")[-1] == ["bar", "press", {"id": "next"}]
    page.wait_for_timeout(100)
    assert state() == (first["uid"], first["title"], entries)  # the server has not answered yet: nothing changed
    assert page.evaluate(MOUNT_THEN_URL_JS, [SCRIPT, {**BAR, **second}, "bar"]) == [first["uid"], entries]
    page.evaluate(AFTER_FRAME)
    assert state() == (second["uid"], second["title"], entries + 1)
    page.go_back()
    shows_uid(page, first["uid"])
    # a key pressed before that frame (a rerun it asks for carries the URL): the URL is set first
    assert page.evaluate(MOUNT_KEY_URL_JS, [SCRIPT, {**BAR, **second}, "bar"]) == [second["uid"], entries + 1]
    page.evaluate(MOUNT_JS, [SCRIPT, {**BAR, **second}, "bar"])  # the same example drawn again (a click's redraw)
    page.evaluate(AFTER_FRAME)
    assert state() == (second["uid"], second["title"], entries + 1)
    page.go_back()
    shows_uid(page, first["uid"])
    # Back or Forward before that frame: the entry the person went to stays, no new one is pushed over it
    third = {"uid": "ex/3/m", "title": "Example 3 of 22 · Review · ragviz"}
    page.evaluate(MOUNT_POPSTATE_JS, [SCRIPT, {**BAR, **third}, "bar"])
    page.evaluate(AFTER_FRAME)
    uid, title, length = state()
    assert (uid, length) == (first["uid"], entries + 1) and title != third["title"]
    # two drawings before a frame (a move, then a redraw naming no uid): the move's example, the latest title
    fourth = {"uid": "ex/4/m", "title": "Example 4 of 22 · Review · ragviz"}
    redrawn = {**BAR, "title": "Example 4 of 22 · 1 edit · Review · ragviz"}
    page.evaluate(MOUNT_TWICE_JS, [SCRIPT, {**BAR, **fourth}, redrawn, "bar"])
    page.evaluate(AFTER_FRAME)
    assert state()[:2] == (fourth["uid"], redrawn["title"])


def test_the_bar_is_one_row_in_a_1280_px_window_with_the_sidebar_open(streamlit_server, chromium_browser):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
        expect()(page.get_by_test_id("stSidebar")).to_be_visible()
        boxes = page.evaluate(
            """() => [...document.querySelectorAll('.rv-toolbar button, .rv-undo-hint')].map((e) => {
                 const r = e.getBoundingClientRect(); return [e.dataset.id || 'hint', r.top, r.bottom]; })"""
        )
        ids = [b[0] for b in boxes]
        assert {"prev", "next", "next_unreviewed", "accept", "undo", "reset", "hint", "rejudge"} <= set(ids), ids
        top = min(b[1] for b in boxes)
        bottom = max(b[2] for b in boxes)
        assert bottom - top < 48, boxes  # one row of 40 px buttons, the hint centred in it
        expect()(page.locator(".rv-undo-hint")).to_have_text("Z: nothing to undo")
        # the page's early element takes no room above the bar
        early = "document.querySelector('script[data-rv-early]').closest('[data-testid=stElementContainer]')"
        assert page.evaluate(f"() => getComputedStyle({early}).display") == "none"
        # where the bar is narrow, Re-judge shows its short words but keeps its whole name
        rejudge = page.get_by_role("button", name="Re-judge this example")
        expect()(rejudge).to_be_visible()
        expect()(rejudge).to_have_text(re.compile(r"^Re-judge$"), use_inner_text=True)
    finally:
        context.close()


def test_the_undo_line_is_whole_beside_normalize_at_1280_px(streamlit_server, chromium_browser):
    """With Normalize and Re-judge on the bar (an example with label-quality flags), what Z undoes goes to a row of its
    own with them rather than being cut to "Z.."."""
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        open_review(page, f"{streamlit_server.url}/review?id=tech-004")
        expect()(page.get_by_role("button", name=re.compile(r"^Normalize labels"))).to_be_visible()
        hint = page.locator(".rv-undo-hint")
        expect()(hint).to_have_text("Z: nothing to undo")
        assert hint.evaluate("(e) => e.scrollWidth <= e.clientWidth"), "the undo line is cut"
        top = page.evaluate("() => document.querySelector('.rv-tb[data-id=accept]').getBoundingClientRect().top")
        assert hint.evaluate("(e) => e.getBoundingClientRect().top") > top + 20  # on the next row, not squeezed
    finally:
        context.close()


def test_the_filters_wait_in_the_closed_queue_and_work_from_it(streamlit_server, chromium_browser):
    """The sidebar's filter widgets are not drawn on the first page (their scripts are not fetched for it, issue 38);
    they wait under the queue's settings in the "Queue: …" disclosure, whose button says how many are set. A filter set
    there walks only its examples and, the Queue closed, is named under the button."""
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
        sidebar = page.get_by_test_id("stSidebar")
        queue = sidebar.get_by_role("button", name="Queue: all examples · no filters · Accept → next unreviewed")
        expect()(queue).to_be_visible()
        assert sidebar.get_by_text("Adherence 0").count() == 0  # not drawn until asked
        assert sidebar.locator('[data-testid="stMultiSelect"]').count() == 0
        queue.click()
        body = sidebar.locator(".st-key-review-queue_panel")
        expect()(body.get_by_text("Filters: which examples J / K / N walk")).to_be_visible()
        body.get_by_text("Adherence 0", exact=True).click()
        named = sidebar.get_by_role("button", name=re.compile(r"^Queue: all examples · 1 filter · Accept"))
        expect()(named).to_be_visible()
        expect()(page.get_by_text(re.compile(r"filter: \d+ of 4 match"))).to_be_visible()
        settle(page)
        named.click()  # closed: the filter still on, said under the button
        expect()(body).to_have_count(0)
        expect()(sidebar.get_by_text("Filtered: Adherence 0")).to_be_attached()
        expect()(page.get_by_text(re.compile(r"filter: \d+ of 4 match"))).to_be_visible()
    finally:
        context.close()


def test_a_move_names_its_example_in_the_url_and_back_and_reload_follow_it(streamlit_server, chromium_browser):
    """J puts the next example's uid in the URL (the bar's script does, as a new history entry: no query-parameter
    message from the server on a move, issue 38); Back shows the example before, down to the one the link opened,
    J goes on from there, Back and Forward again follow the URL, and a reload opens the example the URL names."""
    from tests.browser_wait import press, settle

    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(20_000)
    where = page.locator(".rv-head > div").first  # "Example 3 of 22 · not reviewed yet · ..."

    def uid() -> str:
        return page.evaluate("() => new URLSearchParams(location.search).get('uid')")

    def shows(step: tuple[str, str]) -> None:
        """The page shows *step* (its uid in the URL, its "where" line), once the run is over."""
        expect()(where).to_have_text(step[1])
        settle(page)
        assert uid() == step[0]

    try:
        open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
        seen = [(uid(), where.inner_text())]
        assert seen[0][0].endswith("/ml-vs-programming/gpt-4o-mini"), seen
        for _ in range(2):
            press(page, "j")
            expect()(page).not_to_have_url(re.compile(re.escape(seen[-1][0].split("/")[1]) + r"[^&]*$"))
            expect()(where).not_to_have_text(seen[-1][1])
            settle(page)
            seen.append((uid(), where.inner_text()))
        assert len({u for u, _ in seen}) == 3 and len({w for _, w in seen}) == 3, seen
        for back in (seen[1], seen[0]):  # Back, twice: the example before each time, the URL's
            page.go_back()
            shows(back)
            expect()(where).to_have_text(back[1])
        press(page, "j")  # on from the example Back went to, and Back again: the URL is the one Streamlit last set
        shows(seen[1])
        page.go_back()
        shows(seen[0])
        page.go_forward()
        shows(seen[1])
        page.reload()
        shows(seen[1])
    finally:
        context.close()


def test_the_single_view_draws_the_bar_in_the_texts_element_and_a_focused_button_keeps_the_focus(
    streamlit_server, page
):
    """The bar is the first part of the text's element (one element, one delta per J where it was two, issue 38):
    above the header, no element of its own. A button focused with the keyboard and pressed with Enter keeps the
    focus as the page moves on (as a Streamlit button does), and J still moves from there."""
    from tests.browser_wait import settle

    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    text = page.locator(".st-key-review-text-response")
    expect()(text.locator(".rv-toolbar button[data-id=next]")).to_be_visible()
    assert page.locator(".st-key-review-toolbar").count() == 0
    order = text.evaluate(
        "(e) => [...e.querySelectorAll('.rv-toolbar, .rv-head, .rv-text')].map((n) => n.className.split(' ')[0])"
    )
    assert order[:3] == ["rv-toolbar", "rv-head", "rv-text"], order
    gap = text.evaluate(
        "(e) => e.querySelector('.rv-head').getBoundingClientRect().top"
        " - e.querySelector('.rv-toolbar').getBoundingClientRect().bottom"
    )
    assert abs(gap - 16) < 1, gap  # Streamlit's gap between two elements, as when the bar was an element of its own
    where = page.locator(".rv-head > div").first
    expect()(where).to_contain_text("Example 1 of 22")
    nxt = page.locator(".rv-toolbar button[data-id=next]")
    nxt.focus()
    page.keyboard.press("Enter")
    expect()(where).to_contain_text("Example 2 of 22")
    settle(page)
    expect()(nxt).to_be_focused()
    assert page.locator(".rv-toolbar").count() == 1
    page.keyboard.press("j")
    expect()(where).to_contain_text("Example 3 of 22")
    expect()(page).to_have_title(re.compile(r"^Example 3 of 22 · Review · ragviz$"))
    assert page.evaluate("() => new URLSearchParams(location.search).get('uid')") is not None
