"""A label store with a reviewed audit sample, for the report tests and benchmarks/bench_report.py: the audit is
drawn and reviewed the way the Review page does it (``store.audits.draw_sample``, ``LabelStore.record``)."""

from __future__ import annotations

from ragviz.analysis.review.edits import support_change
from ragviz.data.dataset import Dataset, examples_at
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, field_value
from ragviz.store.audit_samples import AuditSample
from ragviz.store.label_store import LabelStore


def review_audit(
    store: LabelStore,
    dataset: Dataset,
    size: int,
    reviewed: int,
    annotators: tuple[str, ...] = ("ana", "ben"),
    seed: int = 7,
) -> AuditSample:
    """Draw an audit sample of *size* and review its first *reviewed* members in draw order: every third one
    people find an answer sentence the judge called supported unsupported, every fifth they take a relevant
    sentence away; the rest they accept as the judge labelled them."""
    sample = store.audits.draw_sample(dataset.uids, size, annotators[0], seed=seed)
    rows = [dataset.index_of(uid) for uid in sample.members[:reviewed]]
    built = examples_at(dataset, [r for r in rows if r is not None])
    for k, row in enumerate(rows):
        assert row is not None
        ex = built[row]
        who = annotators[k % len(annotators)]
        labels = store.current_labels(ex, who)
        changes = []
        if labels is not None and k % 3 == 0 and ex.response_keys():
            changes.append(support_change(labels, ex.response_keys()[0], False))
        if labels is not None and k % 5 == 1 and labels.relevant_keys:
            old = field_value(labels, "relevant_keys")
            changes.append(Change("relevant_keys", old, list(labels.relevant_keys[1:])))
        store.record(ex.uid, who, [*changes, Change(REVIEW_FIELD, None, REVIEWED)], example=ex)
    return sample
