"""The Judge page under AppTest, against the prompt-dependent stub server: disagreements, pick examples, a rubric,
create, compare on the audit sample, promote, re-judge; the Dashboard then names the version it corrects.
Annotators look; viewers are kept out."""

from __future__ import annotations

import pytest

from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, open_page_as
from tests.judge.versions_setup import MARKER, review_truth, write_marker_data
from tests.openai_stub_server import StubServer


@pytest.fixture
def judge_env(app_env, monkeypatch):
    data = write_marker_data(app_env["tmp"] / "rows.jsonl", 30)
    monkeypatch.setenv("RAGVIZ_DATA", str(data))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    dataset = load([str(data)]).dataset
    with LabelStore(str(app_env["db"])) as store:
        sample = store.audits.draw_sample(dataset.uids, 10, "tester", seed=4)
        review_truth(store, dataset, list(sample.members))
        outside = [u for u in dataset.uids if u not in sample.members]
        review_truth(store, dataset, outside[:6], note="The zorblat sentence answers the question.")
    with StubServer(marker=MARKER) as stub:
        yield {**app_env, "stub": stub, "sample": sample, "outside": outside}


def _table(at, column: str):
    """The first table on the page with *column*."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _texts(at) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption] + [s.value for s in at.success]
    parts += [i.value for i in at.info] + [e.value for e in at.error]
    return "\n".join(str(p) for p in parts).replace("\\", "")  # Markdown escapes dropped


def test_the_leads_walk(judge_env):
    stub = judge_env["stub"]
    at = open_page("pages/judge.py")
    assert "The team's judge: **v1**" in _texts(at)
    patterns = _table(at, "What happened")
    assert "the judge said not relevant where people said relevant" in set(patterns["What happened"])
    at.session_state["label.base_url"] = stub.base_url
    at.session_state["label.response_format"] = "json_object"
    options = at.multiselect(key="judge.picks").options
    assert options and not any(judge_env["sample"].members[0] in o for o in options)
    picks = [o.split(" — ")[0] for o in options][:2]
    at.multiselect(key="judge.picks").set_value(picks).run()
    at.text_area(key="judge.rubric").set_value("A sentence naming the zorblat reading is relevant.").run()
    at.text_input(key="judge.name").set_value("v2").run()
    assert not at.exception, [e.value for e in at.exception]
    prompt = at.code[0].value
    assert "A sentence naming the zorblat reading is relevant." in prompt and "Worked example 2" in prompt
    assert any(m.label == "Cost of comparing it" for m in at.metric)
    at.button(key="judge.create").click().run()
    assert "Created judge version v2." in _texts(at)
    at.multiselect(key="judge.compare_versions").set_value(["v1", "v2"]).run()
    at.button(key="judge.compare").click().run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    table = _table(at, "Figure")
    kappa = table[(table["Label kind"] == "relevant") & (table["Figure"] == "Cohen's κ")].iloc[0]
    assert kappa["v2"].startswith("1.00") and not kappa["v1"].startswith("1.00")
    n_calls = len(stub.calls)
    assert n_calls == 20
    at.selectbox(key="judge.promote_pick").set_value("v2").run()
    at.button(key="judge.promote").click().run()
    assert "v2 is the team's judge now" in _texts(at)
    at.button(key="judge.rejudge").click().run(timeout=60)
    assert not at.exception, [e.value for e in at.exception]
    assert "Re-judged with v2: 20 judged, 10 cached, 0 failed" in _texts(at)
    at.switch_page("pages/label.py")
    at.run()
    assert "Judge version **v2**" in "\n".join(c.value for c in at.caption)
    at.switch_page("pages/dashboard.py")
    at.run()
    assert "Judge labels corrected: judge version v2 (30 examples)" in _texts(at)


def test_annotators_look_and_viewers_are_kept_out(judge_env, monkeypatch):
    for name, value in {"RAGVIZ_SERVED": "1", "RAGVIZ_ADMINS": "lead@x.org", "RAGVIZ_ANNOTATORS": "ana@x.org"}.items():
        monkeypatch.setenv(name, value)
    ana = open_page_as("pages/judge.py", "ana@x.org")
    assert "You may look; admins create, compare, promote and re-judge." in _texts(ana)
    assert not [b for b in ana.button if b.key in ("judge.create", "judge.compare", "judge.promote", "judge.rejudge")]
    assert "the judge said not relevant where people said relevant" in set(
        _table(ana, "What happened")["What happened"]
    )
    guest = open_page_as("pages/judge.py", "guest@x.org")
    assert "Judge versions are for admins and annotators." in _texts(guest)
    assert not [d for d in guest.dataframe]


def test_without_working_settings_re_judge_says_why_in_the_apps_words(app_env, monkeypatch):
    """Issue 40: "Re-judge with v1" ended at "Which examples" with no button and no reason, and the warning
    named the command-line flag --base-url to a person in the browser."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    at = open_page("pages/judge.py")
    assert not [b for b in at.button if b.key == "judge.rejudge"]
    reasons = [i.value for i in at.info if "re-judge once the judge settings work" in i.value]
    assert reasons and "Label page" in reasons[0]
    warnings = " ".join(w.value for w in at.warning)
    assert "no API key" in warnings and "--base-url" not in warnings


def test_with_nothing_reviewed_outside_the_audit_no_agreement_is_claimed(app_env):
    """With no example reviewed outside the audit samples the page said "No disagreement: people accepted every judge
    label they reviewed" (of none); it says nothing was reviewed there yet."""
    at = open_page("pages/judge.py")
    said = " ".join(i.value for i in at.info)
    assert "Nobody has reviewed an example outside the audit samples yet: no disagreement to learn from." in said
    assert "people accepted every judge label" not in said
