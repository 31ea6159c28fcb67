"""Load examples from files: RAGBench Parquet/JSONL/JSON/CSV and users' own raw rows.

Every input becomes canonical RAGBench rows inside one :class:`~ragviz.dataset.Dataset`. Bad input
never raises: each problem becomes a :class:`Problem` printed as ``PATH:ROW: field: problem``.
*Errors* mean a file or row could not be loaded (the row is skipped, the other rows still load,
``LoadResult.ok`` is False); *warnings* mean it loaded, with a caveat.

Formats (chosen by extension): ``.parquet``; ``.jsonl``/``.ndjson`` (one object per line, ROW = line
number); ``.json`` (a list of rows, or ``{"data": [...]}`` / ``{"rows": [...]}``); ``.csv`` (list and
struct columns as JSON text; ROW = record number, header excluded). A directory is searched
recursively for those files (anything else in it is ignored). The subset name of a file is its
parent folder for Hugging Face shard names (``<dir>/<subset>/test-00000-of-00001.parquet``), else
the file stem.

Raw rows need ``question``, ``documents`` (list of strings) and ``response``; rows without
``documents_sentences``/``response_sentences`` are split with :func:`ragviz.split.split_sentences`
and keyed with :mod:`ragviz.keys`; pre-split sentences are kept exactly as given. Column names from
other evaluation tools are mapped by :data:`COLUMN_ALIASES` (used only when the RAGBench name is
absent; the first alias present wins):

=====================  ===================================================================
RAGBench field         accepted aliases (Ragas / TruLens / DeepEval exports)
=====================  ===================================================================
``question``           ``user_input``, ``query``, ``input``
``documents``          ``retrieved_contexts``, ``contexts``, ``context``, ``retrieval_context``
``response``           ``answer``, ``actual_output``, ``output``
``reference_answer``   ``ground_truth``, ``reference``, ``expected_output``, ``ground_truths``
=====================  ===================================================================

Identity is (dataset, id, generation model); a later row identical in all three to an earlier one
is reported and skipped (the first is kept). A row without an id gets ``h<sha1 of its content>``.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ragviz import ragbench as rb
from ragviz.dataset import PATH_COL, ROW_COL, SUBSET_COL, Dataset
from ragviz.keys import context_key, response_key
from ragviz.split import split_sentences

Level = Literal["error", "warning"]

FORMATS = {".parquet": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".csv": "csv"}

COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "question": ("user_input", "query", "input"),
    "documents": ("retrieved_contexts", "contexts", "context", "retrieval_context"),
    "response": ("answer", "actual_output", "output"),
    "reference_answer": ("ground_truth", "reference", "expected_output", "ground_truths"),
}

# Problems listed per (file, level, field); the rest are summed up in one line.
MAX_PROBLEMS_PER_FIELD = 20

_HF_SHARD = re.compile(r"^[\w.]+-\d{5}-of-\d{5}$")


@dataclass(frozen=True)
class Problem:
    """One problem with the input: ``str()`` gives ``PATH:ROW: field: message``.

    ``row`` is the 1-based record number (JSONL: line number), ``None`` for a whole file.
    ``kind`` names the category for label-quality issues (see :class:`ragviz.quality.IssueKind`).
    """

    path: str
    row: int | None
    field: str
    message: str
    level: Level = "error"
    kind: str | None = None

    def __str__(self) -> str:
        where = self.path if self.row is None else f"{self.path}:{self.row}"
        return f"{where}: {self.field}: {self.message}"


@dataclass
class LoadResult:
    """The examples that loaded, and what went wrong (errors) or looked odd (warnings)."""

    dataset: Dataset
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def problems(self) -> list[Problem]:
        return [*self.errors, *self.warnings]


class _Report:
    """Collects problems, listing at most MAX_PROBLEMS_PER_FIELD per (path, level, field)."""

    def __init__(self) -> None:
        self.errors: list[Problem] = []
        self.warnings: list[Problem] = []
        self._counts: Counter[tuple[str, str, str]] = Counter()

    def add(self, path: str, row: int | None, field_name: str, message: str, level: Level = "error") -> None:
        key = (path, level, field_name)
        self._counts[key] += 1
        if self._counts[key] <= MAX_PROBLEMS_PER_FIELD:
            (self.errors if level == "error" else self.warnings).append(Problem(path, row, field_name, message, level))

    def error(self, path: str, row: int | None, field_name: str, message: str) -> None:
        self.add(path, row, field_name, message, "error")

    def warning(self, path: str, row: int | None, field_name: str, message: str) -> None:
        self.add(path, row, field_name, message, "warning")

    def finish(self) -> None:
        for (path, level, field_name), n in self._counts.items():
            if n > MAX_PROBLEMS_PER_FIELD:
                more = n - MAX_PROBLEMS_PER_FIELD
                target = self.errors if level == "error" else self.warnings
                target.append(Problem(path, None, field_name, f"... and {more} more {level}s in this field not listed", level))


# -- canonical Arrow types ---------------------------------------------------------------------
_STR = pa.string()
_STR_LIST = pa.list_(_STR)
_SUPPORT_TYPE = pa.list_(
    pa.struct(
        [
            ("explanation", _STR),
            ("fully_supported", pa.bool_()),
            ("response_sentence_key", _STR),
            ("supporting_sentence_keys", _STR_LIST),
        ]
    )
)
_LABEL_TYPES: dict[str, pa.DataType] = {
    rb.RELEVANT: _STR_LIST,
    rb.UTILIZED: _STR_LIST,
    rb.SUPPORT: _SUPPORT_TYPE,
    rb.UNSUPPORTED: _STR_LIST,
    rb.RELEVANCE_EXPLANATION: _STR,
    rb.OVERALL_EXPLANATION: _STR,
    rb.OVERALL_SUPPORTED: pa.bool_(),
}
CANONICAL_TYPES: dict[str, pa.DataType] = {
    "id": _STR,
    "question": _STR,
    "documents": _STR_LIST,
    "response": _STR,
    "generation_model_name": _STR,
    "annotating_model_name": _STR,
    "dataset_name": _STR,
    "documents_sentences": pa.list_(pa.list_(_STR_LIST)),
    "response_sentences": pa.list_(_STR_LIST),
    "retrieved_ids": _STR_LIST,
    "relevant_ids": _STR_LIST,
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
_BOOL_FIELDS = {k for k, t in CANONICAL_TYPES.items() if t == pa.bool_()}
_FLOAT_FIELDS = {k for k, t in CANONICAL_TYPES.items() if t == pa.float64()}
_STRUCTURED_FIELDS = {k for k, t in CANONICAL_TYPES.items() if pa.types.is_list(t)} | {"reference_answer"}
# Fields a user file may use to carry required content, for CSV parsing of JSON text.
_CSV_JSON_FIELDS = _STRUCTURED_FIELDS | {a for f in ("documents", "reference_answer") for a in COLUMN_ALIASES[f]}


# -- small helpers -----------------------------------------------------------------------------
def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "list"
    return type(value).__name__


def _subset_name(path: Path) -> str:
    """Parent folder for Hugging Face shard names (``test-00000-of-00001``), else the file stem."""
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    if _HF_SHARD.match(stem) and path.parent.name:
        return path.parent.name
    return stem


def _format_of(name: str) -> str | None:
    return FORMATS.get(Path(name).suffix.lower())


def _content_id(row: dict[str, Any]) -> str:
    content = [row.get("question"), row.get("documents") or row.get("documents_sentences"), row.get("response") or row.get("response_sentences")]
    digest = hashlib.sha1(json.dumps(content, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()
    return "h" + digest[:16]


def _list_of_strings_problem(value: Any) -> str | None:
    if not isinstance(value, (list, tuple)):
        return f"expected a list of strings, got {_type_name(value)}"
    for pos, item in enumerate(value):
        if not isinstance(item, str):
            return f"expected a list of strings, got {_type_name(item)} at position {pos}"
    return None


def _pairs_problem(value: Any, what: str) -> str | None:
    """None when *value* is a list of ``[key, text]`` string pairs."""
    if not isinstance(value, (list, tuple)):
        return f"expected {what}, got {_type_name(value)}"
    for pos, pair in enumerate(value):
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            return f"expected {what}, got {json.dumps(pair, ensure_ascii=False, default=str)[:60]} at position {pos}"
    return None


def _doc_sentences_problem(value: Any) -> str | None:
    what = "a list of documents, each a list of [key, text] pairs"
    if not isinstance(value, (list, tuple)):
        return f"expected {what}, got {_type_name(value)}"
    for d, doc in enumerate(value):
        problem = _pairs_problem(doc, "a list of [key, text] pairs")
        if problem:
            return f"document {d}: {problem}"
    return None


def _support_problem(value: Any) -> str | None:
    if not isinstance(value, (list, tuple)):
        return f"expected a list of objects, got {_type_name(value)}"
    for pos, entry in enumerate(value):
        if not isinstance(entry, dict):
            return f"entry {pos}: expected an object, got {_type_name(entry)}"
        key = entry.get("response_sentence_key")
        if not isinstance(key, str):
            return f"entry {pos}: response_sentence_key: expected a string, got {_type_name(key)}"
        supported = entry.get("fully_supported")
        if supported is not None and not isinstance(supported, bool):
            return f"entry {pos}: fully_supported: expected true, false or null, got {_type_name(supported)}"
        keys = entry.get("supporting_sentence_keys")
        if keys is not None:
            problem = _list_of_strings_problem(keys)
            if problem:
                return f"entry {pos}: supporting_sentence_keys: {problem}"
        explanation = entry.get("explanation")
        if explanation is not None and not isinstance(explanation, str):
            return f"entry {pos}: explanation: expected a string, got {_type_name(explanation)}"
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


def _apply_aliases(row: dict[str, Any]) -> dict[str, Any]:
    for canonical, aliases in COLUMN_ALIASES.items():
        if row.get(canonical) is not None:
            continue
        for alias in aliases:
            if row.get(alias) is not None:
                row[canonical] = row.pop(alias)
                break
    return row


# -- one row -----------------------------------------------------------------------------------
def canonical_row(raw: Any, path: str, rownum: int, report: _Report) -> dict[str, Any] | None:
    """Validate one input row and return it as a canonical RAGBench row, or ``None`` (errors
    reported) when it cannot be loaded. Raw rows are sentence-split here."""
    if not isinstance(raw, dict):
        report.error(path, rownum, "row", f"expected an object, got {_type_name(raw)}")
        return None
    row = _apply_aliases(dict(raw))
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
        err("question", f"expected a string, got {_type_name(question)}")

    docs, doc_sents = row.get("documents"), row.get("documents_sentences")
    if docs is not None and (problem := _list_of_strings_problem(docs)):
        err("documents", problem)
    if doc_sents is not None and (problem := _doc_sentences_problem(doc_sents)):
        err("documents_sentences", problem)
    if docs is None and doc_sents is None:
        err("documents", "missing required field (documents or documents_sentences)")

    response, resp_sents = row.get("response"), row.get("response_sentences")
    if response is not None and not isinstance(response, str):
        err("response", f"expected a string, got {_type_name(response)}")
    if resp_sents is not None and (problem := _pairs_problem(resp_sents, "a list of [key, text] pairs")):
        err("response_sentences", problem)
    if response is None and resp_sents is None:
        err("response", "missing required field (response or response_sentences)")

    # optional fields
    ident = row.get("id")
    if ident is not None and (isinstance(ident, bool) or not isinstance(ident, (str, int))):
        err("id", f"expected a string or integer, got {_type_name(ident)}")
    for name in sorted(_STRING_FIELDS & row.keys()):
        value = row[name]
        if value is not None and not isinstance(value, str):
            err(name, f"expected a string, got {_type_name(value)}")
    for name in sorted(_KEY_LIST_FIELDS & row.keys()):
        if row[name] is not None and (problem := _list_of_strings_problem(row[name])):
            err(name, problem)
    for name in (rb.SUPPORT, rb.LLM_PREFIX + rb.SUPPORT):
        if row.get(name) is not None and (problem := _support_problem(row[name])):
            err(name, problem)
    for name in ("overall_supported", rb.LLM_PREFIX + "overall_supported"):
        value = row.get(name)
        if value is not None and not isinstance(value, bool):
            err(name, f"expected true, false or null, got {_type_name(value)}")
    for name in ("retrieved_ids", "relevant_ids"):
        value = row.get(name)
        if value is None:
            continue
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
            err(name, f"expected a list of strings or integers, got {_type_name(value)}"
                if not isinstance(value, (list, tuple)) else "expected a list of strings or integers")
        else:
            row[name] = [str(v) for v in value]
    reference = row.get("reference_answer")
    if reference is not None and not isinstance(reference, str) and _list_of_strings_problem(reference):
        err("reference_answer", f"expected a string or a list of strings, got {_type_name(reference)}")
    if bad:
        return None

    # scores are informative only: a bad one is dropped with a warning
    for name in sorted((_FLOAT_FIELDS | {"adherence_score"}) & row.keys()):
        value = row[name]
        if value is None:
            continue
        ok = isinstance(value, bool) if name == "adherence_score" else isinstance(value, (int, float)) and not isinstance(value, bool)
        if not ok:
            report.warning(path, rownum, name, f"expected a {'boolean' if name == 'adherence_score' else 'number'}, got {_type_name(value)}; ignored")
            row[name] = None
        elif name != "adherence_score":
            row[name] = float(value)

    # derive what is missing
    if doc_sents is None:
        row["documents_sentences"] = [
            [[context_key(i, j), s] for j, s in enumerate(split_sentences(doc))] for i, doc in enumerate(docs)
        ]
    else:
        row["documents_sentences"] = [[list(p) for p in doc] for doc in doc_sents]
        if docs is None:
            row["documents"] = [" ".join(text for _, text in doc) for doc in doc_sents]
    if resp_sents is None:
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
        report.warning(path, rownum, "id", f"missing; using {row['id']!r} derived from a hash of question, documents and response")
    else:
        row["id"] = str(ident)
    return row


# -- rows -> Arrow -----------------------------------------------------------------------------
def _column_array(name: str, values: list[Any], path: str, report: _Report) -> pa.Array:
    if name == "reference_answer":
        if any(isinstance(v, list) for v in values):
            return pa.array([[v] if isinstance(v, str) else v for v in values], _STR_LIST)
        return pa.array(values, _STR)
    if name in CANONICAL_TYPES:
        return pa.array(values, CANONICAL_TYPES[name])
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        report.warning(path, None, name, "values of mixed types; kept as JSON text")
        return pa.array([None if v is None else json.dumps(v, ensure_ascii=False, default=str) for v in values], _STR)


def _dataset_from_rows(rows: Sequence[dict[str, Any]], row_numbers: Sequence[int], subset: str, path: str, report: _Report) -> Dataset:
    if not rows:
        return Dataset.empty()
    names: dict[str, None] = {}
    for r in rows:
        names.update(dict.fromkeys(r))
    arrays = {n: _column_array(n, [r.get(n) for r in rows], path, report) for n in names if n not in (SUBSET_COL, PATH_COL, ROW_COL)}
    arrays[SUBSET_COL] = pa.array([subset] * len(rows), _STR)
    arrays[PATH_COL] = pa.array([path] * len(rows), _STR)
    arrays[ROW_COL] = pa.array(list(row_numbers), pa.int64())
    return Dataset(pa.table(arrays))


def _load_rows(numbered_rows: Iterable[tuple[int, Any]], path: str, subset: str, report: _Report,
               prepare: Callable[[dict[str, Any], int], dict[str, Any] | None] | None = None) -> Dataset:
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
def _decode(data: bytes, path: str, report: _Report, row: int | None = None, offset: int = 0) -> str | None:
    try:
        return data.decode("utf-8-sig" if offset == 0 else "utf-8")
    except UnicodeDecodeError as e:
        bad = data[e.start : e.start + 1].hex()
        report.error(path, row, "encoding", f"not UTF-8: byte 0x{bad} at byte offset {offset + e.start}")
        return None


def _is_truncated(e: json.JSONDecodeError, text: str) -> bool:
    return e.msg.startswith("Unterminated") or e.pos >= len(text.rstrip())


def _json_problem(e: json.JSONDecodeError, text: str) -> str:
    truncated = _is_truncated(e, text)
    return f"{'truncated' if truncated else 'invalid'} JSON: {e.msg} (line {e.lineno}, column {e.colno})"


def _load_jsonl(data: bytes, path: str, subset: str, report: _Report) -> Dataset:
    def numbered() -> Iterable[tuple[int, Any]]:
        offset = 0
        for number, raw_line in enumerate(data.split(b"\n"), start=1):
            line_offset, offset = offset, offset + len(raw_line) + 1
            if not raw_line.strip():
                continue
            line = _decode(raw_line, path, report, number, line_offset)
            if line is None:
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as e:
                truncated = _is_truncated(e, line)
                report.error(path, number, "json", f"{'truncated' if truncated else 'invalid'} JSON line: {e.msg} (column {e.colno})")

    return _load_rows(numbered(), path, subset, report)


def _salvage_json_list(text: str) -> tuple[list[Any], int, json.JSONDecodeError | None]:
    """Parse a top-level JSON list element by element: the records before a syntax error, the
    1-based number of the record that broke, and the error."""
    decoder = json.JSONDecoder()
    ws = re.compile(r"\s*")
    pos = ws.match(text, 0).end()
    if text[pos : pos + 1] != "[":
        return [], 1, None
    pos = ws.match(text, pos + 1).end()
    items: list[Any] = []
    if text[pos : pos + 1] == "]":
        return items, 0, None
    while True:
        try:
            item, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            return items, len(items) + 1, e
        items.append(item)
        pos = ws.match(text, pos).end()
        ch = text[pos : pos + 1]
        if ch == "]":
            return items, 0, None
        if ch != ",":
            msg = "Expecting ',' delimiter" if ch else "Expecting ',' delimiter or ']' (file ends)"
            return items, len(items) + 1, json.JSONDecodeError(msg, text, pos)
        pos = ws.match(text, pos + 1).end()


def _load_json(data: bytes, path: str, subset: str, report: _Report) -> Dataset:
    text = _decode(data, path, report)
    if text is None:
        return Dataset.empty()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        items, broken, err = _salvage_json_list(text)
        if err is not None and broken >= 1 and text.lstrip().startswith("["):
            report.error(path, broken, "json", f"{_json_problem(err, text)}; {len(items)} records before it were loaded")
            return _load_rows(enumerate(items, start=1), path, subset, report)
        report.error(path, None, "json", _json_problem(e, text))
        return Dataset.empty()
    if isinstance(doc, dict):
        for container in ("data", "rows"):
            if isinstance(doc.get(container), list):
                doc = doc[container]
                break
        else:
            report.error(path, None, "json", 'expected a list of rows or an object with a "data" or "rows" list, '
                                             f"got an object with keys {sorted(doc)[:8]}")
            return Dataset.empty()
    if not isinstance(doc, list):
        report.error(path, None, "json", f"expected a list of rows, got {_type_name(doc)}")
        return Dataset.empty()
    if not doc:
        report.warning(path, None, "file", "no rows")
    return _load_rows(enumerate(doc, start=1), path, subset, report)


def _parse_csv_cell(name: str, text: str) -> Any:
    """Typed value of a CSV cell; raises ValueError with a readable message when it cannot be."""
    if text == "":
        return None
    if name in _CSV_JSON_FIELDS:
        stripped = text.strip()
        if stripped[:1] in "[{":
            try:
                return json.loads(stripped)
            except json.JSONDecodeError as e:
                try:  # pandas writes list columns as Python literals: ['a', 'b']
                    return ast.literal_eval(stripped)
                except (ValueError, SyntaxError):
                    raise ValueError(f"invalid JSON text: {e.msg} (column {e.colno})") from None
        if name == "reference_answer" or name in COLUMN_ALIASES["reference_answer"]:
            return text
        if name in ("documents", *COLUMN_ALIASES["documents"]):
            return text  # reported as "expected a list of strings, got str"
        raise ValueError(f"expected JSON text of a list, got {text[:40]!r}")
    if name in _BOOL_FIELDS:
        low = text.strip().lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        if low in ("null", "none"):
            return None
        raise ValueError(f"expected true or false, got {text[:40]!r}")
    if name in _FLOAT_FIELDS:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"expected a number, got {text[:40]!r}") from None
    return text


def _load_csv(data: bytes, path: str, subset: str, report: _Report) -> Dataset:
    text = _decode(data, path, report)
    if text is None:
        return Dataset.empty()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except (StopIteration, csv.Error) as e:
        report.error(path, None, "csv", f"no header row ({e})" if str(e) else "no header row")
        return Dataset.empty()

    def numbered() -> Iterable[tuple[int, Any]]:
        number = 0
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                report.error(path, number + 1, "csv", str(e))
                return
            number += 1
            if not cells:
                continue
            if len(cells) > len(header):
                report.error(path, number, "csv", f"row has {len(cells)} fields, the header has {len(header)}")
                continue
            row: dict[str, Any] = {}
            failed = False
            for name, cell in zip(header, cells):
                try:
                    row[name] = _parse_csv_cell(name, cell)
                except ValueError as e:
                    report.error(path, number, name, str(e))
                    failed = True
            if not failed:
                yield number, row

    return _load_rows(numbered(), path, subset, report)


def _parquet_fast_table(table: pa.Table) -> pa.Table | None:
    """*table* cast to canonical types when it can be loaded column-wise as is, else ``None``."""
    names = set(table.column_names)
    for canonical, aliases in COLUMN_ALIASES.items():
        if canonical not in names:
            for alias in aliases:
                if alias in names:
                    table = table.rename_columns([canonical if n == alias else n for n in table.column_names])
                    names = set(table.column_names)
                    break
    required = ("id", "question", "documents", "response", "documents_sentences", "response_sentences")
    if not all(n in names for n in required):
        return None
    fields = []
    for f in table.schema:
        target = CANONICAL_TYPES.get(f.name)
        if f.name == "reference_answer" and (pa.types.is_string(f.type) or f.type == _STR_LIST):
            target = f.type
        fields.append(pa.field(f.name, target if target is not None else f.type))
    try:
        table = table.cast(pa.schema(fields, metadata=table.schema.metadata))
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, ValueError):
        return None
    for n in required:
        if table.column(n).null_count:
            return None
    if pc.any(pc.equal(table.column("id"), "")).as_py():
        return None
    pairs = pc.list_flatten(pc.list_flatten(table.column("documents_sentences")))
    for column in (pairs, pc.list_flatten(table.column("response_sentences"))):
        if len(column) and (column.null_count or not pc.all(pc.equal(pc.list_value_length(column), 2)).as_py()):
            return None
    return table


def _load_parquet(data: bytes | Path, path: str, subset: str, report: _Report) -> Dataset:
    """*data* is the file's bytes (an upload) or its path (read memory-mapped, never copied)."""
    try:
        source = str(data) if isinstance(data, Path) else pa.BufferReader(data)
        table = pq.read_table(source, memory_map=isinstance(data, Path))
    except Exception as e:  # pyarrow raises several types for corrupt files
        report.error(path, None, "file", f"unreadable Parquet: {e}")
        return Dataset.empty()
    fast = _parquet_fast_table(table)
    if fast is not None:
        return Dataset.from_table(fast, subset, path)
    # Slow path (raw rows, wrong types, nulls): row by row, so every problem gets its row number.
    return _load_rows(enumerate(table.to_pylist(), start=1), path, subset, report)


_LOADERS = {"parquet": _load_parquet, "jsonl": _load_jsonl, "json": _load_json, "csv": _load_csv}


def _load_one(name: str, data: bytes, subset: str, report: _Report) -> Dataset:
    fmt = _format_of(name)
    if fmt is None:
        suffix = Path(name).suffix or "(none)"
        report.error(name, None, "file", f"unknown extension {suffix!r} (expected one of {', '.join(FORMATS)})")
        return Dataset.empty()
    if not data.strip():
        report.error(name, None, "file", "empty file")
        return Dataset.empty()
    return _LOADERS[fmt](data, name, subset, report)


# -- combining files ---------------------------------------------------------------------------
def _harmonize(parts: list[Dataset], report: _Report) -> list[Dataset]:
    """Make column types agree across files so they concatenate: a string ``reference_answer``
    next to a list one becomes a one-element list; any other conflict drops the later column."""
    types: dict[str, pa.DataType] = {}
    out = []
    for part in parts:
        table = part.table
        for i, f in enumerate(table.schema):
            if pa.types.is_null(f.type):
                continue
            known = types.setdefault(f.name, f.type)
            if known == f.type:
                continue
            column = table.column(i)
            if f.name == "reference_answer" and pa.types.is_string(f.type) and known == _STR_LIST:
                wrapped = pa.array([None if v is None else [v] for v in column.to_pylist()], _STR_LIST)
                table = table.set_column(i, f.name, wrapped)
                continue
            if f.name == "reference_answer" and f.type == _STR_LIST and pa.types.is_string(known):
                types[f.name] = _STR_LIST
                out = [Dataset(_wrap_reference(p.table)) for p in out]
                continue
            try:
                table = table.set_column(i, f.name, column.cast(known))
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
                paths = sorted(set(table.column(PATH_COL).to_pylist()))
                report.warning(", ".join(paths), None, f.name, f"column type {f.type} conflicts with {known} in other files; column ignored")
                table = table.drop_columns([f.name])
        out.append(Dataset(table))
    return out


def _wrap_reference(table: pa.Table) -> pa.Table:
    if "reference_answer" not in table.column_names:
        return table
    i = table.column_names.index("reference_answer")
    if table.schema.field(i).type == _STR_LIST:
        return table
    values = [None if v is None else [v] for v in table.column(i).to_pylist()]
    return table.set_column(i, "reference_answer", pa.array(values, _STR_LIST))


def _drop_duplicates(dataset: Dataset, report: _Report) -> Dataset:
    uids = dataset.uids
    if len(set(uids)) == len(uids):
        return dataset
    paths = dataset.table.column(PATH_COL).to_pylist()
    rows = dataset.table.column(ROW_COL).to_pylist()
    first: dict[str, int] = {}
    keep = []
    for i, uid in enumerate(uids):
        j = first.setdefault(uid, i)
        keep.append(j == i)
        if j != i:
            report.warning(paths[i], rows[i], "id", f"duplicate of {paths[j]}:{rows[j]} (same dataset, id and generation model); "
                                                    "kept the first, skipped this row")
    return Dataset(dataset.table.filter(pa.array(keep)))


def _finish(parts: list[Dataset], report: _Report) -> LoadResult:
    parts = [p for p in parts if len(p)]
    dataset = Dataset.concat(_harmonize(parts, report)) if len(parts) > 1 else (parts[0] if parts else Dataset.empty())
    dataset = _drop_duplicates(dataset, report)
    report.finish()
    return LoadResult(dataset, report.errors, report.warnings)


def _expand(paths: Iterable[str | Path], report: _Report) -> list[Path]:
    files: list[Path] = []
    seen: set[Path] = set()
    for given in paths:
        p = Path(given)
        if not p.exists():
            report.error(str(given), None, "path", "no such file or directory")
            continue
        if p.is_dir():
            found = sorted(
                f for f in p.rglob("*")
                if f.is_file() and f.suffix.lower() in FORMATS and not any(part.startswith(".") for part in f.relative_to(p).parts)
            )
            if not found:
                report.error(str(given), None, "path", f"no {', '.join(FORMATS)} files in this directory")
            candidates = found
        else:
            candidates = [p]
        for f in candidates:
            resolved = f.resolve()
            if resolved in seen:
                report.warning(str(f), None, "path", "given more than once; loaded once")
                continue
            seen.add(resolved)
            files.append(f)
    return files


def load(paths: Iterable[str | Path] | str | Path) -> LoadResult:
    """Load files and directories (searched recursively) into one dataset; never raises for bad
    input. ``load(["../shared/ragbench"])`` loads the seven RAGBench shards."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    report = _Report()
    parts = []
    for f in _expand(paths, report):
        try:
            if _format_of(f.name) == "parquet" and f.stat().st_size:
                parts.append(_load_parquet(f, str(f), _subset_name(f), report))
                continue
            data = f.read_bytes()
        except OSError as e:
            report.error(str(f), None, "file", f"cannot read: {e.strerror or e}")
            continue
        parts.append(_load_one(str(f), data, _subset_name(f), report))
    return _finish(parts, report)


def load_bytes(name: str, data: bytes) -> LoadResult:
    """Load an uploaded file; the format comes from *name*'s extension, problems name *name*."""
    report = _Report()
    part = _load_one(name, data, _subset_name(Path(name)), report)
    return _finish([part], report)
