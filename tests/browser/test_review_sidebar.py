"""The Review page's sidebar settings (issue 38): the Queue, "Accept moves to the next unreviewed" and the filters in
a closed disclosure (a button whose panel under it is drawn only while open), Presentation mode a button that turns it on
and off (with "Show corrections" under it while presenting). None is a widget on the first page (no toggle or radio
scripts fetched for it), yet their buttons say the settings, a keyboard reaches every control (Enter on the Queue's
button opens it, Tab goes on into its panel, Enter on the button again closes it; Enter on the presentation button
turns the mode) and the controls pass axe with the Queue open and while presenting, in both themes."""

from __future__ import annotations

import json
import re
import time

import pytest

from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser.test_accessibility import _axe_present, _violations
from tests.browser_wait import expect, open_review, queue_panel, settle, sidebar
from tests.sample import SAMPLE_DATA

pytestmark = pytest.mark.browser


def test_the_first_page_fetches_no_toggle_or_radio_and_its_buttons_say_the_settings(looking_server, page):
    page.set_viewport_size({"width": 1280, "height": 800})
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url.rsplit("/", 1)[-1]))
    open_review(page, f"{looking_server.url}/review?id=ml-vs-programming")
    settle(page)
    bar = sidebar(page)
    expect()(bar.get_by_role("button", name="Presentation mode: off")).to_be_visible()
    queue = bar.get_by_role("button", name="Queue: all examples · no filters · Accept → next unreviewed")
    expect()(queue).to_be_visible()
    assert page.locator('[role="switch"], [data-testid="stRadio"]').count() == 0  # nothing drawn until asked
    widgets = [f for f in fetched if re.match(r"(Checkbox|Radio)\.[\w-]+\.js$", f)]
    assert widgets == [], widgets
    queue.click()  # opened: its controls are drawn (and their scripts fetched) now
    expect()(queue_panel(page).get_by_role("radio", name="All examples")).to_be_checked()


def test_in_a_team_round_the_queue_button_says_my_assignments_and_no_toggle_is_fetched(streamlit_server, page):
    """ "My assignments" was a toggle on the sidebar: the first page of every annotator in a round fetched the toggle's
    script. It waits in the Queue's panel now, and the Queue button says it."""
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(streamlit_server.db) as store:
        store.team.assignments.assign([ds.uids[5], ds.uids[9]], 1, [streamlit_server.annotator], "lead")
    page.set_viewport_size({"width": 1280, "height": 800})
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url.rsplit("/", 1)[-1]))
    open_review(page, f"{streamlit_server.url}/review")
    settle(page)
    queue = sidebar(page).get_by_role(
        "button", name="Queue: my assignments, 2 open · no filters · Accept → next unreviewed"
    )
    expect()(queue).to_be_visible()
    assert page.locator('[role="switch"], [data-testid="stRadio"]').count() == 0
    assert [f for f in fetched if re.match(r"(Checkbox|Radio)\.[\w-]+\.js$", f)] == []
    queue.click()
    body = queue_panel(page)
    expect()(body.get_by_role("switch", name=re.compile(r"^My assignments"))).to_be_checked()
    body.get_by_text("My assignments (2 open of 2)").click()  # off: every example, and the button says so
    expect()(sidebar(page).get_by_role("button", name=re.compile(r"^Queue: all examples"))).to_be_visible()


def _tab_to(page, target, back: bool = False, most: int = 3) -> None:
    """Tab (Shift+Tab when *back*) until *target* has the focus, at most *most* presses (a label's help button may come
    between)."""
    for _ in range(most):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if target.evaluate("e => e === document.activeElement"):
            return
    expect()(target).to_be_focused()


def test_a_keyboard_reaches_the_queue_and_presentation_mode_and_changes_them(streamlit_server, page):
    page.set_viewport_size({"width": 1280, "height": 800})
    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    settle(page)
    queue = sidebar(page).get_by_role("button", name=re.compile(r"^Queue: "))
    expect()(queue).to_have_attribute("aria-expanded", "false")
    queue.focus()
    page.keyboard.press("Enter")  # opens its panel under it; the focus stays on the button
    body = queue_panel(page)
    radio = body.get_by_role("radio", name="All examples")
    expect()(radio).to_be_visible()
    expect()(queue).to_have_attribute("aria-expanded", "true")
    settle(page)
    expect()(queue).to_be_focused()
    _tab_to(page, radio)  # Tab goes on into the panel: the Queue radio first
    page.keyboard.press("Tab")
    switch = body.get_by_role("switch", name="Accept moves to the next unreviewed")
    expect()(switch).to_be_focused()
    page.keyboard.press("Space")
    expect()(queue).to_have_text(re.compile(r"^Queue: all examples · no filters · Accept stays"))
    settle(page)
    expect()(switch).not_to_be_checked()
    _tab_to(page, queue, back=True)  # back up to its button, whose Enter closes it
    page.keyboard.press("Enter")
    expect()(body).to_have_count(0)
    expect()(queue).to_have_attribute("aria-expanded", "false")
    settle(page)
    expect()(queue).to_be_focused()
    expect()(queue).to_have_text(re.compile(r"^Queue: all examples · no filters · Accept stays"))  # kept, closed

    present = sidebar(page).get_by_role("button", name="Presentation mode: off")
    present.focus()
    page.keyboard.press("Enter")  # the button turns the mode on, and keeps the focus
    expect()(sidebar(page).get_by_role("button", name="Presentation mode: on")).to_be_focused()
    expect()(page.locator('[data-testid="stMain"]')).to_contain_text("Presentation mode: editing is hidden")
    expect()(page).to_have_url(re.compile(r"present=1"))
    expect()(queue).to_have_accessible_name("Queue: all examples · no filters")  # presenting: Accept is not offered
    page.keyboard.press("Tab")  # under it, "Show corrections", which Enter turns on
    page.keyboard.press("Enter")
    expect()(sidebar(page).get_by_role("button", name="Show corrections: on")).to_be_focused()
    expect()(sidebar(page).get_by_role("button", name="Presentation mode: on · corrections shown")).to_be_visible()
    sidebar(page).get_by_role("button", name="Presentation mode: on · corrections shown").press("Enter")  # off again
    expect()(sidebar(page).get_by_role("button", name="Presentation mode: off")).to_be_visible()
    expect()(page.locator('[data-testid="stMain"]')).not_to_contain_text("Presentation mode: editing is hidden")
    expect()(page).not_to_have_url(re.compile(r"present=1"))


def test_tab_reaches_the_queues_first_control_first_when_its_script_comes_last(streamlit_server, page):
    """The Queue's widgets mount as their scripts arrive: on a loaded machine the Queue radio's came a moment after
    the toggle under it (in a popover the focus stayed on the toggle). In the open panel the controls keep the order
    they are drawn in: once the radio is there, Tab from the button reaches it before the toggle, here a radio whose
    script the server sends 1.5 s late."""
    page.set_viewport_size({"width": 1280, "height": 800})
    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    settle(page)

    def late(route):
        time.sleep(1.5)  # the browser keeps drawing meanwhile: only this file is held
        route.continue_()

    page.route(re.compile(r"/Radio\.[\w-]+\.js$"), late)
    queue = sidebar(page).get_by_role("button", name=re.compile(r"^Queue: "))
    queue.focus()
    page.keyboard.press("Enter")
    body = queue_panel(page)
    expect()(body.get_by_role("switch", name="Accept moves to the next unreviewed")).to_be_visible()
    radio = body.get_by_role("radio", name="All examples")
    expect()(radio).to_be_visible(timeout=10_000)
    settle(page)
    queue.focus()
    _tab_to(page, radio)


def test_the_presentation_button_gets_the_focus_back_when_the_server_answers_late(streamlit_server, page):
    """The button turned primary is a new element: the focus goes back to it once it is drawn. It came back only
    within 5 s of the press, so on a busy server (a run answered 6 s late here) the focus fell to the page."""
    page.set_viewport_size({"width": 1280, "height": 800})
    late = {"once": False}

    def stream(ws):  # the app's WebSocket, its first answer after the press held 6 s
        server = ws.connect_to_server()
        ws.on_message(lambda m: server.send(m))

        def answer(m):
            if late["once"]:
                late["once"] = False
                time.sleep(6)
            ws.send(m)

        server.on_message(answer)

    page.route_web_socket(re.compile(r"/_stcore/stream"), stream)
    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    settle(page)
    sidebar(page).get_by_role("button", name="Presentation mode: off").focus()
    late["once"] = True
    page.keyboard.press("Enter")
    expect()(sidebar(page).get_by_role("button", name="Presentation mode: on")).to_be_focused(timeout=15_000)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_open_queue_and_the_presentation_buttons_pass_axe(looking_server, chromium_browser, scheme):
    _axe_present()
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    found = {}
    try:
        open_review(page, f"{looking_server.url}/review?id=ml-vs-programming")
        for name in ("Queue: all examples · no filters · Accept → next unreviewed",):
            settle(page)
            sidebar(page).get_by_role("button", name=name).click()
            body = queue_panel(page)
            expect()(body.locator("input").first).to_be_visible()
            page.wait_for_load_state("networkidle")
            settle(page)
            if violations := _violations(page):
                found[name] = violations
            sidebar(page).get_by_role("button", name=name).click()
            expect()(body).to_have_count(0)
        sidebar(page).get_by_role("button", name="Presentation mode: off").click()  # presenting: two buttons
        expect()(sidebar(page).get_by_role("button", name="Show corrections: off")).to_be_visible()
        page.wait_for_load_state("networkidle")
        if violations := _violations(page):
            found["presenting"] = violations
    finally:
        context.close()
    assert not found, json.dumps(found, indent=1)[:6000]


def test_the_queue_opened_at_the_windows_edge_scrolls_into_view_under_its_button(streamlit_server, page):
    """At 1280x800 the Queue's button sits near the sidebar's bottom: its panel, drawn under it, started past the
    window's edge, and opening it seemed to do nothing. The page's script scrolls the opened panel into view, its
    button still in sight."""
    page.set_viewport_size({"width": 1280, "height": 800})
    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    settle(page)
    queue = sidebar(page).get_by_role("button", name=re.compile(r"^Queue: "))
    last = queue_panel(page).get_by_text("Judge unsure", exact=True)  # its last control
    queue.click()
    expect()(last).to_be_attached()
    expect()(last).to_be_in_viewport(ratio=1)
    expect()(queue).to_be_in_viewport(ratio=1)
    above = queue.evaluate("e => e.getBoundingClientRect().bottom")
    assert queue_panel(page).evaluate("e => e.getBoundingClientRect().top") >= above  # under its button


def test_a_scroll_right_after_opening_the_queue_is_not_undone(streamlit_server, page):
    """The opened panel is scrolled into view again while its widgets mount (some 1.2 s): a person who scrolled the
    sidebar back up meanwhile (to the progress, the pages) saw it jump down again under the mouse."""
    page.set_viewport_size({"width": 1280, "height": 800})
    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    settle(page)
    queue = sidebar(page).get_by_role("button", name=re.compile(r"^Queue: "))
    queue.click()
    expect()(queue).to_have_attribute("aria-expanded", "true")  # the script saw it open: its scrolling begins
    scrolled = "document.querySelector('[data-testid=stSidebarContent]').scrollTop"
    page.wait_for_function(f"{scrolled} > 0")
    page.mouse.move(150, 300)
    page.mouse.wheel(0, -2000)  # back up to the top of the sidebar
    page.wait_for_function(f"{scrolled} === 0")
    page.wait_for_timeout(1800)  # longer than the script goes on scrolling the panel into view
    assert page.evaluate(scrolled) == 0


def _queue_opened(page, url: str):
    """Review opened at 1280x800 on the sample's worked example, its Queue opened: the Queue's button and panel."""
    page.set_viewport_size({"width": 1280, "height": 800})
    open_review(page, f"{url}/review?id=ml-vs-programming")
    settle(page)
    queue = sidebar(page).get_by_role("button", name=re.compile(r"^Queue: "))
    queue.click()
    return queue, queue_panel(page)


def _to_dashboard_and_back(page) -> None:
    """Dashboard, then Review again, through the sidebar's page list (Review drawn)."""
    nav = sidebar(page).get_by_role("navigation", name="Pages")
    nav.get_by_role("link", name="Dashboard").click()
    expect()(page).to_have_url(re.compile(r"/dashboard"))
    settle(page)
    nav.get_by_role("link", name="Review").click()
    expect()(page.locator(".rv-doc").first).to_be_visible()


def test_the_queues_filters_stay_after_another_page_of_the_list(streamlit_server, page):
    """A filter set in the Queue, the Queue closed, then Dashboard and back through the page list: the Queue's button
    still says the filter and Accept's choice, the walk keeps to it, and the panel opened again shows them set."""
    queue, panel = _queue_opened(page, streamlit_server.url)
    panel.get_by_role("switch", name="Accept moves to the next unreviewed").click(force=True)
    expect()(queue).to_have_text(re.compile("Accept stays"))
    settle(page)
    panel.get_by_role("switch", name="Adherence 0").click(force=True)
    left = re.compile("^" + re.escape("Queue: all examples · 1 filter · Accept stays"))  # then the chevron's glyph
    expect()(queue).to_have_text(left)
    settle(page)
    queue.click()
    expect()(panel).to_have_count(0)
    settle(page)
    _to_dashboard_and_back(page)
    settle(page)
    expect()(queue).to_have_text(left)
    queue.click()
    expect()(panel.get_by_role("switch", name="Adherence 0")).to_be_checked()
    expect()(panel.get_by_role("switch", name="Accept moves to the next unreviewed")).not_to_be_checked()


def test_the_queues_settings_are_in_the_url_through_a_reload_a_move_and_the_page_list(streamlit_server, page):
    """A filter and Accept's choice set in the Queue go in the URL: a reload keeps them (the button and the "Filtered"
    line say them), J keeps them in the URL beside the example it moves to, and the page list's way back to Review
    carries them."""
    queue, panel = _queue_opened(page, streamlit_server.url)
    panel.get_by_role("switch", name="Adherence 0").click(force=True)
    expect()(page).to_have_url(re.compile(r"[?&]only=adherence0(&|$)"))
    settle(page)
    entries = page.evaluate("() => history.length")
    panel.get_by_role("switch", name="Accept moves to the next unreviewed").click(force=True)
    expect()(page).to_have_url(re.compile(r"[?&]accept=stays(&|$)"))
    settle(page)
    assert page.evaluate("() => history.length") == entries + 1  # a change is one entry (Back undoes it whole)
    assert re.search(r"[?&]only=adherence0(&|$)", page.url) and re.search(r"[?&]uid=", page.url)
    page.go_back()  # the change undone: Accept moves on again, the filter stays
    expect()(page).not_to_have_url(re.compile(r"accept=stays"))
    expect()(queue).to_have_text(re.compile("^" + re.escape("Queue: all examples · 1 filter · Accept → next")))
    expect()(panel.get_by_role("switch", name="Accept moves to the next unreviewed")).to_be_checked()
    settle(page)
    page.go_forward()
    expect()(page).to_have_url(re.compile(r"[?&]accept=stays(&|$)"))
    expect()(queue).to_have_text(re.compile("^" + re.escape("Queue: all examples · 1 filter · Accept stays")))
    settle(page)
    page.reload()
    expect()(page.locator(".rv-doc").first).to_be_visible()
    left = re.compile("^" + re.escape("Queue: all examples · 1 filter · Accept stays"))
    expect()(queue).to_have_text(left)
    expect()(sidebar(page).get_by_text("Filtered: Adherence 0")).to_be_visible()
    settle(page)
    uid = re.search(r"[?&]uid=([^&]+)", page.url)
    assert uid, page.url
    page.locator("body").press("j")
    expect()(page).not_to_have_url(re.compile(r"[?&]uid=" + re.escape(uid.group(1)) + r"(&|$)"))
    assert re.search(r"[?&]only=adherence0(&|$)", page.url) and re.search(r"[?&]accept=stays(&|$)", page.url)
    settle(page)
    _to_dashboard_and_back(page)
    expect()(page).to_have_url(re.compile(r"/review\?.*only=adherence0"))
    expect()(queue).to_have_text(left)
