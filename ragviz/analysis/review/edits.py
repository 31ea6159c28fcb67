"""One example under review, free of Streamlit: what each sentence looks like and what an edit changes.

The Review page asks this module for *data* — context and response spans ``(key, text, state)``,
the :class:`ragviz.data.labels.Change` lists that an accept or a support choice records — and hands
it to :mod:`ragviz.ui` to draw or to the store to keep. How the metrics moved is in
:mod:`ragviz.analysis.review.metrics`; which example comes next in :mod:`ragviz.analysis.review.queue`.
Everything here is a small pure function, tested without a browser.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragviz.data.keys import named_sentence
from ragviz.data.labels import (
    RELEVANT_FIELD,
    RESET_FIELD,
    REVIEW_FIELD,
    REVIEWED,
    SUPPORT_PREFIX,
    UTILIZED_FIELD,
    Change,
    empty_labels,
    field_value,
    support_field,
)
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.store.events import without_contradicting_explanations

__all__ = [
    "BOTH",
    "CONTEXT_STATES",
    "ContextSpan",
    "NEITHER",
    "RELEVANT",
    "ResponseSpan",
    "SUPPORTED",
    "SUPPORT_STATES",
    "UNDECIDED",
    "UNSUPPORTED",
    "UTILIZED",
    "accept_changes",
    "context_state",
    "default_response_key",
    "describe_action",
    "document_spans",
    "editable_labels",
    "note_change",
    "response_spans",
    "support_change",
    "support_status",
    "support_value",
    "supported_flag",
    "supporting_key_options",
    "verdict_change",
    "verdict_differs",
]


# -- sentence states ------------------------------------------------------------------------------

BOTH = "both"
RELEVANT = "relevant"
UTILIZED = "utilized"
NEITHER = "neither"
CONTEXT_STATES = (BOTH, RELEVANT, UTILIZED, NEITHER)

SUPPORTED = "supported"
UNSUPPORTED = "unsupported"
UNDECIDED = "undecided"
SUPPORT_STATES = (SUPPORTED, UNSUPPORTED, UNDECIDED)


@dataclass(frozen=True)
class ContextSpan:
    """One context sentence as the page draws it; ``linked`` = it supports the selected response sentence."""

    key: str
    text: str
    state: str
    linked: bool = False


@dataclass(frozen=True)
class ResponseSpan:
    """One response sentence with its support verdict (``status`` in :data:`SUPPORT_STATES`).

    ``by_reviewer``: the person flipped the verdict, so ``explanation`` is their note (maybe empty)
    and ``replaced`` the explanation the labels they started from gave for the other verdict."""

    key: str
    text: str
    status: str
    supporting_keys: tuple[str, ...] = ()
    explanation: str = ""
    selected: bool = False
    by_reviewer: bool = False
    replaced: str = ""


def context_state(key: str, relevant: set[str] | frozenset[str], utilized: set[str] | frozenset[str]) -> str:
    """``both`` / ``relevant`` / ``utilized`` / ``neither`` for one context key.

    >>> context_state("0a", {"0a"}, {"0a"}), context_state("0b", {"0a"}, set())
    ('both', 'neither')
    """
    r, u = key in relevant, key in utilized
    if r and u:
        return BOTH
    if r:
        return RELEVANT
    if u:
        return UTILIZED
    return NEITHER


def document_spans(
    example: Example, labels: Labels | None, selected_response_key: str | None = None
) -> list[list[ContextSpan]]:
    """Per document, its sentences as spans; a sentence supporting the selected response sentence is ``linked``."""
    relevant = frozenset(map(named_sentence, labels.relevant_keys)) if labels else frozenset()
    utilized = frozenset(map(named_sentence, labels.utilized_keys)) if labels else frozenset()
    linked: frozenset[str] = frozenset()
    if labels is not None and selected_response_key is not None:
        support = labels.support_for(selected_response_key)
        if support is not None:
            linked = frozenset(map(named_sentence, support.supporting_keys))
    return [
        [ContextSpan(s.key, s.text, context_state(s.key, relevant, utilized), s.key in linked) for s in doc]
        for doc in example.document_sentences
    ]


def support_status(labels: Labels | None, response_key: str) -> str:
    """``supported`` / ``unsupported`` / ``undecided`` for one response sentence.

    Follows :func:`ragviz.data.ragbench.unsupported_keys`, so the colour on screen is the verdict the
    adherence score counts: a sentence in the unsupported set is ``unsupported`` even when its
    per-sentence entry says otherwise (that disagreement is a label-quality flag).
    """
    if labels is None:
        return UNDECIDED
    if response_key in unsupported_keys(labels):
        return UNSUPPORTED
    support = labels.support_for(response_key)
    if support is None:
        return UNDECIDED
    return SUPPORTED


def response_spans(
    example: Example, labels: Labels | None, selected_response_key: str | None = None, base: Labels | None = None
) -> list[ResponseSpan]:
    """The response sentences as spans with their support verdict, supporting keys and explanation;
    with *base* (the labels the person started from), a sentence whose verdict they flipped is
    marked ``by_reviewer`` with the base's explanation as ``replaced``."""
    spans = []
    shown = without_contradicting_explanations(labels, base)
    for s in example.response_sentences:
        support = shown.support_for(s.key) if shown else None
        flipped = base is not None and labels is not None and verdict_differs(labels, base, s.key)
        before = base.support_for(s.key) if flipped and base is not None else None
        spans.append(
            ResponseSpan(
                key=s.key,
                text=s.text,
                status=support_status(labels, s.key),
                supporting_keys=support.supporting_keys if support else (),
                explanation=support.explanation if support else "",
                selected=s.key == selected_response_key,
                by_reviewer=flipped,
                replaced=before.explanation if before is not None else "",
            )
        )
    return spans


def default_response_key(spans: Sequence[ResponseSpan]) -> str | None:
    """The response sentence selected when an example opens: the first unsupported one, else the
    first one; ``None`` for a response without sentences."""
    first_unsupported = next((s.key for s in spans if s.status == UNSUPPORTED), None)
    return first_unsupported or (spans[0].key if spans else None)


def supporting_key_options(example: Example, span: ResponseSpan) -> list[str]:
    """The keys a person can pick as support for *span*: every context key, then the keys the labels
    name that no context sentence has (so they can be seen and removed)."""
    context_keys = example.context_keys()
    known = set(context_keys)
    return context_keys + [k for k in span.supporting_keys if k not in known and named_sentence(k) not in known]


# -- editing helpers --------------------------------------------------------------------------------


def editable_labels(example: Example, labels: Labels | None) -> Labels:
    """The label set an edit starts from: *labels*, or a blank set for an unlabeled example."""
    return labels if labels is not None else empty_labels(example)


_KEEP = object()


def support_value(
    labels: Labels | None, response_key: str, supported: Any = _KEEP, supporting_keys: Sequence[str] | None = None
) -> dict[str, Any]:
    """The ``support:<key>`` value after setting *supported* (``True``/``False``/``None``) and/or
    *supporting_keys*; what is not given is kept."""
    current = labels.support_for(response_key) if labels else None
    value = {
        "supported": current.supported if current else None,
        "supporting_keys": list(current.supporting_keys) if current else [],
        "explanation": current.explanation if current else "",
    }
    if supported is not _KEEP:
        value["supported"] = supported
    if supporting_keys is not None:
        value["supporting_keys"] = list(supporting_keys)
    return value


def support_change(
    labels: Labels | None, response_key: str, supported: Any = _KEEP, supporting_keys: Sequence[str] | None = None
) -> Change:
    """The change that sets one response sentence's support entry (see :func:`support_value`)."""
    field = support_field(response_key)
    return Change(field, field_value(labels, field), support_value(labels, response_key, supported, supporting_keys))


def supported_flag(status: str | None) -> bool | None:
    """The ``supported`` value a support choice stands for: ``True`` for supported, ``False`` for
    unsupported, ``None`` for no choice."""
    if status == SUPPORTED:
        return True
    if status == UNSUPPORTED:
        return False
    return None


def accept_changes() -> list[Change]:
    """What accepting records: only the ``reviewed`` marker. Accept means "I reviewed this; the labels
    as they stand now are right", so the person's corrections stay (a reset is its own button)."""
    return [Change(REVIEW_FIELD, None, REVIEWED)]


def verdict_change(
    labels: Labels | None, base: Labels | None, response_key: str, supported: bool | None, note: str = ""
) -> Change:
    """The change that sets one response sentence's verdict to *supported*.

    The explanation follows the verdict, so the one shown and exported never argues against the
    label: a verdict other than the *base*'s (the labels the person started from, normally the
    judge's) gets the reviewer's *note* (``""`` without one) instead of the judge's explanation;
    going back to the base's verdict brings the base's explanation back, so flipping there and
    back again is no change. The judge's text stays in the judge's labels (``llm_`` in an export)."""
    field = support_field(response_key)
    value = support_value(labels, response_key, supported)
    before = base.support_for(response_key) if base is not None else None
    if before is not None and before.supported == supported:
        value["explanation"] = before.explanation
    else:
        value["explanation"] = note.strip()
    return Change(field, field_value(labels, field), value)


def note_change(labels: Labels | None, response_key: str, note: str) -> Change:
    """The change that sets the reviewer's note (the explanation) of one response sentence."""
    field = support_field(response_key)
    value = support_value(labels, response_key)
    value["explanation"] = note.strip()
    return Change(field, field_value(labels, field), value)


def verdict_differs(labels: Labels | None, base: Labels | None, response_key: str) -> bool:
    """Whether the current verdict of *response_key* is not the base's (the person flipped it): then
    its explanation is the reviewer's note."""
    now = labels.support_for(response_key) if labels is not None else None
    before = base.support_for(response_key) if base is not None else None
    return (now.supported if now else None) != (before.supported if before else None)


# -- what an action did, in a few words (the Undo button says what it will undo) -------------------

_ACTION_WORDS = {"accept": "accept", "reset": "reset to judge", "normalize": "normalize labels"}
_MAX_DESCRIPTION = 60


def describe_action(kind: str, changes: Sequence[tuple[str, Any, Any]]) -> str:
    """A short description of one stored action from its kind and ``(field, old, new)`` changes,
    e.g. ``relevant 0b``, ``not utilized 1a``, ``unsupported c``, ``support keys of c``, ``accept``.

    >>> describe_action("edit", [("relevant_keys", ["0a"], ["0a", "0b"])])
    'relevant 0b'
    >>> describe_action("edit", [("support:c", {"supported": False}, {"supported": True})])
    'supported c'
    """
    if kind in _ACTION_WORDS:
        return _ACTION_WORDS[kind]
    parts: list[str] = []
    for field, old, new in changes:
        parts.extend(_describe_change(field, old, new))
    text = ", ".join(dict.fromkeys(p for p in parts if p)) or kind
    return text if len(text) <= _MAX_DESCRIPTION else text[: _MAX_DESCRIPTION - 1] + "…"


def _describe_change(field: str, old: Any, new: Any) -> list[str]:
    if field in (RELEVANT_FIELD, UTILIZED_FIELD):
        name = "relevant" if field == RELEVANT_FIELD else "utilized"
        before, after = set(old or ()), set(new or ())
        return [f"{name} {k}" for k in sorted(after - before)] + [f"not {name} {k}" for k in sorted(before - after)]
    if field.startswith(SUPPORT_PREFIX):
        key = field[len(SUPPORT_PREFIX) :]
        old, new = old or {}, new or {}
        if old.get("supported") != new.get("supported"):
            verdict = {True: "supported", False: "unsupported"}.get(new.get("supported"), "undecided")
            return [f"{verdict} {key}"]
        if set(old.get("supporting_keys") or ()) != set(new.get("supporting_keys") or ()):
            return [f"support keys of {key}"]
        return [f"note on {key}"]
    if field == REVIEW_FIELD:
        return ["accept" if new == REVIEWED else "unmark reviewed"]
    if field == RESET_FIELD:
        return ["reset to judge"]
    return [field.replace("_", " ")]
