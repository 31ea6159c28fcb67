"""Sentence splitter: abbreviations, decimals, line breaks, and never losing text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from ragviz.data.split import split_sentences


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_abbreviations_do_not_end_sentences():
    assert split_sentences("Use a solvent, e.g. water, to clean it. Then dry it.") == [
        "Use a solvent, e.g. water, to clean it.",
        "Then dry it.",
    ]
    assert split_sentences("The curve is in Fig. 3 of the paper. It rises.") == [
        "The curve is in Fig. 3 of the paper.",
        "It rises.",
    ]
    assert split_sentences("Dr. Smith examined the patient. She was fine.") == [
        "Dr. Smith examined the patient.",
        "She was fine.",
    ]
    assert split_sentences("The U.S. economy grew. Europe did not.") == ["The U.S. economy grew.", "Europe did not."]


def test_decimals_do_not_end_sentences():
    assert split_sentences("Pi is about 3.14159 and e is 2.718. Both are irrational.") == [
        "Pi is about 3.14159 and e is 2.718.",
        "Both are irrational.",
    ]


def test_newlines_and_bullets_split_and_are_stripped():
    text = "Steps:\n- open the lid\n- pour water\n\nDone. Enjoy!"
    assert split_sentences(text) == ["Steps:", "- open the lid", "- pour water", "Done.", "Enjoy!"]


def test_empty_and_blank_text():
    assert split_sentences("") == []
    assert split_sentences("  \n\t ") == []


def test_single_sentence_without_final_punctuation():
    assert split_sentences("  no full stop here ") == ["no full stop here"]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(list("ab .!?\n-e.g3U.S\u00e9") + ["Fig. ", "Dr. ", " 3.5 ", "\n\n", "Word", "\t"]), max_size=60
    )
)
def test_never_loses_text(parts):
    text = "".join(parts)
    pieces = split_sentences(text)
    assert _squash("".join(pieces)) == _squash(text)
    assert all(p and p == p.strip() for p in pieces)
