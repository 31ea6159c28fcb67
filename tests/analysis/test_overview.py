"""Issue 29 item 9: Home's "Labelled by" counts only examples that carry labels; a row with no labels is
"not labelled yet", never "no judge named"."""

from __future__ import annotations

from ragviz.analysis.overview import overview
from ragviz.data.load import load
from tests.sample import SAMPLE_DATA


def test_a_row_without_labels_is_not_labelled_by_anyone():
    dataset = load([SAMPLE_DATA]).dataset
    unlabelled = [i for i in range(len(dataset)) if dataset.example(i).labels is None]
    assert len(unlabelled) == 1
    view = overview(dataset)
    assert view.labelled_by == (("gpt-4o", len(dataset) - 1),)
    assert view.labelled_by_text() == f"gpt-4o ({len(dataset) - 1}); 1 example not labelled yet"
    assert "no judge named" not in view.labelled_by_text()
