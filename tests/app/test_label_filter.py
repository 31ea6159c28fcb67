"""The Label page's "Current Review filter" selection follows the filter the Review page has now."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from ragviz.data.load import load
from ragviz.metrics.trace import example_trace
from tests.apptest_helpers import open_queue
from tests.sample import ROOT, SAMPLE_DATA

APP = str(ROOT / "app.py")


def label_selection_after_review_filter(at: AppTest, adherence_zero: bool) -> str:
    """Set the Review page's "Adherence 0" filter, then select "Current Review filter" on the Label
    page; the number of examples it selects."""
    at.switch_page("pages/review.py")
    at.run()
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.toggle(key="review.f_adherence0").set_value(adherence_zero).run()
    at.switch_page("pages/label.py")
    at.run()
    at.segmented_control(key="label.selection").set_value("filtered").run()
    assert not at.exception, [e.value for e in at.exception]
    return next(m.value for m in at.metric if m.label == "Examples")


def test_label_page_uses_the_review_filter_and_forgets_it_when_turned_off(app_env, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ds = load([SAMPLE_DATA]).dataset
    zero = [ex.uid for ex in ds if example_trace(ex).adherence == 0.0]
    assert 0 < len(zero) < len(ds)

    at = AppTest.from_file(APP, default_timeout=60)
    assert label_selection_after_review_filter(at, True) == str(len(zero))
    assert label_selection_after_review_filter(at, False) == str(len(ds))
    assert any("No filter is active" in c.value for c in at.caption)
