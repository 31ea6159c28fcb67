"""The exported rows in other tools' shapes: a Ragas dataset, DeepEval test cases, RagChecker JSON.

Each record is built from one exported RAGBench row (:func:`ragviz.export.rows.export_row`: the current
labels applied) by :func:`ragas_record`, :func:`deepeval_record` or :func:`ragchecker_record` (the fields: their
docstrings) and written batch by batch as :func:`ragviz.export.rows.exported_batches` yields them. The mappings are
the loader's (:mod:`ragviz.data.tool_columns`, :mod:`ragviz.data.formats.ragchecker_rows`) turned around, so
converting there and back keeps every field both shapes hold. A reference answer given as a list of strings is one
string in all three (:func:`reference_text`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from typing import IO, Any

from ragviz.analysis.labelsets.selection import Whose
from ragviz.data.dataset import Dataset
from ragviz.data.formats.ragchecker_rows import CLAIM_FIELDS
from ragviz.data.tool_columns import CARRIER, DEEPEVAL_METADATA, DEEPEVAL_TEXTS, PIPE, REFERENCE_CONTEXTS
from ragviz.export.output import binary_output
from ragviz.export.rows import EXPORTING, RowsDone, export_row, exported_batches
from ragviz.store.label_store import LabelStore

__all__ = [
    "DEEPEVAL_FIELDS",
    "IDENTITY_FIELDS",
    "RAGAS_FIELDS",
    "RECORDS",
    "SHAPES",
    "deepeval_record",
    "ragas_record",
    "ragchecker_record",
    "reference_text",
    "shape_layout",
    "write_corrected_ragchecker",
    "write_records",
    "write_shape",
]


SHAPES = ("ragas", "deepeval", "ragchecker")

RAGAS_FIELDS = (
    "user_input",
    "retrieved_contexts",
    "response",
    "reference",
    "retrieved_context_ids",
    "reference_context_ids",
)
DEEPEVAL_FIELDS = ("input", "actual_output", "expected_output", "retrieval_context", "context")
# RAGBench fields a DeepEval test case names itself (the rest ride in additional_metadata.ragbench)
_DEEPEVAL_OWN = ("question", "documents", "response", "reference_answer", REFERENCE_CONTEXTS)


def reference_text(value: Any) -> str | None:
    """A reference answer as one string: a list of answers joined by newlines."""
    if value is None or isinstance(value, str):
        return value
    return "\n".join(str(v) for v in value)


def ragas_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """One Ragas ``SingleTurnSample`` as a dict, from an exported RAGBench row (``EvaluationDataset.from_jsonl`` /
    ``from_list`` of Ragas 0.4.3 read them, as JSON lines): ``user_input``, ``retrieved_contexts``, ``response``,
    ``reference``, ``retrieved_context_ids`` (``retrieved_ids``), ``reference_context_ids`` (``relevant_ids``, a
    person's corrected gold ids when set) and ``reference_contexts`` when the row has them. Ragas has no field for
    ids or sentence labels."""
    record = {
        "user_input": row.get("question"),
        "retrieved_contexts": row.get("documents"),
        "response": row.get("response"),
        "reference": reference_text(row.get("reference_answer")),
        "retrieved_context_ids": row.get("retrieved_ids"),
        "reference_context_ids": row.get("relevant_ids"),
    }
    if row.get(REFERENCE_CONTEXTS) is not None:
        record[REFERENCE_CONTEXTS] = row[REFERENCE_CONTEXTS]
    return record


def deepeval_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """One DeepEval test case as a dict, from an exported RAGBench row (read by
    ``EvaluationDataset.add_test_cases_from_json_file`` / ``add_goldens_from_json_file``, or ``..._from_csv_file``
    with ``|`` delimiters for a ``.csv`` OUT): ``input``, ``actual_output``, ``expected_output``,
    ``retrieval_context``, ``context`` (the reference contexts) and ``additional_metadata.ragbench`` holding every
    other RAGBench field (id, keyed sentences, the current labels, scores, provenance), which the loader reads back."""
    carried = {k: v for k, v in row.items() if k not in _DEEPEVAL_OWN and v is not None}
    return {
        "input": row.get("question"),
        "actual_output": row.get("response"),
        "expected_output": reference_text(row.get("reference_answer")),
        "retrieval_context": row.get("documents"),
        "context": row.get(REFERENCE_CONTEXTS),
        DEEPEVAL_METADATA: {CARRIER: carried},
    }


def _claim_value(value: Any) -> Any:
    """A claim column as loaded: JSON text when its values were of mixed types."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def ragchecker_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """One RagChecker result item (of ``{"results": [...]}``), from an exported RAGBench row: ``query_id``,
    ``query``, ``gt_answer``, ``response``, ``retrieved_context`` (``{doc_id, text}`` per document),
    ``dataset_name`` / ``generation_model_name`` (the rest of ragviz's identity; RagChecker's ``dataclasses_json``
    reader ignores them) and, for rows that came from a RagChecker checking output, the claims and their four label
    matrices."""
    documents = list(row.get("documents") or ())
    ids = row.get("retrieved_ids")
    doc_ids = [str(i) for i in ids] if ids is not None and len(ids) == len(documents) else [None] * len(documents)
    record: dict[str, Any] = {
        "query_id": row.get("id"),
        "query": row.get("question"),
        "gt_answer": reference_text(row.get("reference_answer")) or "",
        "response": row.get("response"),
        "retrieved_context": [{"doc_id": d, "text": t} for d, t in zip(doc_ids, documents)],
    }
    for name in IDENTITY_FIELDS:  # RAGBench repeats ids across generation models; RagChecker ignores extra keys
        if row.get(name):
            record[name] = row[name]
    for name in CLAIM_FIELDS:
        if row.get(name) is not None:
            record[name] = _claim_value(row[name])
    return record


IDENTITY_FIELDS = ("dataset_name", "generation_model_name")


RECORDS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "ragas": ragas_record,
    "deepeval": deepeval_record,
    "ragchecker": ragchecker_record,
}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


_CSV_LISTS = {"retrieval_context": "documents", "context": REFERENCE_CONTEXTS}


def _deepeval_csv_line(record: Mapping[str, Any]) -> str:
    """One row of DeepEval's ``save_as`` CSV: lists joined by ``|``, metadata as JSON text. A list that
    ``|`` cannot carry (an item holding ``|``, or a cell a spreadsheet would run as a formula, which
    :func:`~ragviz.export.records.csv_cell` changes) rides in ``additional_metadata.ragbench`` as well, so the
    loader gets it back exactly; so does a text cell that function changes (a formula start at its
    beginning or after a line break in it)."""
    from ragviz.export.records import csv_cell, csv_line

    metadata = dict(record.get(DEEPEVAL_METADATA) or {})
    carried = dict(metadata.get(CARRIER) or {})
    cells = []
    for name in DEEPEVAL_FIELDS:
        value = record.get(name)
        if isinstance(value, list):
            joined = PIPE.join(value)
            if any(PIPE in v for v in value) or csv_cell(joined) != joined:
                carried[_CSV_LISTS[name]] = value
            value = joined
        elif isinstance(value, str) and csv_cell(value) != value and name in DEEPEVAL_TEXTS:
            carried.setdefault(DEEPEVAL_TEXTS[name], value)  # the cell gets a ' before a formula start
        cells.append(value)
    metadata[CARRIER] = carried
    cells.append(_json(metadata))
    return csv_line(cells)


def shape_layout(shape: str, out_name: str) -> str:
    """How *shape* is written to a file named *out_name*: ``jsonl`` (Ragas), ``json`` (a DeepEval list,
    a RagChecker object) or ``csv`` (DeepEval's ``save_as`` CSV)."""
    if shape == "ragas":
        return "jsonl"
    if shape == "deepeval" and out_name.lower().endswith(".csv"):
        return "csv"
    return "json"


def write_records(records: Iterable[Mapping[str, Any]], shape: str, layout: str, out: IO[bytes]) -> int:
    """Write *records* of *shape* to *out* one at a time; returns how many."""
    n = 0
    if layout == "csv":
        from ragviz.export.records import csv_line

        out.write(csv_line([*DEEPEVAL_FIELDS, DEEPEVAL_METADATA]).encode("utf-8"))
    elif layout == "json":
        out.write(b'{"results": [\n' if shape == "ragchecker" else b"[\n")
    for record in records:
        if layout == "csv":
            line = _deepeval_csv_line(record)
        elif layout == "json":
            line = ("" if n == 0 else ",\n") + _json(record)
        else:
            line = _json(record) + "\n"
        out.write(line.encode("utf-8"))
        n += 1
    if layout == "json":
        out.write(b"\n]}\n" if shape == "ragchecker" else b"\n]\n")
    return n


def write_shape(
    dataset: Dataset,
    store: LabelStore | None,
    whose: Whose,
    shape: str,
    path_or_file: str | os.PathLike | IO[bytes],
    batch_size: int = 2048,
    progress: RowsDone | None = None,
) -> tuple[int, int]:
    """Write the export of *dataset* (*whose* labels from *store*, or the rows' own) in
    *shape* (``ragas``, ``deepeval`` or ``ragchecker``) to a path (atomically), ``"-"`` or a binary file,
    batch by batch; returns (rows, human-reviewed rows). *progress* hears ``(what, rows done, total)``
    after each batch."""
    if shape not in RECORDS:
        raise ValueError(f"unknown shape {shape!r} (choose from {', '.join(SHAPES)})")
    to_record = RECORDS[shape]
    layout = shape_layout(shape, str(path_or_file) if isinstance(path_or_file, (str, os.PathLike)) else "")
    n_human = 0

    def records() -> Iterable[dict[str, Any]]:
        nonlocal n_human
        done = 0
        for _, items in exported_batches(dataset, store, whose, batch_size):
            for item in items:
                row = export_row(item)
                n_human += row.get("label_source") in ("human", "agreed", "adjudicated")
                yield to_record(row)
            done += len(items)
            if progress is not None:
                progress(EXPORTING, done, len(dataset))

    with binary_output(path_or_file) as out:
        n_rows = write_records(records(), shape, layout, out)
    return n_rows, n_human


def write_corrected_ragchecker(
    paths: Iterable[str], store: LabelStore | None, annotator: str | None, path_or_file: str | os.PathLike | IO[bytes]
) -> tuple[int, int]:
    """The RagChecker checking-output files *paths* with *annotator*'s claim corrections from *store*
    folded in (as the Claims page shows them), as one RagChecker JSON; returns (items, items the annotator
    decided on). Raises :class:`~ragviz.data.formats.ragchecker.RagCheckerFormatError` for a bad file or
    corrections that no longer fit an item."""
    from pathlib import Path

    from ragviz.analysis.claims import current_items
    from ragviz.data.claim_overrides import claim_uid
    from ragviz.data.formats.ragchecker import RagCheckerFormatError, RagCheckerProblem, items_to_json, read_ragchecker

    items, n_decided = [], 0
    touched = store.statuses(annotator) if store is not None and annotator else {}
    for path in paths:
        loaded = read_ragchecker(path).items
        name = Path(path).name
        if store is not None and annotator:
            current, problems = current_items(loaded, name, store, annotator)
            if problems:
                raise RagCheckerFormatError([RagCheckerProblem(str(path), 0, "corrections", p) for p in problems])
            n_decided += sum(1 for it in loaded if claim_uid(name, it.query_id) in touched)
            loaded = current
        items.extend(loaded)
    with binary_output(path_or_file) as out:
        n = write_records((items_to_json([it])["results"][0] for it in items), "ragchecker", "json", out)
    return n, n_decided
