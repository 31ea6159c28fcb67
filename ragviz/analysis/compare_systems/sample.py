"""A comparison read from the label store: the one path of the Dashboard's Compare-systems view, the Explainer's
plain words and the stakeholder report's first section (``ragviz estimate --compare --db`` pairs the same way), so
all of them show the same figures.

:func:`compare_sample` pairs the judge with people's labels on an audit sample's reviewed members
(:func:`ragviz.analysis.estimates.pairing.pair_store`), pairs the two systems' answers by question and corrects the
differences (:func:`ragviz.analysis.compare_systems.difference.compare_report`). :func:`compare_sample_of` picks the
sample: the newest paired one drawn from the loaded examples, else the one every other estimate uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ragviz.analysis.audits.designs import PAIRED
from ragviz.analysis.compare_systems.difference import CompareReport, compare_report
from ragviz.analysis.compare_systems.pairs import (
    DEFAULT_PAIR_BY,
    DEFAULT_SYSTEM,
    SystemPairs,
    column_answers,
    pair_systems,
)
from ragviz.analysis.estimates.pairing import Pairing, pair_export, pair_store
from ragviz.analysis.estimates.ppi import BOOTSTRAP_T
from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.data.dataset import Dataset
from ragviz.data.model import Example
from ragviz.store.audit_samples import AuditSample, default_sample

__all__ = ["compare_sample", "compare_sample_of", "two_systems"]


def two_systems(dataset: Dataset, system: str = DEFAULT_SYSTEM) -> list[str]:
    """The systems of *dataset* (values of *system*, first seen first) when there are at least two, else ``[]``:
    whether the Compare-systems view and the report's comparison show at all."""
    if system not in dataset.table.column_names:
        return []
    values = dataset.generation_models if system == DEFAULT_SYSTEM else dataset.table.column(system).to_pylist()
    found = list(dict.fromkeys(str(v) for v in values if v not in (None, "")))
    return found if len(found) >= 2 else []


def compare_sample_of(store: Any, dataset: Dataset, drawn: Sequence[AuditSample] | None = None) -> AuditSample | None:
    """The newest paired sample drawn from *dataset*'s examples, else the team's (or newest) sample; ``None``.
    *drawn*: the samples drawn from *dataset*'s examples when the caller has them (``store.audits.list_samples``
    fingerprints every uid: the report asks once for all its sections)."""
    if drawn is None:
        drawn = store.audits.list_samples(dataset.uids)
    paired = [s for s in drawn if s.design == PAIRED]
    if paired:
        return max(paired, key=lambda s: s.id)
    return default_sample(drawn, store.audits.team_choice())


def compare_sample(
    dataset: Dataset,
    store: Any,
    sample: AuditSample | None,
    against: LabelSelection = HUMAN,
    systems: Sequence[str] | None = None,
    system: str | None = None,
    pair_by: str | None = None,
    alpha: float = 0.05,
    interval: str = BOOTSTRAP_T,
    examples: Mapping[int, Example] | None = None,
    scores: Mapping[str, np.ndarray] | None = None,
    pairing: Pairing | None = None,
) -> tuple[SystemPairs, CompareReport]:
    """B − A of *dataset*'s two systems (*systems*, else a paired sample's, else the two the data has) corrected by
    *sample*'s reviewed members under the *against* labels (*store* ``None``: the labels in the files); the system and question columns are the paired sample's
    unless given (module docstring). :class:`ragviz.analysis.compare_systems.pairs.CompareError` in one line when the
    systems cannot be compared. *examples* and *scores*: the examples built and the rows' own TRACe, when the caller
    has them (:func:`ragviz.analysis.estimates.pairing.pair_store`); *pairing*: the one :func:`pair_store` gives for
    *sample*'s members, when the caller has it."""
    params = sample.params if sample is not None and sample.design == PAIRED else {}
    system = system or params.get("system") or DEFAULT_SYSTEM
    pair_by = pair_by or params.get("pair_by") or DEFAULT_PAIR_BY
    chosen = list(systems or params.get("systems") or [None, None])
    if pairing is None and store is None:  # the labels in the files alone: a ragviz export's people's rows, else the
        pairing = pair_export(dataset, scores=scores)  # judge's only
    elif pairing is None:
        members = sample.members if sample is not None else None
        pairing = pair_store(dataset, store, members, against, examples=examples, scores=scores)
    pairs = pair_systems(column_answers(dataset, pairing, system, pair_by), chosen[0], chosen[1], system, pair_by)
    pairs.warnings.extend(pairing.warnings)
    if sample is not None and sample.design not in ("uniform", PAIRED):
        pairs.warnings.append(
            f"audit sample {sample.id} is {sample.design}: its reviewed pairs are read as a uniform sample of "
            "questions, which they are not; draw a paired sample for a comparison (ragviz audit draw --design paired)"
        )
    return pairs, compare_report(pairs, alpha, interval)
