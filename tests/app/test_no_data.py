"""Every data page, opened with nothing loaded, says so and links to the Data page (one shared guard:
``ragviz.ui.core.state.require_data``) instead of failing."""

from __future__ import annotations

import pytest

from ragviz.ui.core.state import NO_DATA_MESSAGE
from tests.apptest_helpers import open_page


@pytest.mark.parametrize("page", ["review", "export", "label", "dashboard", "explainer", "compare"])
def test_page_without_data_points_to_the_data_page(app_env, monkeypatch, page):
    monkeypatch.delenv("RAGVIZ_DATA")
    at = open_page(f"pages/{page}.py")
    assert [i.value for i in at.info] == [NO_DATA_MESSAGE]
    assert [p.proto.label for p in at.get("page_link")] == ["Go to Data"]
    assert not at.get("dataframe") and not at.main.get("button")  # the sidebar's Presentation button is the app's


def test_first_screen_without_data_offers_the_sample_then_orients(app_env, monkeypatch):
    monkeypatch.delenv("RAGVIZ_DATA")
    from streamlit.testing.v1 import AppTest

    from tests.apptest_helpers import APP

    at = AppTest.from_file(APP, default_timeout=90)
    at.run()  # the default page: Home
    assert not at.exception
    assert [b.label for b in at.main.button] == ["Load the sample data"]  # the page's (the sidebar: Presentation)
    at.button(key="home.load_sample").click().run()
    assert not at.exception
    assert [b.label for b in at.main.button] == ["Start reviewing"]  # the one action once data is loaded
    assert [m.value for m in at.metric] == ["22", "4", "0 / 22"]


def test_an_install_without_the_sample_data_says_so_instead_of_loading_nothing(app_env, monkeypatch, tmp_path):
    """An installed ragviz (the wheel carries no sample_data folder): Home and the Data page's sample tab say where
    the sample comes from and point to opening a file; no button that loads 0 examples without a word."""
    monkeypatch.delenv("RAGVIZ_DATA")
    from streamlit.testing.v1 import AppTest

    from ragviz.ui.core import state
    from ragviz.ui.home import NO_SAMPLE
    from tests.apptest_helpers import APP

    monkeypatch.setattr(state, "SAMPLE_DATA", tmp_path / "sample_data")  # not there
    at = AppTest.from_file(APP, default_timeout=90)
    at.run()  # the default page: Home
    assert not at.exception
    assert not at.main.button
    assert NO_SAMPLE in [c.value for c in at.main.caption]
    assert [p.proto.label for p in at.main.get("page_link")] == ["Open your own file on the Data page"]
    at = open_page("pages/data.py")
    sample = at.button(key="data.load_sample")
    assert sample.disabled and any(c.value.startswith(NO_SAMPLE) for c in at.main.caption)
