"""Answer EM / F1: SQuAD v1.1 against a transcription of the official script, the set variant,
the cases where they differ, several golds."""

from __future__ import annotations

import re
import string
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragviz.metrics.answer import (
    answer_scores,
    exact_match,
    f1_score,
    f1_set,
    family_records,
)


# The official SQuAD v1.1 evaluate-v1.1.py functions, kept as the oracle.
def squad_normalize(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def squad_f1(prediction, ground_truth):
    prediction_tokens = squad_normalize(prediction).split()
    ground_truth_tokens = squad_normalize(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


def squad_em(prediction, ground_truth):
    return squad_normalize(prediction) == squad_normalize(ground_truth)


WORDS = st.lists(
    st.sampled_from(
        ["the", "a", "an", "Paris", "paris", "Eiffel", "tower.", "Tower", "it's", "x-y", "é", "!", "  ", "\t", "1,000"]
    ),
    max_size=8,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(WORDS, WORDS)
def test_squad_matches_the_official_script(prediction, gold):
    assert f1_score(prediction, gold) == squad_f1(prediction, gold)
    assert exact_match(prediction, gold) == float(squad_em(prediction, gold))


@settings(max_examples=200, deadline=None)
@given(WORDS, WORDS)
def test_set_variant_properties(prediction, gold):
    value = f1_set(prediction, gold)
    assert 0.0 <= value <= 1.0
    assert value == f1_set(gold, prediction)
    assert f1_set(" ".join(reversed(prediction.split())), gold) == value


def test_where_the_variants_differ():
    assert f1_score("Paris Paris Paris", "Paris") == 0.5
    assert f1_set("Paris Paris Paris", "Paris") == 1.0
    assert exact_match("The Eiffel Tower", "Eiffel Tower.") == 1.0
    assert f1_score("The Eiffel Tower", "Eiffel Tower.") == 1.0
    assert f1_set("The Eiffel Tower", "Eiffel Tower.") == pytest.approx(0.8)


def test_set_variant_keeps_unicode_word_characters_and_drops_the_rest():
    assert f1_set("café", "cafe") == 0.0
    assert f1_set("it's", "its") == 1.0
    assert f1_set("!!!", "anything") == 0.0


def test_empty_sides():
    assert f1_score("", "") == 0.0  # v1.1: no shared token
    assert exact_match("", "the") == 1.0  # both normalise to ""
    assert f1_set("", "x") == 0.0


def test_max_over_golds_and_missing_reference():
    scores = answer_scores("Paris Paris Paris", ["Lyon", "Paris"])
    assert (scores.em, scores.f1, scores.f1_set) == (0.0, 0.5, 1.0)
    assert answer_scores("x", ("y", "x")).em == 1.0
    assert answer_scores("x", None).as_dict() == {"em": None, "f1": None, "f1_set": None}
    assert answer_scores("x", []).f1 is None


def test_family_records():
    rows = [
        {"id": 1, "response": "The Eiffel Tower", "reference_answer": "Eiffel Tower."},
        {"id": "b", "response": "x", "reference_answer": None},
    ]
    recs = list(family_records(rows, ["hotpotqa", "hotpotqa"]))
    assert recs[0] == {"id": "1", "dataset": "hotpotqa", "em": 1.0, "f1": 1.0, "f1_set": pytest.approx(0.8)}
    assert recs[1]["em"] is None
