"""Context keys a judge wrote with a trailing dot (``0b.``; 352 of them in 40 RAGBench examples): the
Review page shows their sentence as labelled and an edit replaces the dotted copy instead of adding a
second entry (issue 29, item 4's context-key half)."""

from __future__ import annotations

import pytest

from ragviz.analysis.review.edits import document_spans, response_spans, supporting_key_options
from ragviz.analysis.review.text import click_changes, support_link_change
from ragviz.data.labels import apply_changes
from ragviz.data.load import load
from ragviz.metrics.trace import example_trace
from tests.ragbench_data import require_ragbench

UID = "covidqa_test/1564/gpt-3.5-turbo-1106"  # relevant and utilized: ['0b.', '1c.'] among others


@pytest.fixture(scope="module")
def example():
    root = require_ragbench()
    return next(ex for ex in load([root / "covidqa"]).dataset if ex.uid == UID)


def states(example, labels) -> dict[str, str]:
    return {s.key: s.state for doc in document_spans(example, labels) for s in doc}


def test_the_page_shows_a_dotted_key_on_its_sentence(example):
    labels = example.labels
    assert "0b." in labels.relevant_keys and "0b" not in labels.relevant_keys  # as the row stores it
    shown = states(example, labels)
    assert shown["0b"] == "both" and shown["1c"] == "both"


def test_unmarking_the_sentence_takes_out_the_dotted_copy(example):
    labels = example.labels
    after = apply_changes(labels, [(c.field, c.new) for c in click_changes(example, labels, "0b", "neither")])
    assert not {"0b", "0b."} & set(after.relevant_keys + after.utilized_keys)
    assert states(example, after)["0b"] == "neither"
    trace = example_trace(example, after)
    assert trace.relevance == pytest.approx(example_trace(example, labels).relevance - 1 / len(example.context_keys()))


def test_a_click_that_keeps_the_sentence_relevant_writes_no_second_entry(example):
    labels = example.labels
    changes = click_changes(example, labels, "0b", "relevant")  # both -> relevant only
    relevant, utilized = changes
    assert relevant.old == relevant.new  # unchanged: 0b. already names it
    after = apply_changes(labels, [(c.field, c.new) for c in changes])
    assert after.relevant_keys.count("0b") + after.relevant_keys.count("0b.") == 1
    assert "0b." not in after.utilized_keys and "0b" not in after.utilized_keys


def test_supporting_links_see_the_dotted_key_as_its_sentence(example):
    labels = example.labels
    dotted = [s for s in labels.support if any(k.endswith(".") for k in s.supporting_keys)]
    if not dotted:
        pytest.skip("no dotted supporting key in this example")
    entry = dotted[0]
    key = next(k for k in entry.supporting_keys if k.endswith("."))
    span = next(s for s in response_spans(example, labels) if s.key == entry.key)
    assert key not in supporting_key_options(example, span)  # not offered as an unknown key
    change = support_link_change(labels, entry.key, key.rstrip("."), linked=False)
    assert key not in change.new["supporting_keys"]
