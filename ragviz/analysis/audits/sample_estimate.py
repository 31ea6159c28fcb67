"""A stored audit sample's corrected estimates with the estimator that matches its design, and the design in
words: the one path the Dashboard's "What people would say", the Explainer's plain words, the stakeholder report
and ``ragviz estimate --db`` share, so all four say the same figures.

:func:`sample_report` pairs the judge with people's labels on the sample's reviewed members
(:func:`ragviz.analysis.estimates.pairing.pair_store`), reads the design
(:func:`ragviz.analysis.audits.design_estimate.design_info`; a stratified sample's strata are the current values of
the column it was drawn by) and corrects (:func:`ragviz.analysis.audits.design_estimate.design_report`).
:func:`design_lines` says the design, the effective sample size and the saving against a uniform audit of equal
precision per metric; :func:`design_sentence` says it in one sentence for stakeholders.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragviz.analysis.audits.design_estimate import MINUTES_PER_EXAMPLE, DesignInfo, design_info, design_report
from ragviz.analysis.audits.designs import ACTIVE, STRATIFIED, UNIFORM, DesignError
from ragviz.analysis.audits.samples import strata_of
from ragviz.analysis.audits.stratified import StratumError
from ragviz.analysis.estimates.estimate import DEFAULT_INTERVAL, MetricEstimate
from ragviz.analysis.estimates.pairing import Pairing, pair_store
from ragviz.analysis.estimates.report import EstimateReport
from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.data.dataset import Dataset
from ragviz.store.audit_samples import AuditSample

if TYPE_CHECKING:
    import numpy as np

    from ragviz.data.model import Example

__all__ = [
    "ESTIMATORS",
    "audited_members",
    "design_lines",
    "design_of",
    "design_sentence",
    "design_title",
    "pilot_of",
    "sample_report",
]


ESTIMATORS = {
    UNIFORM: "PPI++",
    STRATIFIED: "stratified PPI++ (each stratum corrected apart, combined by its share of the examples)",
    "active": "inverse-probability-weighted PPI++ (each reviewed example weighted by 1 / its chance of being drawn)",
}


def pilot_of(store: Any, sample: AuditSample | None) -> AuditSample | None:
    """The pilot an active *sample* was calibrated on (``None``: none, or it is gone from the store)."""
    if sample is None or sample.design != ACTIVE or "calibration" not in sample.params:
        return None
    return store.audits.get_sample(int(sample.params["pilot"]["sample"]))


def audited_members(sample: AuditSample | None, pilot: AuditSample | None) -> list[str] | None:
    """The members whose reviews the estimate reads: the sample's, and its calibration pilot's."""
    if sample is None:
        return None
    return [*sample.members, *(pilot.members if pilot is not None else ())]


def design_of(
    dataset: Dataset, pairing: Pairing, sample: AuditSample | None, pilot: AuditSample | None = None
) -> DesignInfo:
    """The :class:`DesignInfo` of *sample* (and the *pilot* it was calibrated on) over *pairing*; :class:`DesignError`
    in one line naming the sample when its design cannot be read from this data (the stratifying column gone or
    emptied, a stratum too small)."""
    try:
        strata = strata_of(dataset, sample.params["by"]) if sample is not None and sample.design == STRATIFIED else None
        return design_info(pairing, sample, strata, pilot)
    except (DesignError, StratumError, KeyError) as exc:
        assert sample is not None
        raise DesignError(f"audit sample {sample.id} ({sample.design}): {exc}") from None


def sample_report(
    dataset: Dataset,
    store: Any,
    sample: AuditSample | None,
    against: LabelSelection = HUMAN,
    alpha: float = 0.05,
    by: str | None = None,
    interval: str = DEFAULT_INTERVAL,
    minutes_per_example: float = MINUTES_PER_EXAMPLE,
    families: Sequence[str] = ("trace",),
    examples: Mapping[int, Example] | None = None,
    scores: Mapping[str, np.ndarray] | None = None,
) -> tuple[Pairing, DesignInfo, EstimateReport]:
    """The pairing, design and estimates of *sample* (``None``: no audit, judge-only) under the *against* labels
    (module docstring); the arguments are ``ragviz estimate``'s. *examples* and *scores*: the examples built and the
    rows' own TRACe, when the caller has them (:func:`ragviz.analysis.estimates.pairing.pair_store`)."""
    pilot = pilot_of(store, sample)
    pairing = pair_store(dataset, store, audited_members(sample, pilot), against, families, examples, scores)
    info = design_of(dataset, pairing, sample, pilot)
    return pairing, info, design_report(pairing, info, alpha, by, interval, minutes_per_example)


def design_title(report: EstimateReport, with_sample: bool = True) -> str:
    """``"stratified audit by dataset_name (sample 3)"``, ``"uniform random audit"``: the design named.

    >>> design_title(EstimateReport(0.05, None, design={"name": "active", "sample": 2}))  # type: ignore[arg-type]
    'active audit (sample 2)'
    """
    design = report.design or {"name": UNIFORM}
    name = design.get("name") or UNIFORM
    sample = f" (sample {design['sample']})" if with_sample and design.get("sample") is not None else ""
    if name == UNIFORM:
        return f"uniform random audit{sample}"
    by = f" by {design['by']}" if design.get("by") else ""
    pilot = f" with its pilot, sample {design['pilot']}" if with_sample and design.get("pilot") is not None else ""
    return f"{name} audit{by}{sample}{pilot}"


def _saving(d: dict[str, Any], minutes: float) -> str:
    saved, equal = d["saved_examples"], d["uniform_equivalent"]
    need = (
        f"{equal:,} examples" if d.get("uniform_reaches", True) else f"all {equal:,} examples (and would not reach it)"
    )
    words = (
        f"saved {saved:,} examples (~{d['saved_hours']:g} people-hours at {minutes:g} min each)"
        if saved >= 0
        else f"{-saved:,} more examples than uniform would need"
    )
    return f"a uniform audit would need {need} for this precision: {words}"


def design_lines(report: EstimateReport) -> list[str]:
    """The audit's design in words: its name and estimator, and per metric the effective sample size and the
    saving against a uniform audit of equal precision (stratified and active samples)."""
    design = report.design or {"name": UNIFORM}
    name = design.get("name") or UNIFORM
    if name == UNIFORM:
        return ["design: uniform random audit (every example equally likely)"]
    asked = design.get("interval") or "normal"
    method = report.intervals_used() if asked == report.interval else asked
    out = [f"design: {design_title(report)}; corrected by {ESTIMATORS.get(name, name)}, {method} interval"]
    minutes = float(design.get("minutes_per_example") or MINUTES_PER_EXAMPLE)
    for metric, m in report.overall.metrics.items():
        d = m.design or {}
        if "problem" in d:
            out.append(f"  {metric}: {d['problem']}")
        elif d.get("too_few"):
            out.append(f"  {metric}: effective sample size {d['effective_n'] or 0:,.0f}; saving: {d['too_few']}")
        elif d.get("saved_examples") is not None and d.get("uniform_equivalent") is not None:
            out.append(f"  {metric}: effective sample size {d['effective_n'] or 0:,.0f}; {_saving(d, minutes)}")
    return out


def _headline_metric(report: EstimateReport) -> tuple[str, MetricEstimate] | None:
    metrics = report.overall.metrics
    name = "adherence" if "adherence" in metrics else next(iter(metrics), None)
    return None if name is None else (name, metrics[name])


def design_sentence(report: EstimateReport, unit: str = "answers") -> str | None:
    """One sentence for stakeholders: the design, and on adherence (else the first metric) the effective sample
    size and the people-hours saved against a uniform audit of equal precision — only where a corrected figure is
    said in words (:attr:`MetricEstimate.more_needed` is 0). ``None`` without any metric."""
    found = _headline_metric(report)
    if found is None:
        return None
    metric, m = found
    design = report.design or {"name": UNIFORM}
    title = design_title(report)
    head = f"The audit is {'an' if title[0] in 'aeio' else 'a'} {title}"  # "a uniform", "an active"
    if m.more_needed or m.ppi.estimate is None:
        return f"{head}; what it saves is said once enough {unit} are reviewed."
    d = m.design
    if d is None or "problem" in (d or {}):
        worth = f"{m.gain:,.0f} " if m.gain is not None else ""
        return (
            f"{head}: on {metric} its {m.n_labeled:,} reviewed {unit} with the judge are as precise as "
            f"{worth}reviewed {unit} alone (effective sample size)."
        )
    minutes = float(design.get("minutes_per_example") or MINUTES_PER_EXAMPLE)
    eff = f"{d['effective_n']:,.0f}" if d.get("effective_n") is not None else "-"
    saved = d["saved_examples"]
    if saved is None:
        return f"{head}; what it saves is said once enough {unit} are reviewed."
    if saved >= 0:
        tail = (
            f"a uniform audit as precise would need {d['uniform_equivalent']:,} reviewed {unit}: {saved:,} fewer, "
            f"about {d['saved_hours']:g} people-hours saved at {minutes:g} minutes each"
        )
    else:
        tail = f"a uniform audit as precise would need {-saved:,} fewer reviewed {unit}: no people-hours saved"
    return f"{head}: on {metric} its {m.n_labeled:,} reviewed {unit} have an effective sample size of {eff}; {tail}."
