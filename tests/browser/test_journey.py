"""Real-browser tests: `streamlit run` on 127.0.0.1, Playwright driving Debian chromium.

A person's path through the app: load the sample data, override a label by clicking, see the metric
change, undo with the keyboard, follow a deep link, download the export and check it; hostile
document text is shown literally; a SIGKILLed server loses no decision. Screenshots of every page go
to artifacts/screenshots/ (ignored by git).
"""

from __future__ import annotations

import html
import json
import re

import pytest

from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser_wait import (
    FRESH,
    click_support,
    expect,
    metric_card,
    metric_value,
    open_review,
    select_sentence,
    settle,
)
from tests.sample import SAMPLE_DATA

pytestmark = pytest.mark.browser

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def test_a_person_reviews_and_exports(streamlit_server, page, tmp_path, screenshot):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    url = streamlit_server.url

    # Data page: load the bundled sample
    page.goto(f"{url}/data")
    page.get_by_role("button", name="Load the sample data").click()
    expect()(page.locator(f'{FRESH} [data-testid="stMetric"]').filter(has_text="Examples")).to_contain_text(
        "22", timeout=30_000
    )
    expect()(page.locator('[data-testid="stSidebar"]')).to_contain_text(str(streamlit_server.db))
    screenshot(page, "data")

    # Review: the worked example through a deep link
    open_review(page, f"{url}/review?id=ml-vs-programming")
    expect()(metric_value(page, "Adherence")).to_have_text("0.000")
    expect()(metric_value(page, "Relevance")).to_have_text("0.667")
    expect()(page.locator(".rv-doc")).to_have_count(2)
    expect()(page.locator(".rv-explanation")).to_contain_text("Sentence c ")  # selected by default
    expect()(page.locator(".rv-linked")).to_have_count(0)  # c has no supporting key
    click_support(page, "✓ supported")
    expect()(metric_value(page, "Adherence")).to_have_text("1.000")
    expect()(metric_card(page, "Adherence")).to_contain_text("+1.000")
    # selecting response sentence a lights up its supporting context sentences
    select_sentence(page, "a")
    example = next(e for e in load([SAMPLE_DATA]).dataset if e.uid == ML)
    supporting = sorted(set(example.labels.support_for("a").supporting_keys) & set(example.context_keys()))
    assert supporting
    expect()(page.locator(".rv-linked")).to_have_count(len(supporting))  # wait for a's links, then read them
    linked = sorted(page.locator(".rv-linked").evaluate_all("els => els.map(e => e.dataset.key)"))
    assert linked == supporting
    screenshot(page, "review")

    # keyboard: Z undoes the override, J goes to the next example, K comes back
    settle(page)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("z")
    expect()(metric_value(page, "Adherence")).to_have_text("0.000")
    settle(page)
    page.keyboard.press("j")
    expect()(page).not_to_have_url(re.compile("ml-vs-programming"))
    settle(page)
    page.keyboard.press("k")
    expect()(page).to_have_url(re.compile("ml-vs-programming"))
    settle(page)

    # override again, then export and check the downloaded file
    expect()(metric_value(page, "Adherence")).to_have_text("0.000")
    select_sentence(page, "c")
    click_support(page, "✓ supported")
    expect()(metric_value(page, "Adherence")).to_have_text("1.000")
    page.goto(f"{url}/export")
    button = page.get_by_role("button", name="Download labels (JSONL)")
    expect()(button).to_be_visible(timeout=30_000)
    screenshot(page, "export")
    with page.expect_download() as info:
        button.click()
    target = tmp_path / "export.jsonl"
    info.value.save_as(target)
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert len(rows) == 22
    row = next(r for r in rows if r["id"] == "ml-vs-programming" and r["generation_model_name"] == "gpt-4o-mini")
    assert row["adherence_score"] is True and row["label_source"] == "human" and row["reviewer"] == "browser-tester"
    assert row["llm_unsupported_response_sentence_keys"] == ["c"] and row["unsupported_response_sentence_keys"] == []
    back = load([target])
    assert back.ok and len(back.dataset) == 22
    assert dialogs == []


def test_hostile_document_text_is_shown_literally(streamlit_server, page, screenshot):
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_review(page, f"{streamlit_server.url}/review?id=tech-002")  # the server's first request
    # even as the first request, the page runs inside app.py (sidebar with the DB path, page list)
    expect()(page.locator('[data-testid="stSidebar"]')).to_contain_text(str(streamlit_server.db))
    docs = page.locator(".rv-doc")
    expect()(docs.filter(has_text="<script>alert(1)</script>").first).to_be_visible(timeout=30_000)
    unfold = page.locator(".rv-showall").filter(has_text="Show all")
    while unfold.count():  # documents fold to their labelled sentences; read every sentence
        unfold.first.click()
    text = " ".join(docs.all_inner_texts())
    for literal in ("<img src=x onerror=alert(1)>", "**bold**", "$5 and $6", "<script>alert(1)</script>"):
        assert literal in text, literal
    assert page.locator(".rv-doc img, .rv-doc script, .rv-doc strong, .rv-doc .katex").count() == 0
    screenshot(page, "review-escaping")
    assert dialogs == []
    assert html.escape("<script>") not in text  # shown as characters, not as entity text


def test_sigkill_loses_no_decision(streamlit_server, page):
    url = streamlit_server.url
    open_review(page, f"{url}/review?id=ml-vs-programming")
    click_support(page, "✓ supported")
    expect()(metric_value(page, "Adherence")).to_have_text("1.000")
    open_review(page, f"{url}/review?id=med-001")
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.get_by_role("button", name="Accept as shown").click()  # accept and move on
    expect()(page).not_to_have_url(re.compile("med-001"))
    settle(page)
    expect()(page.locator('[data-testid="stSidebar"]')).to_contain_text("2 / 22 reviewed")
    resumed_at = page.url.split("uid=")[1]

    streamlit_server.kill()
    with LabelStore(streamlit_server.db) as store:
        assert store.reviewed_uids("browser-tester") >= {ML}
        assert len(store.reviewed_uids("browser-tester")) == 2
    streamlit_server.start()

    open_review(page, f"{url}/review")  # a fresh session resumes where the annotator was
    assert page.url.split("uid=")[1] == resumed_at
    expect()(page.locator('[data-testid="stSidebar"]')).to_contain_text("2 / 22 reviewed")
    open_review(page, f"{url}/review?id=ml-vs-programming")
    expect()(metric_value(page, "Adherence")).to_have_text("1.000")
