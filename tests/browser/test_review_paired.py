"""Real browser (issue 39): a paired audit sample on Review shows the question and the documents once and the two
systems' answers side by side. A person flips a verdict in answer A, moves the focus to answer B with S, labels a
context sentence for B and flips B's verdict, accepts B with A; the exported rows carry each edit on its own row."""

from __future__ import annotations

import json

import pytest

from ragviz.cli.main import main
from tests.browser.test_accessibility import AXE, _violations
from tests.browser_wait import expect, press, settle
from tests.conftest import StreamlitServer
from tests.sample import SAMPLE_DATA

pytestmark = pytest.mark.browser

A_UID = "financeqa_sample/fin-003/gpt-4o-mini"  # the first question of the seed-4 paired draw: answers A and B
B_UID = "financeqa_sample/fin-003/llama-3.1-8b-instruct"
FOCUSED = ".st-key-review-answer-focused"


def verdict(page, box: str, label: str):
    return page.locator(f"{box} .rv-controls button.rv-verdict").filter(has_text=label)


def test_a_person_edits_both_answers_of_a_question_and_the_export_has_each_on_its_row(tmp_path, page, capsys):
    db = tmp_path / "labels.db"
    draw = ["audit", "draw", str(SAMPLE_DATA), "--db", str(db), "--size", "3", "--design", "paired", "--seed", "4"]
    assert main(draw) == 0
    capsys.readouterr()
    home = tmp_path / "home"
    home.mkdir()
    server = StreamlitServer(db=db, home=home, log=tmp_path / "streamlit.log").start()
    try:
        page.goto(f"{server.url}/review?queue=audit&sample=1")
        focused, other = page.locator(FOCUSED), page.locator(".st-key-review-answer-B")
        expect()(focused).to_contain_text("Answer A")
        expect()(other).to_contain_text("Answer B")
        expect()(page.get_by_text("Question", exact=True)).to_have_count(1)  # the question once
        expect()(page.locator(".rv-pane")).to_have_count(1)  # the documents once
        expect()(page.get_by_text("Answer A now:")).to_contain_text("adherence 1.000")
        settle(page)
        if AXE.exists():  # WCAG 2 AA, as every page (tests/browser/test_accessibility.py)
            page.wait_for_load_state("networkidle")
            assert _violations(page) == []

        verdict(page, FOCUSED, "✗ unsupported").click()  # A's sentence a: unsupported, live in A's scores only
        expect()(page.get_by_text("Answer A now:")).to_contain_text("adherence 0.000")
        expect()(focused.locator(".rv-metric-strip")).to_contain_text("unsupported: a")
        expect()(other.locator(".rv-metric-strip")).to_contain_text("unsupported: c")

        press(page, "s")  # the focus moves to B: the documents show and take B's labels
        expect()(page.locator(FOCUSED)).to_contain_text("Answer B")
        expect()(page.get_by_text("Answer B now:")).to_contain_text("utilization 0.250")
        settle(page)
        page.locator('.rv-sent[data-key="1c"]').click()  # relevant -> relevant and utilized, for B
        expect()(page.get_by_text("Answer B now:")).to_contain_text("utilization 0.375")
        expect()(page.locator('.rv-sent[data-key="1c"]')).to_have_attribute("data-state", "both")
        settle(page)
        verdict(page, FOCUSED, "✓ supported").click()  # B's sentence c: supported
        expect()(page.get_by_text("Answer B now:")).to_contain_text("adherence 1.000")
        expect()(page.locator(".st-key-review-answer-A .rv-metric-strip")).to_contain_text("unsupported: a")
        press(page, "a")  # accept: the focused answer, B
        expect()(page.locator(FOCUSED)).to_contain_text("corrected")
        expect()(page.locator(".st-key-review-answer-A")).to_contain_text("corrected")  # A's verdict edit

        out = tmp_path / "labels.jsonl"
        assert main(["export", str(SAMPLE_DATA), "--db", str(db), "-o", str(out), "--annotator", server.annotator]) == 0
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        by_uid = {f"{r['dataset_name']}/{r['id']}/{r['generation_model_name']}": r for r in rows}
        a, b = by_uid[A_UID], by_uid[B_UID]
        assert a["unsupported_response_sentence_keys"] == ["a"]  # A: its own verdict, its judge utilized keys
        assert sorted(a["all_utilized_sentence_keys"]) == ["0a", "0b", "0c", "1b", "1c"]
        assert b["unsupported_response_sentence_keys"] == []  # B: its verdict and the utilized key added
        assert sorted(b["all_utilized_sentence_keys"]) == ["0a", "0b", "1c"]
    finally:
        server.stop()
