"""RagChecker's checked-claims JSON: loading, validation and label overrides.

RagChecker (amazon-science/RAGChecker) writes ``{"results": [item, ...]}`` where each item carries the
claims extracted from the response and from the reference answer and four entailment checks::

    answer2response[i]        response claim i   checked against the reference (gt) answer
    response2answer[j]        reference claim j  checked against the response
    retrieved2response[i][c]  response claim i   checked against retrieved chunk c
    retrieved2answer[j][c]    reference claim j  checked against retrieved chunk c

Each check is a label string; only the exact string ``"Entailment"`` counts as true (RagChecker's
``to_bool``). A claim is a triplet ``[subject, relation, object]`` or a plain string. A ``metrics``
field stored in the input is ignored: ragviz always recomputes (:mod:`ragviz.metrics.ragchecker`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

from ragviz.data.labels import CLAIM_PREFIX, RESET_FIELD, REVIEW_FIELD

ENTAILMENT = "Entailment"
KNOWN_LABELS = ("Entailment", "Neutral", "Contradiction")
CHECK_FIELDS = ("answer2response", "response2answer", "retrieved2response", "retrieved2answer")

Claim = str | tuple[str, ...]


@dataclass(frozen=True)
class RagCheckerProblem:
    """One problem in a RagChecker file; ``str()`` is ``PATH:ROW: field: problem`` (ROW = 1-based item)."""

    path: str
    row: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.row}: {self.field}: {self.message}"


class RagCheckerFormatError(ValueError):
    """The file is not a loadable RagChecker checking output; ``problems`` lists every reason."""

    def __init__(self, problems: Sequence[RagCheckerProblem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass(frozen=True)
class RetrievedChunk:
    doc_id: str | None
    text: str


@dataclass(frozen=True)
class CheckedItem:
    """One RagChecker result item with its claims and the four label matrices (strings, as stored)."""

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


# --------------------------------------------------------------------------------------------
# Human overrides as label-store events

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
