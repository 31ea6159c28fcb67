"""Drawing and growing designed audit samples over a loaded dataset: the one place the Review page and
``ragviz audit draw`` call, so both draw the same sample from the same seed.

The strata come from a column of the data (:func:`strata_of`: ``dataset_name`` / ``subset``, ``generation_model_name``
or any other column); the judge's confidence per example from a numeric column in 0-1 (:func:`confidence_of`,
default :data:`CONFIDENCE_COLUMN`: the chance the judge is right on that example). A missing column or a row
without a value is refused with the column, the count and the first rows named.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ragviz.analysis.audits.allocation import NEYMAN, spread_from_confidence
from ragviz.analysis.audits.designs import (
    ACTIVE,
    DEFAULT_FLOOR,
    DESIGNS,
    STRATIFIED,
    UNIFORM,
    DesignedDraw,
    DesignError,
    active_draw,
    stratified_draw,
    uniform_draw,
)
from ragviz.data.dataset import Dataset
from ragviz.store.audit_samples import (
    AuditSample,
    draw_sample,
    extend_designed_sample,
    grow_sample,
    new_seed,
    save_designed_sample,
)
from ragviz.store.label_store import LabelStore

__all__ = ["CONFIDENCE_COLUMN", "SUBSET_COLUMNS", "confidence_of", "draw_design", "grow_design", "strata_of"]


CONFIDENCE_COLUMN = "judge_confidence"
SUBSET_COLUMNS = ("dataset_name", "subset")


def _where(dataset: Dataset, rows: list[int]) -> str:
    paths, at = dataset.table.column("_path").to_pylist(), dataset.table.column("_row").to_pylist()
    return ", ".join(f"{paths[r] or ''}:{at[r] or r + 1}" for r in rows[:3]) + (" ..." if len(rows) > 3 else "")


def strata_of(dataset: Dataset, column: str) -> dict[str, str]:
    """uid -> its stratum: the value of *column* (``dataset_name`` / ``subset``: the subset, with the fallback
    :attr:`ragviz.data.dataset.Dataset.datasets` uses)."""
    if column in SUBSET_COLUMNS:
        values: list[Any] = dataset.datasets
    elif column == "generation_model_name":
        values = dataset.generation_models
    elif column in dataset.table.column_names:
        values = dataset.table.column(column).to_pylist()
    else:
        shown = ", ".join(c for c in dataset.table.column_names if not c.startswith("_"))
        raise DesignError(f"no column {column!r} to stratify by in the data (columns: {shown})")
    empty = [i for i, v in enumerate(values) if v is None or v == ""]
    if empty:
        raise DesignError(
            f"column {column!r} is empty on {len(empty):,} rows ({_where(dataset, empty)}): fill it or stratify by "
            "another column"
        )
    return dict(zip(dataset.uids, (str(v) for v in values)))


def confidence_of(dataset: Dataset, column: str = CONFIDENCE_COLUMN) -> dict[str, float]:
    """uid -> the judge's confidence on it (0-1) from *column*; :class:`DesignError` naming the rows without one."""
    if column not in dataset.table.column_names:
        raise DesignError(
            f"no judge confidence column {column!r} in the data: the active design and Neyman allocation from "
            "confidence need one (a number 0-1 per row: the chance the judge is right); name it with --confidence "
            "COLUMN, or draw a uniform or proportional stratified sample"
        )
    values = dataset.table.column(column).to_pylist()
    bad = [i for i, v in enumerate(values) if not isinstance(v, (int, float)) or not 0 <= float(v) <= 1]
    if bad:
        raise DesignError(
            f"column {column!r} has no confidence in 0-1 on {len(bad):,} rows ({_where(dataset, bad)}): give one on "
            "every row (the judge's chance of being right), or draw a uniform or stratified sample"
        )
    return {uid: float(v) for uid, v in zip(dataset.uids, values) if v is not None}


def _draw(
    dataset: Dataset,
    design: str,
    n: int,
    seed: int,
    by: str | None,
    allocation: str,
    confidence_column: str,
    floor: float,
    current: dict[str, int] | None = None,
) -> DesignedDraw:
    if design not in DESIGNS:
        raise DesignError(f"unknown design {design!r}; expected one of {', '.join(DESIGNS)}")
    uids = dataset.uids
    if design == UNIFORM:
        return uniform_draw(uids, n, seed)
    if design == STRATIFIED:
        if not by:
            raise DesignError("a stratified sample needs a column to stratify by (--by COLUMN, e.g. dataset_name)")
        strata = strata_of(dataset, by)
        spreads = None
        if allocation == NEYMAN:
            conf = confidence_of(dataset, confidence_column)
            spreads = spread_from_confidence(np.array([conf[u] for u in uids]), np.array([strata[u] for u in uids]))
        drawn = stratified_draw(uids, strata, n, seed, allocation, spreads, current)
        drawn.params["by"] = by
        if spreads is not None:
            drawn.params["confidence"] = confidence_column
        return drawn
    drawn = active_draw(uids, confidence_of(dataset, confidence_column), n, seed, floor)
    drawn.params["confidence"] = confidence_column
    return drawn


def draw_design(
    store: LabelStore,
    dataset: Dataset,
    design: str,
    n: int,
    annotator: str,
    seed: int | None = None,
    by: str | None = None,
    allocation: str = "proportional",
    confidence_column: str = CONFIDENCE_COLUMN,
    floor: float = DEFAULT_FLOOR,
) -> AuditSample:
    """Draw and store an audit sample of *design* (:data:`ragviz.analysis.audits.designs.DESIGNS`) over the
    dataset's examples: *n* examples (active: *n* on average), reproducible from *seed* (fresh when ``None``)."""
    seed = new_seed() if seed is None else int(seed)
    if design == UNIFORM:
        return draw_sample(store, dataset.uids, n, annotator, seed)
    drawn = _draw(dataset, design, n, seed, by, allocation, confidence_column, floor)
    return save_designed_sample(store, dataset.uids, drawn.members, design, drawn.params, annotator, seed)


def grow_design(store: LabelStore, dataset: Dataset, sample: AuditSample, n: int, annotator: str) -> AuditSample:
    """Grow *sample* to *n* (active: a budget of *n*) with its own design, seed, column and confidence."""
    if sample.design == UNIFORM:
        return grow_sample(store, sample.id, dataset.uids, n, annotator)
    params = sample.params
    if sample.design == ACTIVE and n <= int(params.get("budget", 0)):
        return sample
    if sample.design == STRATIFIED and n <= sample.size:
        return sample
    drawn = _draw(
        dataset,
        sample.design,
        n,
        sample.seed,
        params.get("by"),
        params.get("allocation", "proportional"),
        params.get("confidence", CONFIDENCE_COLUMN),
        float(params.get("floor", DEFAULT_FLOOR)),
        params.get("counts"),
    )
    return extend_designed_sample(store, sample.id, dataset.uids, drawn.members, drawn.params, annotator)
