"""RagChecker's checked claims as data: one result item with its claims and its four label matrices.

RagChecker (amazon-science/RAGChecker) checks every claim extracted from the response and from the
reference answer four ways (:class:`CheckedItem` names them). Each check is a label string; only the exact string
``"Entailment"`` counts as true (RagChecker's ``to_bool``). A claim is a triplet ``[subject, relation, object]`` or
a plain string. Reading and writing RagChecker's JSON is :mod:`ragviz.data.formats.ragchecker`; a person's label
overrides are :mod:`ragviz.data.claim_overrides`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

__all__ = ["CHECK_FIELDS", "CheckedItem", "Claim", "ENTAILMENT", "KNOWN_LABELS", "RetrievedChunk", "claim_text"]


ENTAILMENT = "Entailment"
KNOWN_LABELS = ("Entailment", "Neutral", "Contradiction")
CHECK_FIELDS = ("answer2response", "response2answer", "retrieved2response", "retrieved2answer")

Claim = str | tuple[str, ...]


@dataclass(frozen=True)
class RetrievedChunk:
    """One retrieved chunk: its document id (``None`` when the file gives none) and its text."""

    doc_id: str | None
    text: str


@dataclass(frozen=True)
class CheckedItem:
    """One RagChecker result item with its claims and the four label matrices (strings, as stored):
    ``answer2response[i]``, response claim i checked against the reference (gt) answer; ``response2answer[j]``,
    reference claim j checked against the response; ``retrieved2response[i][c]``, response claim i checked against
    retrieved chunk c; ``retrieved2answer[j][c]``, reference claim j checked against retrieved chunk c."""

    query_id: str
    query: str
    gt_answer: str
    response: str
    retrieved_context: tuple[RetrievedChunk, ...]
    response_claims: tuple[Claim, ...]
    gt_answer_claims: tuple[Claim, ...]
    answer2response: tuple[str, ...]
    response2answer: tuple[str, ...]
    retrieved2response: tuple[tuple[str, ...], ...]
    retrieved2answer: tuple[tuple[str, ...], ...]
    dataset: str = ""
    row: int = 0

    @property
    def n_chunks(self) -> int:
        return len(self.retrieved_context)

    def with_label(self, check: str, index: int, label: str, chunk: int | None = None) -> CheckedItem:
        """A copy with one label replaced (a human override).

        *check* is one of :data:`CHECK_FIELDS`; *index* the claim; *chunk* the chunk for the two
        ``retrieved2*`` checks.

        >>> item = CheckedItem("q", "", "", "", (RetrievedChunk("d", "t"),), ("c",), ("g",),
        ...                    ("Neutral",), ("Entailment",), (("Neutral",),), (("Entailment",),))
        >>> item.with_label("retrieved2response", 0, "Entailment", chunk=0).retrieved2response
        (('Entailment',),)
        """
        if check not in CHECK_FIELDS:
            raise ValueError(f"unknown check {check!r}; expected one of {', '.join(CHECK_FIELDS)}")
        current = getattr(self, check)
        if check.startswith("retrieved2"):
            if chunk is None:
                raise ValueError(f"{check} needs a chunk index")
            row = list(current[index])
            row[chunk] = label
            updated = current[:index] + (tuple(row),) + current[index + 1 :]
        else:
            updated = current[:index] + (label,) + current[index + 1 :]
        return dataclasses.replace(self, **{check: updated})


def claim_text(claim: Claim) -> str:
    """A claim for display: a triplet joined by spaces, a string as is.

    >>> claim_text(("Nile", "is", "long")), claim_text("The Nile is long.")
    ('Nile is long', 'The Nile is long.')
    """
    return claim if isinstance(claim, str) else " ".join(claim)
