"""RAGBench sentence keys.

Context sentence *j* of document *i* has key ``f"{i}{letters(j)}"`` where ``letters`` counts like
spreadsheet columns (a..z, aa..az, ba.., zz, aaa..). Response sentences use the letters alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "clean_key",
    "context_key",
    "is_response_key",
    "key_listed",
    "letters",
    "letters_index",
    "named_sentence",
    "names_key",
    "parse_context_key",
    "response_key",
]


_CONTEXT_KEY = re.compile(r"^(\d+)([a-z]+)$")
_RESPONSE_KEY = re.compile(r"^([a-z]+)$")


def letters(j: int) -> str:
    """Spreadsheet-column letters for the 0-based index *j*.

    >>> [letters(j) for j in (0, 25, 26, 51, 52, 701, 702)]
    ['a', 'z', 'aa', 'az', 'ba', 'zz', 'aaa']
    """
    if j < 0:
        raise ValueError(f"sentence index must be >= 0, got {j}")
    out = []
    n = j + 1
    while n:
        n, rem = divmod(n - 1, 26)
        out.append(chr(ord("a") + rem))
    return "".join(reversed(out))


def letters_index(text: str) -> int:
    """Inverse of :func:`letters`: ``letters_index("aa") == 26``."""
    n = 0
    for ch in text:
        n = n * 26 + (ord(ch) - ord("a") + 1)
    return n - 1


def context_key(doc: int, j: int) -> str:
    """Key of sentence *j* (0-based) of document *doc* (0-based): ``context_key(1, 27) == "1ab"``."""
    return f"{doc}{letters(j)}"


def response_key(j: int) -> str:
    """Key of response sentence *j* (0-based): ``response_key(0) == "a"``."""
    return letters(j)


def parse_context_key(key: str) -> tuple[int, int] | None:
    """``"1ab"`` -> ``(1, 27)``; ``None`` when *key* is not shaped like a context key."""
    m = _CONTEXT_KEY.match(key)
    if not m:
        return None
    return int(m.group(1)), letters_index(m.group(2))


def is_response_key(key: str) -> bool:
    return bool(_RESPONSE_KEY.match(key))


def clean_key(key: str) -> str:
    """Strip white space and trailing dots a judge sometimes adds (``"0b."`` -> ``"0b"``)."""
    return key.strip().rstrip(".").strip()


def names_key(listed: str, key: str) -> bool:
    """Whether a key as a label list holds it (*listed*) names the sentence *key*: the same key, or
    the key written with a trailing dot (a judge's ``"0b."``), so the page shows and edits that
    sentence as labelled and an edit replaces the dotted copy instead of adding a second entry.

    >>> names_key("0b", "0b"), names_key("0b.", "0b"), names_key("0b", "0bb"), names_key("a.", "0a")
    (True, True, False, False)
    """
    return named_sentence(listed) == key


def named_sentence(listed: str) -> str:
    """The sentence key a listed key names: itself, or without the trailing dot a judge wrote.

    >>> named_sentence("0b."), named_sentence("0b"), named_sentence(" 0b")
    ('0b', '0b', ' 0b')
    """
    return clean_key(listed) if listed.endswith(".") else listed


def key_listed(keys: Iterable[str], key: str) -> bool:
    """Whether any of *keys* names the sentence *key* (:func:`names_key`).

    >>> key_listed(["0a", "0c."], "0c"), key_listed(["0a"], "0c")
    (True, False)
    """
    return any(names_key(k, key) for k in keys)
