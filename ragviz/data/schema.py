"""The RAGBench row schema as ragviz reads it: canonical column types, column aliases of other tools, the checks that turn a raw row into a canonical one, and the problems found on the way (``PATH:ROW: field: problem``)."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pyarrow as pa

from ragviz.data import ragbench as rb
from ragviz.data.dataset import PATH_COL, ROW_COL, SUBSET_COL, Dataset
from ragviz.data.keys import context_key, response_key
from ragviz.data.problems import Report
from ragviz.data.split import split_sentences
from ragviz.data.tool_columns import REFERENCE_CONTEXTS, apply_aliases

__all__ = [
    "BOOL_FIELDS",
    "CANONICAL_TYPES",
    "FLOAT_FIELDS",
    "STRUCTURED_FIELDS",
    "STR_LIST",
    "canonical_row",
    "decode_text",
    "load_rows",
    "type_name",
]


# -- canonical Arrow types ---------------------------------------------------------------------
_STR = pa.string()


STR_LIST = pa.list_(_STR)


_SUPPORT_TYPE = pa.list_(
    pa.struct(
        [
            ("explanation", _STR),
            ("fully_supported", pa.bool_()),
            ("response_sentence_key", _STR),
            ("supporting_sentence_keys", STR_LIST),
        ]
    )
)


_LABEL_TYPES: dict[str, pa.DataType] = {
    rb.RELEVANT: STR_LIST,
    rb.UTILIZED: STR_LIST,
    rb.SUPPORT: _SUPPORT_TYPE,
    rb.UNSUPPORTED: STR_LIST,
    rb.RELEVANCE_EXPLANATION: _STR,
    rb.OVERALL_EXPLANATION: _STR,
    rb.OVERALL_SUPPORTED: pa.bool_(),
}


CANONICAL_TYPES: dict[str, pa.DataType] = {
    "id": _STR,
    "question": _STR,
    "documents": STR_LIST,
    "response": _STR,
    "generation_model_name": _STR,
    "annotating_model_name": _STR,
    "dataset_name": _STR,
    "documents_sentences": pa.list_(pa.list_(STR_LIST)),
    "response_sentences": pa.list_(STR_LIST),
    "retrieved_ids": STR_LIST,
    "relevant_ids": STR_LIST,
    REFERENCE_CONTEXTS: STR_LIST,
    **_LABEL_TYPES,
    **{rb.LLM_PREFIX + k: t for k, t in _LABEL_TYPES.items()},
    "adherence_score": pa.bool_(),
    **{k: pa.float64() for k in (*rb.STORED_SCORE_FIELDS[:3], *rb.BASELINE_SCORE_FIELDS)},
    "label_source": _STR,
    "reviewer": _STR,
    "reviewed_at": _STR,
}


_STRING_FIELDS = {k for k, t in CANONICAL_TYPES.items() if t == _STR} - {"id", "question", "response"}


_KEY_LIST_FIELDS = {k for k in CANONICAL_TYPES if k.endswith(("sentence_keys",))}


BOOL_FIELDS = {k for k, t in CANONICAL_TYPES.items() if t == pa.bool_()}


FLOAT_FIELDS = {k for k, t in CANONICAL_TYPES.items() if t == pa.float64()}


STRUCTURED_FIELDS = {k for k, t in CANONICAL_TYPES.items() if pa.types.is_list(t)} | {"reference_answer"}


# -- small helpers -----------------------------------------------------------------------------
def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "list"
    return type(value).__name__


def _content_id(row: dict[str, Any]) -> str:
    content = [
        row.get("question"),
        row.get("documents") or row.get("documents_sentences"),
        row.get("response") or row.get("response_sentences"),
    ]
    digest = hashlib.sha1(json.dumps(content, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()
    return "h" + digest[:16]


def _list_of_strings_problem(value: Any) -> str | None:
    if not isinstance(value, (list, tuple)):
        return f"expected a list of strings, got {type_name(value)}"
    for pos, item in enumerate(value):
        if not isinstance(item, str):
            return f"expected a list of strings, got {type_name(item)} at position {pos}"
    return None


def _pairs_problem(value: Any, what: str) -> str | None:
    """None when *value* is a list of ``[key, text]`` string pairs."""
    if not isinstance(value, (list, tuple)):
        return f"expected {what}, got {type_name(value)}"
    for pos, pair in enumerate(value):
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            return f"expected {what}, got {json.dumps(pair, ensure_ascii=False, default=str)[:60]} at position {pos}"
    return None


def _doc_sentences_problem(value: Any) -> str | None:
    what = "a list of documents, each a list of [key, text] pairs"
    if not isinstance(value, (list, tuple)):
        return f"expected {what}, got {type_name(value)}"
    for d, doc in enumerate(value):
        problem = _pairs_problem(doc, "a list of [key, text] pairs")
        if problem:
            return f"document {d}: {problem}"
    return None


def _support_problem(value: Any) -> str | None:
    if not isinstance(value, (list, tuple)):
        return f"expected a list of objects, got {type_name(value)}"
    for pos, entry in enumerate(value):
        if not isinstance(entry, dict):
            return f"entry {pos}: expected an object, got {type_name(entry)}"
        key = entry.get("response_sentence_key")
        if not isinstance(key, str):
            return f"entry {pos}: response_sentence_key: expected a string, got {type_name(key)}"
        supported = entry.get("fully_supported")
        if supported is not None and not isinstance(supported, bool):
            return f"entry {pos}: fully_supported: expected true, false or null, got {type_name(supported)}"
        keys = entry.get("supporting_sentence_keys")
        if keys is not None:
            problem = _list_of_strings_problem(keys)
            if problem:
                return f"entry {pos}: supporting_sentence_keys: {problem}"
        explanation = entry.get("explanation")
        if explanation is not None and not isinstance(explanation, str):
            return f"entry {pos}: explanation: expected a string, got {type_name(explanation)}"
    return None


def _canonical_support(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "explanation": e.get("explanation"),
            "fully_supported": e.get("fully_supported"),
            "response_sentence_key": e.get("response_sentence_key"),
            "supporting_sentence_keys": list(e.get("supporting_sentence_keys") or []),
        }
        for e in value
    ]


# -- one row -----------------------------------------------------------------------------------
def canonical_row(raw: Any, path: str, rownum: int, report: Report) -> dict[str, Any] | None:
    """Validate one input row and return it as a canonical RAGBench row, or ``None`` (errors
    reported) when it cannot be loaded. Raw rows are sentence-split here."""
    if not isinstance(raw, dict):
        report.error(path, rownum, "row", f"expected an object, got {type_name(raw)}")
        return None
    row = apply_aliases(dict(raw))
    bad = False

    def err(field_name: str, message: str) -> None:
        nonlocal bad
        bad = True
        report.error(path, rownum, field_name, message)

    # required content
    question = row.get("question")
    if question is None:
        err("question", "missing required field")
    elif not isinstance(question, str):
        err("question", f"expected a string, got {type_name(question)}")

    docs, doc_sents = row.get("documents"), row.get("documents_sentences")
    if docs is not None and (problem := _list_of_strings_problem(docs)):
        err("documents", problem)
    if doc_sents is not None and (problem := _doc_sentences_problem(doc_sents)):
        err("documents_sentences", problem)
    if row.get(REFERENCE_CONTEXTS) is not None and (problem := _list_of_strings_problem(row[REFERENCE_CONTEXTS])):
        err(REFERENCE_CONTEXTS, problem)
    if docs is None and doc_sents is None:
        hint = (
            "; DeepEval's `context` is the ideal context, the documents are `retrieval_context`"
            if "input" in raw
            else ""
        )
        err("documents", f"missing required field (documents or documents_sentences{hint})")

    response, resp_sents = row.get("response"), row.get("response_sentences")
    if response is not None and not isinstance(response, str):
        err("response", f"expected a string, got {type_name(response)}")
    if resp_sents is not None and (problem := _pairs_problem(resp_sents, "a list of [key, text] pairs")):
        err("response_sentences", problem)
    if response is None and resp_sents is None:
        err("response", "missing required field (response or response_sentences)")

    # optional fields
    ident = row.get("id")
    if ident is not None and (isinstance(ident, bool) or not isinstance(ident, (str, int))):
        err("id", f"expected a string or integer, got {type_name(ident)}")
    for name in sorted(_STRING_FIELDS & row.keys()):
        value = row[name]
        if value is not None and not isinstance(value, str):
            err(name, f"expected a string, got {type_name(value)}")
    for name in sorted(_KEY_LIST_FIELDS & row.keys()):
        if row[name] is not None and (problem := _list_of_strings_problem(row[name])):
            err(name, problem)
    for name in (rb.SUPPORT, rb.LLM_PREFIX + rb.SUPPORT):
        if row.get(name) is not None and (problem := _support_problem(row[name])):
            err(name, problem)
    for name in ("overall_supported", rb.LLM_PREFIX + "overall_supported"):
        value = row.get(name)
        if value is not None and not isinstance(value, bool):
            err(name, f"expected true, false or null, got {type_name(value)}")
    for name in ("retrieved_ids", "relevant_ids"):
        value = row.get(name)
        if value is None:
            continue
        if not isinstance(value, (list, tuple)) or not all(
            isinstance(v, (str, int)) and not isinstance(v, bool) for v in value
        ):
            err(
                name,
                f"expected a list of strings or integers, got {type_name(value)}"
                if not isinstance(value, (list, tuple))
                else "expected a list of strings or integers",
            )
        else:
            row[name] = [str(v) for v in value]
    reference = row.get("reference_answer")
    if reference is not None and not isinstance(reference, str) and _list_of_strings_problem(reference):
        err("reference_answer", f"expected a string or a list of strings, got {type_name(reference)}")
    if bad:
        return None

    # scores are informative only: a bad one is dropped with a warning
    for name in sorted((FLOAT_FIELDS | {"adherence_score"}) & row.keys()):
        value = row[name]
        if value is None:
            continue
        ok = (
            isinstance(value, bool)
            if name == "adherence_score"
            else isinstance(value, (int, float)) and not isinstance(value, bool)
        )
        if not ok:
            report.warning(
                path,
                rownum,
                name,
                f"expected a {'boolean' if name == 'adherence_score' else 'number'}, got {type_name(value)}; ignored",
            )
            row[name] = None
        elif name != "adherence_score":
            number = float(value)
            if not math.isfinite(number):  # inf / NaN would crash AUROC and the Dashboard's statistics
                report.warning(path, rownum, name, f"expected a finite number, got {number}; ignored")
                row[name] = None
            else:
                row[name] = number

    # derive what is missing
    if doc_sents is None:
        assert docs is not None  # a row with neither was reported bad above
        row["documents_sentences"] = [
            [[context_key(i, j), s] for j, s in enumerate(split_sentences(doc))] for i, doc in enumerate(docs)
        ]
    else:
        row["documents_sentences"] = [[list(p) for p in doc] for doc in doc_sents]
        if docs is None:
            row["documents"] = [" ".join(text for _, text in doc) for doc in doc_sents]
    if resp_sents is None:
        assert response is not None  # a row with neither was reported bad above
        row["response_sentences"] = [[response_key(j), s] for j, s in enumerate(split_sentences(response))]
    else:
        row["response_sentences"] = [list(p) for p in resp_sents]
        if response is None:
            row["response"] = " ".join(text for _, text in resp_sents)
    for name in (rb.SUPPORT, rb.LLM_PREFIX + rb.SUPPORT):
        if row.get(name) is not None:
            row[name] = _canonical_support(row[name])
    if isinstance(reference, tuple):
        row["reference_answer"] = list(reference)
    if ident is None or ident == "":
        row["id"] = _content_id(row)
        report.warning(
            path, rownum, "id", f"missing; using {row['id']!r} derived from a hash of question, documents and response"
        )
    else:
        row["id"] = str(ident)
    return row


# -- rows -> Arrow -----------------------------------------------------------------------------
def _column_array(name: str, values: list[Any], path: str, report: Report) -> pa.Array:
    if name == "reference_answer":
        if any(isinstance(v, list) for v in values):
            return pa.array([[v] if isinstance(v, str) else v for v in values], STR_LIST)
        return pa.array(values, _STR)
    if name in CANONICAL_TYPES:
        return pa.array(values, CANONICAL_TYPES[name])
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        report.warning(path, None, name, "values of mixed types; kept as JSON text")
        return pa.array([None if v is None else json.dumps(v, ensure_ascii=False, default=str) for v in values], _STR)


def _dataset_from_rows(
    rows: Sequence[dict[str, Any]], row_numbers: Sequence[int], subset: str, path: str, report: Report
) -> Dataset:
    if not rows:
        return Dataset.empty()
    names: dict[str, None] = {}
    for r in rows:
        names.update(dict.fromkeys(r))
    arrays = {
        n: _column_array(n, [r.get(n) for r in rows], path, report)
        for n in names
        if n not in (SUBSET_COL, PATH_COL, ROW_COL)
    }
    arrays[SUBSET_COL] = pa.array([subset] * len(rows), _STR)
    arrays[PATH_COL] = pa.array([path] * len(rows), _STR)
    arrays[ROW_COL] = pa.array(list(row_numbers), pa.int64())
    return Dataset(pa.table(arrays))


def load_rows(
    numbered_rows: Iterable[tuple[int, Any]],
    path: str,
    subset: str,
    report: Report,
    prepare: Callable[[dict[str, Any], int], dict[str, Any] | None] | None = None,
) -> Dataset:
    rows, numbers = [], []
    for number, raw in numbered_rows:
        if prepare is not None and isinstance(raw, dict):
            raw = prepare(raw, number)
            if raw is None:
                continue
        row = canonical_row(raw, path, number, report)
        if row is not None:
            rows.append(row)
            numbers.append(number)
    return _dataset_from_rows(rows, numbers, subset, path, report)


# -- formats -----------------------------------------------------------------------------------
_NEWLINE = b"\n"


def decode_text(data: bytes, path: str, report: Report, row: int | None = None, offset: int = 0) -> str | None:
    try:
        return data.decode("utf-8-sig" if offset == 0 else "utf-8")
    except UnicodeDecodeError as e:
        bad = data[e.start : e.start + 1].hex()
        line = "" if row is not None else f" (line {data.count(_NEWLINE, 0, e.start) + 1})"  # a whole file: which line
        report.error(
            path, row, "encoding", f"not UTF-8: byte 0x{bad} at byte offset {offset + e.start}{line}; save it as UTF-8"
        )
        return None
