"""Issue 16, who is who: with sign-in configured (``st.login`` against a real OpenID Connect provider
on 127.0.0.1, ``oidc-provider-mock``), two people sign in in their own browsers and each decision is
kept under the signed-in user, who cannot be typed. Issue 28: only the verified e-mail is identity
(accounts whose display names imitate an admin and an annotator, one without e-mail and one whose
e-mail is not verified get nothing of theirs), and signing out ends the sign-in: a copy of the cookie
taken before does not sign in again."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

from ragviz.store.label_store import LabelStore
from tests.browser_wait import sidebar as _sidebar
from tests.conftest import StreamlitServer, free_port

pytestmark = pytest.mark.browser


def _shown(text: str) -> re.Pattern[str]:
    """*text* as a person sees it: an e-mail address in Markdown carries an invisible word joiner after its @ (so
    it is no mailto: link, ragviz.ui.core.render)."""
    return re.compile(re.escape(text).replace("@", "@\u2060?"))


USERS = {"ana@example.org": "Ana Annotator", "bo@example.org": "Bo **Bold**"}
LEAD = "lead@example.org"
# subject -> claims at the provider: the lead, and accounts that imitate the lead and ana
OTHERS = {
    LEAD: {"email": LEAD, "email_verified": True, "name": "Lead"},
    "mallory": {"email": "mallory@example.org", "email_verified": True, "name": LEAD, "preferred_username": LEAD},
    "eve": {"email": "eve@example.org", "email_verified": True, "name": "ana@example.org"},
    "noemail": {"name": LEAD, "preferred_username": LEAD},
    "unverified": {"email": LEAD, "email_verified": False, "name": LEAD},
}
ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"
MED = "medqa_sample/med-001/gpt-4o-mini"


def _put_user(issuer: str, sub: str, claims: dict) -> None:
    body = json.dumps(claims).encode()
    req = urllib.request.Request(f"{issuer}/users/{quote(sub)}", data=body, method="PUT")
    req.add_header("content-type", "application/json")
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 204


@pytest.fixture
def oidc_issuer(tmp_path):
    """A real OpenID Connect provider (oidc-provider-mock) on 127.0.0.1, plain HTTP allowed."""
    pytest.importorskip("oidc_provider_mock")
    port = free_port()
    log = open(tmp_path / "oidc.log", "ab")
    proc = subprocess.Popen(
        [sys.executable, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", str(port)],
        env={**os.environ, "AUTHLIB_INSECURE_TRANSPORT": "1"},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    log.close()
    issuer = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=1):
                break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail(f"the OIDC provider did not start: {(tmp_path / 'oidc.log').read_text()[-2000:]}")
            time.sleep(0.2)
    for email, name in USERS.items():
        _put_user(issuer, email, {"email": email, "email_verified": True, "name": name})
    for sub, claims in OTHERS.items():
        _put_user(issuer, sub, claims)
    yield issuer
    proc.terminate()
    proc.wait(10)


@pytest.fixture
def signed_in_server(tmp_path, monkeypatch, oidc_issuer):
    """The app served (RAGVIZ_SERVED=1) with sign-in configured in HOME/.streamlit/secrets.toml."""
    home = tmp_path / "home"
    (home / ".streamlit").mkdir(parents=True)
    server = StreamlitServer(db=tmp_path / "labels.db", home=home, log=tmp_path / "streamlit.log", cwd=tmp_path)
    (home / ".streamlit" / "secrets.toml").write_text(
        "[auth]\n"
        f'redirect_uri = "{server.url}/oauth2callback"\n'
        'cookie_secret = "a-long-random-cookie-secret-only-for-this-test-0123456789"\n'
        'client_id = "ragviz"\n'
        'client_secret = "ragviz-test-secret"\n'
        f'server_metadata_url = "{oidc_issuer}/.well-known/openid-configuration"\n'
    )
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    monkeypatch.setenv("RAGVIZ_ADMINS", "lead@example.org")
    monkeypatch.setenv("RAGVIZ_ANNOTATORS", "ana@example.org,bo@example.org")
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    server.start()
    yield server
    server.stop()


def _authorize(page, url: str, sub: str) -> None:
    from playwright.sync_api import expect

    page.goto(url)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_placeholder("sub").fill(sub)  # the provider's own authorization form
    page.get_by_role("button", name="Authorize").click()
    expect(page.get_by_role("button", name="Sign out")).to_be_visible(timeout=60_000)


def _sign_in(page, url: str, email: str) -> None:
    from playwright.sync_api import expect

    _authorize(page, url, email)
    page.goto(f"{url}/data")  # the app opens on Home; the Data page says who is signed in
    expect(page.get_by_text("Signed in as")).to_be_visible(timeout=60_000)


def _accept(page, url: str, example: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{url}/review?id={example}")
    expect(page.get_by_role("button", name="Accept as shown")).to_be_visible(timeout=60_000)
    page.wait_for_load_state("networkidle")
    page.get_by_role("button", name="Accept as shown").click()
    expect(page.locator('[data-testid="stSidebar"]')).to_contain_text("1 / 22 reviewed", timeout=60_000)


def test_two_signed_in_people_decisions_are_theirs(signed_in_server, chromium_browser):
    from playwright.sync_api import expect

    url = signed_in_server.url
    pages = {}
    for email in USERS:
        context = chromium_browser.new_context(viewport={"width": 1440, "height": 1000})
        pages[email] = page = context.new_page()
        page.set_default_timeout(60_000)
        _sign_in(page, url, email)
        expect(page.locator('[data-testid="stMain"]')).to_contain_text(_shown(f"Signed in as {email}"), timeout=60_000)
        expect(page.get_by_label("Your name (labels are kept per annotator)")).to_have_count(0)  # cannot be typed
        expect(page.get_by_text("Names are not verified")).to_have_count(0)
        expect(page.get_by_role("button", name="Load the sample data")).to_have_count(0)  # annotators do not load
    _accept(pages["ana@example.org"], url, "ml-vs-programming")
    _accept(pages["bo@example.org"], url, "med-001")
    for page in pages.values():
        page.context.close()

    with LabelStore(signed_in_server.db) as store:
        assert {e.annotator for e in store.history(ML)} == {"ana@example.org"}
        assert {e.annotator for e in store.history(MED)} == {"bo@example.org"}
        assert store.reviewed_uids("ana@example.org") == {ML}
        assert store.reviewed_uids("bo@example.org") == {MED}
        assert set(store.annotators()) == {"ana@example.org", "bo@example.org"}


def test_not_signed_in_views_only(signed_in_server, page):
    from playwright.sync_api import expect

    page.goto(f"{signed_in_server.url}/review?id=ml-vs-programming")
    expect(page.get_by_role("button", name="Sign in")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Presentation mode: editing is hidden")).to_be_visible(timeout=60_000)
    expect(page.get_by_role("button", name="Accept as shown")).to_be_hidden()


@pytest.mark.parametrize("sub", ["mallory", "eve", "noemail", "unverified"])
def test_a_display_name_or_an_unverified_address_is_no_one(signed_in_server, chromium_browser, sub):
    from playwright.sync_api import expect

    context = chromium_browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    url = signed_in_server.url
    _authorize(page, url, sub)
    page.goto(f"{url}/data")
    sidebar = _sidebar(page)
    if OTHERS[sub].get("email_verified"):
        expect(sidebar).to_contain_text(
            _shown(f"Signed in as {OTHERS[sub]['email']} (viewer)")
        )  # RAGVIZ_ANNOTATORS: ana only
    else:
        expect(sidebar).to_contain_text("no verified e-mail address")
        expect(sidebar).to_contain_text("Not signed in (viewer)")
    expect(sidebar).not_to_contain_text("(admin)")
    expect(page.get_by_role("button", name="Load the sample data")).to_have_count(0)
    expect(page.get_by_text("Presentation mode: editing is hidden")).to_have_count(0)  # (not the Review page)
    page.goto(f"{url}/review?id=ml-vs-programming")
    expect(page.get_by_text("Presentation mode: editing is hidden")).to_be_visible()
    expect(page.get_by_role("button", name="Accept as shown")).to_be_hidden()
    context.close()
    with LabelStore(signed_in_server.db) as store:
        assert store.n_events() == 0 and store.annotators() == []


def test_signing_out_ends_the_sign_in_for_a_copy_of_the_cookie(signed_in_server, chromium_browser):
    from playwright.sync_api import expect

    url = signed_in_server.url
    context = chromium_browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    _sign_in(page, url, LEAD)
    expect(_sidebar(page)).to_contain_text(f"Annotator: {LEAD} (admin)")
    copied = context.cookies()  # taken before signing out
    assert any(c["name"].startswith("_streamlit_user") for c in copied)
    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("button", name="End session").click()  # the provider's own page, then back to the app
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    context.close()

    thief = chromium_browser.new_context(viewport={"width": 1440, "height": 1000})
    thief.add_cookies(copied)
    page = thief.new_page()
    page.set_default_timeout(60_000)
    page.goto(f"{url}/data")
    expect(_sidebar(page)).to_contain_text("This sign-in has ended")
    expect(_sidebar(page)).to_contain_text("Not signed in (viewer)")
    expect(_sidebar(page)).not_to_contain_text(LEAD)
    expect(page.get_by_role("button", name="Load the sample data")).to_have_count(0)
    _authorize(page, url, LEAD)  # signing in again: a new token
    page.goto(f"{url}/data")
    expect(_sidebar(page)).to_contain_text(f"Annotator: {LEAD} (admin)")
    thief.close()
