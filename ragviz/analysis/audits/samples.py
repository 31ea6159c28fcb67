"""Drawing and growing designed audit samples over a loaded dataset: the one place the Review page and
``ragviz audit draw`` call, so both draw the same sample from the same seed.

:func:`draw_design` and :func:`grow_design` draw and grow a sample; the strata come from a column of the data
(:func:`strata_of`), the judge's confidence from another (:func:`confidence_of`), and a pilot's reviews give Neyman
allocation its spreads (:func:`pilot_spreads`) and an active design its calibration (:func:`pilot_calibration`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ragviz.analysis.audits.allocation import NEYMAN, AllocationError, spread_from_confidence, spread_from_pilot
from ragviz.analysis.audits.calibration import Calibration, CalibrationError, calibrate, calibrated_spread
from ragviz.analysis.audits.designs import (
    ACTIVE,
    DEFAULT_FLOOR,
    DESIGNS,
    PAIRED,
    SALTS,
    STRATIFIED,
    UNIFORM,
    DesignedDraw,
    DesignError,
    active_draw,
    stratified_draw,
    uniform_draw,
)
from ragviz.analysis.audits.floor_tuning import FloorChoice, pilot_floor
from ragviz.analysis.audits.judge_confidence import with_judge_confidence
from ragviz.analysis.estimates.pairing import Pairing, pair_store
from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.data.dataset import Dataset
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.store.audit_samples import AuditSample, new_seed
from ragviz.store.judge_confidence import confidence_column
from ragviz.store.label_store import LabelStore

__all__ = [
    "CONFIDENCE_COLUMN",
    "SUBSET_COLUMNS",
    "confidence_of",
    "draw_design",
    "grow_design",
    "pilot_calibration",
    "pilot_spreads",
    "strata_of",
]


CONFIDENCE_COLUMN = "judge_confidence"
SUBSET_COLUMNS = ("dataset_name", "subset")


def _where(dataset: Dataset, rows: list[int]) -> str:
    paths, at = dataset.table.column("_path").to_pylist(), dataset.table.column("_row").to_pylist()
    return ", ".join(f"{paths[r] or ''}:{at[r] or r + 1}" for r in rows[:3]) + (" ..." if len(rows) > 3 else "")


def strata_of(dataset: Dataset, column: str) -> dict[str, str]:
    """uid -> its stratum: the value of *column* (``dataset_name`` / ``subset``: the subset, with the fallback
    :attr:`ragviz.data.dataset.Dataset.datasets` uses; ``generation_model_name`` or any other column). A missing
    column or a row without a value is refused with the column, the count and the first rows named."""
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
    """uid -> the judge's confidence on it (0-1) from *column* (default :data:`CONFIDENCE_COLUMN`: the chance the
    judge is right on that example); :class:`DesignError` naming the column, the count and the first rows without
    one, or the column when the data has none."""
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


def pilot_spreads(
    dataset: Dataset, store: LabelStore, pilot: AuditSample, by: str, metric: str, against: LabelSelection = HUMAN
) -> dict[str, float]:
    """Each stratum's :math:`S_h` for Neyman allocation from a pilot: the spread of people's *metric* minus the
    judge's over the reviewed members of *pilot* in that stratum (:func:`spread_from_pilot`); :class:`DesignError`
    naming the strata with fewer than two reviewed pilot members, or a metric neither side has."""

    strata = strata_of(dataset, by)
    pairing = pair_store(dataset, store, pilot.members, against)
    y, f, keys = [], [], []
    for e in pairing.examples:
        person, judged = (e.human or {}).get(metric), e.judge.get(metric)
        if e.audited and person is not None and judged is not None:
            y.append(float(person))
            f.append(float(judged))
            keys.append(strata[e.uid])
    if not y:
        raise DesignError(
            f"pilot sample {pilot.id} has no reviewed member with {metric!r} on both the judge's and people's side: "
            "review some of its members, or allocate from the judge's confidence"
        )
    try:
        return spread_from_pilot(y, f, keys, sorted(set(strata.values())))
    except AllocationError as exc:
        raise DesignError(f"pilot sample {pilot.id} by {by!r}: {exc}") from None


def _metric_confidence(dataset: Dataset, metric: str, fallback: str) -> dict[str, float]:
    column = confidence_column(metric)
    if column in dataset.table.column_names and not dataset.table.column(column).null_count:
        return confidence_of(dataset, column)
    return confidence_of(dataset, fallback)


Judged = Mapping[str, Mapping[str, float | None]]  # uid -> the judge's TRACe values


def _judged(pairing: Pairing) -> Judged:
    return {e.uid: e.judge for e in pairing.examples}


def pilot_calibration(
    dataset: Dataset, pairing: Pairing, pilot_id: int, confidence: str = CONFIDENCE_COLUMN
) -> Calibration:
    """The active design's :class:`ragviz.analysis.audits.calibration.Calibration` from the reviewed members of
    a pilot (*pairing*: :func:`ragviz.analysis.estimates.pairing.pair_store` over its members): per TRACe metric
    people's and the judge's values and the judge's confidence in that metric (the column
    ``judge_confidence_<metric>`` where the data has one on every row, else *confidence*), each metric's spread
    against that confidence; :class:`DesignError` when too few members are reviewed."""
    rows: dict[str, tuple[list[float], list[float], list[float]]] = {}
    for metric in TRACE_METRICS:
        conf = _metric_confidence(dataset, metric, confidence)
        y, f, c = [], [], []
        for e in pairing.examples:
            person, judged = (e.human or {}).get(metric), e.judge.get(metric)
            if e.audited and person is not None and judged is not None and e.uid in conf:
                y.append(float(person))
                f.append(float(judged))
                c.append(conf[e.uid])
        if y:
            rows[metric] = (y, f, c)
    try:
        return calibrate(rows)
    except CalibrationError as exc:
        raise DesignError(f"pilot sample {pilot_id}: {exc}") from None


def _calibrated(
    dataset: Dataset,
    judged: Judged,
    calibration: Calibration,
    confidence: str,
    floor_from: Judged | None = None,
    budget: int = 0,
    base: float = 0.0,
) -> tuple[dict[str, float], FloorChoice | None]:
    """Every example's calibrated spread, and with *floor_from* (people's values on the pilot) the floor for a draw of
    *budget* chosen from the pilot (:func:`ragviz.analysis.audits.floor_tuning.pilot_floor`; ``None`` without)."""
    uids = dataset.uids
    per_metric, judge_values = {}, {}
    for metric in calibration.terms:
        conf = _metric_confidence(dataset, metric, confidence)
        per_metric[metric] = np.array([conf[u] for u in uids])
        values = np.array([judged.get(u, {}).get(metric) for u in uids], dtype=float)  # None -> nan
        known = values[np.isfinite(values)]
        judge_values[metric] = np.where(np.isfinite(values), values, known.mean() if known.size else 0.0)
    spread = dict(zip(uids, calibrated_spread(calibration, per_metric, judge_values).tolist()))
    if floor_from is None:
        return spread, None
    people = {m: np.array([floor_from.get(u, {}).get(m) for u in uids], dtype=float) for m in calibration.terms}
    return spread, pilot_floor(people, per_metric, judge_values, float(budget), base=base)


def _draw(
    dataset: Dataset,
    design: str,
    n: int,
    seed: int,
    by: str | None,
    allocation: str,
    confidence_column: str,
    floor: float | None,
    current: dict[str, int] | None = None,
    spreads: dict[str, float] | None = None,
    calibration: Calibration | None = None,
    judged: Judged | None = None,
    pilot_members: Sequence[str] = (),
    salt: str | None = None,
    people: Judged | None = None,
    base: float = 0.0,
) -> DesignedDraw:
    """*salt*: the ranking's (:data:`ragviz.analysis.audits.designs.SALTS`, the design's own when ``None``; a
    sample grown keeps the salt it was drawn with, ``""`` for one drawn before salts). *floor* ``None``: calibrated,
    chosen from the pilot's reviews *people*; else :data:`ragviz.analysis.audits.designs.DEFAULT_FLOOR`. *base*: the
    chance a uniform pilot gave every example, which a calibrated draw tops up (:mod:`ragviz.analysis.audits.topup`)."""
    if design not in DESIGNS:
        raise DesignError(f"unknown design {design!r}; expected one of {', '.join(DESIGNS)}")
    uids = dataset.uids
    if design == UNIFORM:
        return uniform_draw(uids, n, seed)
    if design == STRATIFIED:
        if not by:
            raise DesignError("a stratified sample needs a column to stratify by (--by COLUMN, e.g. dataset_name)")
        strata = strata_of(dataset, by)
        from_confidence = allocation == NEYMAN and spreads is None
        if from_confidence:
            conf = confidence_of(dataset, confidence_column)
            spreads = spread_from_confidence(np.array([conf[u] for u in uids]), np.array([strata[u] for u in uids]))
        drawn = stratified_draw(
            uids, strata, n, seed, allocation, spreads, current, SALTS[STRATIFIED] if salt is None else salt
        )
        drawn.params["by"] = by
        if from_confidence:
            drawn.params["confidence"] = confidence_column
        return drawn
    active_salt = SALTS[ACTIVE] if salt is None else salt
    if calibration is not None:
        assert judged is not None  # the calibration reads the judge's values
        spread, chosen = _calibrated(
            dataset, judged, calibration, confidence_column, people if floor is None else None, n, base
        )
        floor = chosen.floor if chosen is not None else floor
        drawn = active_draw(
            uids, {}, n, seed, floor or DEFAULT_FLOOR, spread, weigh=pilot_members, salt=active_salt, base=base
        )
        if chosen is not None:
            drawn.params["floor_from_pilot"] = {str(k): round(v, 4) for k, v in chosen.relative.items()}
        drawn.params["calibration"] = calibration.to_params()
    else:
        conf = confidence_of(dataset, confidence_column)
        drawn = active_draw(uids, conf, n, seed, DEFAULT_FLOOR if floor is None else floor, salt=active_salt)
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
    floor: float | None = None,
    pilot: AuditSample | None = None,
    pilot_metric: str = "adherence",
) -> AuditSample:
    """Draw and store an audit sample of *design* (:data:`ragviz.analysis.audits.designs.DESIGNS`) over the
    dataset's examples: *n* examples (active: *n* on average), reproducible from *seed* (fresh when ``None``).
    Neyman allocation takes the strata's spreads from *pilot* (its reviewed members' *pilot_metric*,
    :func:`pilot_spreads`) when given, else from the judge's confidence in *confidence_column*; an active design
    calibrates the confidence on *pilot* when given (:func:`pilot_calibration`, every TRACe metric). *floor*
    ``None``: calibrated, the floor the pilot's reviews say is least variable
    (:func:`ragviz.analysis.audits.floor_tuning.pilot_floor`); else :data:`ragviz.analysis.audits.designs.DEFAULT_FLOOR`.
    The confidence the judge measured itself (``ragviz label --samples N``) is filled in from the store first
    (:mod:`ragviz.analysis.audits.judge_confidence`), here and in :func:`grow_design`."""
    seed = new_seed() if seed is None else int(seed)
    if design == UNIFORM:
        return store.audits.draw_sample(dataset.uids, n, annotator, seed)
    dataset = with_judge_confidence(dataset, store)
    spreads, calibration, judged, people = None, None, None, None
    if pilot is not None and design == ACTIVE:
        pairing = pair_store(
            dataset, store, pilot.members
        )  # the judge's values on every example, people's on the pilot
        calibration = pilot_calibration(dataset, pairing, pilot.id, confidence_column)
        judged = _judged(pairing)
        people = {e.uid: e.human for e in pairing.examples if e.audited and e.human}
    elif pilot is not None:
        if design != STRATIFIED or allocation != NEYMAN or not by:
            raise DesignError(
                "a pilot sets Neyman allocation's spreads or calibrates the active design's confidence: use it "
                "with a stratified design, --by and neyman, or with the active design"
            )
        spreads = pilot_spreads(dataset, store, pilot, by, pilot_metric)
    drawn = _draw(
        dataset,
        design,
        n,
        seed,
        by,
        allocation,
        confidence_column,
        floor,
        None,
        spreads,
        calibration,
        judged,
        pilot.members if calibration is not None and pilot is not None else (),
        None,
        people,
        _pilot_chance(dataset, people) if calibration is not None and pilot and pilot.design == UNIFORM else 0.0,
    )
    if pilot is not None:
        drawn.params["pilot"] = {"sample": pilot.id, "metric": "trace" if calibration else pilot_metric}
    return store.audits.save_designed_sample(dataset.uids, drawn.members, design, drawn.params, annotator, seed)


def _pilot_chance(dataset: Dataset, people: Judged | None) -> float:
    """A uniform pilot's chance of every example, its reviewed members over all: what a calibrated draw tops up."""
    return len(people or {}) / max(len(dataset.uids), 1)


def grow_design(store: LabelStore, dataset: Dataset, sample: AuditSample, n: int, annotator: str) -> AuditSample:
    """Grow *sample* to *n* (active: a budget of *n*) with its own design, seed, column and confidence."""
    if sample.design == UNIFORM:
        return store.audits.grow_sample(sample.id, dataset.uids, n, annotator)
    if sample.design == PAIRED:
        raise DesignError(f"sample {sample.id} is paired: grow it by questions (ragviz audit draw --grow {sample.id})")
    params = sample.params
    if sample.design == ACTIVE and n <= int(params.get("budget", 0)):
        return sample
    if sample.design == STRATIFIED and n <= sample.size:
        return sample
    dataset = with_judge_confidence(dataset, store)
    pilot = store.audits.get_sample(int(params["pilot"]["sample"])) if "calibration" in params else None
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
        params.get("spreads") if "pilot" in params else None,
        Calibration.from_params(params["calibration"]) if "calibration" in params else None,
        _judged(pair_store(dataset, store, None)) if "calibration" in params else None,
        pilot.members if pilot is not None else (),
        params.get("salt", ""),  # drawn before salts: the unsalted ranking it was drawn with
        None,
        float(params.get("base") or 0.0),  # topped up: the pilot's chance it was drawn over
    )
    if "pilot" in params:
        drawn.params["pilot"] = params["pilot"]
    if sample.design == ACTIVE:
        _same_weights(sample, drawn, params.get("confidence", CONFIDENCE_COLUMN), "calibration" in params)
    return store.audits.extend_designed_sample(sample.id, dataset.uids, drawn.members, drawn.params, annotator)


def _same_weights(sample: AuditSample, drawn: DesignedDraw, column: str, calibrated: bool) -> None:
    """Refuse to grow an active *sample* whose stored members would get other selection weights from the
    confidences (or, calibrated, the judge's values) in the store now: their chances, and the estimate, would no
    longer be those they were drawn with."""
    now = {m.uid: m.selection_weight for m in drawn.members}
    for m in sample.member_details():
        new = now.get(m.uid)
        old = m.selection_weight
        if old is None or (new is not None and math.isclose(new, old, rel_tol=1e-9, abs_tol=0.0)):
            continue
        source = "the judge's values the calibration reads" if calibrated else f"the {column!r} confidences"
        was = f"{new:.3g}" if new is not None else "a weight that no longer draws it"
        raise DesignError(
            f"cannot grow sample {sample.id}: {source} changed since it was drawn (example {m.uid}: selection weight "
            f"{old:.3g} when drawn, now {was}); draw a new sample, or restore the confidences it was drawn with"
        )
