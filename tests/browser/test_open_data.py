"""Issue 29.2, loaded data stays loaded: data opened on the Data page (a typed path, an upload) is
remembered in the label store for the annotator, so a reload (F5), a new tab and a deep link
(``/review?id=…``) show it, not the server's start-up data; the sidebar says which data is open and
shows the new count right after "Open"."""

from __future__ import annotations

import json

import pytest

from ragviz.store.label_store import LabelStore
from tests.browser_wait import FRESH, expect, metric_value, settle, sidebar
from tests.sample import SAMPLE_JSONL

pytestmark = pytest.mark.browser


def _rows(n: int, prefix: str) -> str:
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines()[:n]]
    return "\n".join(json.dumps({**r, "id": f"{prefix}-{i}"}) for i, r in enumerate(rows)) + "\n"


def test_opened_data_survives_reload_new_tab_and_deep_link(streamlit_server, page, tmp_path):
    url = streamlit_server.url
    typed = tmp_path / "five.jsonl"
    typed.write_text(_rows(5, "typed"))

    page.goto(f"{url}/data")
    expect()(sidebar(page)).to_contain_text("Loaded: 22 examples")  # the server's start-up data
    expect()(sidebar(page)).to_contain_text("the data this app was started with")
    settle(page)
    page.get_by_role("tab", name="Open a path").click()
    page.get_by_label("A file or a directory").fill(str(typed))
    page.get_by_label("A file or a directory").press("Enter")
    settle(page)
    page.get_by_role("button", name="Open", exact=True).click()
    # the sidebar (drawn before the page) shows the new count at once, not after the next page change
    expect()(sidebar(page)).to_contain_text("Loaded: 5 examples")
    expect()(sidebar(page)).to_contain_text("five.jsonl: kept for you")
    expect()(page.locator(f'{FRESH} [data-testid="stMetric"]').filter(has_text="Examples")).to_contain_text("5")

    page.reload()  # F5
    expect()(sidebar(page)).to_contain_text("Loaded: 5 examples")
    expect()(page.locator(f'{FRESH} [data-testid="stMetric"]').filter(has_text="Examples")).to_contain_text("5")

    other = page.context.new_page()  # a new tab, straight to a deep link into the opened data
    other.goto(f"{url}/review?id=typed-3")
    expect()(metric_value(other, "Adherence")).to_be_visible()
    expect()(sidebar(other)).to_contain_text("Loaded: 5 examples")
    expect()(other.get_by_text("No loaded example has the id")).to_have_count(0)
    assert "typed-3" in other.url

    # an upload replaces it, and is remembered the same way
    settle(page)
    page.get_by_role("tab", name="Upload a file").click()
    upload = tmp_path / "three.jsonl"
    upload.write_text(_rows(3, "upl"))
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
    expect()(sidebar(page)).to_contain_text("Loaded: 3 examples")
    expect()(sidebar(page)).to_contain_text("three.jsonl: kept for you")
    other.goto(f"{url}/review?id=upl-1")
    expect()(metric_value(other, "Adherence")).to_be_visible()
    expect()(sidebar(other)).to_contain_text("Loaded: 3 examples")
    other.close()

    with LabelStore(streamlit_server.db) as store:
        choice = store.sources.chosen_data("annotator:browser-tester")
        assert choice is not None and choice.chosen_by == "browser-tester"
        [kept] = choice.sources
        assert kept.endswith("-three.jsonl") and kept in store.sources.registered()

    streamlit_server.kill()  # a restart on the same start-up data keeps the choice
    streamlit_server.start()
    page.goto(f"{url}/review?id=upl-2")
    expect()(metric_value(page, "Adherence")).to_be_visible()
    expect()(sidebar(page)).to_contain_text("Loaded: 3 examples")
