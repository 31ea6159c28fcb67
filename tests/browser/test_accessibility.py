"""Issue 40: WCAG 2 A and AA on every page, in the light and the dark theme, as axe-core (Deque's engine,
npm ``axe-core`` installed under tests/browser/axe/ by ``make test``) judges it, injected into the page the
person sees. The Review page is checked with a sentence selected, so its label chips and support marks are
judged too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser_wait import expect, metric_value, settle
from tests.conftest import skip_or_fail

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
PAGES = ("", "data", "review?id=ml-vs-programming", "export", "label", "judge", "dashboard", "explainer", "compare",
         "claims", "team")  # fmt: skip
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def _violations(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "async tags => (await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']}))"
        ".violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.map(n => n.html.slice(0, 160) + ' :: ' + n.failureSummary.split('\\n').slice(1).join(' '))}))",
        WCAG_AA,
    )
    return result


def _axe_present() -> None:
    if not AXE.exists():
        skip_or_fail(f"axe-core is not installed ({AXE}; `make test` runs npm ci in tests/browser/axe)")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_has_no_wcag_aa_violation(streamlit_server, chromium_browser, scheme):
    _axe_present()
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    found: dict[str, list[dict]] = {}
    try:
        for path in PAGES:
            page.goto(f"{streamlit_server.url}/{path}")
            expect()(page.locator('[data-testid="stSidebarNav"]')).to_be_visible()
            if path.startswith("review"):
                expect()(metric_value(page, "Adherence")).to_be_visible()
            settle(page)
            page.wait_for_load_state("networkidle")
            violations = _violations(page)
            if violations:
                found[path or "home"] = violations
    finally:
        context.close()
    assert not found, json.dumps(found, indent=1)[:6000]


def test_the_checker_finds_a_planted_violation(streamlit_server, chromium_browser):
    _axe_present()
    context = chromium_browser.new_context()
    page = context.new_page()
    page.goto(streamlit_server.url)
    settle(page)
    page.evaluate(
        "() => { const p = document.createElement('p'); p.textContent = 'faint';"
        " p.style.color = '#bbbbbb'; p.style.background = '#ffffff';"
        " document.querySelector('[data-testid=stMainBlockContainer]').prepend(p); }"
    )
    ids = [v["id"] for v in _violations(page)]
    context.close()
    assert "color-contrast" in ids
