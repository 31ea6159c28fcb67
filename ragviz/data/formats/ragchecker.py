"""RagChecker's checking-output JSON: read and validated into
:class:`~ragviz.data.checked_claims.CheckedItem` objects, and written back.

RagChecker writes ``{"results": [item, ...]}``; each item carries the query, the response, the reference
(gt) answer, the retrieved chunks, the claims of both texts and the four label matrices described in
:mod:`ragviz.data.checked_claims`. Every problem is located as ``PATH:ROW: field: problem``; labels
other than RagChecker's three are warnings, not errors. A ``metrics`` field stored in the input is
ignored: ragviz always recomputes (:mod:`ragviz.metrics.ragchecker`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

from ragviz.data.checked_claims import KNOWN_LABELS, CheckedItem, Claim, RetrievedChunk
from ragviz.errors import BadInput

__all__ = [
    "RagCheckerFormatError",
    "RagCheckerLoad",
    "RagCheckerProblem",
    "is_ragchecker_file",
    "item_from_json",
    "items_to_json",
    "load_ragchecker",
    "parse_ragchecker",
    "read_ragchecker",
]


@dataclass(frozen=True)
class RagCheckerProblem:
    """One problem in a RagChecker file; ``str()`` is ``PATH:ROW: field: problem`` (ROW = 1-based item)."""

    path: str
    row: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.row}: {self.field}: {self.message}"


class RagCheckerFormatError(BadInput, ValueError):
    """The file is not a loadable RagChecker checking output; ``problems`` lists every reason."""

    def __init__(self, problems: Sequence[RagCheckerProblem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


_SHAPE = re.compile(r'^\ufeff?\s*\{\s*"results"\s*:\s*\[')


def is_ragchecker_file(path: str | Path) -> bool:
    """Sniff a ``.json`` file's shape from its first 64 KiB: an object opening with ``"results": [``
    whose items have ``response_claims`` (the CLI routes RagChecker files by shape, not by name;
    the full parse and validation happen once, in :func:`read_ragchecker`)."""
    path = Path(path)
    if path.suffix.lower() != ".json" or not path.is_file():
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            head = f.read(1 << 16)
    except OSError:
        return False
    return bool(_SHAPE.match(head)) and '"response_claims"' in head


class _Collector:
    def __init__(self, path: str):
        self.path = path
        self.errors: list[RagCheckerProblem] = []
        self.warnings: list[RagCheckerProblem] = []

    def error(self, row: int, field: str, message: str) -> None:
        self.errors.append(RagCheckerProblem(self.path, row, field, message))

    def warn(self, row: int, field: str, message: str) -> None:
        self.warnings.append(RagCheckerProblem(self.path, row, field, message))


def _text(value: Any, row: int, field: str, out: _Collector, required: bool = True) -> str:
    if value is None:
        if required:
            out.error(row, field, "missing")
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and field == "query_id":
        return str(value)
    if not isinstance(value, str):
        out.error(row, field, f"expected a string, got {type(value).__name__}")
        return ""
    return value


def _claims(value: Any, row: int, field: str, out: _Collector) -> tuple[Claim, ...]:
    if not isinstance(value, list):
        out.error(row, field, "missing" if value is None else f"expected a list of claims, got {type(value).__name__}")
        return ()
    kinds = set(map(type, value))
    if kinds <= {str}:
        return tuple(value)
    if kinds == {list} and set(map(type, chain.from_iterable(value))) <= {str}:
        return tuple(map(tuple, value))
    claims: list[Claim] = []
    for i, claim in enumerate(value):
        if isinstance(claim, str):
            claims.append(claim)
        elif isinstance(claim, list) and all(isinstance(part, str) for part in claim):
            claims.append(tuple(claim))
        else:
            out.error(row, f"{field}[{i}]", "a claim must be a string or a list of strings (a triplet)")
    return tuple(claims)


def _label(value: Any, row: int, field: str, out: _Collector) -> str:
    if not isinstance(value, str):
        out.error(row, field, f"expected a label string such as 'Entailment', got {json.dumps(value)[:40]}")
        return ""
    if value not in KNOWN_LABELS:
        out.warn(row, field, f"label {value!r} is not one of {', '.join(KNOWN_LABELS)}; it counts as not entailed")
    return value


_KNOWN = frozenset(KNOWN_LABELS)


def _fast_labels(value: Any) -> tuple[str, ...] | None:
    """The common case, checked in C-speed builtins: a list of known label strings."""
    # JSON gives str, numbers, bools, None, lists, dicts: only a str can equal a known label, and a
    # list or dict element makes issuperset raise TypeError (unhashable), handled by the slow path.
    try:
        if type(value) is list and _KNOWN.issuperset(value):
            return tuple(value)
    except TypeError:
        pass
    return None


def _vector(value: Any, n: int, row: int, field: str, what: str, out: _Collector) -> tuple[str, ...]:
    if type(value) is list and len(value) == n:
        fast = _fast_labels(value)
        if fast is not None:
            return fast
    if not isinstance(value, list):
        out.error(row, field, "missing" if value is None else f"expected a list of labels, got {type(value).__name__}")
        return ()
    if len(value) != n:
        out.error(row, field, f"has {len(value)} labels but there are {n} {what}")
    return tuple(_label(v, row, f"{field}[{i}]", out) for i, v in enumerate(value))


def _matrix(
    value: Any, n: int, n_chunks: int, row: int, field: str, what: str, out: _Collector
) -> tuple[tuple[str, ...], ...]:
    if not isinstance(value, list):
        out.error(
            row, field, "missing" if value is None else f"expected a list of label lists, got {type(value).__name__}"
        )
        return ()
    if len(value) != n:
        out.error(row, field, f"has {len(value)} rows but there are {n} {what}")
    rows = []
    for i, labels in enumerate(value):
        fast = _fast_labels(labels) if type(labels) is list and len(labels) == n_chunks else None
        if fast is not None:
            rows.append(fast)
            continue
        if not isinstance(labels, list):
            out.error(row, f"{field}[{i}]", "expected a list with one label per retrieved chunk")
            continue
        if len(labels) != n_chunks:
            out.error(row, f"{field}[{i}]", f"has {len(labels)} labels but there are {n_chunks} retrieved chunks")
        rows.append(tuple(_label(v, row, f"{field}[{i}][{c}]", out) for c, v in enumerate(labels)))
    return tuple(rows)


def _chunks(value: Any, row: int, out: _Collector) -> tuple[RetrievedChunk, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        out.error(row, "retrieved_context", f"expected a list of {{doc_id, text}}, got {type(value).__name__}")
        return ()
    if all(type(d) is dict and type(d.get("text", "")) is str for d in value):
        return tuple(
            RetrievedChunk(None if (i := d.get("doc_id")) is None else str(i), d.get("text") or "") for d in value
        )
    chunks = []
    for c, doc in enumerate(value):
        if not isinstance(doc, Mapping) or not isinstance(doc.get("text", ""), str):
            out.error(row, f"retrieved_context[{c}]", "expected an object with a string 'text'")
            chunks.append(RetrievedChunk(None, ""))
            continue
        doc_id = doc.get("doc_id")
        chunks.append(RetrievedChunk(None if doc_id is None else str(doc_id), doc.get("text") or ""))
    return tuple(chunks)


def item_from_json(raw: Any, row: int, out: _Collector, dataset: str = "") -> CheckedItem | None:
    """Validate and convert one result object; problems go to *out*; ``None`` when unusable."""
    if not isinstance(raw, Mapping):
        out.error(row, "results", f"item is {type(raw).__name__}, expected an object")
        return None
    n_errors = len(out.errors)
    chunks = _chunks(raw.get("retrieved_context"), row, out)
    response_claims = _claims(raw.get("response_claims"), row, "response_claims", out)
    gt_claims = _claims(raw.get("gt_answer_claims"), row, "gt_answer_claims", out)
    n_chunks = len(chunks)
    item = CheckedItem(
        query_id=_text(raw.get("query_id", str(row)), row, "query_id", out),
        query=_text(raw.get("query", ""), row, "query", out),
        gt_answer=_text(raw.get("gt_answer", ""), row, "gt_answer", out),
        response=_text(raw.get("response", ""), row, "response", out),
        retrieved_context=chunks,
        response_claims=response_claims,
        gt_answer_claims=gt_claims,
        answer2response=_vector(
            raw.get("answer2response"), len(response_claims), row, "answer2response", "response claims", out
        ),
        response2answer=_vector(
            raw.get("response2answer"), len(gt_claims), row, "response2answer", "gt answer claims", out
        ),
        retrieved2response=_matrix(
            raw.get("retrieved2response"),
            len(response_claims),
            n_chunks,
            row,
            "retrieved2response",
            "response claims",
            out,
        ),
        retrieved2answer=_matrix(
            raw.get("retrieved2answer"), len(gt_claims), n_chunks, row, "retrieved2answer", "gt answer claims", out
        ),
        dataset=dataset,
        row=row,
    )
    return item if len(out.errors) == n_errors else None


@dataclass(frozen=True)
class RagCheckerLoad:
    """A loaded file: its items and the warnings met reading it (labels RagChecker does not know)."""

    items: list[CheckedItem]
    warnings: list[RagCheckerProblem]


def parse_ragchecker(data: Any, path: str, dataset: str = "") -> RagCheckerLoad:
    """Validate parsed JSON *data* read from *path*; raises :class:`RagCheckerFormatError` listing
    every problem, or returns the items and the warnings (unknown labels)."""
    out = _Collector(path)
    if not isinstance(data, Mapping) or not isinstance(data.get("results"), list):
        out.error(0, "results", 'expected a JSON object {"results": [...]} (RagChecker checking output)')
        raise RagCheckerFormatError(out.errors)
    items = [item_from_json(raw, i, out, dataset) for i, raw in enumerate(data["results"], start=1)]
    if out.errors:
        raise RagCheckerFormatError(out.errors)
    return RagCheckerLoad([it for it in items if it is not None], out.warnings)


def read_ragchecker(path: str | Path) -> RagCheckerLoad:
    """Load a RagChecker JSON file with its warnings. ``dataset`` of each item is the file's stem."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except json.JSONDecodeError as exc:
        raise RagCheckerFormatError(
            [RagCheckerProblem(str(path), exc.lineno, "json", f"not valid JSON: {exc.msg} (column {exc.colno})")]
        ) from None
    except UnicodeDecodeError as exc:
        raise RagCheckerFormatError(
            [RagCheckerProblem(str(path), 0, "encoding", f"not UTF-8 text: {exc.reason}")]
        ) from None
    except RecursionError:
        raise RagCheckerFormatError([RagCheckerProblem(str(path), 0, "json", "nested too deep to read")]) from None
    except OSError as exc:  # a folder, a file one may not read, ...
        raise RagCheckerFormatError(
            [RagCheckerProblem(str(path), 0, "path", f"cannot read: {exc.strerror or exc}")]
        ) from None
    return parse_ragchecker(data, str(path), dataset=path.stem)


def load_ragchecker(path: str | Path) -> list[CheckedItem]:
    """The checked items of a RagChecker JSON file (raises :class:`RagCheckerFormatError`)."""
    return read_ragchecker(path).items


def items_to_json(items: Iterable[CheckedItem]) -> dict[str, Any]:
    """Back to RagChecker's own shape (e.g. to export human-overridden labels), without ``metrics``."""
    return {
        "results": [
            {
                "query_id": it.query_id,
                "query": it.query,
                "gt_answer": it.gt_answer,
                "response": it.response,
                "retrieved_context": [{"doc_id": c.doc_id, "text": c.text} for c in it.retrieved_context],
                "response_claims": [c if isinstance(c, str) else list(c) for c in it.response_claims],
                "gt_answer_claims": [c if isinstance(c, str) else list(c) for c in it.gt_answer_claims],
                "answer2response": list(it.answer2response),
                "response2answer": list(it.response2answer),
                "retrieved2response": [list(r) for r in it.retrieved2response],
                "retrieved2answer": [list(r) for r in it.retrieved2answer],
            }
            for it in items
        ]
    }
