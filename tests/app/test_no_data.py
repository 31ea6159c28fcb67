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
    opened = [t.proto.tab_container for t in at.main.get("tab_container")]
    assert [t.default_tab_index for t in opened] == [1]  # "Upload a file": not the tab whose one button is off


def _start_up_data(tmp_path, monkeypatch, good_rows: int) -> str:
    """``$RAGVIZ_DATA``: *good_rows* of the sample, then a cut line; the file's name is HTML (shown escaped)."""
    from tests.sample import SAMPLE_JSONL

    lines = SAMPLE_JSONL.read_text().splitlines()[:good_rows]
    path = tmp_path / "<img src=x>start.jsonl"
    path.write_text("".join(line + "\n" for line in lines) + '{"id": "cut", "question": "half\n')
    monkeypatch.setenv("RAGVIZ_DATA", str(path))
    return f"&lt;img src=x&gt;start.jsonl:{good_rows + 1}: json: truncated JSON line"


@pytest.mark.parametrize("page", ["review", "dashboard"])
def test_start_up_data_that_loads_nothing_names_its_errors_not_no_data_yet(app_env, monkeypatch, page):
    """``ragviz app bad.jsonl`` said "No data loaded yet" on every page but the Data page: not a word of why."""
    line = _start_up_data(app_env["tmp"], monkeypatch, 0)
    at = open_page(f"pages/{page}.py")
    assert not at.info
    assert [e.value for e in at.error] == [
        "The open data has 1 load error: nothing of it loaded. Fix the data and open it again on the Data page, "
        "which lists every error."
    ]
    assert any(line in h.proto.body for h in at.get("html"))
    assert [p.proto.label for p in at.get("page_link")] == ["Go to Data"]


def test_home_names_the_errors_of_start_up_data_that_loaded_in_part(app_env, monkeypatch):
    line = _start_up_data(app_env["tmp"], monkeypatch, 3)
    from streamlit.testing.v1 import AppTest

    from tests.apptest_helpers import APP

    at = AppTest.from_file(APP, default_timeout=90)
    at.run()  # Home
    assert not at.exception
    assert [m.value for m in at.metric][:1] == ["3"]
    assert [w.value for w in at.warning] == [
        "The open data has 1 load error: 3 examples loaded, the rows named were skipped. Fix the data and open it "
        "again on the Data page, which lists every error."
    ]
    assert any(line in h.proto.body for h in at.get("html"))


def test_the_notice_names_files_by_their_name_even_in_a_readers_message(app_env, monkeypatch):
    """pyarrow's message quotes the path it could not open: the folder stays on the Data page, for those who may
    see it."""
    bad = app_env["tmp"] / "cut.parquet"
    bad.write_bytes(b"PAR1" + b"\0" * 64 + b"PAR1")
    monkeypatch.setenv("RAGVIZ_DATA", str(bad))
    at = open_page("pages/review.py")
    notice = next(h.proto.body for h in at.get("html") if "rv-problems" in h.proto.body)
    assert "cut.parquet: file: unreadable Parquet" in notice and str(app_env["tmp"]) not in notice


def test_start_up_data_that_loads_nothing_offers_no_review_and_names_the_file_plainly(app_env, monkeypatch, tmp_path):
    """The Data page's "What is loaded" with 0 examples: no "Start reviewing" (Review would only say nothing is
    loaded); the error's table names the file, a blank row (the whole file) and no empty "kind" / "level" columns."""
    from streamlit.testing.v1 import AppTest

    from tests.apptest_helpers import APP

    missing = tmp_path / "nothing.jsonl"
    monkeypatch.setenv("RAGVIZ_DATA", str(missing))
    at = AppTest.from_file(APP, default_timeout=90)
    at.switch_page("pages/data.py").run()
    assert not at.exception
    assert "Start reviewing" not in [p.proto.label for p in at.main.get("page_link")]
    errors = next(d.value for d in at.dataframe if "message" in d.value.columns)
    assert errors.to_dict("records") == [
        {"path": str(missing), "row": "", "field": "path", "message": "no such file or directory"}
    ]
