"""Issue 16, what the browser gets: dynamic text with Markdown / LaTeX shows literally (``?id=**x**$y$``,
an annotator named ``**x**``), very long strings are cut with a "show all", and a document over 1 MB is
cut for display: the websocket messages of a Review page with a 50 MB document stay a few MB."""

from __future__ import annotations

import json
import re

import pytest

from ragviz.analysis.review.edits import ContextSpan
from ragviz.data.keys import letters
from ragviz.data.limits import DOCUMENT_SHOWN_CHARS, SHOWN_CHARS
from ragviz.ui.core.render import document_html, long_text_html, md_escape, text_block_html
from tests.conftest import StreamlitServer
from tests.sample import SAMPLE_JSONL

HOSTILE = "**x** $y$ <b>z</b>"


def test_long_text_is_cut_with_show_all_and_escaped():
    short = long_text_html("<b>id</b>")
    assert short == "&lt;b&gt;id&lt;/b&gt;"
    long = "<i>" + "x" * 50_000
    shown = long_text_html(long)
    assert "show all (50,003 characters)" in shown and "<i>" not in shown
    cut_part = re.search(r'<span class="rv-cut">(.*?)</span>', shown).group(1)
    assert len(cut_part) <= SHOWN_CHARS + 10 and cut_part.endswith("…")
    assert "x" * 49_000 in shown  # the whole text is in the disclosure
    assert md_escape("y" * 50_000).endswith("…") and len(md_escape("y" * 50_000)) == 300


def test_a_document_over_1_mb_is_cut_for_display():
    spans = [ContextSpan(f"0{letters(i)}", "w" * 10_000, "neither") for i in range(5_000)]  # 50 MB
    drawn = document_html(0, spans)
    assert len(drawn) < DOCUMENT_SHOWN_CHARS * 1.2
    assert "48,999,999 more characters not shown" in drawn or "more characters not shown" in drawn
    assert len(text_block_html("Question", "q" * 3_000_000)) < DOCUMENT_SHOWN_CHARS * 1.1
    small = [ContextSpan("0a", "fine", "neither")]
    assert "not shown" not in document_html(0, small)


def _big_row() -> dict:
    row = json.loads(SAMPLE_JSONL.read_text().splitlines()[0])
    sentences = [[f"0{letters(i)}", f"Sentence {i} " + "w" * 10_000] for i in range(5_000)]  # ~50 MB
    row.update(
        id="big-doc",
        documents=[" ".join(t for _, t in sentences)],
        documents_sentences=[sentences],
        all_relevant_sentence_keys=["0a"],
        all_utilized_sentence_keys=["0a"],
        sentence_support_information=[
            {**s, "supporting_sentence_keys": ["0a"]} for s in row["sentence_support_information"]
        ],
    )
    return row


@pytest.fixture
def big_server(tmp_path, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    (data / "big.jsonl").write_text(json.dumps(_big_row()) + "\n")
    home = tmp_path / "home"
    home.mkdir()
    server = StreamlitServer(
        db=tmp_path / "labels.db", home=home, log=tmp_path / "streamlit.log", data=str(data), annotator=HOSTILE
    )
    server.start()
    yield server
    server.stop()


@pytest.mark.browser
def test_hostile_link_and_name_show_literally_and_a_50_mb_document_is_not_sent_whole(big_server, page):
    from playwright.sync_api import expect

    received: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(len(payload))))
    page.set_default_timeout(60_000)
    page.goto(f"{big_server.url}/review?id=big-doc")
    expect(page.locator(".rv-doc-cut")).to_contain_text("more characters not shown", timeout=120_000)
    page.wait_for_load_state("networkidle")
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar).to_contain_text(
        f"Annotator: {HOSTILE}", timeout=60_000
    )  # the name literally: no bold, no math, no tag
    assert sidebar.get_by_text("z", exact=True).count() == 0 and sidebar.get_by_text("x", exact=True).count() == 0
    assert page.locator(".katex").count() == 0
    total = sum(received)
    print(f"websocket bytes received for the 50 MB document: {total:,}")
    assert total < 4_000_000, f"{total:,} bytes sent for a 50 MB document"

    page.goto(f"{big_server.url}/review?id=**x**$y$")
    warning = page.locator('[data-testid="stAlert"]').filter(has_text="No loaded example has the id")
    expect(warning).to_contain_text("'**x**$y$'", timeout=60_000)
    assert warning.locator("strong").count() == 0 and page.locator(".katex").count() == 0
