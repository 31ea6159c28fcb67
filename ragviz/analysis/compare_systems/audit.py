"""The audit for a comparison (``ragviz audit draw --design paired``): questions drawn uniformly, both systems'
answers of each drawn question reviewed.

:func:`draw_paired` pairs the two systems' answers by question (:func:`ragviz.analysis.compare_systems.pairs.
pair_systems`; labels are not needed to draw), orders the questions both answered by the seeded hash of
:func:`ragviz.store.audit_samples.draw_order` and keeps the first *n*: a uniformly random *n*-subset of the questions.
The stored sample's members are A's and B's answer of each drawn question, one after the other in draw order, so the
Review page shows them side by side; each answer's inclusion probability is *n / Q* (Q the questions both answered).
Growing it (:func:`grow_paired`) appends the next questions of the same order. The estimate reads it as any sample:
a question is audited once both its answers are reviewed (:mod:`ragviz.analysis.compare_systems.difference`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragviz.analysis.audits.designs import PAIRED, DesignError
from ragviz.analysis.compare_systems.pairs import (
    DEFAULT_PAIR_BY,
    DEFAULT_SYSTEM,
    Answer,
    SystemPairs,
    column_values,
    pair_systems,
)
from ragviz.analysis.estimates.pairing import PairedExample
from ragviz.data.dataset import Dataset
from ragviz.store.audit_samples import AuditSample, SampleMember, draw_order, new_seed
from ragviz.store.label_store import LabelStore

__all__ = ["draw_paired", "grow_paired", "paired_members", "question_pairs"]


def question_pairs(
    dataset: Dataset,
    system: str = DEFAULT_SYSTEM,
    pair_by: str = DEFAULT_PAIR_BY,
    a: str | None = None,
    b: str | None = None,
) -> SystemPairs:
    """The two systems' answers of *dataset* paired by question on the columns alone (no labels read)."""
    systems = column_values(dataset, system, "--system")
    keys = column_values(dataset, pair_by, "--pair-by")
    within = system != "dataset_name"
    subsets, uids = dataset.datasets, dataset.uids
    paths, rows = dataset.table.column("_path").to_pylist(), dataset.table.column("_row").to_pylist()
    answers = [
        Answer(
            systems[i],
            f"{subsets[i]}/{keys[i]}" if within else keys[i],
            subsets[i],
            PairedExample(uids[i], subsets[i], "", {}, None, f"{paths[i] or ''}:{rows[i] or i + 1}"),
        )
        for i in range(len(dataset))
    ]
    return pair_systems(answers, a, b, system, pair_by, need_labels=False)


def paired_members(pairs: SystemPairs, n: int, seed: int) -> list[SampleMember]:
    """A's and B's answer of the first *n* questions of the seeded draw order (module docstring)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise DesignError(f"a paired sample needs a whole number of questions of at least 1, got {n!r}")
    total = len(pairs.pairs)
    if n > total:
        raise DesignError(f"{n:,} questions asked, but {pairs.a!r} and {pairs.b!r} answered only {total:,} in common")
    by_key = {p.question: p for p in pairs.pairs}
    share = n / total
    out: list[SampleMember] = []
    for key in draw_order(by_key, seed)[:n]:
        p = by_key[key]
        out += [SampleMember(p.a.uid, share), SampleMember(p.b.uid, share)]
    return out


def _params(pairs: SystemPairs, n: int) -> dict[str, Any]:
    return {
        "system": pairs.system,
        "pair_by": pairs.pair_by,
        "systems": [pairs.a, pairs.b],
        "questions": n,
        "population_questions": len(pairs.pairs),
    }


def draw_paired(
    store: LabelStore,
    dataset: Dataset,
    n: int,
    annotator: str,
    seed: int | None = None,
    system: str = DEFAULT_SYSTEM,
    pair_by: str = DEFAULT_PAIR_BY,
    systems: Sequence[str] | None = None,
) -> AuditSample:
    """Draw and store a paired sample of *n* questions (module docstring); *systems* the two to compare (``None``:
    the two the data has)."""
    a, b = (None, None) if not systems else (systems[0], systems[1])
    pairs = question_pairs(dataset, system, pair_by, a, b)
    seed = new_seed() if seed is None else int(seed)
    members = paired_members(pairs, n, seed)
    return store.audits.save_designed_sample(dataset.uids, members, PAIRED, _params(pairs, n), annotator, seed)


def grow_paired(store: LabelStore, dataset: Dataset, sample: AuditSample, n: int, annotator: str) -> AuditSample:
    """Grow a paired *sample* to *n* questions: the next questions of its own order (same seed, systems, columns)."""
    p = sample.params
    if n <= int(p.get("questions", 0)):
        return sample
    pairs = question_pairs(dataset, p["system"], p["pair_by"], *p["systems"])
    members = paired_members(pairs, n, sample.seed)
    return store.audits.extend_designed_sample(sample.id, dataset.uids, members, _params(pairs, n), annotator)
