"""Issue 40: an air-gapped deployment makes no request outside its own host. Every page is loaded on the
sample data, locally and served with sign-in, with every request to another host aborted and recorded;
any attempt fails the test. The browser fetches a page's favicon outside the page's network stack (no
route sees it), so the favicon's address is read from the page too."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.browser_wait import expect, settle
from tests.security.test_sign_in import LEAD, _sign_in, oidc_issuer, signed_in_server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

PAGES = ("", "data", "review", "export", "label", "judge", "dashboard", "explainer", "compare", "claims", "team")
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
LOCAL_SCHEMES = {"data", "blob", "about"}


def _is_local(url: str) -> bool:
    parts = urlparse(url)
    return parts.scheme in LOCAL_SCHEMES or parts.hostname in LOCAL_HOSTS


def _watch(context) -> list[str]:
    """Abort and record every request *context* makes to another host."""
    outside: list[str] = []

    def route(r) -> None:
        if _is_local(r.request.url):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    return outside


def _visit_every_page(page, url: str) -> list[str]:
    """Each page drawn whole; the favicon and every linked resource's address it ended with."""
    seen: list[str] = []
    for path in PAGES:
        page.goto(f"{url}/{path}")
        expect()(page.get_by_role("navigation", name="Pages").locator('a[aria-current="page"]')).to_be_visible()
        settle(page)
        page.wait_for_load_state("networkidle")
        seen += page.evaluate(
            """() => [...document.querySelectorAll('link[href], img[src], script[src], iframe[src]')]
                     .map(e => e.href || e.src)"""
        )
    return seen


def test_the_checker_sees_an_outside_request(looking_server, chromium_browser):
    context = chromium_browser.new_context()
    outside = _watch(context)
    page = context.new_page()
    page.goto(looking_server.url)
    page.evaluate("() => fetch('https://example.org/x').catch(() => null)")
    page.wait_for_load_state("networkidle")
    context.close()
    assert outside == ["https://example.org/x"]
    assert not _is_local("https://fonts.gstatic.com/s/i/x.svg") and _is_local("data:image/svg+xml,<svg/>")


def test_no_page_asks_another_host_for_anything(looking_server, chromium_browser):
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    outside = _watch(context)
    page = context.new_page()
    seen = _visit_every_page(page, looking_server.url)
    context.close()
    assert outside == []
    assert [u for u in seen if not _is_local(u)] == []


def test_served_with_sign_in_no_page_asks_another_host(request, chromium_browser):
    server = request.getfixturevalue("signed_in_server")  # tests/security/test_sign_in.py's, imported above
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    # the identity provider's own sign-in form is not the app's (this test provider's asks a CDN for its CSS)
    _sign_in(page, server.url, LEAD)
    outside = _watch(context)
    seen = _visit_every_page(page, server.url)
    context.close()
    assert outside == []
    assert [u for u in seen if not _is_local(u)] == []
