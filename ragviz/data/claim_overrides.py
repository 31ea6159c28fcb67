"""A person's overrides of RagChecker claim labels, as label-store events.

One item of one file is one label-store uid, ``ragchecker:<file name>/<query_id>``; one label is one
field, ``claim:<check>:<claim>`` or ``claim:retrieved2*:<chunk>:<claim>``, whose value is the label
string. The item a person sees is the file's item with their effective events folded in, in order
(:func:`apply_claim_overrides`); ``reset`` and ``review`` work as on RAGBench examples
(:mod:`ragviz.data.labels`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ragviz.data.checked_claims import CHECK_FIELDS, CheckedItem
from ragviz.data.labels import CLAIM_PREFIX, RESET_FIELD, REVIEW_FIELD

__all__ = ["UID_PREFIX", "apply_claim_overrides", "claim_field", "claim_uid", "current_label", "parse_claim_field"]


UID_PREFIX = "ragchecker:"


def claim_uid(file_name: str, query_id: str) -> str:
    """The label-store uid of one item: ``ragchecker:<file name>/<query_id>``.

    >>> claim_uid("checking_outputs.json", "7")
    'ragchecker:checking_outputs.json/7'
    """
    return f"{UID_PREFIX}{file_name}/{query_id}"


def claim_field(check: str, index: int, chunk: int | None = None) -> str:
    """The store field of one label: ``claim:<check>:<claim>``, or ``claim:<check>:<chunk>:<claim>``
    for the two ``retrieved2*`` checks.

    >>> claim_field("answer2response", 2), claim_field("retrieved2answer", 1, chunk=0)
    ('claim:answer2response:2', 'claim:retrieved2answer:0:1')
    """
    if check not in CHECK_FIELDS:
        raise ValueError(f"unknown check {check!r}; expected one of {', '.join(CHECK_FIELDS)}")
    if check.startswith("retrieved2"):
        if chunk is None:
            raise ValueError(f"{check} needs a chunk index")
        return f"{CLAIM_PREFIX}{check}:{chunk}:{index}"
    return f"{CLAIM_PREFIX}{check}:{index}"


def parse_claim_field(field: str) -> tuple[str, int, int | None]:
    """``(check, claim index, chunk index or None)`` of a :func:`claim_field` name.

    >>> parse_claim_field("claim:retrieved2response:3:0")
    ('retrieved2response', 0, 3)
    """
    parts = field[len(CLAIM_PREFIX) :].split(":") if field.startswith(CLAIM_PREFIX) else []
    check = parts[0] if parts else ""
    want = 3 if check.startswith("retrieved2") else 2
    if check not in CHECK_FIELDS or len(parts) != want or not all(p.isdigit() for p in parts[1:]):
        raise ValueError(
            f"{field}: not a claim label field (claim:<check>:<claim> or claim:retrieved2*:<chunk>:<claim>)"
        )
    if want == 3:
        return check, int(parts[2]), int(parts[1])
    return check, int(parts[1]), None


def current_label(item: CheckedItem, check: str, index: int, chunk: int | None = None) -> str:
    """The label of one check of one claim."""
    value = getattr(item, check)[index]
    return value[chunk] if chunk is not None else value


def apply_claim_overrides(item: CheckedItem, changes: Iterable[tuple[str, Any]]) -> CheckedItem:
    """Fold ``(field, new label)`` pairs (the store's effective events, in order) over *item*.

    ``reset`` returns to *item* as loaded; ``review`` changes no label. A field naming a claim or
    chunk the item does not have (the file changed since) raises ``ValueError`` naming the field.

    >>> from ragviz.data.checked_claims import RetrievedChunk
    >>> item = CheckedItem("q", "", "", "", (RetrievedChunk("d", "t"),), ("c",), ("g",),
    ...                    ("Neutral",), ("Entailment",), (("Neutral",),), (("Entailment",),))
    >>> apply_claim_overrides(item, [("claim:answer2response:0", "Entailment")]).answer2response
    ('Entailment',)
    """
    out = item
    for field, value in changes:
        if field == RESET_FIELD:
            out = item
            continue
        if field == REVIEW_FIELD:
            continue
        check, index, chunk = parse_claim_field(field)
        rows = getattr(out, check)
        what = "response" if check.endswith("2response") else "gt answer"
        if not 0 <= index < len(rows):
            raise ValueError(f"{field}: claim {index} does not exist (the item has {len(rows)} {what} claims)")
        if chunk is not None and not 0 <= chunk < out.n_chunks:
            raise ValueError(f"{field}: chunk {chunk} does not exist (the item has {out.n_chunks} retrieved chunks)")
        if not isinstance(value, str):
            raise ValueError(f"{field}: a label must be a string such as 'Entailment', got {value!r}")
        out = out.with_label(check, index, value, chunk=chunk)
    return out
