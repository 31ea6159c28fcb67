"""``ragviz push langfuse``: the reviewed examples' scores (:func:`~ragviz.export.traces.langfuse.langfuse_scores`)
sent once, like the Phoenix push: skipped when the ledger holds the same fingerprint for this URL, sent 50 examples
a request, an example recorded once Langfuse accepted all of its scores. A request Langfuse answers with
rejections (HTTP 207) is re-sent one example at a time to name the examples refused (re-sent scores replace
themselves: their ids are fixed)."""

from __future__ import annotations

from collections.abc import Callable

from ragviz.analysis.labelsets.selection import Whose
from ragviz.data.dataset import Dataset
from ragviz.export.rows import exported_examples
from ragviz.export.traces.annotations import REVIEWED
from ragviz.export.traces.langfuse import LangfuseScores, langfuse_errors, langfuse_scores, send_scores
from ragviz.export.traces.push import PushReport
from ragviz.store.label_store import LabelStore
from ragviz.store.trace_pushes import PushRecord, normal_url, pushed_fingerprints, record_pushes

__all__ = ["BATCH", "TARGET", "push_langfuse"]

TARGET = "langfuse"
BATCH = 50


def _record(item: LangfuseScores) -> PushRecord:
    return PushRecord(item.uid, item.identifier, item.fingerprint, tuple(s["id"] for s in item.scores))


def push_langfuse(
    dataset: Dataset,
    store: LabelStore,
    url: str,
    whose: Whose,
    api: object,
    progress: Callable[[int, int], None] | None = None,
    batch_size: int = BATCH,
) -> PushReport:
    """Push *whose* labels of the reviewed examples of *dataset* to the Langfuse at *url* (*api*: its ``LangfuseAPI``).
    ``span_annotations`` of the report counts the scores sent."""
    url = normal_url(url)
    done = pushed_fingerprints(store, TARGET, url)
    report = PushReport()
    todo: list[LangfuseScores] = []
    for exported in exported_examples(dataset, store, whose):
        made = langfuse_scores(exported)
        if isinstance(made, str):
            report.not_from_traces += made.startswith("not from a trace") and exported.label_source in REVIEWED
        elif done.get((made.uid, made.identifier)) == made.fingerprint:
            report.unchanged += 1
        else:
            todo.append(made)
    with langfuse_errors(url):
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            taken = batch
            if send_scores(api, [s for item in batch for s in item.scores]):  # type: ignore[arg-type]
                taken = []
                for item in batch:
                    errors = send_scores(api, item.scores)  # type: ignore[arg-type]
                    if errors:
                        report.refused.append(f"{item.example_id}: Langfuse rejected its scores: {'; '.join(errors)}")
                    else:
                        taken.append(item)
            record_pushes(store, TARGET, url, [_record(item) for item in taken])
            report.pushed += len(taken)
            report.span_annotations += sum(len(item.scores) for item in taken)
            _ = progress and progress(min(start + batch_size, len(todo)), len(todo))
    return report
