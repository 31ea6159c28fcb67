"""``ragviz push phoenix``: people's labels of examples imported from traces, sent back to Phoenix once.

Per reviewed example (:mod:`~ragviz.export.traces.annotations` says what it sends): skipped when the ledger
(:mod:`ragviz.store.trace_pushes`) holds the same fingerprint for this URL (nothing changed since); refused, named,
when its retriever span is gone or its documents differ from the ones imported; else sent in batches with
``sync=true`` (an unknown span is a 404 Phoenix reports, never a silent drop: the batch is re-sent without that
example, which is refused by name). An example is recorded once Phoenix took all of its annotations, so a push
that fails halfway is finished by running it again, and Phoenix's upserts (span annotations on name, span and
identifier; document annotations on name, span and position) mean nothing is doubled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ragviz.analysis.labelsets.selection import Whose
from ragviz.data.dataset import Dataset
from ragviz.data.formats.openinference import span_documents
from ragviz.export.rows import exported_examples
from ragviz.export.traces.annotations import REVIEWED, PhoenixAnnotations, phoenix_annotations
from ragviz.export.traces.phoenix import (
    MissingSpans,
    log_document_annotations,
    log_span_annotations,
    phoenix_client,
    phoenix_errors,
    spans_by_id,
)
from ragviz.store.label_store import LabelStore
from ragviz.store.trace_pushes import PushRecord, normal_url, pushed_fingerprints, record_pushes

__all__ = ["BATCH", "TARGET", "WORKERS", "PushReport", "plan_push", "push_phoenix"]

TARGET = "phoenix"
#: Examples sent per request pair (span annotations, then document annotations).
BATCH = 50
#: Request pairs in flight at once (Phoenix writes each annotation on its own; requests overlap its other work).
WORKERS = 4
Progress = Callable[[int, int], None]


@dataclass
class PushReport:
    """What a push did: examples sent, annotations written, examples unchanged since the last push, reviewed
    examples not from a trace, and the refused ones (``example id: why``)."""

    pushed: int = 0
    span_annotations: int = 0
    document_annotations: int = 0
    unchanged: int = 0
    not_from_traces: int = 0
    refused: list[str] = field(default_factory=list)


def plan_push(
    dataset: Dataset, store: LabelStore, whose: Whose, url: str, documents_kind: str = "HUMAN"
) -> tuple[list[PhoenixAnnotations], PushReport]:
    """The reviewed examples' annotations that differ from what the ledger says was pushed to *url*."""
    done = pushed_fingerprints(store, TARGET, url)
    report = PushReport()
    todo: list[PhoenixAnnotations] = []
    for item in exported_examples(dataset, store, whose):
        made = phoenix_annotations(item, documents_kind)
        if isinstance(made, str):
            if made.startswith("not from a trace") and item.label_source in REVIEWED:
                report.not_from_traces += 1
            continue
        if done.get((made.uid, made.identifier)) == made.fingerprint:
            report.unchanged += 1
            continue
        todo.append(made)
    return todo, report


def _changed(
    todo: Sequence[PhoenixAnnotations], url: str, api_key: str | None, report: PushReport
) -> list[PhoenixAnnotations]:
    """*todo* without the examples whose retriever span is gone or whose documents changed (refused, named)."""
    by_project: dict[str, list[PhoenixAnnotations]] = {}
    for a in todo:
        by_project.setdefault(a.project or "default", []).append(a)
    keep: list[PhoenixAnnotations] = []
    for project, items in by_project.items():
        found = spans_by_id(url, project, [a.retriever_span_id for a in items], api_key)
        for a in items:
            span = found.get(a.retriever_span_id)
            if span is None:
                report.refused.append(
                    f"{a.example_id}: retriever span {a.retriever_span_id} not found in project {project!r}"
                )
                continue
            now = span_documents(span)
            if isinstance(now, str) or tuple(now[0]) != a.documents:
                report.refused.append(
                    f"{a.example_id}: the trace's documents changed since the import (span {a.retriever_span_id}): "
                    "import it again and review it anew"
                )
                continue
            keep.append(a)
    return keep


def _send(client: object, batch: list[PhoenixAnnotations], report: PushReport) -> tuple[list[PushRecord], int, int]:
    """Send one batch; examples on spans Phoenix does not know are refused (appended to *report*) and the rest
    re-sent. The records of the examples Phoenix took, and how many span and document annotations it wrote."""
    while batch:
        try:
            span_ids = log_span_annotations(client, [x for a in batch for x in a.span_annotations])  # type: ignore[arg-type]
            doc_ids = log_document_annotations(client, [x for a in batch for x in a.document_annotations])  # type: ignore[arg-type]
        except MissingSpans as exc:
            gone = [a for a in batch if {a.response_span_id, a.retriever_span_id} & exc.span_ids]
            for a in gone:
                report.refused.append(
                    f"{a.example_id}: Phoenix has no span {', '.join(sorted(exc.span_ids))} (HTTP 404)"
                )
            batch = [a for a in batch if a not in gone]
            if not gone:
                raise
            continue
        records = []
        s = d = 0
        for a in batch:
            ids = (*span_ids[s : s + len(a.span_annotations)], *doc_ids[d : d + len(a.document_annotations)])
            s, d = s + len(a.span_annotations), d + len(a.document_annotations)
            records.append(PushRecord(a.uid, a.identifier, a.fingerprint, tuple(ids)))
        return records, len(span_ids), len(doc_ids)
    return [], 0, 0


def push_phoenix(
    dataset: Dataset,
    store: LabelStore,
    url: str,
    whose: Whose,
    api_key: str | None = None,
    documents_kind: str = "HUMAN",
    progress: Progress | None = None,
    batch_size: int = BATCH,
    workers: int = WORKERS,
) -> PushReport:
    """Push the reviewed examples of *dataset* (*whose* labels: one annotator's, the team's or the gold) to the Phoenix at
    *url*; each batch recorded in *store* as soon as Phoenix took it. Failures raise one-line BadInput."""
    url = normal_url(url)
    todo, report = plan_push(dataset, store, whose, url, documents_kind)
    if not todo:
        return report
    client = phoenix_client(url, api_key)
    with phoenix_errors(url):
        todo = _changed(todo, url, api_key, report)
        _ = progress and progress(0, len(todo))
        batches = [todo[i : i + batch_size] for i in range(0, len(todo), batch_size)]
        done = 0
        with ThreadPoolExecutor(max(1, workers)) as pool:
            sent = pool.map(lambda batch: _send(client, batch, report), batches)
            for batch, (records, n_span, n_documents) in zip(batches, sent):
                record_pushes(store, TARGET, url, records)  # in order: a failure leaves the batches before it recorded
                report.pushed += len(records)
                report.span_annotations += n_span
                report.document_annotations += n_documents
                done += len(batch)
                _ = progress and progress(done, len(todo))
    return report
