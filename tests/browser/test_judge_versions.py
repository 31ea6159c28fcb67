"""Real browser: a lead turns corrections into a judge version and proves it on the audit sample. Disagreements →
pick two examples → write a note → create v2 → compare on the test set → promote → re-judge → the Dashboard's
corrected estimate names v2. The stub server's answers depend on the prompt (it mislabels the marked sentences
unless a few-shot example shows the marker), so the gain comes from ragviz's own plumbing."""

from __future__ import annotations

import re

import pytest

from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser_wait import FRESH, expect, settle
from tests.conftest import StreamlitServer
from tests.judge.versions_setup import MARKER, review_truth, write_marker_data
from tests.openai_stub_server import StubServer

pytestmark = pytest.mark.browser


@pytest.fixture
def judge_server(tmp_path, monkeypatch):
    data = write_marker_data(tmp_path / "rows.jsonl", 30)
    dataset = load([str(data)]).dataset
    db = tmp_path / "labels.db"
    with LabelStore(str(db)) as store:
        sample = store.audits.draw_sample(dataset.uids, 10, "browser-tester", seed=4)
        review_truth(store, dataset, list(sample.members))
        outside = [u for u in dataset.uids if u not in sample.members]
        review_truth(store, dataset, outside[:6], note="The zorblat sentence answers the question.")
    home = tmp_path / "home"
    home.mkdir()
    with StubServer(marker=MARKER) as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
        monkeypatch.setenv("RAGVIZ_JUDGE_MODEL", "stub-model")
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        server = StreamlitServer(db=db, home=home, log=tmp_path / "streamlit.log", data=str(data)).start()
        try:
            yield server, stub, sample
        finally:
            server.stop()


def fresh_text(page, text: str):
    return page.locator(FRESH).get_by_text(text)


def test_a_lead_improves_the_judge_and_proves_it_on_the_test_set(judge_server, page, screenshot):
    server, stub, sample = judge_server
    page.goto(f"{server.url}/judge")
    expect()(page.get_by_role("heading", name="Where the judge and people disagree")).to_be_visible()
    settle(page)
    # the grid draws on a canvas; its cells are in the page for screen readers
    expect()(page.get_by_text("the judge said not relevant where people said relevant").first).to_be_attached()

    # pick two examples from the judge's typical mistake
    picker = (
        page.locator('[data-testid="stMultiSelect"]').filter(has_text="Few-shot examples (shown with").locator("input")
    )
    for _ in range(2):
        settle(page)
        picker.click()
        option = page.locator('[role="option"]').filter(has_text="not relevant where people said relevant").first
        option.click()
        page.keyboard.press("Escape")
    settle(page)
    rubric = page.get_by_role("textbox", name="Rubric notes")
    rubric.fill("A sentence naming the zorblat reading is relevant and utilized.")
    rubric.press("Control+Enter")
    settle(page)
    name = page.get_by_role("textbox", name="Name of the new version")
    name.fill("v2")
    name.press("Enter")
    settle(page)
    code = page.locator(f'{FRESH} [data-testid="stCode"]')
    expect()(code).to_contain_text("A sentence naming the zorblat reading is relevant and utilized.")
    expect()(code).to_contain_text("Worked example 2")
    assert not any(uid in code.inner_text() for uid in sample.members)
    screenshot(page, "judge-draft")
    page.get_by_role("button", name="Create version").click()
    expect()(page.get_by_text("Created judge version v2.")).to_be_visible()

    # compare v1 and v2 on the audit sample's reviewed members
    settle(page)
    page.get_by_role("button", name="Compare on the test set").click()
    line = page.get_by_text(re.compile(r"Cohen's κ from v1 to v2: relevant [0-9.]+ → 1\.00"))
    expect()(line).to_be_visible()
    expect()(
        page.get_by_text(re.compile(r"v1: 1[01] requests, 0 cached, 0 failed; v2: 10 requests, 0 cached"))
    ).to_be_visible()
    expect()(page.get_by_text(re.compile(r"Where the versions differ \(\d+ examples"))).to_be_visible()
    assert len(stub.calls) == 20
    screenshot(page, "judge-compare")

    # promote v2 and re-judge what an older version labelled
    settle(page)
    page.get_by_role("button", name="Promote to the team's judge").click()
    expect()(page.get_by_text("v2 is the team's judge now")).to_be_visible()
    settle(page)
    page.get_by_role("button", name=re.compile(r"Re-judge 30 examples")).click()
    expect()(page.get_by_text(re.compile(r"Re-judged with v2: 20 judged, 10 cached, 0 failed"))).to_be_visible()
    assert len(stub.calls) == 40

    page.goto(f"{server.url}/dashboard")
    expect()(page.get_by_text(re.compile(r"Judge labels corrected: judge version v2 \(30 examples\)"))).to_be_visible()
