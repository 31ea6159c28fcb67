"""Issue 26's journey: a labelling round on PostgreSQL behind two replicas, everyone signed in through a real
OpenID Connect provider. The lead assigns the team's audit sample with overlap 3; three annotators label it
blind (each sees only their own labels; Compare offers no one else's); one disagrees on a support verdict; the
lead settles it on the Team page; the gold export carries the agreed and adjudicated labels with who settled;
the Team page's figures match a hand count."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.browser_wait import expect, metric_value, settle
from tests.cli_run import ragviz
from tests.conftest import StreamlitServer
from tests.sample import ROOT, SAMPLE_DATA
from tests.security.test_sign_in import _put_user, _sign_in, oidc_issuer  # noqa: F401 - the fixture

pytestmark = pytest.mark.browser

LEAD = "lead@example.org"
TEAM = ("ana@example.org", "bo@example.org", "cy@example.org")


def _secrets(home: Path, url: str, issuer: str) -> None:
    (home / ".streamlit").mkdir(parents=True)
    (home / ".streamlit" / "secrets.toml").write_text(
        "[auth]\n"
        f'redirect_uri = "{url}/oauth2callback"\n'
        'cookie_secret = "a-long-random-cookie-secret-only-for-this-test-0123456789"\n'
        'client_id = "ragviz"\n'
        'client_secret = "ragviz-test-secret"\n'
        f'server_metadata_url = "{issuer}/.well-known/openid-configuration"\n'
    )


@pytest.fixture
def team_replicas(postgres_server, tmp_path, monkeypatch, oidc_issuer):  # noqa: F811 - the imported fixture
    url = postgres_server.new_database()
    _put_user(oidc_issuer, "cy@example.org", {"email": "cy@example.org", "email_verified": True, "name": "Cy"})
    monkeypatch.setenv("RAGVIZ_SERVED", "1")
    monkeypatch.setenv("RAGVIZ_ADMINS", LEAD)
    monkeypatch.setenv("RAGVIZ_ANNOTATORS", ",".join(TEAM))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    servers = []
    for name in ("one", "two"):
        home, cwd = tmp_path / name / "home", tmp_path / name / "cwd"
        cwd.mkdir(parents=True)
        server = StreamlitServer(db=url, home=home, cwd=cwd, log=tmp_path / f"{name}.log")
        _secrets(home, server.url, oidc_issuer)
        servers.append(server)
    try:
        for server in servers:
            server.start()
        yield url, servers
    finally:
        for server in servers:
            server.stop()


def _labelled_sample(url: str) -> list[str]:
    """The team's audit sample: three labelled examples, drawn and chosen by the lead."""
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(url) as store:
        for seed in range(1, 200):
            sample = store.audits.draw_sample(ds.uids, 3, LEAD, seed=seed)
            if all(ds.example(ds.index_of(u)).labels is not None for u in sample.members):
                store.audits.choose_team_sample(sample.id, LEAD)
                return list(sample.members)
    raise AssertionError("no labelled sample")


def _page(browser, base: str, email: str):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    _sign_in(page, base, email)
    return page


def _mine(page):
    """The sidebar's Queue button, which says "my assignments, N open" (the toggle waits in its closed panel)."""
    return page.locator('[data-testid="stSidebar"]').get_by_role("button", name=re.compile(r"^Queue: "))


def _label_my_three(page, base: str, disagree: bool) -> None:
    page.goto(f"{base}/review")
    expect()(_mine(page)).to_contain_text("Queue: my assignments, 3 open")
    settle(page)
    for done in range(1, 4):
        if disagree and done == 1:  # flip the verdict of the selected response sentence, then accept
            group = page.locator(".rv-controls .rv-verdicts").first
            checked = group.locator('button[aria-pressed="true"]').inner_text()
            other = "✗ unsupported" if "supported" in checked and "✗" not in checked else "✓ supported"
            group.locator("button").filter(has_text=other).click()
            settle(page)
        page.get_by_role("button", name="Accept as shown").click()
        expect()(_mine(page)).to_contain_text(f"Queue: my assignments, {3 - done} open")
        settle(page)


def test_an_overlapped_round_labelled_blind_adjudicated_and_exported(team_replicas, chromium_browser, tmp_path):
    url, (one, two) = team_replicas
    members = _labelled_sample(url)

    lead = _page(chromium_browser, two.url, LEAD)  # the lead assigns the sample on replica two
    lead.goto(f"{two.url}/team")
    expect()(lead.get_by_role("tab", name="Progress")).to_be_visible()
    settle(lead)
    lead.get_by_label("Annotators per example (overlap)").fill("3")
    lead.get_by_label("More names (comma-separated e-mail addresses or names)").fill(", ".join(TEAM))
    lead.get_by_text("The team's audit sample").click()
    lead.get_by_role("button", name="Assign").click()
    expect()(metric_value(lead, "Examples in the round")).to_have_text("3")

    pages = {who: _page(chromium_browser, (one if who != "bo@example.org" else two).url, who) for who in TEAM}
    _label_my_three(pages["ana@example.org"], one.url, disagree=False)
    _label_my_three(pages["bo@example.org"], two.url, disagree=False)
    _label_my_three(pages["cy@example.org"], one.url, disagree=True)

    ana = pages["ana@example.org"]  # blind: the judge's, her own (and gold: every assignment is decided)
    ana.goto(f"{one.url}/compare")
    expect()(ana.get_by_text("A blind labelling round is on")).to_be_visible()
    ana.get_by_label("Label set B (after)").click()
    options = ana.locator('[role="option"]').all_inner_texts()
    assert not any(name in " ".join(options) for name in ("bo@example.org", "cy@example.org", "human"))
    ana.keyboard.press("Escape")

    lead.goto(f"{two.url}/team")
    expect()(metric_value(lead, "Waiting for an adjudicator")).to_have_text("1")
    expect()(metric_value(lead, "Gold: agreed")).to_have_text("2")
    lead.get_by_role("tab", name="Adjudication").click()
    expect()(lead.locator(".rv-adj-diff").first).to_be_visible()
    radio_group = lead.locator('[data-testid="stRadio"]').filter(has_text="supported · sentence").first
    radio_group.locator("label").filter(has_text=re.compile(r"cy@\W?example\.org")).click()  # cy was right
    lead.get_by_role("button", name="Settle").click()
    expect()(lead.get_by_text("Nothing to adjudicate")).to_be_visible()
    expect()(metric_value(lead, "Gold: adjudicated")).to_have_text("1")
    for label, value in (("Examples in the round", "3"), ("Ready (everyone decided)", "3"), ("Gold: agreed", "2")):
        expect()(metric_value(lead, label)).to_have_text(value)  # a hand count: 3 examples, all decided, 1 differed
    with LabelStore(url) as store:
        from ragviz.analysis.team.progress import team_progress

        counts = team_progress(store).as_dict()["annotators"]
        assert counts == {who: {"assigned": 3, "done": 3} for who in TEAM}

    out = tmp_path / "gold.jsonl"
    run = ragviz("export", SAMPLE_DATA, "--db", url, "--labels", "gold", "-o", out)
    assert run.returncode == 0, run.stderr
    rows = {
        f"{r['dataset_name']}/{r['id']}/{r['generation_model_name']}": r
        for r in map(json.loads, out.read_text().splitlines())
    }
    sources = sorted(rows[u]["label_source"] for u in members)
    assert sources == ["adjudicated", "agreed", "agreed"]
    settled = next(rows[u] for u in members if rows[u]["label_source"] == "adjudicated")
    assert settled["reviewer"] == LEAD
    assert all(r["label_source"] == "llm" for u, r in rows.items() if u not in members and r["label_source"])
    for page in [*pages.values(), lead]:
        page.context.close()
