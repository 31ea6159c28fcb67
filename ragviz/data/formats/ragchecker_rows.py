"""RagChecker files (``{"results": [...]}``: RagChecker's input, or its checking output) read as RAGBench rows.

RagChecker (checked against its repository's README and ``ragchecker/container.py``, 2024-2025) names
the fields ``query_id`` / ``query`` / ``gt_answer`` / ``response`` / ``retrieved_context`` (a list of
``{doc_id, text}``). They become ``id`` / ``question`` / ``reference_answer`` / ``response`` /
``documents`` (the texts) and ``retrieved_ids`` (the doc ids, when every chunk has one). The claims and
their four label matrices of a checking output stay in the row under their own names, so a RAGBench row
converted back (:mod:`ragviz.export.shapes`) is the same RagChecker item.
"""

from __future__ import annotations

from typing import Any

from ragviz.data.checked_claims import CHECK_FIELDS

__all__ = ["CLAIM_FIELDS", "ITEM_NAMES", "RESULTS", "is_ragchecker_doc", "row_from_item"]


RESULTS = "results"
CLAIM_FIELDS = ("response_claims", "gt_answer_claims", *CHECK_FIELDS)
ITEM_NAMES = {"query_id": "id", "query": "question", "gt_answer": "reference_answer", "response": "response"}


def is_ragchecker_doc(doc: Any) -> bool:
    """A parsed JSON document in RagChecker's shape: an object with a ``results`` list and nothing
    of a RAGBench container (``data`` / ``rows``)."""
    return isinstance(doc, dict) and isinstance(doc.get(RESULTS), list) and "data" not in doc and "rows" not in doc


def row_from_item(item: Any) -> Any:
    """One RagChecker result item as a raw RAGBench row (anything not an object is returned as is,
    for the row checks to report)."""
    if not isinstance(item, dict):
        return item
    row: dict[str, Any] = {}
    for name, value in item.items():
        if name == "gt_answer" and value == "":
            continue  # RagChecker's way of saying "no reference answer"
        if name in ITEM_NAMES:
            row[ITEM_NAMES[name]] = value
        elif name == "retrieved_context":
            row.update(_chunks(value))
        elif name != "metrics":  # RagChecker's stored scores: ragviz recomputes them
            row[name] = value
    return row


def _chunks(value: Any) -> dict[str, Any]:
    if not isinstance(value, list) or not all(isinstance(c, dict) for c in value):
        return {"documents": value}  # reported by the row checks: "expected a list of strings"
    out: dict[str, Any] = {"documents": [c.get("text") for c in value]}
    ids = [c.get("doc_id") for c in value]
    if value and all(i is not None for i in ids):
        out["retrieved_ids"] = [str(i) for i in ids]
    return out
