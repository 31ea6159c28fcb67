"""Collecting batches: status refresh, download, check, validate, apply; offline results imported the same way.

A batch is applied only after every line of its output and error files passed :func:`check_output_files`
(else its problems are reported, naming batch and line, and nothing of it is applied). Answers are then
applied in chunks: the answer into the judge cache and its request marked ``answered`` in one transaction,
the labels into the label store, the request marked ``applied``. A run killed anywhere in between is
finished by the next (:func:`finish_answered`): no answer is lost, none is applied twice, nothing is asked
again. Requests a finished batch did not answer (expired, cancelled, failed) become ``failed``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import openai

from ragviz.data.dataset import Dataset
from ragviz.data.model import Example, Labels
from ragviz.judge.batch import ledger
from ragviz.judge.batch.examples import prompt_examples
from ragviz.judge.batch.ledger import BatchFile, BatchRecord, LedgerRequest, write
from ragviz.judge.batch.remote import batch_client, cancel_batch, download, retrieve_batch
from ragviz.judge.batch.results import LineProblem, OutputLine, check_output_files, judge_line, output_lines
from ragviz.judge.cache import JudgeCache, PendingAnswer, PendingFailure
from ragviz.judge.client import JudgeSettings
from ragviz.judge.sink import JudgeLabelSink

__all__ = [
    "APPLY_CHUNK",
    "CollectReport",
    "ExampleLookup",
    "Failure",
    "SourceExamples",
    "apply_lines",
    "cancel",
    "collect",
    "finish_answered",
    "import_results",
    "refresh",
]


APPLY_CHUNK = 2000  # answers per transaction pair (cache + ledger, then label store)

# uids -> their examples, from a request file's data sources.
ExampleLookup = Callable[[Sequence[str]], Mapping[str, Example]]


@dataclass(frozen=True)
class Failure:
    """A request that got no label: which example, where its answer was (or why none), and why."""

    example_uid: str
    where: str
    error: str

    def __str__(self) -> str:
        return f"{self.example_uid}: {self.where}: {self.error}"


@dataclass
class CollectReport:
    applied: int = 0
    failures: list[Failure] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)
    waiting: list[BatchRecord] = field(default_factory=list)
    collected: list[str] = field(default_factory=list)
    recovered: int = 0


class SourceExamples:
    """Loads a request file's data sources (:func:`ragviz.data.load.load`) once per set of sources; calling
    it with a file gives the function from uids to their examples (built a chunk at a time). A source that no
    longer loads gives no examples: each request then fails naming its example, nothing is applied."""

    def __init__(self) -> None:
        self._loaded: dict[tuple[str, ...], ExampleLookup] = {}
        self.errors: list[str] = []

    def __call__(self, file: BatchFile) -> ExampleLookup:
        if file.sources not in self._loaded:
            from ragviz.data.load import load

            result = load(list(file.sources))
            self.errors.extend(str(p) for p in result.errors)
            self._loaded[file.sources] = _lookup(result.dataset) if result.ok else (lambda uids: {})
        return self._loaded[file.sources]


def _lookup(dataset: Dataset) -> ExampleLookup:
    index = {uid: i for i, uid in enumerate(dataset.uids)}

    def examples(uids: Sequence[str]) -> Mapping[str, Example]:
        rows = sorted({index[u] for u in uids if u in index})
        return {e.uid: e for e in prompt_examples(dataset, rows)}

    return examples


def finish_answered(cache: JudgeCache, store: JudgeLabelSink | None) -> int:
    """Requests whose answers reached the cache but (killed in between) not the label store: applied now,
    each example's labels saved only when the store does not hold them already. Returns how many."""
    rows = ledger.answered_requests(cache)
    if not rows:
        return 0
    cached = cache.get_many(r[3] for r in rows)
    if store is not None:
        missing = [
            (uid, cached[key].labels)
            for _, _, uid, key in rows
            if key in cached and store.judge.labels(uid) != cached[key].labels
        ]
        _save(store, missing)
    ledger.mark_applied(cache, [(file_id, line) for file_id, line, _, _ in rows])
    return len(rows)


def _save(store: JudgeLabelSink, items: list[tuple[str, Labels]]) -> None:
    if not items:
        return
    store.judge.save_many(items)


def _chunks(items: Iterable[OutputLine], size: int) -> Iterator[list[OutputLine]]:
    chunk: list[OutputLine] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def apply_lines(
    cache: JudgeCache,
    store: JudgeLabelSink | None,
    file: BatchFile,
    lines: Iterable[OutputLine],
    examples: ExampleLookup,
    report: CollectReport,
) -> None:
    """Validate and apply checked *lines* of one request file, chunk by chunk (see the module docstring)."""
    pending = (line for line in lines if line.request.state == ledger.PENDING)
    for part in _chunks(pending, APPLY_CHUNK):
        found = examples([line.request.example_uid for line in part])
        chunk = [judge_line(x, found.get(x.request.example_uid), file.model, file.prompt_version) for x in part]
        answers = [
            PendingAnswer(
                j.line.request.cache_key,
                file.model,
                file.endpoint,
                file.prompt_version,
                j.line.request.content_hash,
                j.line.request.example_uid,
                j.labels,
                j.raw or "",
                j.prompt_tokens,
                j.completion_tokens,
                None,
            )
            for j in chunk
            if j.labels is not None
        ]
        failed = [j for j in chunk if j.labels is None]
        failures = [
            PendingFailure(None, j.line.request.example_uid, j.line.request.cache_key, j.error or "", j.raw, 1)
            for j in failed
        ]
        changes = [
            (j.line.request.line, ledger.ANSWERED if j.labels is not None else ledger.FAILED, j.error) for j in chunk
        ]
        cache.put_many(answers, failures, also=lambda db, c=changes: ledger.mark(db, file.id, c))
        if store is not None:
            _save(store, [(a.example_uid, a.labels) for a in answers])
        done = [(j.line.request.line, ledger.APPLIED, None) for j in chunk if j.labels is not None]
        write(cache, lambda db, d=done: ledger.mark(db, file.id, d))  # type: ignore[misc]
        report.applied += len(answers)
        report.failures.extend(
            Failure(j.line.request.example_uid, f"{j.line.where} line {j.line.line}", j.error or "") for j in failed
        )


def _close_unanswered(cache: JudgeCache, file: BatchFile, record: BatchRecord, report: CollectReport) -> None:
    left = [r for r in ledger.file_requests(cache, file.id).values() if r.state == ledger.PENDING]
    error = f"batch {record.batch_id} ended {record.status} without answering it"
    write(cache, lambda db: ledger.mark(db, file.id, [(r.line, ledger.FAILED, error) for r in left]))
    report.failures.extend(Failure(r.example_uid, f"{file.local_path} line {r.line}", error) for r in left)


def refresh(settings: JudgeSettings, cache: JudgeCache, client: openai.OpenAI | None = None) -> list[BatchRecord]:
    """Every batch not collected yet, as the server sees it now (stored)."""
    records = [r for r in ledger.batch_records(cache) if r.collected_at is None]
    if not records:
        return []
    client = client or batch_client(settings)
    fresh = []
    for record in records:
        current = retrieve_batch(client, record.batch_id, record.file_id)
        ledger.update_batch(cache, current)
        fresh.append(current)
    return fresh


def collect(
    settings: JudgeSettings,
    cache: JudgeCache,
    store: JudgeLabelSink | None,
    examples_for: Callable[[BatchFile], ExampleLookup],
    client: openai.OpenAI | None = None,
) -> CollectReport:
    """Download, check, validate and apply every finished batch not collected yet (see the module docstring)."""
    report = CollectReport(recovered=finish_answered(cache, store))
    records = [r for r in ledger.batch_records(cache) if r.collected_at is None]
    if not records:
        return report
    client = client or batch_client(settings)
    files = {f.id: f for f in ledger.files(cache)}
    for record in records:
        record = retrieve_batch(client, record.batch_id, record.file_id)
        ledger.update_batch(cache, record)
        if record.status not in ledger.TERMINAL:
            report.waiting.append(record)
            continue
        file = files[record.file_id]
        requests = ledger.file_requests(cache, file.id)
        with ExitStack() as stack:
            parts: list[tuple[Path, str]] = []
            for remote_id, what in ((record.output_file_id, "output file"), (record.error_file_id, "error file")):
                if remote_id:
                    path = stack.enter_context(download(client, remote_id, what))
                    parts.append((path, f"batch {record.batch_id} {what} {remote_id}"))
            problems = check_output_files(parts, requests, file.prompt_version)
            if problems:
                report.problems.extend(problems)
                continue
            apply_lines(
                cache, store, file, output_lines(parts, requests, file.prompt_version), examples_for(file), report
            )
        _close_unanswered(cache, file, record, report)
        ledger.mark_collected(cache, record.batch_id)
        report.collected.append(record.batch_id)
    return report


def import_results(
    path: str | os.PathLike,
    cache: JudgeCache,
    store: JudgeLabelSink | None,
    examples_for: Callable[[BatchFile], ExampleLookup],
) -> CollectReport:
    """Read an offline runner's output file (``vllm run-batch``'s shape) against the request files written
    with ``--batch-file``: checked whole first, then applied as a collected batch is."""
    report = CollectReport(recovered=finish_answered(cache, store))
    offline = ledger.files(cache, (ledger.OFFLINE,))
    requests: dict[str, LedgerRequest] = {}
    for file in offline:  # the newest file that asked a custom_id owns it
        requests.update(ledger.file_requests(cache, file.id))
    versions = {f.prompt_version for f in offline}
    where = str(path)
    parts = [(Path(path), where)]
    version = next(iter(versions)) if len(versions) == 1 else ""
    report.problems.extend(check_output_files(parts, requests, version))
    if not offline:
        report.problems.append(LineProblem(where, 0, "no request file was written with --batch-file in this store"))
    if report.problems:
        return report
    by_file: dict[int, list[OutputLine]] = {}
    for line in output_lines(parts, requests, version):
        by_file.setdefault(line.request.file_id, []).append(line)
    files = {f.id: f for f in offline}
    for file_id, lines in by_file.items():
        apply_lines(cache, store, files[file_id], lines, examples_for(files[file_id]), report)
    return report


def cancel(
    settings: JudgeSettings, cache: JudgeCache, batch_id: str, client: openai.OpenAI | None = None
) -> BatchRecord:
    """Ask the server to cancel *batch_id* (its answers so far are collected as usual afterwards)."""
    record = next((r for r in ledger.batch_records(cache) if r.batch_id == batch_id), None)
    if record is None:
        raise KeyError(f"no batch {batch_id!r} in this store")
    current = cancel_batch(client or batch_client(settings), batch_id, record.file_id)
    ledger.update_batch(cache, current)
    return current
