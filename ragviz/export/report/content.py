"""Everything the stakeholder report says, gathered from the data and the label store: plain data, no markup.

Nothing here computes a metric: the corrected estimates are
:func:`ragviz.analysis.audits.sample_estimate.sample_report`'s, with the estimator that matches the audit's design
(the Dashboard's "What people would say" and ``ragviz estimate --db``), the distributions, subset means and the judge-vs-people
pairs :func:`ragviz.analysis.dashboard.figures.dashboard_data`'s, the agreement intervals and verdicts
:mod:`ragviz.analysis.judge_trust`'s, the worked examples' formulas :mod:`ragviz.analysis.trace_formulas`'.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragviz.analysis.agreement import BINARY_LABELS
from ragviz.analysis.audits.designs import DesignError
from ragviz.analysis.audits.sample_estimate import design_sentence, design_title, pilot_of, sample_report
from ragviz.analysis.compare_systems.difference import CompareReport
from ragviz.analysis.compare_systems.pairs import CompareError
from ragviz.analysis.compare_systems.sample import compare_sample, compare_sample_of, two_systems
from ragviz.analysis.dashboard.aggregates import histogram_counts, subset_means
from ragviz.analysis.dashboard.figures import dashboard_data
from ragviz.analysis.dashboard.rows import row_figures
from ragviz.analysis.estimates.pairing import Pairing
from ragviz.analysis.estimates.report import GROUP_BY, EstimateReport, plain_words
from ragviz.analysis.judge_trust import (
    LABEL_METRIC,
    Bias,
    LabelTrust,
    judge_people_triples,
    label_trust,
    label_trust_by,
    metric_bias,
    verdict,
)
from ragviz.analysis.labelsets.named import store_rows
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.dataset import examples_at
from ragviz.export.report.examples import WorkedExample, worked_examples
from ragviz.export.report.provenance import Provenance, hash_ahead, provenance
from ragviz.export.report.request import ReportError, ReportRequest
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.store.audit_samples import AuditSample, default_sample

if TYPE_CHECKING:
    import numpy as np

    from ragviz.data.dataset import Dataset
    from ragviz.data.model import Example
    from ragviz.store.label_store import LabelStore

__all__ = ["CORRECTED", "HeadlineRow", "NO_AUDIT", "ReportContent", "SCATTER_GRID", "TOO_FEW", "gather"]


NO_AUDIT, TOO_FEW, CORRECTED = "no audit yet", "too few reviewed", "corrected"
SCATTER_GRID = 50  # judge and people's values binned to 1/50 before the scatter counts them


@dataclass(frozen=True)
class HeadlineRow:
    """One TRACe metric in the headline: the judge's mean, the corrected estimate and its interval, the audit
    behind it, a plain sentence and the status (:data:`CORRECTED`, :data:`TOO_FEW`, :data:`NO_AUDIT`)."""

    metric: str
    judge: float | None
    estimate: float | None
    low: float | None
    high: float | None
    people: float | None
    n_audited: int
    status: str
    sentence: str
    more_needed: int = 0


@dataclass
class ReportContent:
    """The report's sections as data, in the order they are shown."""

    request: ReportRequest
    n_examples: int
    group_title: str
    sample: AuditSample | None
    n_audited: int
    headline: list[HeadlineRow]
    notes: list[str]
    estimates: EstimateReport | None
    n_pairs: int
    trust: dict[str, LabelTrust]
    trust_by_group: dict[str, dict[str, LabelTrust]]
    bias: dict[str, Bias]
    verdicts: dict[str, str]
    histogram: list[dict[str, Any]]
    means: list[dict[str, Any]]
    scatter: list[dict[str, Any]]
    examples: list[WorkedExample]
    provenance: Provenance
    design: str = "uniform random audit"  # the audit's design named (ragviz.analysis.audits.sample_estimate)
    design_note: str | None = None  # its effective sample size and people-hours saved, in a sentence
    comparison: CompareReport | None = None  # two systems on the same questions: the report's first section
    comparison_error: str | None = None  # why two systems in the data could not be compared


def _sample(store: LabelStore | None, drawn: list[AuditSample], sample_id: int | None) -> AuditSample | None:
    """The sample the report reads: *sample_id*, else the team's sample, else the newest. :class:`ReportError` when
    *sample_id* is not among *drawn* (the samples drawn from the loaded examples)."""
    if store is None:
        return None
    if sample_id is None:
        return default_sample(drawn, store.audits.team_choice())
    found = store.audits.get_sample(sample_id)
    if found is not None and found not in drawn:
        raise ReportError(
            f"--sample: audit sample {sample_id} was drawn from {found.population_size:,} other examples "
            "than DATA's: give the data it was drawn from"
        )
    return found


def _headline(report: EstimateReport, sample: AuditSample | None) -> list[HeadlineRow]:
    out = []
    for name in TRACE_METRICS:
        m = report.overall.metrics.get(name)
        if m is None:
            continue
        ppi = m.ppi
        if sample is None:
            status = NO_AUDIT
        elif m.more_needed or ppi.estimate is None or ppi.low is None or ppi.high is None:
            status = TOO_FEW
        else:
            status = CORRECTED
        sentence = plain_words(name, m) or ""
        if status == NO_AUDIT and sentence:
            sentence = sentence.split(";")[0] + "; no audit yet: nobody has reviewed a random sample to correct it."
        out.append(
            HeadlineRow(
                name,
                m.judge,
                ppi.estimate,
                ppi.low,
                ppi.high,
                m.human.estimate,
                m.n_labeled,
                status,
                sentence,
                m.more_needed,
            )
        )
    return out


def _scatter_counts(scatter: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The judge-vs-people pairs counted on a 1/50 grid (one mark per occupied cell)."""
    cells: Counter[tuple[str, float, float]] = Counter()
    for r in scatter:
        if r["judge"] is None or r["human"] is None:
            continue
        cells[
            (
                r["metric"],
                round(r["judge"] * SCATTER_GRID) / SCATTER_GRID,
                round(r["human"] * SCATTER_GRID) / SCATTER_GRID,
            )
        ] += 1
    order = {m: i for i, m in enumerate(TRACE_METRICS)}
    return [
        {"metric": m, "judge": j, "human": h, "examples": n}
        for (m, j, h), n in sorted(cells.items(), key=lambda c: (order.get(c[0][0], 99), c[0][1], c[0][2]))
    ]


def gather(dataset: Dataset, store: LabelStore | None, request: ReportRequest) -> ReportContent:
    """The report of *dataset* under the label store *store* (``None``: the labels in the files alone)."""
    if request.by not in GROUP_BY:
        raise ValueError(f"cannot group by {request.by!r}; expected one of {', '.join(GROUP_BY)}")
    digests = hash_ahead(dataset)  # the data files hashed on the other core meanwhile
    # the samples drawn from these examples, asked once: list_samples fingerprints every uid (~0.1 s on 100k)
    drawn = store.audits.list_samples(dataset.uids) if store is not None else []
    sample = _sample(store, drawn, request.sample_id)
    # One pass: every row's TRACe scored once and the examples the store decides on built once, for every section.
    have = examples_at(dataset, store_rows(dataset, store))
    base = row_figures(dataset)
    unreadable = []
    try:  # the estimator that matches the sample's design, as the Dashboard and ragviz estimate --db
        pairing, info, estimates = sample_report(
            dataset, store, sample, request.against, examples=have, scores=base.scores
        )
    except DesignError as exc:  # its design cannot be read from this data: the judge's figures alone, and why
        unreadable, sample = [f"No corrected figure: {exc}"], None
        pairing, info, estimates = sample_report(
            dataset, store, None, request.against, examples=have, scores=base.scores
        )
    n_audited = estimates.overall.n_labeled
    notes = [*unreadable, *((*pairing.warnings, *info.warnings) if sample is not None else ())]
    notes += estimates.notes() if n_audited >= 2 else []
    data = dashboard_data(dataset, request.against, store, top=50, base=base, examples=have)
    triples = judge_people_triples(dataset, store, request.against, examples=have)
    group_attr = "dataset" if request.by == "dataset_name" else "generation_model"
    trust = label_trust(triples)
    trust_by_group = label_trust_by(triples, lambda ex: getattr(ex, group_attr)) if triples else {}
    measured = (metric_bias(name, m) for name, m in estimates.overall.metrics.items() if name in TRACE_METRICS)
    bias = {b.metric: b for b in measured if b.bias is not None}  # none under the audit a corrected figure needs
    verdicts = {
        label: verdict(trust.get(label) if triples else None, bias.get(LABEL_METRIC[label])) for label in BINARY_LABELS
    }
    records = data.records
    if request.by != "dataset_name":
        records = records.assign(dataset=dataset.generation_models)
    means = data.means if request.by == "dataset_name" else subset_means(records)
    comparison, comparison_error = _comparison(
        dataset, store, request.against, have, base.scores, sample, pairing, drawn
    )
    return ReportContent(
        request=request,
        n_examples=len(dataset),
        group_title="subset" if request.by == "dataset_name" else "generation model",
        sample=sample,
        n_audited=n_audited,
        headline=_headline(estimates, sample),
        notes=notes,
        estimates=estimates if n_audited else None,
        n_pairs=len(triples),
        trust=trust,
        trust_by_group=trust_by_group,
        bias=bias,
        verdicts=verdicts,
        histogram=histogram_counts(records, TRACE_METRICS, "dataset"),
        means=means,
        scatter=_scatter_counts(data.scatter),
        examples=worked_examples(data.disagreements, triples),
        provenance=provenance(dataset, store, request, digests),
        design=design_title(estimates, with_sample=False),
        design_note=design_sentence(estimates) if sample is not None else None,
        comparison=comparison,
        comparison_error=comparison_error,
    )


def _comparison(
    dataset: Dataset,
    store: LabelStore | None,
    against: LabelSelection,
    examples: Mapping[int, Example],
    scores: Mapping[str, np.ndarray],
    sample: AuditSample | None,
    pairing: Pairing,
    drawn: list[AuditSample],
) -> tuple[CompareReport | None, str | None]:
    """Two systems' comparison when the data holds two (``generation_model_name``), as the Dashboard shows it, on the
    examples built and TRACe scored once for the whole report; on the estimates' *pairing* of *sample* too when the
    comparison reads that sample (without a calibration pilot, whose members the estimates read as well)."""
    systems = two_systems(dataset)
    if not systems:
        return None, None
    chosen = systems if len(systems) == 2 else None
    compared = compare_sample_of(store, dataset, drawn) if store is not None else None
    same = (
        store is not None and (compared and compared.id) == (sample and sample.id) and pilot_of(store, sample) is None
    )
    try:
        found = compare_sample(
            dataset,
            store,
            compared,
            against,
            chosen,
            examples=examples,
            scores=scores,
            pairing=pairing if same else None,
        )
        return found[1], None
    except CompareError as exc:
        return None, str(exc)
