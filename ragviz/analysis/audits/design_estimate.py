"""Corrected estimates for a designed audit sample: the estimator that matches the design (uniform:
:func:`ragviz.analysis.estimates.report.estimate_report`; stratified: :func:`~ragviz.analysis.audits.stratified.stratified_ppi_ci`
over the strata it was drawn by; active: :func:`~ragviz.analysis.audits.active.ipw_ppi_ci`, a uniform pilot's reviewed
members joining at each example's chance of being in either, :math:`1 - (1 - n_p/N)(1 - \\pi_i)`, or as two batches
where the pilot's chances were not kept), λ cross-fitted, and its interval: Student's t around the cross-fitted
estimate for one active or stratified audit (:mod:`ragviz.analysis.estimates.student_t`,
:func:`~ragviz.analysis.audits.stratified_crossfit.shown_stratified`), the percentile-t bootstrap for a two-batch one or
an audit too small to cross-fit, or the normal one when asked; every output says which. A partly reviewed active
sample is the Poisson sample at the level of its first unreviewed member (:func:`reviewed_level`). *Saving*: the
uniform PPI++ audit of equal variance (:func:`uniform_equivalent`, never below
:data:`ragviz.analysis.coverage.MIN_AUDITED`) minus the examples audited, in examples and people-hours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragviz.analysis.audits.active import (
    Batch,
    ProbabilityError,
    batches_ppi_ci,
    combined_people_ci,
    ipw_people_ci,
)
from ragviz.analysis.audits.active_bootstrap import active_bootstrap_t
from ragviz.analysis.audits.active_crossfit import MIN_CROSSFIT, crossfitted_active
from ragviz.analysis.audits.design_plan import variance_curve
from ragviz.analysis.audits.designs import ACTIVE, PAIRED, STRATIFIED, UNIFORM, DesignError, unit_draw
from ragviz.analysis.audits.stratified import StratumError, stratified_people_ci
from ragviz.analysis.audits.stratified_crossfit import shown_stratified
from ragviz.analysis.audits.topup import topped_chance, topped_key
from ragviz.analysis.coverage import MIN_AUDITED, too_few_words
from ragviz.analysis.estimates.crossfit import FOLDS
from ragviz.analysis.estimates.estimate import DEFAULT_INTERVAL, TUNED, MetricEstimate
from ragviz.analysis.estimates.pairing import PairedExample, Pairing
from ragviz.analysis.estimates.planner import variance_terms
from ragviz.analysis.estimates.ppi import BOOTSTRAP_T, NORMAL, Interval, PPIInterval, judge_mean, z_value
from ragviz.analysis.estimates.report import GROUP_BY, EstimateReport, GroupEstimate, estimate_report, metric_bounds
from ragviz.analysis.estimates.student_t import STUDENT_T
from ragviz.store.audit_samples import AuditSample

__all__ = [
    "DesignInfo",
    "MINUTES_PER_EXAMPLE",
    "active_fixed_variance",
    "design_info",
    "design_report",
    "reviewed_level",
    "stratified_fixed_variance",
    "uniform_equivalent",
]


_PAIRED_NOTE = (
    "audit sample {id} is paired (questions drawn, both systems' answers reviewed): each answer's mean is estimated as "
    "from a uniform sample of answers; the difference between the systems: ragviz estimate --compare"
)
MINUTES_PER_EXAMPLE = 4.0  # a person's review of one example, for the people-hours saved (--minutes-per-example)


@dataclass(frozen=True)
class DesignInfo:
    """What the estimator needs of a sample's design: its name, each example's stratum (stratified) or each
    usable reviewed member's inclusion probability (active), and what the reader must know."""

    name: str
    sample_id: int | None = None
    strata: Mapping[str, str] | None = None
    probabilities: Mapping[str, float] | None = None
    warnings: list[str] = field(default_factory=list)
    by: str | None = None  # stratified: the column the strata are the values of
    # active calibrated on a uniform pilot: each batch's chances (the pilot's reviewed members, the active sample's
    # usable ones), combined by combined_ipw_ppi_ci; probabilities then holds the union's chances
    batches: tuple[Mapping[str, float], ...] = ()
    pilot_id: int | None = None

    def summary(self) -> dict[str, Any]:
        out = {"name": self.name, "sample": self.sample_id, "interval": NORMAL if self.name != UNIFORM else None}
        if self.pilot_id is not None:
            out["pilot"] = self.pilot_id
        return {**out, "by": self.by} if self.by else out


def _without_pilot(sample: AuditSample) -> DesignError:
    pilot = sample.params.get("pilot", {}).get("sample", "?")
    return DesignError(
        f"active sample {sample.id} tops up the chances of uniform pilot {pilot} and is estimated only with its "
        "reviews, which are gone (sample deleted or its reviews undone): estimate without the sample, or draw anew"
    )


def reviewed_level(sample: AuditSample, reviewed: set[str]) -> tuple[float, list[str]]:
    """The level :math:`\\ell` and the members of an active sample usable now: the members before its first
    unreviewed one (in sample order), which are the Poisson sample at that member's :math:`U/q`; all members and
    the drawn level when every member is reviewed."""
    details = sample.member_details()
    for k, m in enumerate(details):
        if m.uid not in reviewed:
            q, base = m.selection_weight or 0.0, float(sample.params.get("base") or 0.0)
            level = (
                float(topped_key(unit_draw(sample.seed, m.uid, str(sample.params.get("salt", ""))), q, base))
                if q > 0
                else float(sample.params.get("level", 0.0))
            )
            return level, [d.uid for d in details[:k]]
    return float(sample.params.get("level", 0.0)), [d.uid for d in details]


def design_info(
    pairing: Pairing,
    sample: AuditSample | None,
    strata: Mapping[str, str] | None = None,
    pilot: AuditSample | None = None,
) -> DesignInfo:
    """The :class:`DesignInfo` of *sample* over *pairing* (whose audited examples are its reviewed members, and the
    reviewed members of *pilot*); *strata* (uid -> stratum, :func:`ragviz.analysis.audits.samples.strata_of` of the
    sample's column) for a stratified sample. *pilot*: the uniform sample an active sample was calibrated on, whose
    reviews join the estimate as a batch of their own (:func:`ragviz.analysis.audits.active.combined_ipw_ppi_ci`)."""
    if sample is None or sample.design == UNIFORM:
        return DesignInfo(UNIFORM, None if sample is None else sample.id)
    if sample.design == PAIRED:  # every answer of a drawn question: each answer at the same chance, n / questions
        return DesignInfo(UNIFORM, sample.id, warnings=[_PAIRED_NOTE.format(id=sample.id)])
    if sample.design == STRATIFIED:
        if strata is None:
            raise StratumError(f"sample {sample.id} is stratified by {sample.params.get('by')!r}: give that column")
        return DesignInfo(STRATIFIED, sample.id, strata=strata, by=sample.params.get("by"))
    members = set(sample.members)
    reviewed = {e.uid for e in pairing.examples if e.audited and e.uid in members}
    level, usable = reviewed_level(sample, reviewed)
    weights = {m.uid: m.selection_weight for m in sample.member_details()}
    base = float(sample.params.get("base") or 0.0)  # the pilot's chance it tops up (ragviz.analysis.audits.topup)
    probabilities = {u: float(topped_chance(level, float(weights[u] or 0.0), base)) for u in usable}
    waiting = len(reviewed) - len(usable)
    warnings = []
    if waiting > 0:
        warnings.append(
            f"{waiting:,} reviewed members of active sample {sample.id} come after its first unreviewed one: they "
            "join the estimate once the members before them are reviewed (review the sample in its order)"
        )
    if base > 0 and (pilot is None or pilot.design != UNIFORM):
        raise _without_pilot(sample)
    if pilot is None:
        return DesignInfo(ACTIVE, sample.id, probabilities=probabilities, warnings=warnings)
    if pilot.design != UNIFORM:
        warnings.append(
            f"pilot sample {pilot.id} is {pilot.design}: its reviews calibrated the draw but do not join the estimate "
            "(only a uniform pilot's do)"
        )
        return DesignInfo(ACTIVE, sample.id, probabilities=probabilities, warnings=warnings)
    pilot_members = set(pilot.members)
    pilot_reviewed = [e.uid for e in pairing.examples if e.audited and e.uid in pilot_members]
    share = len(pilot_reviewed) / max(len(pairing.examples), 1)
    pilot_weights = sample.params.get("pilot_weights") or {}
    if base > 0:  # topped up: one audit with the pilot as drawn on; members it gained since wait
        later = len(pilot_reviewed)
        pilot_reviewed = [u for u in pilot_reviewed if u in pilot_weights]
        share, later = len(pilot_reviewed) / max(len(pairing.examples), 1), later - len(pilot_reviewed)
        if not pilot_reviewed:
            raise _without_pilot(sample)
        if later:
            warnings.append(f"{later:,} reviewed members joined pilot {pilot.id} after sample {sample.id}: left out")
    if pilot_reviewed and all(u in pilot_weights for u in pilot_reviewed):
        # one audit: each reviewed example at its chance of being in either sample
        chance = {**{u: float(q) for u, q in pilot_weights.items()}, **{u: float(q or 0.0) for u, q in weights.items()}}
        union = {
            u: 1.0 - (1.0 - share) * (1.0 - float(topped_chance(level, chance.get(u, 0.0), base)))
            for u in {*pilot_reviewed, *usable}
        }
        return DesignInfo(ACTIVE, sample.id, probabilities=union, warnings=warnings, pilot_id=pilot.id)
    # drawn before the pilot's chances were kept (or the pilot grew since): the two samples are batches of their own
    first = dict.fromkeys(pilot_reviewed, share)
    union = {u: 1.0 - (1.0 - first.get(u, 0.0)) * (1.0 - probabilities.get(u, 0.0)) for u in {*first, *probabilities}}
    return DesignInfo(
        ACTIVE, sample.id, probabilities=union, warnings=warnings, batches=(first, probabilities), pilot_id=pilot.id
    )


def uniform_equivalent(
    y: np.ndarray, yhat: np.ndarray, weights: np.ndarray, yhat_all: np.ndarray, variance: float
) -> int | None:
    """The smallest uniform audit whose PPI++ variance is at most *variance* (``None`` when none is): the population
    moments of people's values and the judge's error estimated from the audit weighted by *weights* (1/π), the
    judge's spread from all examples, as :func:`ragviz.analysis.estimates.planner.plan_sample_size` plans."""
    w = weights / weights.sum()
    m_y, m_f = float(w @ y), float(w @ yhat)
    var_y = float(w @ (y - m_y) ** 2)
    cov = float(w @ ((y - m_y) * (yhat - m_f)))
    var_f_audit = float(w @ (yhat - m_f) ** 2)
    var_f = float(np.var(yhat_all))
    sizes, imputed, rectifier = variance_terms(var_y, cov, var_f, var_f_audit, yhat_all.size)
    needed = imputed + np.maximum(rectifier, 0.0) / sizes
    ok = np.nonzero(needed <= variance)[0]
    return int(sizes[ok[0]]) if ok.size else None


def _split(examples: Sequence[PairedExample], name: str, info: DesignInfo) -> dict[str, Any]:
    y, f, keys, fu, keys_u = [], [], [], [], []
    excluded = [0, 0]
    for e in examples:
        judged = e.judge.get(name)
        person = e.human.get(name) if e.human is not None else None
        usable = e.audited and (info.probabilities is None or e.uid in info.probabilities)
        key = (info.strata or {}).get(e.uid, "") if info.name == STRATIFIED else (info.probabilities or {}).get(e.uid)
        if usable and judged is not None and person is not None:
            y.append(float(person))
            f.append(float(judged))
            keys.append(key)
        elif usable or judged is None:
            excluded[0 if usable else 1] += 1
        else:
            fu.append(float(judged))
            keys_u.append((info.strata or {}).get(e.uid, ""))
    return {"y": np.array(y), "f": np.array(f), "keys": keys, "fu": np.array(fu), "keys_u": keys_u, "ex": excluded}


def _batch(examples: Sequence[PairedExample], name: str, chances: Mapping[str, float]) -> Batch:
    """One batch of a combined active estimate: the audited examples with a chance in *chances*, the rest judge-only."""
    y, f, pi, fu = [], [], [], []
    for e in examples:
        judged = e.judge.get(name)
        if judged is None:
            continue
        person = e.human.get(name) if e.human is not None else None
        if e.audited and e.uid in chances and person is not None:
            y.append(float(person))
            f.append(float(judged))
            pi.append(chances[e.uid])
        else:
            fu.append(float(judged))
    if len(y) < 2:
        raise ProbabilityError(
            f"{name}: a batch of the audit has {len(y)} reviewed examples; review at least two of the pilot and of "
            "the active sample"
        )
    return np.array(y), np.array(f), np.array(pi), np.array(fu)


def active_fixed_variance(y: np.ndarray, f: np.ndarray, w: np.ndarray, lam: float, total: int) -> float:
    r"""The part *B* of an active (IPW PPI++) estimate's variance that no audit size shrinks. With
    :math:`r_i = \lambda \hat Y_i + \xi_i d_i/\pi_i` and :math:`d = Y - \lambda\hat Y` centred, the variance is about
    :math:`\frac{1}{N}(\sigma^2_Y - \overline{d^2}) + \frac{1}{N^2}\sum_i d_i^2/\pi_i`: the first term stays, the
    second falls as :math:`1/n` (:math:`\pi \propto n`). *w*: the audited examples' design weights summing to 1
    (Hájek); at least 0."""
    centred_y, centred_f = y - float(w @ y), f - float(w @ f)
    d = centred_y - lam * centred_f
    return max(0.0, float(w @ centred_y**2) - float(w @ d**2)) / total


def stratified_fixed_variance(
    weights: Mapping[str, float], lams: Mapping[str, float], fu: np.ndarray, keys_u: Sequence[str]
) -> float:
    r"""The part *B* of a stratified PPI++ estimate's variance that no audit size shrinks: the judge-only term
    :math:`\sum_h w_h^2 \lambda_h^2 s^2_{\hat Y^u_h} / N^u_h`."""
    keys = np.asarray(list(keys_u))
    out = 0.0
    for h, w_h in weights.items():
        values = fu[keys == h] if keys.size else fu[:0]
        if values.size > 1:
            out += w_h**2 * lams.get(h, 0.0) ** 2 * float(np.var(values, ddof=1)) / values.size
    return out


def _metric(
    examples: Sequence[PairedExample], name: str, info: DesignInfo, alpha: float, minutes: float, method: str
) -> MetricEstimate:
    a = _split(examples, name, info)
    y, f, fu = a["y"], a["f"], a["fu"]
    bounds = metric_bounds(name)
    n, total = y.size, y.size + fu.size
    judge = judge_mean(f, fu)
    none = PPIInterval(None, None, None)
    if n < 2:
        return MetricEstimate(n, fu.size, judge, Interval(None, None, None), none, None, a["ex"][0], a["ex"][1])
    note = None
    shown_method = NORMAL
    rule = TUNED
    try:
        t = method == STUDENT_T
        if info.name == STRATIFIED:
            keys, keys_u = np.asarray(a["keys"]).astype(str), np.asarray(a["keys_u"]).astype(str)
            s, shown_method, lam_cf = shown_stratified(y, f, keys, fu, keys_u, bounds, alpha, method)
            rule = TUNED if lam_cf is None else f"cross-fitted ({FOLDS} folds)"
            people, people_var = stratified_people_ci(y, a["keys"], s.weights, alpha, bounds)
            lam = lam_cf if lam_cf is not None else float(sum(s.weights[h] * s.lams[h] for h in s.lams))
            interval, variance = s.interval, s.variance
            sizes = {h: w * total for h, w in s.weights.items()}
            counts = {h: a["keys"].count(h) for h in s.weights}
            weights = np.array([sizes[h] / counts[h] for h in a["keys"]])
        else:
            pi = np.array(a["keys"], dtype=float)  # the union's chances when a pilot joins
            if info.batches:
                batches = [_batch(examples, name, chances) for chances in info.batches]
                people, people_var = combined_people_ci(batches, alpha, bounds)
            else:
                batches = [(y, f, pi, fu)]
                people, people_var = ipw_people_ci(y, pi, total, alpha, bounds)
            one = not info.batches and n >= MIN_CROSSFIT
            if method == BOOTSTRAP_T or (t and not one):  # the t needs one audit to cross-fit; else the bootstrap-t
                act, shown_method = active_bootstrap_t(batches, alpha, bounds)
            else:
                act = batches_ppi_ci(batches, alpha, bounds)
            if not info.batches:  # one audit: λ cross-fitted (two batches keep each batch's tuned λ)
                act, crossfitted = crossfitted_active(
                    act, y, f, pi, fu, bounds, alpha if t and one else None, unequal=info.pilot_id is None
                )
                rule = f"cross-fitted ({FOLDS} folds)" if crossfitted else TUNED
                if crossfitted and t and one:
                    shown_method = STUDENT_T
                elif t and one:  # λ 0: the judge ignored, the tuned normal interval
                    act, shown_method = active_bootstrap_t(batches, alpha, bounds)
            interval, variance, lam, weights = act.interval, act.variance, act.lam, 1.0 / pi
    except (StratumError, ProbabilityError) as exc:
        note = str(exc)
        blank = MetricEstimate(n, fu.size, judge, Interval(None, None, None), none, None, a["ex"][0], a["ex"][1])
        return MetricEstimate(**{**blank.__dict__, "design": {"problem": note}})
    w = weights / weights.sum()
    var_y = float(w @ (y - float(w @ y)) ** 2)
    if info.name == STRATIFIED:
        fixed = stratified_fixed_variance(s.weights, s.lams, fu, a["keys_u"])
    else:
        fixed = active_fixed_variance(y, f, w, lam, total)
    gain = None if variance <= 0 else float(min(var_y / variance, total))
    found = uniform_equivalent(y, f, weights, np.concatenate([f, fu]), variance)
    # None: not even auditing every example uniformly is as precise. Never below the audit a uniform corrected figure
    # needs (MIN_AUDITED): the plug-in variance of a tiny uniform audit (n = 2 where the judge matches people) is not
    # an interval anyone may read, so it is no saving to compare with.
    equal = total if found is None else max(found, min(MIN_AUDITED, total))
    saved = equal - n
    design = {
        "effective_n": gain,
        "uniform_equivalent": equal,
        "uniform_reaches": found is not None,
        "uniform_plugin": found,  # before the floor: what the planner scales
        "saved_examples": saved,
        "saved_hours": round(saved * minutes / 60.0, 1),
        "people_variance": people_var,
        "fixed_variance": fixed,  # the part of the variance that does not shrink as the audit grows (the planner's B)
        "z": z_value(alpha),
    }
    if info.name == ACTIVE and not info.batches:  # the planner's variance at other budgets, chances capped at 1
        centred_y, centred_f = y - float(w @ y), f - float(w @ f)
        design["variance_curve"] = variance_curve(centred_y - lam * centred_f, 1.0 / weights, variance, total)
    if n < MIN_AUDITED:  # no saving is said where no corrected figure is: the uniform side is floored at the minimum
        design.update(saved_examples=None, saved_hours=None, too_few=too_few_words(n, MIN_AUDITED))
    ppi = PPIInterval(interval.estimate, interval.low, interval.high, lam, variance, shown_method)
    return MetricEstimate(n, fu.size, judge, people, ppi, gain, a["ex"][0], a["ex"][1], design=design, lam_rule=rule)


def _group(
    examples: Sequence[PairedExample],
    names: Sequence[str],
    info: DesignInfo,
    alpha: float,
    minutes: float,
    method: str,
) -> GroupEstimate:
    metrics = {}
    for name in names:
        if not any(e.judge.get(name) is not None or (e.human or {}).get(name) is not None for e in examples):
            continue
        metrics[name] = _metric(examples, name, info, alpha, minutes, method)
    n_labeled = sum(1 for e in examples if e.audited)
    return GroupEstimate(n_labeled, len(examples) - n_labeled, metrics)


def design_report(
    pairing: Pairing,
    info: DesignInfo,
    alpha: float = 0.05,
    by: str | None = None,
    interval: str = DEFAULT_INTERVAL,
    minutes_per_example: float = MINUTES_PER_EXAMPLE,
) -> EstimateReport:
    """Every metric's corrected estimate for the sample's design (module docstring), overall and per *by* group;
    a uniform design is :func:`ragviz.analysis.estimates.report.estimate_report` with the design named."""
    summary = {**info.summary(), "minutes_per_example": minutes_per_example}
    if info.name == UNIFORM:
        report = estimate_report(pairing, alpha, by, interval)
        return EstimateReport(report.alpha, report.overall, report.by, report.groups, report.interval, summary)
    names = pairing.metric_names()
    overall = _group(pairing.examples, names, info, alpha, minutes_per_example, interval)
    groups = None
    if by is not None:
        if by not in GROUP_BY:
            raise ValueError(f"cannot group by {by!r}; expected one of {', '.join(GROUP_BY)}")
        members: dict[str, list[PairedExample]] = {}
        for e in pairing.examples:
            members.setdefault(getattr(e, GROUP_BY[by]), []).append(e)
        groups = {g: _group(members[g], names, info, alpha, minutes_per_example, interval) for g in sorted(members)}
    return EstimateReport(alpha, overall, by, groups, interval, {**summary, "interval": interval})
