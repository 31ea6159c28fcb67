"""Issue 40: WCAG 2 A and AA on every page, in the light and the dark theme, as axe-core (Deque's engine,
npm ``axe-core`` installed under tests/browser/axe/ by ``make test``) judges it, injected into the page the
person sees, locally and served with an admin signed in. The Review page is checked with a sentence selected, so its
label chips and support marks are judged too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.browser_wait import expect, metric_value, settle
from tests.conftest import skip_or_fail
from tests.security.test_sign_in import LEAD, _sign_in, oidc_issuer, signed_in_server  # noqa: F401 (fixtures)

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


def _every_page(page, url: str) -> dict[str, list[dict]]:
    """Each page drawn whole, then judged: the violations by page (none: empty)."""
    found: dict[str, list[dict]] = {}
    for path in PAGES:
        page.goto(f"{url}/{path}")
        expect()(page.get_by_role("navigation", name="Pages").locator('a[aria-current="page"]')).to_be_visible()
        if path.startswith("review"):
            expect()(metric_value(page, "Adherence")).to_be_visible()
        settle(page)
        page.wait_for_load_state("networkidle")
        violations = _violations(page)
        if violations:
            found[path or "home"] = violations
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_has_no_wcag_aa_violation(looking_server, chromium_browser, scheme):
    _axe_present()
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
    try:
        found = _every_page(context.new_page(), looking_server.url)
    finally:
        context.close()
    assert not found, json.dumps(found, indent=1)[:6000]


def test_served_and_signed_in_every_page_has_no_wcag_aa_violation(request, chromium_browser):
    """What a signed-in team member sees (served, sign-in configured, an admin signed in: the sidebar's account
    line, Sign out, the admin's controls), in both themes."""
    _axe_present()
    server = request.getfixturevalue("signed_in_server")  # tests/security/test_sign_in.py's, imported above
    found: dict[str, dict[str, list[dict]]] = {}
    for scheme in ("light", "dark"):
        context = chromium_browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme=scheme)
        try:
            page = context.new_page()
            _sign_in(page, server.url, LEAD)
            if violations := _every_page(page, server.url):
                found[scheme] = violations
        finally:
            context.close()
    assert not found, json.dumps(found, indent=1)[:6000]


def test_the_checker_finds_a_planted_violation(looking_server, chromium_browser):
    _axe_present()
    context = chromium_browser.new_context()
    page = context.new_page()
    page.goto(looking_server.url)
    settle(page)
    page.evaluate(
        "() => { const p = document.createElement('p'); p.textContent = 'faint';"
        " p.style.color = '#bbbbbb'; p.style.background = '#ffffff';"
        " document.querySelector('[data-testid=stMainBlockContainer]').prepend(p); }"
    )
    ids = [v["id"] for v in _violations(page)]
    context.close()
    assert "color-contrast" in ids
