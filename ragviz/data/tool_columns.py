"""Column names of other evaluation tools (Ragas, DeepEval, TruLens, Hugging Face exports) and how each maps
onto RAGBench's, for whole columns (the Arrow fast paths, :func:`column_renames`) and for single rows (the
row-by-row checks, :func:`apply_aliases`, which says the mapping field by field).

Checked against Ragas 0.4.3 (``SingleTurnSample``), DeepEval 4.x (``LLMTestCase`` / ``Golden`` and
``EvaluationDataset.save_as``) and ``datasets`` 5.2; the user's table is in docs/reference/data-formats.md.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = [
    "CARRIER",
    "COLUMN_ALIASES",
    "DEEPEVAL_LISTS",
    "DEEPEVAL_MARKERS",
    "DEEPEVAL_METADATA",
    "DEEPEVAL_TEXTS",
    "PIPE",
    "REFERENCE_CONTEXTS",
    "apply_aliases",
    "column_renames",
    "is_deepeval",
]


# RAGBench field -> aliases, the first present wins (used only when the RAGBench name is absent).
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "question": ("user_input", "query", "input"),
    "documents": ("retrieved_contexts", "contexts", "retrieval_context", "context"),
    "response": ("answer", "actual_output", "output"),
    "reference_answer": ("ground_truth", "reference", "expected_output", "ground_truths"),
    "retrieved_ids": ("retrieved_context_ids",),
    "relevant_ids": ("reference_context_ids",),
}

REFERENCE_CONTEXTS = "reference_contexts"
DEEPEVAL_MARKERS = ("actual_output", "retrieval_context")
DEEPEVAL_LISTS = ("retrieval_context", "context")
DEEPEVAL_METADATA = "additional_metadata"
# DeepEval's text fields and the RAGBench fields they hold; when the CSV writer had to neutralise one (a
# formula start), the exact text rides in the carrier under the RAGBench name and wins.
DEEPEVAL_TEXTS = {"input": "question", "actual_output": "response", "expected_output": "reference_answer"}
CARRIER = "ragbench"  # the key under additional_metadata holding the RAGBench fields DeepEval has no name for
PIPE = "|"


def is_deepeval(names: Any) -> bool:
    """Do these column names (or row keys) name a DeepEval test case?"""
    return any(m in names for m in DEEPEVAL_MARKERS)


def column_renames(names: list[str]) -> dict[str, str]:
    """Whole-column renames for a table with columns *names*: DeepEval's ``context`` to
    ``reference_contexts`` (in a DeepEval table), then each RAGBench field's first alias present."""
    present = set(names)
    renames: dict[str, str] = {}
    if is_deepeval(present) and "context" in present and REFERENCE_CONTEXTS not in present:
        renames["context"] = REFERENCE_CONTEXTS
        present.discard("context")
    for canonical, aliases in COLUMN_ALIASES.items():
        if canonical in present:
            continue
        for alias in aliases:
            if alias in present:
                renames[alias] = canonical
                break
    return renames


def _metadata(value: Any) -> Any:
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def apply_aliases(row: dict[str, Any]) -> dict[str, Any]:
    """*row* with other tools' names mapped to RAGBench's; changed in place.

    * Ragas ``user_input`` / ``retrieved_contexts`` / ``response`` / ``reference`` are ``question`` /
      ``documents`` / ``response`` / ``reference_answer``; ``retrieved_context_ids`` and
      ``reference_context_ids`` are the retrieval ids ``retrieved_ids`` / ``relevant_ids`` the retrieval
      metrics read; ``reference_contexts`` keeps its name.
    * DeepEval ``input`` / ``actual_output`` / ``expected_output`` are ``question`` / ``response`` /
      ``reference_answer``; ``retrieval_context`` is the documents and ``context`` (DeepEval's ideal
      context) is the reference context, ``reference_contexts``, in any row with a DeepEval name
      (``actual_output`` or ``retrieval_context``). DeepEval's ``save_as`` CSV and JSONL join those two lists
      with ``|``: a string there is split on ``|``. ``additional_metadata.ragbench`` (what ragviz's DeepEval
      export carries: ids, keyed sentences, labels) fills the RAGBench fields the row lacks.
    """
    if is_deepeval(row):
        for name in DEEPEVAL_LISTS:
            if isinstance(row.get(name), str):
                row[name] = row[name].split(PIPE) if row[name] else []
        if row.get("context") is not None and row.get(REFERENCE_CONTEXTS) is None:
            row[REFERENCE_CONTEXTS] = row.pop("context")
        metadata = _metadata(row.get(DEEPEVAL_METADATA))
        if isinstance(metadata, dict):
            row[DEEPEVAL_METADATA] = metadata  # a CSV cell's JSON text, parsed
        if isinstance(metadata, dict) and isinstance(metadata.get(CARRIER), dict):
            for key, value in metadata[CARRIER].items():
                if row.get(key) is None:
                    row[key] = value
            # a list DeepEval's `|`-joined CSV cell could not hold exactly is carried too, and wins
            if "documents" in metadata[CARRIER]:
                row["documents"] = metadata[CARRIER]["documents"]
                row.pop("retrieval_context", None)
            if REFERENCE_CONTEXTS in metadata[CARRIER]:
                row[REFERENCE_CONTEXTS] = metadata[CARRIER][REFERENCE_CONTEXTS]
            for deepeval_name, ragbench_name in DEEPEVAL_TEXTS.items():
                if ragbench_name in metadata[CARRIER]:
                    row[ragbench_name] = metadata[CARRIER][ragbench_name]
                    row.pop(deepeval_name, None)
            rest = {k: v for k, v in metadata.items() if k != CARRIER}
            if rest:
                row[DEEPEVAL_METADATA] = rest
            else:
                row.pop(DEEPEVAL_METADATA, None)
    for canonical, aliases in COLUMN_ALIASES.items():
        if row.get(canonical) is not None:
            continue
        for alias in aliases:
            if row.get(alias) is not None:
                row[canonical] = row.pop(alias)
                break
    return row
