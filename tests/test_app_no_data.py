"""Every data page, opened with nothing loaded, says so and links to the Data page (one shared guard:
``ragviz.ui.state.require_data``) instead of failing."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragviz.ui.state import NO_DATA_MESSAGE

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.mark.parametrize("page", ["review", "export", "label", "dashboard", "explainer", "compare"])
def test_page_without_data_points_to_the_data_page(app_env, monkeypatch, page):
    monkeypatch.delenv("RAGVIZ_DATA")
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [i.value for i in at.info] == [NO_DATA_MESSAGE]
    assert [p.proto.label for p in at.get("page_link")] == ["Go to Data"]
    assert not at.get("dataframe") and not at.get("button")
