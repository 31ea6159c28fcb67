"""The manual's tutorial (docs/tutorial.md), walked in a real browser on the sample data: each step does
what the tutorial says and leaves the screenshot the tutorial shows in docs/assets/tutorial/, so the
pictures are retaken on every run and never go stale."""

from __future__ import annotations

import json
import re

import pytest

from tests.browser_wait import click_support, expect, metric_card, metric_value, open_review, press, settle
from tests.sample import ROOT

pytestmark = pytest.mark.browser

TUTORIAL = ROOT / "docs" / "tutorial.md"
SHOTS = ROOT / "docs" / "assets" / "tutorial"


def _shot(page, name: str, taken: list[str]) -> None:
    """A 1280x800 picture of what a person sees, for the tutorial."""
    settle(page)
    page.wait_for_timeout(300)  # the last rerun's skeletons fade out
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    taken.append(f"assets/tutorial/{name}.png")


def test_the_tutorial_works_as_written_and_its_screenshots_are_current(streamlit_server, chromium_browser, tmp_path):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page = context.new_page()
    url = streamlit_server.url
    taken: list[str] = []
    try:
        # 1. The first screen
        page.goto(url)
        expect()(page.get_by_role("button", name=re.compile("Start reviewing"))).to_be_visible()
        _shot(page, "home", taken)

        # 2. Review the worked example: response sentence c is marked unsupported by the judge
        page.get_by_role("button", name=re.compile("Start reviewing")).click()
        expect()(metric_value(page, "Adherence")).to_be_visible()
        open_review(page, f"{url}/review?id=ml-vs-programming")
        expect()(metric_value(page, "Adherence")).to_have_text("0.000")
        _shot(page, "review", taken)

        # 3. Correct it: c is supported; adherence recomputes and the card shows the change
        click_support(page, "✓ supported")
        expect()(metric_value(page, "Adherence")).to_have_text("1.000")
        expect()(metric_card(page, "Adherence")).to_contain_text("+1.000")
        _shot(page, "review-corrected", taken)

        # 4. Accept the next example as shown (A) and see the progress in the sidebar
        press(page, "j")
        expect()(page).not_to_have_url(re.compile("ml-vs-programming"))
        press(page, "a")
        expect()(page.locator('[data-testid="stSidebar"]')).to_contain_text("2 / 22 reviewed")

        # 5. The Dashboard: the metrics over every example, with your corrections
        page.goto(f"{url}/dashboard")
        expect()(page.get_by_text("Adherence").first).to_be_visible()
        _shot(page, "dashboard", taken)

        # 6. Export the corrected labels
        page.goto(f"{url}/export")
        button = page.get_by_role("button", name="Download labels (JSONL)")
        expect()(button).to_be_visible()
        _shot(page, "export", taken)
        with page.expect_download() as info:
            button.click()
        target = tmp_path / "corrected.jsonl"
        info.value.save_as(target)
        rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
        assert len(rows) == 22
        assert sum(r["label_source"] == "human" for r in rows) == 2
    finally:
        context.close()

    shown = re.findall(r"\]\((assets/tutorial/[^)]+\.png)\)", TUTORIAL.read_text(encoding="utf-8"))
    assert sorted(shown) == sorted(taken), "docs/tutorial.md shows exactly the screenshots this walk takes"
