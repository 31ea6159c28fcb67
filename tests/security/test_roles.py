"""Issue 16, roles: only admins load data, run the judge and see where the labels are kept; annotators
review; everyone else views (presentation mode). Locally with nothing set, the one person is an admin.
With sign-in configured the annotator is the signed-in user and cannot be typed; served without sign-in
a banner says names are not verified."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ragviz.store.label_store import LabelStore
from ragviz.store.roles import ADMIN, ANNOTATOR, VIEWER, Identity, access_of
from ragviz.ui.review.toolbar import EVENTS as TOOLBAR_EVENTS
from tests.apptest_helpers import open_page, open_page_as, press, shown, toolbar_button
from tests.sample import SAMPLE_DATA

LEAD, ANA, GUEST = "lead@example.org", "ana@example.org", "guest@example.org"
ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def _role(names, verified, served, sign_in, env):
    who = None if names is None else Identity(tuple(names), verified)
    return access_of(who, served=served, sign_in=sign_in, environ=env).role


@pytest.mark.parametrize(
    ("names", "verified", "served", "sign_in", "env", "role"),
    [
        (["me"], False, False, False, {}, ADMIN),  # local convenience
        (["me"], False, False, False, {"RAGVIZ_ADMINS": "lead"}, ANNOTATOR),  # local, lists set
        (["Lead"], False, False, False, {"RAGVIZ_ADMINS": "lead"}, ADMIN),  # case-insensitive
        (["me"], False, True, False, {}, ANNOTATOR),  # served, no sign-in, no lists: everyone reviews
        (["lead"], False, True, False, {"RAGVIZ_ADMINS": "lead"}, ANNOTATOR),  # a typed name never makes an admin
        (["ana"], False, True, False, {"RAGVIZ_ANNOTATORS": "ana"}, VIEWER),  # nor proves being on the list
        ([LEAD, "Lead"], True, True, True, {"RAGVIZ_ADMINS": LEAD}, ADMIN),
        ([ANA], True, True, True, {"RAGVIZ_ADMINS": LEAD}, ANNOTATOR),  # annotators unset: every signed-in user
        ([ANA], True, True, True, {"RAGVIZ_ADMINS": LEAD, "RAGVIZ_ANNOTATORS": ANA}, ANNOTATOR),
        ([GUEST], True, True, True, {"RAGVIZ_ADMINS": LEAD, "RAGVIZ_ANNOTATORS": ANA}, VIEWER),
        (None, False, True, True, {"RAGVIZ_ADMINS": LEAD}, VIEWER),  # not signed in
        (None, False, False, True, {}, VIEWER),  # sign-in configured locally: sign in to review
        (["bo", "bo@x.org"], True, False, True, {"RAGVIZ_ADMINS": "BO@X.ORG"}, ADMIN),  # matched by any name
    ],
)
def test_role_rules(names, verified, served, sign_in, env, role):
    assert _role(names, verified, served, sign_in, env) == role


def test_what_each_role_may_do():
    admin, annotator, viewer = (access_of(Identity((n,), True), served=True, sign_in=True, environ={
        "RAGVIZ_ADMINS": LEAD, "RAGVIZ_ANNOTATORS": ANA}) for n in (LEAD, ANA, GUEST))  # fmt: skip
    assert (admin.can_load, admin.can_judge, admin.can_see_store, admin.can_review) == (True, True, True, True)
    assert (annotator.can_load, annotator.can_judge, annotator.can_see_store, annotator.can_review) == (
        False, False, False, True)  # fmt: skip
    assert not (viewer.can_load or viewer.can_judge or viewer.can_see_store or viewer.can_review)
    assert "RAGVIZ_ADMINS" in annotator.why and "presentation mode" in viewer.why


def _sidebar_text(at: AppTest) -> str:
    return "\n".join(
        [c.value for c in at.sidebar.caption]
        + [c.value for c in at.sidebar.code]
        + [h.value for h in at.sidebar.get("html")]
    )


def _served(monkeypatch, **lists: str) -> None:
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    for name, value in lists.items():
        monkeypatch.setenv(name, value)


def test_locally_nothing_set_the_person_is_an_admin(app_env):
    at = open_page("pages/data.py")
    assert at.button(key="data.load_sample") is not None and at.text_input(key="data.annotator").value == "tester"
    assert str(app_env["db"]) in _sidebar_text(at)
    assert not at.sidebar.warning  # no banner locally
    label = open_page("pages/label.py")
    assert label.button(key="label.run") is not None


def test_served_without_sign_in_everyone_reviews_under_an_unverified_name(app_env, monkeypatch):
    _served(monkeypatch, RAGVIZ_ADMINS="tester")
    at = open_page("pages/data.py")
    assert any("not verified" in w.value for w in at.sidebar.warning)  # the banner
    assert not [b for b in at.button if b.key == "data.load_sample"]  # no loading: a typed name is no admin
    assert not [u for u in at.get("file_uploader")] and any("Only admins" in i.value for i in at.info)
    assert str(app_env["db"]) not in _sidebar_text(at)  # the store location stays hidden
    assert str(SAMPLE_DATA) not in "\n".join(h.value for h in at.get("html"))  # nor the server's folders
    label = open_page("pages/label.py")
    assert not [b for b in label.button if b.key == "label.run"]
    review = open_page("pages/review.py", id="ml-vs-programming")
    press(review, "accept")
    with LabelStore(app_env["db"]) as store:
        assert ML in store.reviewed_uids("tester")


def test_signed_in_the_annotator_is_the_user_and_cannot_be_typed(app_env, monkeypatch):
    _served(monkeypatch, RAGVIZ_ADMINS=LEAD)
    at = open_page_as("pages/data.py", ANA)
    assert not [t for t in at.text_input if t.key == "data.annotator"]
    assert any("Signed in as" in m.value and "ana@example" in shown(m.value) for m in at.markdown)
    assert not any("not verified" in w.value for w in at.sidebar.warning)
    assert not [b for b in at.button if b.key == "data.load_sample"]  # an annotator does not load
    review = open_page_as("pages/review.py", ANA, id="ml-vs-programming")
    assert toolbar_button(review, "rejudge") is None  # the judge spends money: admins only
    press(review, "accept")
    with LabelStore(app_env["db"]) as store:
        assert ML in store.reviewed_uids(ANA) and ML not in store.reviewed_uids("tester")


def test_signed_in_admin_loads_judges_and_sees_the_store(app_env, monkeypatch):
    _served(monkeypatch, RAGVIZ_ADMINS=LEAD)
    at = open_page_as("pages/data.py", LEAD)
    assert [b for b in at.button if b.key == "data.load_sample"]
    assert str(app_env["db"]) in _sidebar_text(at)
    assert [b for b in open_page_as("pages/label.py", LEAD).button if b.key == "label.run"]
    review = open_page_as("pages/review.py", LEAD, id="ml-vs-programming")
    assert toolbar_button(review, "rejudge") is not None


@pytest.mark.parametrize("email", [GUEST, None])
def test_others_only_view_and_record_nothing(app_env, monkeypatch, email):
    _served(monkeypatch, RAGVIZ_ADMINS=LEAD, RAGVIZ_ANNOTATORS=ANA)
    review = open_page_as("pages/review.py", email, present="0", id="ml-vs-programming")
    assert any("Presentation mode" in c.value for c in review.caption)
    assert review.sidebar.button(key="ragviz.present_toggle").disabled  # cannot be turned off
    assert all(toolbar_button(review, name) is None for name in ("accept", "reset", "undo"))  # not drawn...
    review.session_state[TOOLBAR_EVENTS] = ["accept", "reset", "undo"]  # ...and refused if pressed all the same
    review.run()
    assert not review.exception
    press(review, "next")  # walking around is fine...
    with LabelStore(app_env["db"]) as store:
        assert store.n_events() == 0 and store.annotators() == []  # ...but nothing is written
        assert store.position("tester") is None and store.position(str(email)) is None
    data = open_page_as("pages/data.py", email)
    assert not [b for b in data.button if b.key == "data.load_sample"]
    if email is None:
        assert [b for b in data.sidebar.button if b.key == "ragviz.sign_in"]


def test_adjudicators_are_named_verified_annotators_and_admins_adjudicate():
    from ragviz.store.roles import Identity, access_of

    env = {"RAGVIZ_ADMINS": "lead@x.org", "RAGVIZ_ANNOTATORS": "ana@x.org", "RAGVIZ_ADJUDICATORS": "dee@x.org"}
    dee = access_of(Identity(("dee@x.org",), True), served=True, sign_in=True, environ=env)
    assert dee.role == "annotator" and dee.can_adjudicate and not dee.can_see_others
    ana = access_of(Identity(("ana@x.org",), True), served=True, sign_in=True, environ=env)
    assert ana.can_review and not ana.can_adjudicate
    lead = access_of(Identity(("lead@x.org",), True), served=True, sign_in=True, environ=env)
    assert lead.can_adjudicate and lead.can_see_others
    typed = access_of(Identity(("dee@x.org",), False), served=True, sign_in=False, environ=env)
    assert not typed.can_adjudicate  # a typed name is not verified
