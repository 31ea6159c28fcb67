"""Sentence splitting for raw inputs that arrive without ``documents_sentences``/``response_sentences``.

Uses Wikimedia's rule-based ``sentencex`` segmenter (abbreviations such as "e.g.", "Fig.", "Dr.",
"U.S." and decimals do not end a sentence). Pieces are stripped and empty pieces dropped; no text
is ever lost: joining the pieces gives the input modulo white space.
"""

from __future__ import annotations

import re

from sentencex import segment

__all__ = ["split_sentences"]


_WHITESPACE = re.compile(r"\s+")


def _squash(text: str) -> str:
    return _WHITESPACE.sub("", text)


def split_sentences(text: str, language: str = "en") -> list[str]:
    """The sentences of *text*, stripped, empty ones dropped.

    >>> split_sentences("Dr. Smith measured 3.5 cm, e.g. in Fig. 3. It grew.")
    ['Dr. Smith measured 3.5 cm, e.g. in Fig. 3.', 'It grew.']
    >>> split_sentences("   ")
    []
    """
    if not text or not text.strip():
        return []
    pieces = [p.strip() for p in segment(language, text)]
    pieces = [p for p in pieces if p]
    # sentencex keeps every character today; guard the invariant so a future release can never
    # silently drop text from a document the judge is asked to label.
    if _squash("".join(pieces)) != _squash(text):
        return [text.strip()]
    return pieces
