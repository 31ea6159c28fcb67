"""Sentence keys: spreadsheet-column letters, context/response keys, parsing, cleaning."""

from __future__ import annotations

import pytest

from ragviz.data.keys import (
    clean_key,
    context_key,
    is_response_key,
    letters,
    letters_index,
    parse_context_key,
    response_key,
)


@pytest.mark.parametrize(
    ("nth", "expected"), [(1, "a"), (26, "z"), (27, "aa"), (52, "az"), (53, "ba"), (702, "zz"), (703, "aaa")]
)
def test_nth_sentence_letters(nth, expected):
    assert letters(nth - 1) == expected
    assert response_key(nth - 1) == expected


def test_letters_round_trip_and_strictly_increasing_order():
    seen = [letters(j) for j in range(20_000)]
    assert [letters_index(s) for s in seen] == list(range(20_000))
    assert len(set(seen)) == len(seen)
    assert sorted(seen, key=lambda s: (len(s), s)) == seen


def test_negative_index_is_rejected():
    with pytest.raises(ValueError):
        letters(-1)


def test_context_key_round_trip():
    for doc in (0, 1, 9, 10, 123):
        for j in (0, 25, 26, 701, 702):
            key = context_key(doc, j)
            assert parse_context_key(key) == (doc, j)
    assert context_key(1, 27) == "1ab"


@pytest.mark.parametrize("key", ["general", "a", "0", "0B", "0b.", "", "b0", "0 b"])
def test_parse_context_key_rejects_non_keys(key):
    assert parse_context_key(key) is None


def test_response_keys():
    assert is_response_key("a") and is_response_key("aa")
    assert not is_response_key("0a") and not is_response_key("a.") and not is_response_key("i through v")


def test_clean_key():
    assert clean_key("0b.") == "0b"
    assert clean_key(" 1a. ") == "1a"
    assert clean_key("a..") == "a"
    assert clean_key("general") == "general"
