"""Label-quality issues on hand-made examples, normalize(), and the counts over ../shared/ragbench."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from ragviz.analysis.quality.issues import (
    ISSUE_KINDS,
    MECHANICAL_KINDS,
    IssueKind,
    issue_rows,
    label_issues,
    normalize,
)
from ragviz.analysis.quality.scan import quality_summary, scan_dataset
from ragviz.data.labels import apply_changes, diff_labels
from ragviz.data.load import load
from ragviz.data.model import (
    Example,
    Labels,
    Provenance,
    RowRef,
    Sentence,
    SentenceSupport,
)
from ragviz.metrics.trace import example_trace
from tests.ragbench_data import require_ragbench

PATH = "data/x.jsonl"


def _example(labels: Labels | None) -> Example:
    docs = (
        (Sentence("0a", "Alpha."), Sentence("0b", "Beta.")),
        (Sentence("1a", "Gamma."),),
    )
    return Example(
        id="e1",
        dataset="d",
        question="Q?",
        documents=("Alpha. Beta.", "Gamma."),
        document_sentences=docs,
        response="One. Two. Three.",
        response_sentences=(Sentence("a", "One."), Sentence("b", "Two."), Sentence("c", "Three.")),
        labels=labels,
        source=RowRef(PATH, 4),
    )


MESSY = Labels(
    relevant_keys=("0a", "0b.", "0a", "7c", "general"),
    utilized_keys=("0a.", "1a"),
    support=(
        SentenceSupport("a.", True, ("0a", "general", "0a"), "ok"),
        SentenceSupport("b", None, ("well_known_fact",), "common knowledge"),
    ),
    unsupported_keys=("b",),
    relevance_explanation="why relevant",
    overall_supported_explanation="overall",
    overall_supported=False,
)


def _strs(problems):
    return [str(p) for p in problems]


def test_every_issue_kind_on_a_hand_made_example():
    problems = label_issues(_example(MESSY))
    assert _strs(problems) == [
        f"{PATH}:4: all_relevant_sentence_keys: key '0b.' has a trailing dot",
        f"{PATH}:4: all_relevant_sentence_keys: key '0a' listed more than once",
        f"{PATH}:4: all_relevant_sentence_keys: key '7c' names no context sentence",
        f"{PATH}:4: all_relevant_sentence_keys: 'general' is not a context sentence key",
        f"{PATH}:4: all_utilized_sentence_keys: key '0a.' has a trailing dot",
        f"{PATH}:4: all_utilized_sentence_keys: '1a' is utilized but not relevant",
        f"{PATH}:4: sentence_support_information: response_sentence_key: key 'a.' has a trailing dot",
        f"{PATH}:4: sentence_support_information: response sentence 'a': supporting 'general' is not a context sentence key",
        f"{PATH}:4: sentence_support_information: response sentence 'a': supporting key '0a' listed more than once",
        f"{PATH}:4: sentence_support_information: response sentence 'b': supporting 'well_known_fact' is not a context sentence key",
        f"{PATH}:4: sentence_support_information: response sentence 'c' has no support information",
        f"{PATH}:4: unsupported_response_sentence_keys: response sentence 'b' has supporting keys in sentence_support_information but is listed as unsupported",
    ]
    assert {p.kind for p in problems} == set(ISSUE_KINDS)
    assert all(p.level == "warning" for p in problems)


def test_support_mismatch_both_directions():
    labels = Labels(
        support=(SentenceSupport("a", True, ("0a",)), SentenceSupport("b", False, ()), SentenceSupport("c", None, ())),
        unsupported_keys=("a",),
    )
    messages = [p.message for p in label_issues(_example(labels)) if p.kind == IssueKind.SUPPORT_MISMATCH]
    assert messages == [
        "response sentence 'a' is fully supported in sentence_support_information but is listed as unsupported",
        "response sentence 'b' is not fully supported in sentence_support_information but is not listed as unsupported",
        "response sentence 'c' has no supporting keys in sentence_support_information but is not listed as unsupported",
    ]
    # without a stored unsupported list the per-sentence labels decide: nothing to disagree with
    assert not [
        p for p in label_issues(_example(labels.replace(unsupported_keys=None))) if p.kind == IssueKind.SUPPORT_MISMATCH
    ]


def test_clean_labels_and_unlabeled_examples_have_no_issues():
    clean = Labels(
        relevant_keys=("0a", "1a"),
        utilized_keys=("0a",),
        support=tuple(SentenceSupport(k, True, ("0a",)) for k in "abc"),
        unsupported_keys=(),
    )
    assert label_issues(_example(clean)) == []
    assert label_issues(_example(None)) == []
    # explicit labels override the example's own
    assert label_issues(_example(clean), MESSY) == label_issues(_example(MESSY))


def test_normalize_fixes_the_mechanical_issues_only():
    example = _example(MESSY)
    when = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    fixed = normalize(MESSY, example, now=when)
    assert fixed.relevant_keys == ("0a", "0b")
    assert fixed.utilized_keys == ("0a", "1a")
    assert fixed.support_for("a") == SentenceSupport("a", True, ("0a",), "ok")
    assert fixed.support_for("a.") is None
    # 'b' had a null verdict resting on a non-key word: the judge's "supported" is written out
    assert fixed.support_for("b") == SentenceSupport("b", True, (), "common knowledge")
    assert fixed.provenance == Provenance("human", "normalize", "2025-01-02T03:04:05+00:00")
    # no sentence is unsupported any more, and the response's overall verdict follows its sentences
    # after a support change (ragviz.data.labels): the judge's overall explanation, which argued for
    # "not supported", goes with the flip
    assert (fixed.relevance_explanation, fixed.overall_supported_explanation, fixed.overall_supported) == (
        "why relevant",
        "",
        True,
    )
    remaining = {p.kind for p in label_issues(example, fixed)}
    assert not remaining & MECHANICAL_KINDS
    assert remaining == {IssueKind.UTILIZED_NOT_RELEVANT, IssueKind.MISSING_SUPPORT}  # need a person


def test_normalize_is_replayable_from_its_diff_and_idempotent():
    example = _example(MESSY)
    fixed = normalize(MESSY, example)
    replayed = apply_changes(MESSY, [(c.field, c.new) for c in diff_labels(MESSY, fixed)], fixed.provenance)
    assert replayed == fixed
    again = normalize(fixed, example)
    assert diff_labels(fixed, again) == []


def test_normalize_of_clean_labels_changes_nothing():
    clean = Labels(
        relevant_keys=("0a",),
        utilized_keys=("0a",),
        support=(SentenceSupport("a", None, ("0a",)),),
        unsupported_keys=(),
    )
    fixed = normalize(clean, _example(clean))
    assert fixed.replace(provenance=clean.provenance) == clean


def test_issue_rows_most_frequent_first_with_description_and_example_count():
    counts = {"duplicate_key": 2, "trailing_dot": 5, "made_up": 2}
    rows = issue_rows(counts, {"trailing_dot": 3, "duplicate_key": 1})
    assert [r["issue"] for r in rows] == ["trailing_dot", "duplicate_key", "made_up"]  # ties keep their order
    assert rows[0] == {
        "issue": "trailing_dot",
        "what": "key with a trailing dot (0b.)",
        "occurrences": 5,
        "examples": 3,
    }
    assert rows[2]["what"] == "made_up" and rows[2]["examples"] == 0  # an unknown kind names itself
    assert issue_rows({}, {}) == []


@pytest.fixture(scope="module")
def ragbench():
    return load([require_ragbench()]).dataset


@pytest.mark.conformance
def test_issue_counts_over_ragbench(ragbench, capsys):
    scan = scan_dataset(ragbench)
    with capsys.disabled():
        print(
            f"\nlabel issues over {len(ragbench)} RAGBench rows: {scan.issue_counts}; examples: {scan.example_counts}"
        )
    # 823 keys with a trailing dot as stored; 471 of them name a response sentence ('a.') and are
    # matched to it on loading (issue 29), so the labels as loaded have 352 left, in context keys
    assert scan.issue_counts == {
        "trailing_dot": 352,
        "unknown_key": 30,
        "non_key": 733,
        "duplicate_key": 9,
        "utilized_not_relevant": 1058,
        "support_mismatch": 74,
        "missing_support": 37,
    }
    assert len(scan.flagged_rows) == 840  # 993 as stored: 153 rows had no other flag
    assert quality_summary(ragbench) == scan.issue_counts


@pytest.mark.conformance
def test_scan_agrees_with_label_issues_and_normalize_clears_mechanical_issues(ragbench):
    scan = scan_dataset(ragbench)
    left = []
    adherence_changed = 0
    for i, example in enumerate(ragbench):
        assert frozenset(p.kind for p in label_issues(example)) == scan.row_kinds[i], example.uid
        fixed = normalize(example.labels, example)
        left += [str(p) for p in label_issues(example, fixed) if p.kind in MECHANICAL_KINDS]
        before, after = example_trace(example), example_trace(example, fixed)
        # dropping bad keys can only shrink the counted key lists
        assert after.relevance <= before.relevance and after.utilization <= before.utilization, example.uid
        if after.adherence != before.adherence:
            # only where the stored unsupported list disagreed with the per-sentence support
            assert IssueKind.SUPPORT_MISMATCH in scan.row_kinds[i], example.uid
            adherence_changed += 1
    # the one key normalize cannot fix mechanically: a judge's prose in place of a response key
    assert [line.split("ragbench/", 1)[1] for line in left] == [
        "hagrid/test-00000-of-00001.parquet:1191: sentence_support_information: "
        "response_sentence_key: 'i through v' is not a response sentence key",
        "hagrid/test-00000-of-00001.parquet:1191: unsupported_response_sentence_keys: "
        "'i through v' is not a response sentence key",
    ]
    assert adherence_changed == 13
