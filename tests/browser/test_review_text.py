"""The Review page's text is its editor (issue 13, items 2 and 5), in a real browser.

A click on a context sentence moves its label round none -> relevant -> relevant+utilized ->
utilized -> none (Enter does the same on a focused sentence) and the metrics follow; a click on a
response sentence selects it and lights up its support. RAGBench's longest example (1,056 context
sentences) folds to its labelled sentences and fits three screens at 1280x800, with every control
within a screen of the text it changes. J / K open the next example at its top, and the browser tab
says which example of how many is open.
"""

from __future__ import annotations

import re

import pytest

from ragviz.store.label_store import LabelStore
from tests.browser_wait import expect, metric_value, open_review, press, sentence, settle
from tests.conftest import StreamlitServer
from tests.ragbench_data import require_ragbench

pytestmark = pytest.mark.browser

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"
LONGEST = "expertqa_test/expertqa_206/ExpertQA"  # 1,056 context sentences in 9 documents
SCREEN = {"width": 1280, "height": 800}
MAIN = "document.querySelector('[data-testid=stMain]')"


@pytest.fixture
def small_page(chromium_browser):
    context = chromium_browser.new_context(viewport=SCREEN)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    context.close()


@pytest.fixture
def ragbench_server(tmp_path):
    """The app on the seven RAGBench test shards (2,896 rows), read where they are."""
    root = require_ragbench()
    home = tmp_path / "home"
    home.mkdir()
    server = StreamlitServer(db=tmp_path / "labels.db", home=home, log=tmp_path / "streamlit.log", data=str(root))
    server.start(timeout=120)
    yield server
    server.stop()


def test_clicks_and_keys_on_the_text_change_labels_and_select_sentences(streamlit_server, small_page):
    page = small_page
    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    relevance, utilization = metric_value(page, "Relevance"), metric_value(page, "Utilization")
    expect()(relevance).to_have_text("0.667")  # 4 of 6 relevant, 3 of 6 utilized
    expect()(utilization).to_have_text("0.500")

    # a click on 0a (no label) makes it relevant, the next relevant + utilized
    sentence(page, "0a").click()
    expect()(relevance).to_have_text("0.833")
    settle(page)
    expect()(sentence(page, "0a")).to_have_class(re.compile(r"\brv-relevant\b"))
    sentence(page, "0a").click()
    expect()(utilization).to_have_text("0.667")
    settle(page)
    expect()(sentence(page, "0a")).to_have_class(re.compile(r"\brv-both\b"))

    # the keyboard: Enter on the focused sentence goes on to utilized, then back to none
    sentence(page, "0a").focus()
    page.keyboard.press("Enter")
    expect()(relevance).to_have_text("0.667")
    settle(page)
    expect()(sentence(page, "0a")).to_have_class(re.compile(r"\brv-utilized\b"))
    expect()(sentence(page, "0a")).to_be_focused()  # focus stays on the sentence after the redraw
    page.keyboard.press(" ")
    expect()(utilization).to_have_text("0.500")
    settle(page)
    expect()(sentence(page, "0a")).to_have_class(re.compile(r"\brv-neither\b"))
    page.keyboard.press("ArrowRight")  # arrow keys walk the sentences
    expect()(sentence(page, "0b")).to_be_focused()

    with LabelStore(streamlit_server.db) as store:  # four decisions, each one field, all through the store
        assert [f for f, _ in store.changes(ML, "browser-tester")] == [
            "relevant_keys",
            "utilized_keys",
            "relevant_keys",
            "utilized_keys",
        ]

    # a click on response sentence a selects it: its explanation shows, its support lights up
    page.locator('.rv-resp[data-key="a"]').click()
    expect()(page.locator(".rv-explanation")).to_contain_text("Sentence a ")
    expect()(page.locator('.rv-resp[data-key="a"]')).to_have_class(re.compile(r"\brv-selected\b"))
    settle(page)
    linked = sorted(page.locator(".rv-linked").evaluate_all("els => els.map(e => e.dataset.key)"))
    assert linked and all(k[0].isdigit() for k in linked)
    page.locator('.rv-resp[data-key="b"]').focus()
    page.keyboard.press("Enter")
    expect()(page.locator(".rv-explanation")).to_contain_text("Sentence b ")

    # Shift+click on a context sentence makes it support the selected sentence (b), or no longer
    settle(page)
    sentence(page, "1b").click(modifiers=["Shift"])
    expect()(page.locator(".rv-explanation")).to_contain_text("1b")
    settle(page)
    expect()(sentence(page, "1b")).to_have_class(re.compile(r"\brv-linked\b"))
    with LabelStore(streamlit_server.db) as store:
        assert "1b" in store.changes(ML, "browser-tester")[-1][1]["supporting_keys"]

    # the other metric families are drawn when their button opens them, under it; the button says it is open
    settle(page)
    opener = page.get_by_role("button", name="Other metric families")
    expect()(opener).to_have_attribute("aria-expanded", "false")
    opener.click()
    families = page.locator(".st-key-review-families_panel")
    expect()(families).to_contain_text("retrieval", timeout=60_000)
    expect()(opener).to_have_attribute("aria-expanded", "true")
    # the button is drawn outside the example's fragment (a J does not redraw it, issue 38); open, a move runs the
    # whole page, so it stays open on the next example's families
    press(page, "j")
    expect()(page).to_have_title(re.compile(r"Example 2 of 22"))
    expect()(families).to_have_count(1)
    expect()(opener).to_have_attribute("aria-expanded", "true")
    expect()(families).to_contain_text("retrieval", timeout=60_000)
    # pressed again, it closes them
    opener.click()
    expect()(families).to_have_count(0)
    expect()(opener).to_have_attribute("aria-expanded", "false")


def test_the_longest_ragbench_example_folds_to_three_screens(ragbench_server, small_page):
    page = small_page
    open_review(page, f"{ragbench_server.url}/review?uid={LONGEST}")
    expect()(page.locator(".rv-doc")).to_have_count(9)
    height = page.evaluate(f"{MAIN}.scrollHeight")
    assert height <= 3 * SCREEN["height"], f"the page is {height} px tall"
    # the override table (1,056 rows, sentences cut short, at the bottom) is gone: the text is the editor
    assert page.locator('[data-testid="stDataFrameResizable"]:visible').count() == 0

    # folded: the labelled sentences of document 2 with their neighbours; document 7 shows only its heading
    assert page.locator(".rv-sent").count() < 150
    assert page.locator('.rv-doc[data-doc="7"] .rv-sent').count() == 0
    # the selected response sentence's controls sit within a screen below the response
    response_top = page.locator(".rv-response").bounding_box()["y"]
    verdict = page.locator(".rv-controls .rv-verdicts").first
    assert verdict.bounding_box()["y"] - response_top < SCREEN["height"]

    # opened at its top, the pane lays out only the documents in view (a J lays out one screen, issue 38) ...
    laid_out = "[...document.querySelectorAll('.rv-doc')].map(d => getComputedStyle(d).contentVisibility)"
    assert set(page.evaluate(laid_out)) == {"auto"}

    # "show all" on document 7 shows its 541 sentences inside the context pane: the page stays short
    page.locator('.rv-doc[data-doc="7"] .rv-showall').click()
    expect()(page.locator('.rv-doc[data-doc="7"] .rv-sent')).to_have_count(541)
    # ... and once used, all of them: a position read from now on (a jump's, the one kept) is the real one
    assert set(page.evaluate(laid_out)) == {"visible"}
    assert page.evaluate(f"{MAIN}.scrollHeight") <= 3 * SCREEN["height"]
    # the document list jumps to a document
    page.locator('.rv-jump[data-doc="8"]').click()
    expect()(page.locator('.rv-doc[data-doc="8"] .rv-doc-head')).to_be_in_viewport()

    # a click deep in the pane labels that sentence and the pane keeps its place
    target = page.locator('.rv-doc[data-doc="7"] .rv-sent').nth(400)
    target.scroll_into_view_if_needed()
    key = target.get_attribute("data-key")
    before = page.evaluate("document.querySelector('.rv-pane').scrollTop")
    assert before > 0
    relevance = metric_value(page, "Relevance")
    expect()(relevance).to_have_text("0.018")  # 19 / 1,056
    target.click()
    expect()(relevance).to_have_text("0.019")  # 20 / 1,056
    settle(page)
    expect()(sentence(page, key)).to_have_class(re.compile(r"\brv-relevant\b"))
    expect()(sentence(page, key)).to_be_in_viewport()
    with LabelStore(ragbench_server.db) as store:
        assert store.changes(LONGEST, "browser-tester")[0][0] == "relevant_keys"


def test_fold_at_the_bottom_of_a_long_document_shows_its_top(ragbench_server, small_page):
    """A document shown whole ends with a second "Fold": pressed there, deep in the pane, the folded document's top
    comes into view. The redrawn pane restored the position kept from before the fold, past the now short document:
    the pane stood at its bottom, the folded document's heading out of sight above it."""
    page = small_page
    open_review(page, f"{ragbench_server.url}/review?uid={LONGEST}")
    doc = page.locator('.rv-doc[data-doc="2"]')
    doc.locator(".rv-showall").click()
    fold = doc.locator(".rv-showall").last
    expect()(fold).to_have_text("Fold")
    # the person scrolls the pane down to that button (the pane keeps the position, as a scroll does)
    page.evaluate(
        "() => { const p = document.querySelector('.rv-pane'); const f = [...p.querySelectorAll("
        "'.rv-doc[data-doc=\"2\"] .rv-showall')].pop(); p.scrollTop = f.offsetTop - p.clientHeight / 2; }"
    )
    page.wait_for_function("document.querySelector('.rv-pane').scrollTop > 2000")
    page.wait_for_timeout(300)  # the scroll event, which keeps the position
    fold.click()
    expect()(doc.locator(".rv-showall")).to_have_count(1)
    page.wait_for_timeout(300)  # the position restored just before the next frame
    pane_top, pane_bottom = page.evaluate(
        "(() => { const r = document.querySelector('.rv-pane').getBoundingClientRect(); return [r.top, r.bottom]; })()"
    )
    head = doc.locator(".rv-doc-head").bounding_box()
    assert pane_top - 1 <= head["y"] < pane_bottom, (pane_top, head["y"], pane_bottom)


def test_on_a_projector_the_documents_pane_scrolls_from_the_keyboard(ragbench_server, small_page):
    """Presenting, no sentence takes the focus: the pane of a long example is a region of its own in the tab order,
    and the keyboard scrolls it (axe: a scrollable region must have keyboard access)."""
    page = small_page
    open_review(page, f"{ragbench_server.url}/review?uid={LONGEST}&present=1")
    pane = page.get_by_role("region", name="Documents")
    expect()(pane).to_be_visible()
    assert page.locator(".rv-sent[tabindex]").count() == 0
    pane.focus()
    page.keyboard.press("PageDown")
    page.wait_for_function("document.querySelector('.rv-pane').scrollTop > 0")


def test_a_long_response_shows_every_sentence(ragbench_server, small_page):
    """The response picker showed 9 of 23 sentences; the response text is the picker now."""
    from ragviz.data.load import load

    ds = load([str(require_ragbench())]).dataset
    uid = next(ex.uid for ex in ds if len(ex.response_sentences) == 23)
    page = small_page
    open_review(page, f"{ragbench_server.url}/review?uid={uid}")
    responses = page.locator(".rv-resp")
    expect()(responses).to_have_count(23)
    last = responses.nth(22)
    last.scroll_into_view_if_needed()
    last.click()
    expect()(page.locator(".rv-explanation")).to_contain_text(f"Sentence {last.get_attribute('data-key')} ")


def test_next_and_previous_open_the_example_at_its_top_and_the_title_says_where(streamlit_server, small_page):
    page = small_page
    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    expect()(page).to_have_title(re.compile(r"Example 1 of 22"))
    page.evaluate(f"{MAIN}.scrollTop = {MAIN}.scrollHeight")
    assert page.evaluate(f"{MAIN}.scrollTop") > 300
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("j")
    expect()(page).not_to_have_url(re.compile("ml-vs-programming"))
    expect()(page).to_have_title(re.compile(r"Example 2 of 22"))
    page.wait_for_function(f"() => {MAIN}.scrollTop === 0", timeout=30_000)
    settle(page)
    assert page.evaluate(f"{MAIN}.scrollTop") == 0

    page.evaluate(f"{MAIN}.scrollTop = {MAIN}.scrollHeight")
    sentence(page, "0a").focus()  # the keys work with the focus on the text, too
    page.keyboard.press("k")
    expect()(page).to_have_url(re.compile("ml-vs-programming"))
    expect()(page).to_have_title(re.compile(r"Example 1 of 22"))
    page.wait_for_function(f"() => {MAIN}.scrollTop === 0", timeout=30_000)
    # a label stored: the whole page runs (app.py says "ragviz" first), and the tab still says where the person is
    settle(page)
    sentence(page, "0a").click()
    expect()(sentence(page, "0a")).to_have_attribute("data-state", "relevant")
    settle(page)
    expect()(page).to_have_title(re.compile(r"^Example 1 of 22 · Review · ragviz$"))


def test_the_editors_script_comes_once_as_a_file_not_with_every_move(streamlit_server, small_page):
    """The text editor's script and styles are files the browser fetches (the manifest ragviz/pyproject.toml names
    their folder), not a copy inside every message that draws the editor (issue 38: 41 of the 55 KB a J sent)."""
    page = small_page
    frames: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    expect()(sentence(page, "0a")).to_be_visible()  # the editor's script is there (it loads after the run's end)
    loaded = page.evaluate("() => performance.getEntriesByType('resource').map((e) => e.name.split('?')[0])")
    assets = f"{streamlit_server.url}/_stcore/bidi-components/ragviz.sentence_editor/"
    assert {assets + "editor.js", assets + "editor.css"} <= set(loaded), [u for u in loaded if "_stcore" in u]
    frames.clear()
    press(page, "j")
    expect()(page).to_have_title(re.compile(r"Example 2 of 22"))
    settle(page)
    assert page.locator(".rv-doc").count() > 0 and page.locator(".rv-resp").count() > 0  # the editor drew both texts
    sent = b"".join(f if isinstance(f, bytes) else f.encode() for f in frames)
    assert b"renderContext" not in sent and b".rv-pane" not in sent  # no script, no styles in the messages


def test_the_text_never_takes_the_focus_after_a_move_to_another_example(streamlit_server, small_page):
    """A keyboard action on the text keeps its sentence focused through its own redraw only: after
    J / K the focus is the page's, wherever it was before, and the page keys keep working."""
    page = small_page
    open_review(page, f"{streamlit_server.url}/review?id=ml-vs-programming")
    in_text = "() => !!document.activeElement.closest('.rv-text')"
    selected = page.locator(".rv-resp.rv-selected")
    selected.focus()
    page.keyboard.press("Enter")  # Enter on the sentence already selected: nothing to send, nothing redrawn
    expect()(selected).to_be_focused()
    page.keyboard.press("j")  # the page key works from the text
    expect()(page).to_have_title(re.compile(r"Example 2 of 22"))
    settle(page)
    assert not page.evaluate(in_text)
    page.keyboard.press("k")
    expect()(page).to_have_title(re.compile(r"Example 1 of 22"))
    settle(page)
    assert not page.evaluate(in_text)  # back on the example: the old keyboard action takes no focus
    page.keyboard.press("j")
    expect()(page).to_have_title(re.compile(r"Example 2 of 22"))


def test_a_stale_click_in_a_second_tab_is_refused(streamlit_server, chromium_browser):
    """Issue 28: two tabs of one person on one example. Tab 1 clicks 1c through none -> R -> R+U -> U;
    tab 2, still showing 1c "neither", clicks it once: refused with a message naming the field that
    changed, tab 2 redraws with 1c "utilized", and the store keeps tab 1's three clicks only (before:
    tab 2's click was stored and 1c became R+U, which neither tab meant, without a word)."""
    context = chromium_browser.new_context(viewport=SCREEN)  # one browser, two tabs: one person
    try:
        tab1, tab2 = context.new_page(), context.new_page()
        for tab in (tab1, tab2):
            tab.set_default_timeout(60_000)
            open_review(tab, f"{streamlit_server.url}/review?id=ml-vs-programming")
        expect()(sentence(tab2, "1c")).to_have_attribute("data-state", "neither")
        for state in ("relevant", "both", "utilized"):
            sentence(tab1, "1c").click()
            expect()(sentence(tab1, "1c")).to_have_attribute("data-state", state)
            settle(tab1)
        sentence(tab2, "1c").click()
        notice = tab2.locator(".rv-notice")  # issue 34: said under the sentence, in view (it was 584 px above)
        expect()(notice).to_contain_text("Not saved")
        expect()(notice).to_contain_text("utilized_keys")
        expect()(sentence(tab2, "1c")).to_have_attribute("data-state", "utilized")  # the stored value
        settle(tab2)
        box, said = sentence(tab2, "1c").bounding_box(), notice.bounding_box()
        assert 0 <= said["y"] and said["y"] + said["height"] <= SCREEN["height"], said  # within the viewport
        assert 0 <= said["y"] - (box["y"] + box["height"]) <= 60, (box, said)  # right under the sentence
        assert tab2.locator('[data-testid="stAlert"]').filter(has_text="Not saved").count() == 0  # not up top
        with LabelStore(streamlit_server.db) as store:
            events = store.history(ML)
            assert len(events) == 3, [(e.field, e.new) for e in events]
            latest = dict(store.changes(ML, "browser-tester"))
        assert "1c" in latest["utilized_keys"] and "1c" not in latest["relevant_keys"]
    finally:
        context.close()
