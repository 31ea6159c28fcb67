"""Issue 28 item 6, who may decide what: only admins draw, grow or choose the team's audit sample (an
annotator's click is refused when it arrives, not only hidden); which sample is the team's is an admin's
explicit choice, kept with who and when, and the Dashboard, the Explainer and ``ragviz estimate --db``
use it rather than the newest (SQLite and PostgreSQL)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ragviz.cli import main as cli_main
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import APP, SIGN_IN_SECRETS, _run_page, open_queue, shown, signed_in_user
from tests.sample import SAMPLE_DATA

LEAD, ANA = "lead@example.org", "ana@example.org"


def _served(monkeypatch) -> None:
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    monkeypatch.setenv("RAGVIZ_ADMINS", LEAD)
    monkeypatch.setenv("RAGVIZ_ANNOTATORS", ANA)


def _review_as(email: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=90)
    at.secrets["auth"] = dict(SIGN_IN_SECRETS)
    at.user = signed_in_user(email)
    at = _run_page(at, "pages/review.py", {})
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.radio(key="review.queue").set_value("Audit sample").run()
    assert not at.exception
    return at


def _buttons(at: AppTest) -> set[str]:
    return {b.key for b in at.sidebar.button if b.key}


def test_an_annotator_cannot_draw_grow_or_choose_even_from_a_tab_drawn_for_an_admin(app_env, monkeypatch):
    _served(monkeypatch)
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(app_env["db"]) as store:
        store.audits.draw_sample(ds.uids, 5, LEAD, seed=3)
    ana = _review_as(ANA)
    assert not {"audit.draw", "audit.grow", "audit.choose"} & _buttons(ana)  # hidden...
    assert any("Only admins" in c.value for c in ana.sidebar.caption)

    for key in ("audit.draw", "audit.grow", "audit.choose"):  # ...and refused server-side:
        tab = _review_as(LEAD)  # a page drawn with the admin's buttons
        assert key in _buttons(tab)
        tab.user = signed_in_user(ANA)  # the click arrives from someone who is not an admin
        tab.sidebar.button(key=key).click().run()
        assert any("Not done: Only admins" in shown(c.value) for c in tab.sidebar.caption), key
    with LabelStore(app_env["db"]) as store:
        assert [(s.id, s.size) for s in store.audits.list_samples()] == [(1, 5)] and store.audits.team_choice() is None


def test_the_admin_chooses_the_team_sample_and_it_is_recorded(app_env, monkeypatch):
    _served(monkeypatch)
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(app_env["db"]) as store:
        store.audits.draw_sample(ds.uids, 5, LEAD, seed=3)
        store.audits.draw_sample(ds.uids, 4, LEAD, seed=9)  # newest
    at = _review_as(LEAD)
    at.sidebar.selectbox(key="audit.pick").set_value(1).run()
    at.sidebar.button(key="audit.choose").click().run()
    with LabelStore(app_env["db"]) as store:
        choice = store.audits.team_choice()
    assert choice is not None and (choice.sample_id, choice.chosen_by) == (1, LEAD)
    fresh = _review_as(ANA)  # another session opens on the team's sample, not the newest
    assert fresh.sidebar.selectbox(key="audit.pick").value == 1
    assert any("The team's audit sample, chosen by lead@example.org" in shown(c.value) for c in fresh.sidebar.caption)


def test_dashboard_explainer_and_estimate_default_to_the_team_sample(app_env, db_target, capsys):
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(db_target) as store:
        team = store.audits.draw_sample(ds.uids, 6, LEAD, seed=3)
        store.audits.draw_sample(ds.uids, 6, ANA, seed=11)  # newer, drawn before the rule
        for uid in team.members:
            ex = ds.example(ds.index_of(uid))
            store.record(uid, "human", [Change(REVIEW_FIELD, None, REVIEWED)], example=ex)
        store.audits.choose_team_sample(team.id, LEAD)
    code = cli_main(["estimate", str(SAMPLE_DATA), "--db", db_target])
    err = capsys.readouterr().err
    assert code == 0 and f"using the team's audit sample {team.id} (chosen by {LEAD}" in err, err
    if not db_target.startswith("postgresql"):
        at = _run_page(AppTest.from_file(APP, default_timeout=90), "pages/dashboard.py", {})
        assert at.selectbox(key="dashboard.audit_pick").value == team.id
        assert any("The team's audit sample" in shown(c.value) for c in at.caption)
        explainer = _run_page(AppTest.from_file(APP, default_timeout=90), "pages/explainer.py", {})
        assert explainer.selectbox(key="explainer.audit_pick").value == team.id
