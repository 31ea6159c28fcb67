"""Pairing RagChecker items for corrected estimates of the claim metrics.

A RagChecker checking output is a judge's work: an LLM extracted the claims and labelled each one
against the answer, the response and every retrieved chunk. People correct those labels on the
Claims page (:mod:`ragviz.data.claim_overrides`). An audit is a uniformly random sample of the
file's items (:meth:`ragviz.store.audit_samples.AuditSamples.draw_sample` over their uids); its members a person
marked reviewed carry people's labels. Each item becomes a
:class:`~ragviz.analysis.estimates.pairing.PairedExample` whose values are its 11 RagChecker
metrics (:func:`ragviz.metrics.ragchecker.item_scores`) under the file's labels and, when audited,
under the person's; :func:`ragviz.analysis.estimates.report.estimate_report` then corrects the
file's means as it corrects TRACe. Nothing here computes a metric.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path

from ragviz.analysis.claims import current_items, item_uids
from ragviz.analysis.estimates.pairing import AuditError, PairedExample, Pairing
from ragviz.data.checked_claims import CheckedItem
from ragviz.data.claim_overrides import claim_uid
from ragviz.data.formats.ragchecker import RagCheckerFormatError, read_ragchecker
from ragviz.metrics.ragchecker import item_scores
from ragviz.store.label_store import LabelStore

__all__ = ["pair_claims", "pair_claims_store"]


def pair_claims(
    file_name: str,
    originals: Sequence[CheckedItem],
    currents: Sequence[CheckedItem],
    audited: Collection[str],
) -> Pairing:
    """Every item of the checking output *file_name* once: its metrics under the file's labels
    (*originals*) and, for the uids in *audited* (reviewed members of an audit sample), under
    people's labels (*currents*, the same items with a person's overrides folded in, in the same
    order). An item counts as audited by being reviewed, changed or not: accepting the judge's
    labels is a person's label too."""
    if len(originals) != len(currents):
        raise ValueError(f"{len(originals)} items from the file but {len(currents)} with people's labels")
    audited = set(audited)
    warnings = []
    examples = []
    for original, current in zip(originals, currents):
        uid = claim_uid(file_name, original.query_id)
        judge = item_scores(original).as_dict()
        human = item_scores(current).as_dict() if uid in audited else None
        examples.append(PairedExample(uid, original.dataset, "", judge, human, f"{file_name}:{original.row}"))
    if not any(e.audited for e in examples):
        warnings.append(f"no reviewed member of an audit sample among the {len(examples):,} items of {file_name}")
    return Pairing(examples, warnings)


def pair_claims_store(
    path: str, store: LabelStore, sample_id: int | None = None, annotator: str | None = None
) -> Pairing:
    """:func:`pair_claims` of the RagChecker checking output at *path* over the label store: the
    audit sample drawn from the file's items on the Claims page (*sample_id*, else the newest) and
    the labels of *annotator* (else of the one person who reviewed members of it). Raises
    :class:`~ragviz.analysis.estimates.pairing.AuditError` naming the file and what to do."""
    try:
        loaded = read_ragchecker(path)
    except RagCheckerFormatError as exc:
        raise AuditError(
            str(exc.problems[0]) if exc.problems else f"{path}: not a RagChecker checking output"
        ) from None
    file_name = Path(path).name
    uids = item_uids(loaded.items, file_name)
    drawn = store.audits.list_samples(uids)
    if sample_id is not None:
        sample = store.audits.get_sample(sample_id)
        if sample is None or sample not in drawn:
            raise AuditError(f"{path}: audit sample {sample_id} was not drawn from this file's {len(uids):,} items")
    elif drawn:
        sample = drawn[0]
    else:
        raise AuditError(
            f"{path}: no audit sample of this file's items in {store.location} (draw one on the Claims page)"
        )
    members = set(sample.members)
    if annotator is None:
        reviewers = sorted(a for a in store.annotators() if members & store.reviewed_uids(a))
        if len(reviewers) > 1:
            raise AuditError(
                f"{path}: {', '.join(reviewers)} reviewed items of audit sample {sample.id}: choose one with --annotator"
            )
        annotator = reviewers[0] if reviewers else ""
    currents, problems = current_items(loaded.items, file_name, store, annotator)
    pairing = pair_claims(file_name, loaded.items, currents, members & store.reviewed_uids(annotator))
    pairing.warnings[:0] = [*(str(w) for w in loaded.warnings), *problems]
    return pairing
