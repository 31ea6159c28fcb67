"""The Review page's text as its editor, free of Streamlit: what a click on a context sentence asks for, and which
sentences a long document shows before "show all".

A click moves the sentence's label one step round :data:`CYCLE` (none -> relevant -> relevant+utilized -> utilized
-> none): :func:`click_changes` turns it into the changes the store records, the one path every context-label edit
takes; Shift+click links it to the selected response sentence as support, or unlinks it (:func:`support_link_change`).
A document folds to the sentences labelled, supporting or touched, with a few around them (:func:`fold_ranges`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ragviz.analysis.review.edits import BOTH, CONTEXT_STATES, NEITHER, RELEVANT, UTILIZED, support_change
from ragviz.data.keys import key_listed, names_key
from ragviz.data.labels import RELEVANT_FIELD, UTILIZED_FIELD, Change, field_value, toggle_key
from ragviz.data.model import Example, Labels

__all__ = [
    "AROUND",
    "CYCLE",
    "SHORT",
    "click_changes",
    "fold_ranges",
    "next_state",
    "state_ticks",
    "support_link_change",
]


CYCLE = (NEITHER, RELEVANT, BOTH, UTILIZED)  # a click moves one step right, the last back to the first
AROUND = 2  # sentences of context shown either side of a kept sentence
SHORT = 3  # a document of at most this many sentences is never folded


def next_state(state: str) -> str:
    """The label a click gives a context sentence whose label is *state*.

    >>> [next_state(s) for s in CYCLE]
    ['relevant', 'both', 'utilized', 'neither']
    """
    if state not in CYCLE:
        raise ValueError(f"unknown context state {state!r}; expected one of {', '.join(CYCLE)}")
    return CYCLE[(CYCLE.index(state) + 1) % len(CYCLE)]


def state_ticks(state: str) -> dict[str, bool]:
    """The relevant / utilized ticks that stand for *state*.

    >>> state_ticks("both"), state_ticks("utilized")
    ({'relevant': True, 'utilized': True}, {'relevant': False, 'utilized': True})
    """
    if state not in CONTEXT_STATES:
        raise ValueError(f"unknown context state {state!r}; expected one of {', '.join(CONTEXT_STATES)}")
    return {"relevant": state in (RELEVANT, BOTH), "utilized": state in (UTILIZED, BOTH)}


def click_changes(example: Example, drawn: Labels | None, key: str, state: str) -> list[Change]:
    """What a click that gives context sentence *key* the label *state* records, computed from the
    labels the page *drew*: a change of both of the sentence's fields (``relevant_keys``,
    ``utilized_keys``), each with the list drawn as its ``old``. A field the click leaves as it is
    goes with ``old`` equal to ``new``: the store writes it not but checks it (the click assumed it),
    so a click drawn from older labels is refused whichever field changed since. Adding appends the
    key, removing takes out every copy; other keys (bogus judge keys too) stay put. Empty when *key*
    is not a context sentence of the example."""
    if key not in example.context_keys():
        return []
    ticks = state_ticks(state)
    changes = []
    for field, tick in ((RELEVANT_FIELD, ticks["relevant"]), (UTILIZED_FIELD, ticks["utilized"])):
        old = field_value(drawn, field)
        keys = list(old or ())
        if tick != key_listed(keys, key):
            changes.append(Change(field, old, toggle_key(keys, key)))
        else:
            changes.append(Change(field, old, old))
    return changes


def support_link_change(labels: Labels | None, response_key: str, context_key: str, linked: bool) -> Change:
    """The change that makes *context_key* one of *response_key*'s supporting sentences (*linked*) or
    takes it out (every copy) — the change the supporting-keys picker makes
    (:func:`ragviz.analysis.review.edits.support_change`); the verdict and explanation stay."""
    support = labels.support_for(response_key) if labels else None
    keys = [k for k in (support.supporting_keys if support else ()) if not names_key(k, context_key)]
    return support_change(labels, response_key, supporting_keys=keys + [context_key] if linked else keys)


def fold_ranges(kept: Sequence[bool], around: int = AROUND, short: int = SHORT) -> list[tuple[int, int]]:
    """The ``[start, stop)`` ranges of a document's sentences shown while it is folded: each kept
    sentence with *around* sentences either side, overlapping or touching ranges merged; none when no
    sentence is kept; all of a document of at most *short* sentences. The rest sits behind "show all".

    >>> fold_ranges([False] * 10 + [True] + [False] * 10, around=2)
    [(8, 13)]
    >>> fold_ranges([True, False, False, False, False, False, True], around=1)
    [(0, 2), (5, 7)]
    >>> fold_ranges([False] * 5), fold_ranges([False] * 3), fold_ranges([])
    ([], [(0, 3)], [])
    """
    n = len(kept)
    if n <= short:
        return [(0, n)] if n else []
    ranges: list[tuple[int, int]] = []
    for i, keep in enumerate(kept):
        if not keep:
            continue
        start, stop = max(0, i - around), min(n, i + around + 1)
        if ranges and start <= ranges[-1][1]:
            ranges[-1] = (ranges[-1][0], max(ranges[-1][1], stop))
        else:
            ranges.append((start, stop))
    return ranges
