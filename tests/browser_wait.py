"""What every browser test does to a Streamlit page, in one place, each step waiting for what a person
would see before the next (in the spirit of Streamlit's ``e2e_playwright/shared/app_utils.py``).

``settle`` waits for a run to finish, ``shows_uid`` for the URL to name an example; ``expect`` is Playwright's,
with a wait long enough for a loaded machine; the rest open the Review page and act on it the way a person does."""

from __future__ import annotations

WAIT = 60_000

# An element drawn by the run before stays on screen, marked stale, until the run that replaces it ends;
# when the new run draws it at another place, both are there for a moment and a strict locator fails at
# once. Locators of things that are redrawn look only at elements of the current run.
FRESH = '[data-testid="stElementContainer"]:not([data-stale="true"])'


def settle(page, timeout: int = WAIT) -> None:
    """Until the page is drawn whole: no script running (its status widget is gone) and no element
    left from an older run. A rerun changes the URL early and may show no status widget at all while
    the elements drawn before it are still on screen (marked stale): a key pressed then goes to those.
    The short wait first lets a rerun that a click or key just asked for begin."""
    page.wait_for_timeout(150)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]') && !document.querySelector('[data-stale=true]')",
        timeout=timeout,
    )


def shows_uid(page, uid: str, timeout: int = WAIT) -> None:
    """Until the URL names the example *uid*: the Review page puts it there once the frame that shows the example is
    drawn, a frame or two after its text (issue 38). Fails saying the URL it has instead."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function("(u) => new URLSearchParams(location.search).get('uid') === u", arg=uid, timeout=timeout)
    except PlaywrightTimeout:
        raise AssertionError(f"the URL names another example than {uid!r}: {page.url}") from None


def expect():
    """Playwright's ``expect``, waiting up to :data:`WAIT` for what is asserted (a loaded machine)."""
    from playwright.sync_api import expect as _expect

    _expect.set_options(timeout=WAIT)
    return _expect


def sidebar(page):
    """The app's sidebar (navigation, who is signed in, the loaded data)."""
    return page.locator('[data-testid="stSidebar"]')


def queue_button(page):
    """The Review sidebar's "Queue: …" button (a disclosure: it opens and closes the Queue's panel under it)."""
    import re

    return sidebar(page).get_by_role("button", name=re.compile(r"^Queue: "))


def queue_panel(page):
    """The Review sidebar's open Queue panel (the Queue radio, "Accept moves to the next unreviewed", the filters),
    under its button; drawn only while open."""
    return sidebar(page).locator(".st-key-review-queue_panel")


def choose_queue(page, queue: str) -> None:
    """Choose the Review page's *queue* ("All examples" or "Audit sample") as a person does: open the sidebar's closed
    "Queue: …" disclosure, click the choice, see the button name it, close it (its button again)."""
    import re

    queue_button(page).click()
    panel = queue_panel(page)
    panel.locator('[data-testid="stRadio"]').get_by_text(queue, exact=True).click()
    named = sidebar(page).get_by_role("button", name=re.compile(rf"^Queue: {re.escape(queue.lower())}"))
    expect()(named).to_be_visible()
    settle(page)
    named.click()
    expect()(panel).to_have_count(0)
    settle(page)


def metric_card(page, label: str):
    """The metric card labelled *label*: an ``st.metric`` or one of the Review page's TRACe cards (one HTML block
    for the four, ``ragviz.ui.review.page.metric_cards_html``)."""
    return (
        page.locator(f'{FRESH} [data-testid="stMetric"]')
        .filter(has_text=label)
        .or_(page.locator(f'{FRESH} .rv-metric[data-metric="{label}"]'))
    )


def metric_value(page, label: str):
    """The value of the metric card labelled *label*."""
    return metric_card(page, label).locator('[data-testid="stMetricValue"], .rv-metric-value')


def sentence(page, key: str):
    """The context sentence *key* in the Review page's text."""
    return page.locator(f'.rv-sent[data-key="{key}"]')


def open_review(page, url: str) -> None:
    """Open *url* (a Review page) and wait until its metric cards, its navigation bar and its text are drawn and the
    run is over: the bar and the text are components whose scripts draw them after the run (a J pressed before the
    bar's script listens is lost; the page is shorter until the text is there)."""
    page.goto(url)
    expect()(metric_value(page, "Adherence")).to_be_visible()
    expect()(page.locator(".rv-toolbar button[data-id]").first).to_be_visible()
    expect()(page.locator(".rv-sent").first).to_be_visible()
    settle(page)


def press(page, key: str) -> None:
    """Press *key* on the page itself (no text field focused), once the page has settled."""
    settle(page)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press(key)


def click_support(page, label: str) -> None:
    """Click the verdict button labelled *label* (e.g. "✓ supported"), under the response in its editor, once the
    page has settled."""
    settle(page)
    page.locator(".rv-controls button.rv-verdict").filter(has_text=label).click()


def select_sentence(page, key: str) -> None:
    """Select response sentence *key* by clicking it, and wait for its own explanation box."""
    settle(page)
    page.locator(f'.rv-resp[data-key="{key}"]').click()  # the response text itself is the picker
    expect()(page.locator(".rv-explanation").filter(has_text=f"Sentence {key} ")).to_be_visible()
    settle(page)
