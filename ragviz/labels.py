"""Label edits as data: the fields a person can change, and how a change applies to a label set.

A human decision is a :class:`Change` of one *field* of one example's labels:

=====================  =====================================================================
field                  value
=====================  =====================================================================
``relevant_keys``      list of context keys
``utilized_keys``      list of context keys
``support:<key>``      ``{"supported": bool|None, "supporting_keys": [...], "explanation": str}``
``review``             ``"reviewed"`` (the person accepted what is there) or ``None``
``reset``              ignored; restores the judge's labels (a later undo re-applies the rest)
=====================  =====================================================================

The store keeps changes as append-only events (example, annotator, time, field, old, new); the
current labels are the judge's labels with every change applied in order (:func:`apply_changes`).
Changing any sentence's support drops the stored ``unsupported_response_sentence_keys`` so the
unsupported set follows the per-sentence labels from then on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from ragviz.model import Example, Labels, Provenance, SentenceSupport

RELEVANT_FIELD = "relevant_keys"
UTILIZED_FIELD = "utilized_keys"
SUPPORT_PREFIX = "support:"
REVIEW_FIELD = "review"
REVIEWED = "reviewed"
RESET_FIELD = "reset"


@dataclass(frozen=True)
class Change:
    """A new value for one field of an example's labels (``old`` is what it replaced)."""

    field: str
    old: Any
    new: Any


def support_field(response_key: str) -> str:
    return SUPPORT_PREFIX + response_key


def empty_labels(example: Example) -> Labels:
    """A blank label set for an unlabeled example: nothing relevant, every sentence undecided."""
    return Labels(
        support=tuple(SentenceSupport(s.key, None) for s in example.response_sentences),
        provenance=Provenance("human"),
    )


def field_value(labels: Labels | None, field: str) -> Any:
    """The current value of *field* in *labels*, in the JSON shape events store."""
    if labels is None:
        return None
    if field == RELEVANT_FIELD:
        return list(labels.relevant_keys)
    if field == UTILIZED_FIELD:
        return list(labels.utilized_keys)
    if field.startswith(SUPPORT_PREFIX):
        s = labels.support_for(field[len(SUPPORT_PREFIX):])
        if s is None:
            return None
        return {"supported": s.supported, "supporting_keys": list(s.supporting_keys), "explanation": s.explanation}
    if field in (REVIEW_FIELD, RESET_FIELD):
        return None
    raise ValueError(f"unknown label field {field!r}")


def apply_change(labels: Labels, field: str, value: Any) -> Labels:
    """*labels* with *field* set to *value* (see the module docstring for the fields)."""
    if field == RELEVANT_FIELD:
        return labels.replace(relevant_keys=tuple(value or ()))
    if field == UTILIZED_FIELD:
        return labels.replace(utilized_keys=tuple(value or ()))
    if field.startswith(SUPPORT_PREFIX):
        key = field[len(SUPPORT_PREFIX):]
        if value is None:  # field_value() is None for an absent entry, so None removes it (diff round trip)
            return labels.replace(support=tuple(s for s in labels.support if s.key != key), unsupported_keys=None)
        value = value or {}
        new = SentenceSupport(
            key=key,
            supported=value.get("supported"),
            supporting_keys=tuple(value.get("supporting_keys") or ()),
            explanation=value.get("explanation") or "",
        )
        support = list(labels.support)
        for i, s in enumerate(support):
            if s.key == key:
                support[i] = new
                break
        else:
            support.append(new)
        return labels.replace(support=tuple(support), unsupported_keys=None)
    if field in (REVIEW_FIELD, RESET_FIELD):
        return labels
    raise ValueError(f"unknown label field {field!r}")


def apply_changes(base: Labels, changes: Iterable[tuple[str, Any]], provenance: Provenance | None = None) -> Labels:
    """Fold ``(field, new value)`` pairs over *base* in order; the result carries *provenance*."""
    labels = base
    for field, value in changes:
        labels = base if field == RESET_FIELD else apply_change(labels, field, value)
    if provenance is not None:
        labels = labels.replace(provenance=provenance)
    return labels


def toggle_key(keys: Iterable[str], key: str) -> list[str]:
    """*keys* with *key* removed when present (every copy), else appended."""
    keys = list(keys)
    if key in keys:
        return [k for k in keys if k != key]
    return keys + [key]


def diff_labels(old: Labels | None, new: Labels) -> list[Change]:
    """The field changes that turn *old* into *new* (used by reset-to-judge and normalize)."""
    fields = [RELEVANT_FIELD, UTILIZED_FIELD]
    keys = [s.key for s in new.support] + [s.key for s in (old.support if old else ()) if new.support_for(s.key) is None]
    fields += [support_field(k) for k in dict.fromkeys(keys)]
    changes = []
    for f in fields:
        before, after = field_value(old, f), field_value(new, f)
        if before != after:
            changes.append(Change(f, before, after))
    return changes
