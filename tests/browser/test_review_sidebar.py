"""The Review page's sidebar settings (issue 38): the Queue, "Accept moves to the next unreviewed" and the filters in
a closed popover, Presentation mode a button that turns it on and off (with "Show corrections" under it while presenting). None
is a widget on the first page (no toggle or radio scripts fetched for it), yet their buttons say the settings, a
keyboard reaches every control (Enter on a popover's button moves the focus into it, Escape brings it back; Enter on
the presentation button turns the mode) and the controls pass axe with a popover open and while presenting, in both
themes."""

from __future__ import annotations

import json
import re

import pytest

from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser.test_accessibility import _axe_present, _violations
from tests.browser_wait import expect, open_review, settle, sidebar
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
    expect()(page.get_by_test_id("stPopoverBody").get_by_role("radio", name="All examples")).to_be_checked()


def test_in_a_team_round_the_queue_button_says_my_assignments_and_no_toggle_is_fetched(streamlit_server, page):
    """ "My assignments" was a toggle on the sidebar: the first page of every annotator in a round fetched the toggle's
    script. It waits in the Queue's popover now, and the Queue button says it."""
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
    body = page.get_by_test_id("stPopoverBody")
    expect()(body.get_by_role("switch", name=re.compile(r"^My assignments"))).to_be_checked()
    body.get_by_text("My assignments (2 open of 2)").click()  # off: every example, and the button says so
    expect()(sidebar(page).get_by_role("button", name=re.compile(r"^Queue: all examples"))).to_be_visible()


def test_a_keyboard_reaches_the_queue_and_presentation_mode_and_changes_them(streamlit_server, page):
    page.set_viewport_size({"width": 1280, "height": 800})
    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    settle(page)
    queue = sidebar(page).get_by_role("button", name=re.compile(r"^Queue: "))
    queue.focus()
    page.keyboard.press("Enter")
    body = page.get_by_test_id("stPopoverBody")
    expect()(body.get_by_role("radio", name="All examples")).to_be_focused()
    page.keyboard.press("Tab")
    switch = body.get_by_role("switch", name="Accept moves to the next unreviewed")
    expect()(switch).to_be_focused()
    page.keyboard.press("Space")
    expect()(queue).to_have_text(re.compile(r"^Queue: all examples · no filters · Accept stays"))
    settle(page)
    expect()(switch).not_to_be_checked()
    page.keyboard.press("Escape")
    expect()(body).to_have_count(0)
    expect()(queue).to_be_focused()

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


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_open_popovers_and_the_presentation_buttons_pass_axe(looking_server, chromium_browser, scheme):
    _axe_present()
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    found = {}
    try:
        open_review(page, f"{looking_server.url}/review?id=ml-vs-programming")
        for name in ("Queue: all examples · no filters · Accept → next unreviewed",):
            settle(page)
            sidebar(page).get_by_role("button", name=name).click()
            body = page.get_by_test_id("stPopoverBody")
            expect()(body.locator("input").first).to_be_visible()
            page.wait_for_load_state("networkidle")
            if violations := _violations(page):
                found[name] = violations
            page.keyboard.press("Escape")
            expect()(body).to_have_count(0)
        sidebar(page).get_by_role("button", name="Presentation mode: off").click()  # presenting: two buttons
        expect()(sidebar(page).get_by_role("button", name="Show corrections: off")).to_be_visible()
        page.wait_for_load_state("networkidle")
        if violations := _violations(page):
            found["presenting"] = violations
    finally:
        context.close()
    assert not found, json.dumps(found, indent=1)[:6000]
