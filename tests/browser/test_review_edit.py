"""Real-browser tests of the Review page's decisions as a person makes them: Accept keeps the
corrections, Z undoes the last action wherever it was made and says beforehand what it will undo,
an edit back to where it started is no change, a flipped verdict carries the reviewer's note (the
judge's text stays under ``llm_`` in the export), presentation mode has no editing control, key or
"corrected" marker, and an ambiguous ``?id=`` lists its matches instead of opening one.

`streamlit run` on 127.0.0.1 (ports 8600-8699, else any free one) with a fresh store, Playwright
driving Debian chromium; every wait is on what is asserted.
"""

from __future__ import annotations

import json
import re
import socket

import pytest

from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser_wait import click_support, expect, metric_value, open_review, press, settle, sidebar
from tests.conftest import StreamlitServer, free_port
from tests.sample import SAMPLE_DATA

pytestmark = pytest.mark.browser

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"
WAIT = 60_000


def _port() -> int:
    for port in range(8600, 8700):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return free_port()


@pytest.fixture
def server(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    srv = StreamlitServer(db=tmp_path / "labels.db", home=home, log=tmp_path / "streamlit.log", port=_port())
    srv.start()
    yield srv
    srv.stop()


def header(page):
    return page.locator('[data-testid="stMain"]').get_by_text(re.compile(r"^Example \d+ of 22"))


def undo_hint(page):
    return page.locator(".rv-undo-hint")


def test_accept_keeps_corrections_and_z_undoes_the_last_action_wherever_it_was(server, page):
    url = server.url
    open_review(page, f"{url}/review?id=ml-vs-programming")
    expect()(undo_hint(page)).to_have_text("Z: nothing to undo")
    expect()(metric_value(page, "Adherence")).to_have_text("0.000")
    click_support(page, "✓ supported")  # the correction: response sentence c is supported
    expect()(metric_value(page, "Adherence")).to_have_text("1.000")
    expect()(undo_hint(page)).to_have_text("Z: undo 'supported c' on this example")

    press(page, "a")  # accept: the labels as shown are right; moves on to the next unreviewed
    expect()(page).not_to_have_url(re.compile("ml-vs-programming"))
    expect()(undo_hint(page)).to_have_text("Z: undo 'accept' on example 1 (ml-vs-programming · gpt-4o-mini)")
    expect()(sidebar(page)).to_contain_text("1 / 22 reviewed (1 corrected)")
    with LabelStore(server.db) as store:
        ex = next(e for e in load([SAMPLE_DATA]).dataset if e.uid == ML)
        assert store.current_labels(ex, server.annotator).support_for("c").supported is True  # kept

    press(page, "j")  # further on: Z still undoes the accept, and goes back there
    expect()(header(page)).to_contain_text("Example 3 of 22")
    press(page, "z")
    expect()(page).to_have_url(re.compile("ml-vs-programming"))
    expect()(page.locator('[data-testid="stToast"]')).to_contain_text("Undid 'accept'")
    expect()(metric_value(page, "Adherence")).to_have_text("1.000")  # the correction is still there
    expect()(undo_hint(page)).to_have_text("Z: undo 'supported c' on this example")
    press(page, "z")
    expect()(metric_value(page, "Adherence")).to_have_text("0.000")
    expect()(undo_hint(page)).to_have_text("Z: nothing to undo")
    expect()(sidebar(page)).to_contain_text("0 / 22 reviewed (0 corrected)")


def test_a_decision_the_person_made_elsewhere_shows_in_the_sidebar_on_the_next_j(server, page):
    """Issue 38: a J draws the example alone unless the store holds other decisions of the person's than the page drew
    (another tab, replica or session; checked by one number, ``LabelStore.status_version``): then the whole page runs
    and the sidebar's progress follows the store. Another person's decision does not."""
    from ragviz.analysis.review.edits import accept_changes

    open_review(page, f"{server.url}/review?id=ml-vs-programming")
    expect()(sidebar(page)).to_contain_text("0 / 22 reviewed (0 corrected)")
    uids = load([SAMPLE_DATA]).dataset.uids
    with LabelStore(server.db) as store:
        store.record(uids[9], "someone else", accept_changes(), "accept")
    press(page, "j")
    expect()(header(page)).to_contain_text("Example 2 of 22")
    expect()(sidebar(page)).to_contain_text("0 / 22 reviewed (0 corrected)")
    with LabelStore(server.db) as store:  # the same person, in another tab
        store.record(uids[9], server.annotator, accept_changes(), "accept")
    press(page, "j")
    expect()(header(page)).to_contain_text("Example 3 of 22")
    expect()(sidebar(page)).to_contain_text("1 / 22 reviewed (0 corrected)")


def test_an_edit_that_ends_where_it_started_is_no_change(server, page):
    open_review(page, f"{server.url}/review?id=ml-vs-programming")
    click_support(page, "✓ supported")
    expect()(metric_value(page, "Adherence")).to_have_text("1.000")
    expect()(sidebar(page)).to_contain_text("1 / 22 reviewed (1 corrected)")
    click_support(page, "✗ unsupported")  # back to the judge's verdict
    expect()(metric_value(page, "Adherence")).to_have_text("0.000")
    expect()(sidebar(page)).to_contain_text("0 / 22 reviewed (0 corrected)")
    expect()(page.locator('[data-testid="stMain"]')).to_contain_text("not reviewed yet")
    expect()(page.locator(".rv-explanation")).to_contain_text("not")  # the judge's explanation is back
    expect()(page.locator(".rv-explanation")).not_to_contain_text("Reviewer's note")


def test_a_click_on_the_chosen_verdict_changes_nothing(server, page):
    """Issue 28: "✗ unsupported" is the judge's verdict on c; a click on it stored
    ``fully_supported: None`` while the button stayed highlighted. Now nothing is stored and it
    stays chosen."""
    open_review(page, f"{server.url}/review?id=ml-vs-programming")
    chosen = page.locator(".rv-controls button.rv-verdict").filter(has_text="✗ unsupported")
    expect()(chosen).to_have_attribute("aria-pressed", "true")
    click_support(page, "✗ unsupported")
    settle(page)
    expect()(chosen).to_have_attribute("aria-pressed", "true")
    expect()(undo_hint(page)).to_have_text("Z: nothing to undo")
    expect()(sidebar(page)).to_contain_text("0 / 22 reviewed (0 corrected)")
    with LabelStore(server.db) as store:
        assert store.history(ML) == []


def test_a_flipped_verdict_shows_and_exports_the_reviewers_note(server, page, tmp_path):
    url = server.url
    open_review(page, f"{url}/review?id=ml-vs-programming")
    explanation = page.locator(".rv-explanation")
    expect()(explanation).to_contain_text("Sentence c ")
    judge_text = explanation.locator("div").nth(1).inner_text().strip()
    assert judge_text and "Reviewer" not in judge_text
    click_support(page, "✓ supported")
    expect()(explanation).to_contain_text("Reviewer's note: (no note)")
    expect()(explanation).not_to_contain_text(judge_text, use_inner_text=True)  # folded away, not shown as the reason
    note = page.get_by_label(re.compile("Your note on c"))
    note.fill("Document 0b states it; <b>checked</b>")
    note.press("Enter")
    expect()(explanation).to_contain_text("Reviewer's note: Document 0b states it; <b>checked</b>")
    expect()(page.locator(".rv-undo-hint")).to_have_text("Z: undo 'note on c' on this example")

    page.goto(f"{url}/export")
    button = page.get_by_role("button", name="Download labels (JSONL)")
    expect()(button).to_be_visible()
    with page.expect_download() as info:
        button.click()
    target = tmp_path / "export.jsonl"
    info.value.save_as(target)
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    row = next(r for r in rows if r["id"] == "ml-vs-programming")
    now = next(s for s in row["sentence_support_information"] if s["response_sentence_key"] == "c")
    was = next(s for s in row["llm_sentence_support_information"] if s["response_sentence_key"] == "c")
    assert now["fully_supported"] is True and now["explanation"] == "Document 0b states it; <b>checked</b>"
    assert was["fully_supported"] is False and was["explanation"] == judge_text


def test_presentation_mode_has_no_editing_control_key_or_correction_marker(server, page):
    url = server.url
    open_review(page, f"{url}/review?id=ml-vs-programming")
    click_support(page, "✓ supported")  # a correction made before presenting
    expect()(page.locator('[data-testid="stMain"]')).to_contain_text("corrected")
    with LabelStore(server.db) as store:
        before = store.n_events()

    open_review(page, f"{url}/review?id=ml-vs-programming&present=1")
    main = page.locator('[data-testid="stMain"]')
    expect()(main).to_contain_text("Presentation mode")
    for name in ("Accept", "Undo", "Reset", "Next unreviewed"):
        expect()(page.get_by_role("button", name=re.compile(name))).to_have_count(0)
    expect()(page.locator(".rv-explanation")).to_contain_text("Sentence ")  # the explanation, without controls
    expect()(
        page.locator('.rv-controls, .rv-verdict, .rv-note, .rv-key-add, [class*="st-key-review-context-"]')
    ).to_have_count(0)
    expect()(page.locator(".rv-metric-delta")).to_have_count(0)
    expect()(main).not_to_contain_text("corrected")
    expect()(main).not_to_contain_text("What each override changed")
    expect()(sidebar(page)).not_to_contain_text("corrected")
    expect()(sidebar(page).get_by_role("switch")).to_have_count(0)
    expect()(sidebar(page).get_by_role("button", name="Show corrections: off")).to_be_visible()
    for key in ("a", "z"):
        press(page, key)
    press(page, "j")  # moving still works
    expect()(header(page)).to_contain_text("Example 2 of 22")
    expect()(page).not_to_have_url(re.compile("ml-vs-programming"))
    press(page, "k")
    expect()(header(page)).to_contain_text("Example 1 of 22")
    expect()(page).to_have_url(re.compile("ml-vs-programming"))
    settle(page)
    with LabelStore(server.db) as store:
        assert store.n_events() == before  # A and Z did nothing
    expect()(metric_value(page, "Adherence")).to_have_text("1.000")  # the current labels are presented

    sidebar(page).get_by_role("button", name="Show corrections: off").click()  # the presenter asks for them
    expect()(sidebar(page).get_by_role("button", name="Presentation mode: on · corrections shown")).to_be_visible()
    expect()(sidebar(page).get_by_role("button", name="Show corrections: on")).to_be_visible()
    expect()(main).to_contain_text("corrected")
    expect()(page.locator(".rv-metric-delta").first).to_be_visible()
    expect()(page.get_by_role("button", name=re.compile("Accept"))).to_have_count(0)  # still no editing


def test_an_ambiguous_id_lists_its_matches_and_the_person_chooses(server, page):
    url = server.url
    page.goto(f"{url}/review?id=tech-003")
    main = page.locator('[data-testid="stMain"]')
    expect()(main).to_contain_text("names 2 examples")
    choices = page.get_by_role("button", name=re.compile(r"techqa_sample · .* · techqa_sample.tech-003."))
    expect()(choices).to_have_count(2)
    expect()(metric_value(page, "Adherence")).to_have_count(0)  # nothing opened silently
    settle(page)
    page.get_by_role("button", name=re.compile("llama-3.1-8b-instruct")).click()
    expect()(page).to_have_url(re.compile(r"tech-003(%2F|.)llama-3\.1-8b-instruct"))
    expect()(main).to_contain_text("model llama-3.1-8b-instruct")
    expect()(metric_value(page, "Adherence")).to_be_visible()

    open_review(page, f"{url}/review?id=tech-003&dataset=techqa_sample&model=gpt-4o-mini")  # exact
    expect()(main).to_contain_text("model gpt-4o-mini")
    expect()(main).not_to_contain_text("names 2 examples")
    expect()(page).to_have_url(re.compile("gpt-4o-mini"))
    expect()(page).not_to_have_url(re.compile("[?&]id="))


def test_the_verdict_and_the_supporting_keys_by_keyboard_under_the_response(server, page):
    """Issue 38: the verdict and the keys picker are part of the response editor. Tab goes from the response to the
    verdict, Enter chooses it and the button keeps the focus through the redraw; a key typed into the picker and
    Enter links that context sentence (outlined in the documents), an unknown key is said and not sent, the chip's
    remove button takes it out; each a decision as the widgets stored it."""
    open_review(page, f"{server.url}/review?id=ml-vs-programming")
    settle(page)
    page.locator('.rv-resp[data-key="c"]').focus()
    page.keyboard.press("Tab")  # from the response to the first verdict button under it
    supported = page.locator(".rv-controls button.rv-verdict").filter(has_text="✓ supported")
    expect()(supported).to_be_focused()
    page.keyboard.press("Enter")
    expect()(metric_value(page, "Adherence")).to_have_text("1.000")
    expect()(supported).to_have_attribute("aria-pressed", "true")
    expect()(supported).to_be_focused()  # through the redraw its own change caused
    settle(page)
    add = page.get_by_label("Context sentences supporting c")
    add.fill("1b")
    add.press("Enter")
    expect()(page.locator('.rv-keychip[data-key="1b"]')).to_be_visible()
    expect()(page.locator('.rv-sent[data-key="1b"]')).to_have_class(re.compile(r"\brv-linked\b"))
    expect()(page.locator(".rv-explanation")).to_contain_text("supporting keys: 1b")
    settle(page)
    add = page.get_by_label("Context sentences supporting c")
    add.fill("9z")
    add.press("Enter")
    expect()(page.locator(".rv-ctl-msg")).to_have_text("No context sentence has the key 9z.")
    page.get_by_role("button", name="Remove 1b").focus()
    page.keyboard.press("Space")
    expect()(page.locator(".rv-keychip")).to_have_count(0)
    expect()(page.get_by_label("Context sentences supporting c")).to_be_focused()  # the chip gone: the field
    with LabelStore(server.db) as store:
        assert [(v["supported"], v["supporting_keys"]) for _, v in store.changes(ML, server.annotator)] == [
            (True, []),
            (True, ["1b"]),
            (True, []),
        ]
