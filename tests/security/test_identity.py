"""Issue 28 item 1, identity from verified claims only: roles and decisions go by the verified e-mail (or
the provider's ``sub`` where ``RAGVIZ_IDENTITY_CLAIM=sub``), never by the display name; an account without
one is refused with a message; signing out ends the sign-in on every copy of its cookie, on SQLite and
PostgreSQL (the served browser test with a real provider is in test_sign_in.py)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ragviz.store.label_store import LabelStore
from ragviz.store.roles import SignInRefused, identity_of_claims, login_fingerprint
from ragviz.store.sign_ins import end_sign_ins, sign_in_is_open
from tests.apptest_helpers import APP, SIGN_IN_SECRETS, _run_page, press, signed_in_user

LEAD, ANA = "lead@example.org", "ana@example.org"
ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


@pytest.fixture
def served_roles(app_env, monkeypatch):
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    monkeypatch.setenv("RAGVIZ_ADMINS", LEAD)
    monkeypatch.setenv("RAGVIZ_ANNOTATORS", ANA)
    return app_env


def _open_as(page: str, user: dict, **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.secrets["auth"] = dict(SIGN_IN_SECRETS)
    at.user = user
    return _run_page(at, page, query)


def _sidebar(at: AppTest) -> str:
    return "\n".join([h.value for h in at.sidebar.get("html")] + [w.value for w in at.sidebar.warning])


def _role(at: AppTest) -> str:
    text = _sidebar(at)
    return next(r for r in ("admin", "annotator", "viewer") if f"({r})" in text)


@pytest.mark.parametrize(
    ("user", "role"),
    [
        (signed_in_user("mallory@example.org", name=LEAD, preferred_username=LEAD), "viewer"),  # a name is no one
        (signed_in_user("eve@example.org", name=ANA), "viewer"),
        ({**signed_in_user(LEAD), "email_verified": False}, "viewer"),  # the address is not verified
        ({k: v for k, v in signed_in_user(LEAD, name=LEAD).items() if k != "email"}, "viewer"),  # no e-mail
        (signed_in_user(LEAD), "admin"),
        (signed_in_user(ANA), "annotator"),
        (signed_in_user(LEAD, email_verified="true"), "admin"),  # some providers send the string
    ],
)
def test_roles_go_by_the_verified_e_mail_only(served_roles, user, role):
    at = _open_as("pages/data.py", user)
    assert _role(at) == role, _sidebar(at)
    if role == "viewer":
        assert LEAD not in _sidebar(at).replace(user.get("email") or "-", "") or user.get("email") == LEAD
        assert not [b for b in at.button if b.key == "data.load_sample"]


def test_an_account_without_a_verified_e_mail_is_refused_with_a_message(served_roles):
    user = {k: v for k, v in signed_in_user(LEAD, name=LEAD).items() if k != "email"}
    at = _open_as("pages/data.py", user)
    assert any("no verified e-mail address" in w.value for w in at.sidebar.warning)
    assert "lead@example.org (admin)" not in _sidebar(at) and "Signed in as" not in _sidebar(at)
    assert [b for b in at.sidebar.button if b.key == "ragviz.sign_out"]  # to switch accounts


def test_a_decision_is_recorded_under_the_verified_e_mail_not_the_name(served_roles, monkeypatch):
    monkeypatch.delenv("RAGVIZ_ANNOTATORS")  # everyone identified annotates
    user = signed_in_user("eve@example.org", name=ANA, preferred_username=ANA)
    review = _open_as("pages/review.py", user, id="ml-vs-programming")
    press(review, "accept")
    with LabelStore(served_roles["db"]) as store:
        assert {e.annotator for e in store.history(ML)} == {"eve@example.org"}
        assert store.reviewed_uids(ANA) == set()


def test_the_subject_is_identity_where_a_deployment_says_so(served_roles, monkeypatch):
    monkeypatch.setenv("RAGVIZ_IDENTITY_CLAIM", "sub")
    monkeypatch.setenv("RAGVIZ_ADMINS", "u-1001")
    admin = signed_in_user("someone@example.org", sub="u-1001", email_verified=False)
    assert _role(_open_as("pages/data.py", admin)) == "admin"
    impostor = signed_in_user(LEAD, sub="u-2002", name="u-1001")
    assert _role(_open_as("pages/data.py", impostor)) == "viewer"


def test_claims_rules():
    assert identity_of_claims({"email": LEAD, "email_verified": False, "name": LEAD}, {}) == SignInRefused(
        identity_of_claims({}, {}).why  # type: ignore[union-attr]
    )
    assert identity_of_claims({"email": LEAD, "email_verified": True}, {}).names == (LEAD,)  # type: ignore[union-attr]
    assert isinstance(
        identity_of_claims({"email": LEAD, "email_verified": True}, {"RAGVIZ_IDENTITY_CLAIM": "sub"}), SignInRefused
    )
    assert "misconfigured" in identity_of_claims({}, {"RAGVIZ_IDENTITY_CLAIM": "name"}).why  # type: ignore[union-attr]


def test_signing_out_ends_every_copy_of_the_sign_in(db_target):
    first, second = signed_in_user(LEAD), signed_in_user(LEAD, iat=1_700_000_500, nonce="n2")
    with LabelStore(db_target) as store, LabelStore(db_target) as replica:
        assert sign_in_is_open(store, login_fingerprint(first), LEAD)
        assert sign_in_is_open(replica, login_fingerprint(first), LEAD)  # the cookie's copy, elsewhere
        assert not sign_in_is_open(store, login_fingerprint(first), ANA)  # a fingerprint names one person
        assert end_sign_ins(replica, LEAD) == 1
        assert not sign_in_is_open(store, login_fingerprint(first), LEAD)
        assert not sign_in_is_open(replica, login_fingerprint(first), LEAD)
        assert sign_in_is_open(store, login_fingerprint(second), LEAD)  # signing in again: a new token


def test_after_sign_out_a_copied_cookie_is_nobody(served_roles):
    user = signed_in_user(LEAD)
    at = _open_as("pages/data.py", user)
    assert _role(at) == "admin"
    next(b for b in at.sidebar.button if b.key == "ragviz.sign_out").click().run()
    copy = _open_as("pages/data.py", user)  # the same claims: the cookie as it was before signing out
    assert _role(copy) == "viewer"
    assert any("sign-in has ended" in w.value for w in copy.sidebar.warning)
    assert not [b for b in copy.button if b.key == "data.load_sample"]
    again = _open_as("pages/data.py", signed_in_user(LEAD, iat=1_700_000_900, nonce="new"))
    assert _role(again) == "admin"
