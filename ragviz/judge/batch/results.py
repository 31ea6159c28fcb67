"""Reading a batch's output and error files back: each line checked, then validated as a live answer is.

An output line is ``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``
(OpenAI's Batch API and ``vllm run-batch`` alike). A file is read whole before anything is applied; a line
that is not such an object (a truncated file's last line included), or whose ``custom_id`` is unknown,
repeated, or belongs to another judge version, is a :class:`LineProblem` naming the batch and the line,
and then nothing of that batch is applied. Each answer then goes through the live judge's checks
(:func:`ragviz.judge.client.completion_fields`, :data:`~ragviz.judge.client.MAX_ANSWER_BYTES`,
:func:`ragviz.judge.schema.parse_judge_output`); what fails is a failure of that example, never a label.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragviz.data.model import Example, Labels, Provenance
from ragviz.judge.batch.ledger import LedgerRequest
from ragviz.judge.batch.requests import split_custom_id
from ragviz.judge.cache import utc_now
from ragviz.judge.client import MAX_ANSWER_BYTES, completion_fields
from ragviz.judge.prompt import content_hash
from ragviz.judge.schema import JudgeOutputError, parse_judge_output

__all__ = ["Judged", "LineProblem", "OutputLine", "check_output_files", "judge_line", "output_lines"]


@dataclass(frozen=True)
class LineProblem:
    """Why a line of a batch's file cannot be read: ``where`` names the batch and file."""

    where: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.where} line {self.line}: {self.text}"


@dataclass(frozen=True)
class OutputLine:
    """One answered request: which request, and what the server said."""

    request: LedgerRequest
    where: str
    line: int
    status_code: int | None
    body: Any
    error: Any


def _scan(
    path: Path,
    where: str,
    requests: Mapping[str, LedgerRequest],
    prompt_version: str,
    seen: dict[str, str],
    problems: list[LineProblem],
) -> Iterator[OutputLine]:
    with open(path, "rb") as handle:
        for n, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                item = json.loads(raw)
            except RecursionError:
                problems.append(LineProblem(where, n, "nested too deep to read: not a batch output line"))
                continue
            except ValueError as exc:
                cut = not raw.endswith(b"\n")
                text = "the file ends in the middle of this line (truncated)" if cut else f"not JSON ({exc})"
                problems.append(LineProblem(where, n, text))
                continue
            cid = item.get("custom_id") if isinstance(item, dict) else None
            if not isinstance(cid, str):
                problems.append(LineProblem(where, n, "no custom_id: not a batch output line"))
                continue
            request = requests.get(cid)
            if request is None:
                _, version = split_custom_id(cid)
                if version and version != prompt_version:
                    text = f"custom_id {cid!r} belongs to judge version {version!r}; this batch was built for {prompt_version!r}"
                else:
                    text = f"custom_id {cid!r} is not a request of this batch"
                problems.append(LineProblem(where, n, text))
                continue
            if cid in seen:
                problems.append(LineProblem(where, n, f"custom_id {cid!r} answered twice (first at {seen[cid]})"))
                continue
            seen[cid] = f"{where} line {n}"
            response = item.get("response")
            status = response.get("status_code") if isinstance(response, dict) else None
            body = response.get("body") if isinstance(response, dict) else None
            yield OutputLine(request, where, n, status if isinstance(status, int) else None, body, item.get("error"))


def check_output_files(
    files: Sequence[tuple[Path, str]], requests: Mapping[str, LedgerRequest], prompt_version: str
) -> list[LineProblem]:
    """Read *files* (``(path, where)``: output file, then error file) once, checking every line against the
    batch's *requests* by custom_id; the problems found (none: :func:`output_lines` may be applied)."""
    seen: dict[str, str] = {}
    problems: list[LineProblem] = []
    for path, where in files:
        for _ in _scan(path, where, requests, prompt_version, seen, problems):
            pass
    return problems


def output_lines(
    files: Sequence[tuple[Path, str]], requests: Mapping[str, LedgerRequest], prompt_version: str
) -> Iterator[OutputLine]:
    """The lines of *files* one at a time (read again, so a large file is never held whole)."""
    seen: dict[str, str] = {}
    problems: list[LineProblem] = []
    for path, where in files:
        yield from _scan(path, where, requests, prompt_version, seen, problems)


@dataclass(frozen=True)
class Judged:
    """One line's outcome: labels (accepted) or an error; the raw answer and its tokens."""

    line: OutputLine
    labels: Labels | None
    error: str | None
    raw: str | None
    prompt_tokens: int
    completion_tokens: int


def _error_text(error: Any, body: Any) -> str:
    for holder in (error, body.get("error") if isinstance(body, dict) else None):
        if isinstance(holder, dict):
            code, message = holder.get("code"), holder.get("message")
            return f"{code}: {message}" if code else str(message)
    return str(error)


def judge_line(line: OutputLine, example: Example | None, model: str, prompt_version: str) -> Judged:
    """The live judge's checks on one output line for *example* (``None``: no longer in the data)."""
    if example is None:
        return Judged(
            line, None, f"example {line.request.example_uid} is not in the data the batch was built from", None, 0, 0
        )
    if content_hash(example) != line.request.content_hash:
        return Judged(line, None, "the example changed since the batch was built; not applied", None, 0, 0)
    if line.error is not None or line.status_code != 200:
        status = f"HTTP {line.status_code}: " if line.status_code not in (None, 200) else ""
        return Judged(line, None, f"{status}{_error_text(line.error, line.body)}", None, 0, 0)
    fields = completion_fields(line.body)
    if fields is None:
        return Judged(line, None, "the answer is not a chat completion", json.dumps(line.body)[:2000], 0, 0)
    text, usage = fields
    pt = usage.get("prompt_tokens", 0)
    ct = usage.get("completion_tokens", 0)
    pt, ct = (pt if isinstance(pt, int) else 0), (ct if isinstance(ct, int) else 0)
    if len(text.encode("utf-8")) > MAX_ANSWER_BYTES:
        return Judged(line, None, f"answer refused: over the {MAX_ANSWER_BYTES:,}-byte limit", None, pt, ct)
    provenance = Provenance("llm", model, utc_now(), prompt_version)
    try:
        labels = parse_judge_output(text, example, provenance)
    except JudgeOutputError as exc:
        return Judged(line, None, "invalid answer: " + "; ".join(exc.problems), text, pt, ct)
    return Judged(line, labels, None, text, pt, ct)
