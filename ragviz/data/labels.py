"""Label edits as data: the fields a person can change (:class:`Change`), and how a change applies to a label set.

The store keeps changes as append-only events (example, annotator, time, field, old, new); the
current labels are the judge's labels with every change applied in order (:func:`apply_changes`).
Changing any sentence's support drops the stored ``unsupported_response_sentence_keys`` so the
unsupported set follows the per-sentence labels from then on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ragviz.data.keys import key_listed, names_key
from ragviz.data.model import Example, Labels, Provenance, SentenceSupport
from ragviz.data.ragbench import unsupported_keys

__all__ = [
    "CHUNK_RELEVANT_FIELD",
    "CHUNK_UTILIZED_FIELD",
    "CLAIM_PREFIX",
    "Change",
    "FAMILY_FIELDS",
    "RELEVANT_FIELD",
    "RELEVANT_IDS_FIELD",
    "RESET_FIELD",
    "REVIEWED",
    "REVIEW_FIELD",
    "SIMILARITY_FIELD",
    "SIMILARITY_MAX",
    "SUPPORT_PREFIX",
    "UTILIZED_FIELD",
    "apply_change",
    "apply_changes",
    "check_value",
    "diff_labels",
    "empty_labels",
    "field_value",
    "support_field",
    "toggle_key",
]


RELEVANT_FIELD = "relevant_keys"
UTILIZED_FIELD = "utilized_keys"
SUPPORT_PREFIX = "support:"
REVIEW_FIELD = "review"
REVIEWED = "reviewed"
RESET_FIELD = "reset"
RELEVANT_IDS_FIELD = "relevant_ids"
SIMILARITY_FIELD = "answer_similarity"
CHUNK_RELEVANT_FIELD = "chunk_relevant"
CHUNK_UTILIZED_FIELD = "chunk_utilized"
FAMILY_FIELDS = (RELEVANT_IDS_FIELD, SIMILARITY_FIELD, CHUNK_RELEVANT_FIELD, CHUNK_UTILIZED_FIELD)
CLAIM_PREFIX = "claim:"
SIMILARITY_MAX = 5.0


@dataclass(frozen=True)
class Change:
    """A new value for one field of an example's labels (``old`` is what it replaced):

    =====================  =====================================================================
    field                  value
    =====================  =====================================================================
    ``relevant_keys``      list of context keys
    ``utilized_keys``      list of context keys
    ``support:<key>``      ``{"supported": bool|None, "supporting_keys": [...], "explanation": str}``
    ``review``             ``"reviewed"`` (the person accepted what is there) or ``None``
    ``reset``              ignored; restores the judge's labels (a later undo re-applies the rest)
    ``relevant_ids``       list of gold retrieval ids, or ``None`` (use the example's)
    ``answer_similarity``  number in [0, 5], or ``None`` (use the example's)
    ``chunk_relevant``     list of booleans, one per document, or ``None`` (derive from sentences)
    ``chunk_utilized``     list of booleans, one per document, or ``None`` (derive from sentences)
    ``claim:...``          a RagChecker claim label; not a field of :class:`Labels` (folded by
                           :func:`ragviz.data.claim_overrides.apply_claim_overrides`), ignored here
    =====================  =====================================================================
    """

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
        s = labels.support_for(field[len(SUPPORT_PREFIX) :])
        if s is None:
            return None
        return {"supported": s.supported, "supporting_keys": list(s.supporting_keys), "explanation": s.explanation}
    if field in FAMILY_FIELDS:
        value = getattr(labels, field)
        return list(value) if isinstance(value, tuple) else value
    if field in (REVIEW_FIELD, RESET_FIELD) or field.startswith(CLAIM_PREFIX):
        return None
    raise ValueError(f"unknown label field {field!r}")


def check_value(field: str, value: Any) -> None:
    """Raise ``ValueError`` (``field: problem``) when *value* cannot be stored for an override field.

    >>> check_value("answer_similarity", 6)
    Traceback (most recent call last):
    ...
    ValueError: answer_similarity: 6 is outside 0..5
    """
    if value is None or field not in FAMILY_FIELDS:
        return
    if field == SIMILARITY_FIELD:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise ValueError(f"{field}: expected a number in 0..5, got {value!r}")
        if not 0 <= value <= SIMILARITY_MAX:
            raise ValueError(f"{field}: {value!r} is outside 0..5")
        return
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{field}: expected a list, got {type(value).__name__}")
    if field == RELEVANT_IDS_FIELD:
        if not all(isinstance(v, str) for v in value):
            raise ValueError(f"{field}: expected a list of id strings")
    elif not all(isinstance(v, bool) for v in value):
        raise ValueError(f"{field}: expected one true/false per document")


def apply_change(labels: Labels, field: str, value: Any) -> Labels:
    """*labels* with *field* set to *value* (see the module docstring for the fields)."""
    if field == RELEVANT_FIELD:
        return labels.replace(relevant_keys=tuple(value or ()))
    if field == UTILIZED_FIELD:
        return labels.replace(utilized_keys=tuple(value or ()))
    if field.startswith(SUPPORT_PREFIX):
        key = field[len(SUPPORT_PREFIX) :]
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
        return _overall_follows(labels, labels.replace(support=tuple(support), unsupported_keys=None))
    if field == RELEVANT_IDS_FIELD:
        return labels.replace(relevant_ids=None if value is None else tuple(str(v) for v in value))
    if field == SIMILARITY_FIELD:
        return labels.replace(answer_similarity=None if value is None else float(value))
    if field in (CHUNK_RELEVANT_FIELD, CHUNK_UTILIZED_FIELD):
        return labels.replace(**{field: None if value is None else tuple(bool(v) for v in value)})
    if field in (REVIEW_FIELD, RESET_FIELD) or field.startswith(CLAIM_PREFIX):
        return labels
    raise ValueError(f"unknown label field {field!r}")


def _overall_follows(before: Labels, after: Labels) -> Labels:
    """*after* (a support change of *before*) with ``overall_supported`` following its sentences when
    *before* had one: when the response's overall verdict flips, the judge's overall explanation
    (which argued for the other verdict) is dropped; the judge's labels keep it."""
    if before.overall_supported is None:
        return after
    overall = not unsupported_keys(after)
    if overall == before.overall_supported:
        return after
    return after.replace(overall_supported=overall, overall_supported_explanation="")


def apply_changes(base: Labels, changes: Iterable[tuple[str, Any]], provenance: Provenance | None = None) -> Labels:
    """Fold ``(field, new value)`` pairs over *base* in order; the result carries *provenance*."""
    labels = base
    for field, value in changes:
        labels = base if field == RESET_FIELD else apply_change(labels, field, value)
    if provenance is not None:
        labels = labels.replace(provenance=provenance)
    return labels


def toggle_key(keys: Iterable[str], key: str, exact: bool = False) -> list[str]:
    """*keys* with *key* removed when present (every copy, the one written with a trailing dot too:
    :func:`ragviz.data.keys.names_key`), else appended. With *exact*, only copies of *key* itself
    count (what the Dashboard's triage counts on its columnar path)."""
    keys = list(keys)
    if exact:
        return [k for k in keys if k != key] if key in keys else keys + [key]
    if key_listed(keys, key):
        return [k for k in keys if not names_key(k, key)]
    return keys + [key]


def diff_labels(old: Labels | None, new: Labels) -> list[Change]:
    """The field changes that turn *old* into *new* (used by reset-to-judge and normalize)."""
    fields = [RELEVANT_FIELD, UTILIZED_FIELD]
    keys = [s.key for s in new.support] + [
        s.key for s in (old.support if old else ()) if new.support_for(s.key) is None
    ]
    fields += [support_field(k) for k in dict.fromkeys(keys)]
    fields += FAMILY_FIELDS
    changes = []
    for f in fields:
        before, after = field_value(old, f), field_value(new, f)
        if before != after:
            changes.append(Change(f, before, after))
    return changes
