"""Two app replicas on one PostgreSQL database: two `streamlit run` processes with their own HOME and
working directory, a browser on each. A decision made on one replica shows on the other at its next
rerun; the other replica's stale edit of the same field is refused and the newer value shown."""

from __future__ import annotations

import pytest

from ragviz.store.label_store import LabelStore
from tests.browser.test_journey import ML
from tests.browser_wait import click_support, expect, metric_value, open_review, select_sentence, settle
from tests.cli_run import ragviz
from tests.conftest import StreamlitServer
from tests.sample import SAMPLE_JSONL

pytestmark = pytest.mark.browser


@pytest.fixture
def replicas(postgres_server, tmp_path):
    url = postgres_server.new_database()
    servers = []
    for name in ("one", "two"):
        home, cwd = tmp_path / name / "home", tmp_path / name / "cwd"
        home.mkdir(parents=True)
        cwd.mkdir()
        servers.append(StreamlitServer(db=url, home=home, cwd=cwd, log=tmp_path / f"{name}.log"))
    try:
        for server in servers:
            server.start()
        yield url, servers
    finally:
        for server in servers:
            server.stop()


@pytest.fixture
def both_on_review(replicas, chromium_browser):
    """(database URL, a page on replica one, a page on replica two), both on the Review page of one example."""
    url, servers = replicas
    contexts = [chromium_browser.new_context(viewport={"width": 1440, "height": 1000}) for _ in servers]
    try:
        pages = [c.new_page() for c in contexts]
        for pg, server in zip(pages, servers):
            pg.set_default_timeout(20_000)
            open_review(pg, f"{server.url}/review?id=ml-vs-programming")
        yield url, pages[0], pages[1]
    finally:
        for c in contexts:
            c.close()


def test_a_decision_on_one_replica_shows_on_the_other(both_on_review):
    url, page1, page2 = both_on_review
    expect()(page1.locator('[data-testid="stSidebar"]')).to_contain_text("postgresql://")
    expect()(metric_value(page2, "Adherence")).to_have_text("0.000")

    click_support(page1, "✓ supported")  # replica one
    expect()(metric_value(page1, "Adherence")).to_have_text("1.000")
    with LabelStore(url) as store:
        assert [v["supported"] for _, v in store.changes(ML, "browser-tester")] == [True]

    select_sentence(page2, "a")  # replica two's next rerun
    settle(page2)
    expect()(metric_value(page2, "Adherence")).to_have_text("1.000")
    expect()(page2.locator('[data-testid="stSidebar"]')).to_contain_text("1 / 22 reviewed")


def test_a_stale_click_on_the_other_replica_is_refused_and_the_newer_labels_shown(both_on_review):
    """Both replicas show the same example; replica one labels a context sentence relevant, then
    replica two (still drawn from the older labels) clicks another one: the store refuses it, replica
    two says which field changed and redraws with replica one's label; only replica one's edit is stored."""
    from tests.browser_wait import sentence

    url, page1, page2 = both_on_review
    unlabelled = page1.locator('.rv-sent[data-state="neither"]')
    expect()(unlabelled.first).to_be_visible()
    first, second = (unlabelled.nth(i).get_attribute("data-key") for i in range(2))

    sentence(page1, first).click()  # replica one: none -> relevant
    expect()(sentence(page1, first)).to_have_attribute("data-state", "relevant")
    settle(page1)
    sentence(page2, second).click()  # replica two, drawn before that
    notice = page2.locator(".rv-notice")  # issue 34: said under the sentence clicked, not at the top
    expect()(notice).to_contain_text("relevant_keys")
    expect()(sentence(page2, first)).to_have_attribute("data-state", "relevant")  # the newer labels
    expect()(sentence(page2, second)).to_have_attribute("data-state", "neither")  # the refused click undone
    with LabelStore(url) as store:
        events = [e for e in store.history(ML) if e.field == "relevant_keys"]
        assert len(events) == 1 and first in events[0].new and second not in events[0].new


def test_an_upload_belongs_to_the_store_every_replica_and_the_cli_read_it(replicas, chromium_browser, tmp_path):
    """Issue 29.7: an upload on replica one is registered once, by its content (``upload:NAME``), not as
    replica one's local copy: replica two opens it, and after replica one's home is cleaned
    ``ragviz export --db URL`` on a third home still exports it."""
    import json
    import os
    import shutil

    from tests.sample import ROOT

    url, servers = replicas
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines()[:3]]
    upload = tmp_path / "team.jsonl"
    upload.write_text("\n".join(json.dumps({**r, "id": f"upl-{i}"}) for i, r in enumerate(rows)) + "\n")

    context = chromium_browser.new_context(viewport={"width": 1440, "height": 1000})
    try:
        one = context.new_page()
        one.goto(f"{servers[0].url}/data")
        settle(one)
        one.get_by_role("tab", name="Upload a file").click()
        one.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
        expect()(one.locator('[data-testid="stSidebar"]')).to_contain_text("Loaded: 3 examples")

        with LabelStore(url) as store:
            [registered] = store.query("SELECT path FROM data_sources")
            assert registered[0].startswith("upload:") and registered[0].endswith("-team.jsonl")

        two = context.new_page()  # replica two: its own home, no copy of the file yet
        two.goto(f"{servers[1].url}/review?id=upl-2")
        expect()(metric_value(two, "Adherence")).to_be_visible()
        expect()(two.locator('[data-testid="stSidebar"]')).to_contain_text("Loaded: 3 examples")
        click_support(two, "✗ unsupported")  # every sentence of upl-2 is supported: a click on "supported" is no change
        expect()(metric_value(two, "Adherence")).to_have_text("0.000")
    finally:
        context.close()

    shutil.rmtree(servers[0].home / ".ragviz")  # replica one's home cleaned
    cli_home = tmp_path / "cli-home"
    cli_home.mkdir()
    out = tmp_path / "export.jsonl"
    done = ragviz("export", "--db", url, "-o", out, env={**os.environ, "HOME": str(cli_home), "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["id"] for r in exported) == ["upl-0", "upl-1", "upl-2"]
    assert next(r for r in exported if r["id"] == "upl-2")["reviewer"] == "browser-tester"


def test_a_stale_click_that_changes_the_other_field_is_refused_across_replicas(both_on_review):
    """Issue 28: replica one clicks a sentence through none -> R -> R+U -> U; replica two, still
    showing it "neither", clicks it once. Its click would change relevant_keys (back where replica two
    saw it) and assumes utilized_keys (changed since): refused with a message, replica two redraws
    with "utilized", and the store holds replica one's three clicks only (before: R+U, silently)."""
    from tests.browser_wait import sentence

    url, page1, page2 = both_on_review
    unlabelled = page1.locator('.rv-sent[data-state="neither"]')
    expect()(unlabelled.first).to_be_visible()
    key = unlabelled.first.get_attribute("data-key")
    for state in ("relevant", "both", "utilized"):
        sentence(page1, key).click()
        expect()(sentence(page1, key)).to_have_attribute("data-state", state)
        settle(page1)
    expect()(sentence(page2, key)).to_have_attribute("data-state", "neither")  # drawn before all that
    sentence(page2, key).click()
    expect()(page2.locator(".rv-notice").filter(has_text="Not saved")).to_contain_text("utilized_keys")
    expect()(sentence(page2, key)).to_have_attribute("data-state", "utilized")
    with LabelStore(url) as store:
        assert len(store.history(ML)) == 3
        latest = dict(store.changes(ML, "browser-tester"))
    assert key in latest["utilized_keys"] and key not in latest["relevant_keys"]
