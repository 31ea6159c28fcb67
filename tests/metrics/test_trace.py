"""TRACe formulas on hand-made labels, including the classic worked example and the edge cases."""

from __future__ import annotations

import pytest

from ragviz.data.keys import context_key, response_key
from ragviz.data.labels import apply_changes, support_field
from ragviz.data.model import Example, Labels, Sentence, SentenceSupport
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.summary import summarize
from ragviz.metrics.trace import UNLABELED, example_trace, trace_scores


def _example(doc_sizes=(3, 3), n_response=3, labels=None) -> Example:
    docs = tuple(
        tuple(Sentence(context_key(d, j), f"doc {d} sentence {j}.") for j in range(n)) for d, n in enumerate(doc_sizes)
    )
    resp = tuple(Sentence(response_key(j), f"answer {j}.") for j in range(n_response))
    return Example(
        id="x",
        dataset="t",
        question="q?",
        documents=tuple(" ".join(s.text for s in d) for d in docs),
        document_sentences=docs,
        response=" ".join(s.text for s in resp),
        response_sentences=resp,
        labels=labels,
        judge_labels=labels,
    )


ML_LABELS = Labels(
    relevant_keys=("0b", "0c", "1a", "1b"),
    utilized_keys=("0b", "0c", "1a"),
    support=(
        SentenceSupport("a", True, ("0b",)),
        SentenceSupport("b", True, ("0c", "1a")),
        SentenceSupport("c", False),
    ),
    unsupported_keys=("c",),
)


def test_worked_example_ml_vs_programming():
    s = example_trace(_example(labels=ML_LABELS))
    assert (s.relevance, s.utilization, s.completeness, s.adherence) == (4 / 6, 3 / 6, 0.75, 0.0)
    assert s.mean == pytest.approx((4 / 6 + 0.5 + 0.75 + 0.0) / 4)


def test_relevance_is_not_divided_by_a_fixed_twenty():
    s = trace_scores(Labels(relevant_keys=("0a",)), 5)
    assert s.relevance == 0.2


def test_keys_are_counted_as_stored_until_normalized():
    s = trace_scores(Labels(relevant_keys=("0a", "0a", "0b.", "general"), utilized_keys=("0a",)), 10)
    assert s.relevance == 0.4
    assert s.completeness == 0.25  # |{0a}| / 4 stored keys


def test_empty_relevant_gives_completeness_one():
    assert trace_scores(Labels(utilized_keys=("0a",)), 4).completeness == 1.0


def test_unlabeled_is_null_not_perfect():
    ex = _example(labels=None)
    assert example_trace(ex) == UNLABELED
    assert UNLABELED.adherence is None and UNLABELED.mean is None


def test_no_context_sentences_gives_undefined_ratios():
    s = trace_scores(Labels(), 0)
    assert s.relevance is None and s.utilization is None and s.completeness == 1.0


@pytest.mark.parametrize(
    "support, expected",
    [
        ((SentenceSupport("a", True, ("0a",)), SentenceSupport("b", None, ("0b",))), ()),
        ((SentenceSupport("a", None, ()),), ("a",)),
        ((SentenceSupport("a", False, ("0a",)),), ("a",)),
    ],
)
def test_unsupported_derived_from_sentences_when_no_stored_list(support, expected):
    assert unsupported_keys(Labels(support=support)) == expected


def test_stored_unsupported_list_wins_until_a_person_edits_support():
    labels = Labels(support=(SentenceSupport("a", True, ("0a",)),), unsupported_keys=("a",))
    assert trace_scores(labels, 3).adherence == 0.0
    edited = apply_changes(labels, [(support_field("a"), {"supported": True, "supporting_keys": ["0a"]})])
    assert edited.unsupported_keys is None
    assert trace_scores(edited, 3).adherence == 1.0


def test_summary_counts_unlabeled_apart():
    records = [
        {"dataset": "a", "relevance": 0.5, "adherence": 1.0},
        {"dataset": "a", "relevance": None, "adherence": None},
        {"dataset": "b", "relevance": 0.25, "adherence": 0.0},
    ]
    groups = {g.group: g for g in summarize(records, ["relevance", "adherence"])}
    assert groups["a"].n == 2 and groups["a"].n_unlabeled == 1
    assert groups["a"].mean("adherence") == 1.0
    assert groups["ALL"].mean("relevance") == pytest.approx(0.375)
