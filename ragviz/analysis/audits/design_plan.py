"""How many to audit for ± X with the sample's design (issue 23 item 6): the planner of the Dashboard and the
target the Review queue counts toward.

* uniform — :func:`ragviz.analysis.estimates.report.plan` (the PPI++ variance at any size from the audit's
  moments and the judge's spread on every example).
* stratified / active — the design's own variance :math:`\\hat\\sigma^2_n` at the *n* audited so far
  (:func:`ragviz.analysis.audits.design_estimate.design_report`, which uses the judge's confidence through the
  inclusion probabilities, or the strata and their allocation) is :math:`A/n + B` when the sample grows by its
  design (same strata shares or the same selection weights): *B* the part no audit shrinks (active: the metric's
  spread over the rows, :math:`(\\sigma^2_Y - \\overline{d^2})/N`; stratified: the judge-only term), estimated with
  the estimate (``fixed_variance``), and :math:`A = n(\\hat\\sigma^2_n - B)`; the design needs
  :math:`n' = \\lceil A / ((h/z)^2 - B) \\rceil` (:func:`planned_size`); a uniform PPI++ audit as precise needs its
  uniform-equivalent size scaled alike, people alone their variance scaled as :math:`1/n`.

No answer is below :data:`ragviz.analysis.estimates.coverage.MIN_AUDITED` (fewer give no corrected figure) nor
above the examples there are (``None``: not reachable).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ragviz.analysis.estimates.coverage import MIN_AUDITED
from ragviz.analysis.estimates.pairing import Pairing
from ragviz.analysis.estimates.ppi import z_value
from ragviz.analysis.estimates.report import EstimateReport, plan

__all__ = ["DesignPlan", "design_plan_text", "plan_design", "planned_size", "target_progress_text"]


@dataclass(frozen=True)
class DesignPlan:
    """Audit sizes for ± *half_width* on *metric*: with the sample's *design*, with a uniform PPI++ audit and with
    people alone (``None``: needs at least two audited examples to plan from, or not reachable)."""

    metric: str
    design: str
    half_width: float
    n_design: int | None
    n_uniform: int | None
    n_people: int | None
    n_now: int
    total: int
    minimum: int = MIN_AUDITED

    @property
    def planned(self) -> bool:
        return self.n_people is not None


def planned_size(n: int, variance: float, target: float, total: int, fixed: float = 0.0) -> int | None:
    r"""The audit size whose variance :math:`A/n' + B` reaches *target* (the squared half-width over :math:`z^2`),
    :math:`A = n(\hat\sigma^2_n - B)` from the variance *variance* at the *n* audited now and *B* = *fixed*, the
    part no audit size shrinks; ``None`` when *target* is at or below *B* or needs more than *total* examples.
    Never below :data:`ragviz.analysis.estimates.coverage.MIN_AUDITED`.

    >>> planned_size(100, 0.0004, 0.0001, 10_000), planned_size(100, 0.0004, 0.0001, 10_000, fixed=0.00005)
    (400, 700)
    """
    if target <= fixed:
        return None
    need = max(MIN_AUDITED, math.ceil(n * max(variance - fixed, 0.0) / (target - fixed) - 1e-9))
    return need if need <= total else None


def plan_design(
    pairing: Pairing, report: EstimateReport, metric: str, half_width: float, alpha: float = 0.05
) -> DesignPlan:
    """The :class:`DesignPlan` of *metric* from the audit so far (module docstring); *report* is the sample's
    :func:`ragviz.analysis.audits.design_estimate.design_report`."""
    if half_width <= 0:
        raise ValueError(f"half_width must be positive, got {half_width}")
    design = report.design_name
    m = report.overall.metrics.get(metric)
    total = len(pairing.examples)
    n_now = 0 if m is None else m.n_labeled
    blank = DesignPlan(metric, design, half_width, None, None, None, n_now, total)
    if m is None or m.n_labeled < 2:
        return blank
    uniform = plan(pairing, metric, half_width, alpha)
    if design == "uniform" or m.design is None:
        n_people = uniform.n_classical
        return DesignPlan(metric, design, half_width, uniform.n_ppi, uniform.n_ppi, n_people, n_now, total)
    d, variance = m.design, m.ppi.variance
    if "problem" in d or variance is None or variance <= 0:
        return blank
    target = (half_width / z_value(alpha)) ** 2
    fixed = min(float(d.get("fixed_variance") or 0.0), variance)
    n_design = planned_size(n_now, variance, target, total, fixed)
    equal = d.get("uniform_plugin") or d["uniform_equivalent"]  # the uniform audit as precise as the design at n_now
    n_uniform = planned_size(int(equal), variance, target, total, fixed) if d.get("uniform_reaches", True) else None
    people = d.get("people_variance")
    n_people = None if people is None else max(MIN_AUDITED, math.ceil(n_now * float(people) / target - 1e-9))
    return DesignPlan(metric, design, half_width, n_design, n_uniform, n_people, n_now, total)


def design_plan_text(p: DesignPlan) -> str:
    """The planner's answer in one line.

    >>> design_plan_text(DesignPlan("adherence", "active", 0.02, 410, 520, 1200, 120, 2896))
    '±0.02 on adherence with this active design needs about n = 410 audited examples (a uniform audit: 520; people alone: 1,200); 120 audited so far.'
    """
    head = f"±{p.half_width:g} on {p.metric}"
    if not p.planned:
        return f"{head}: needs at least 2 audited examples with a value to plan from."
    how = "" if p.design == "uniform" else f" with this {p.design} design"
    people = (
        f"people alone: {p.n_people:,}" if p.n_people is not None and p.n_people <= p.total else "people alone: more"
    )
    others = people if p.design == "uniform" else f"a uniform audit: {_size(p.n_uniform)}; {people}"
    if p.n_design is None:
        return f"{head}{how}: not reachable even by auditing every example ({others}); {p.n_now:,} audited so far."
    if p.n_design <= p.minimum:
        return (
            f"{head}{how} needs at least n = {p.minimum:,} audited examples (the minimum for a corrected figure; "
            f"{others}); {p.n_now:,} audited so far: plan again then, from a larger audit."
        )
    return f"{head}{how} needs about n = {p.n_design:,} audited examples ({others}); {p.n_now:,} audited so far."


def _size(n: int | None) -> str:
    return "more than there are examples" if n is None else f"{n:,}"


def target_progress_text(p: DesignPlan) -> str:
    """What the Review queue shows: how far the audit is toward the planned size.

    >>> target_progress_text(DesignPlan("adherence", "stratified", 0.05, 410, 520, 1200, 120, 2896))
    'Toward ±0.05 on adherence: 120 of about 410 reviewed (290 more, stratified design)'
    """
    head = f"Toward ±{p.half_width:g} on {p.metric}"
    if not p.planned:
        return f"{head}: review 2 members to plan from"
    if p.n_design is None:
        return f"{head}: not reachable even by auditing every example ({p.n_now:,} reviewed)"
    if p.n_now >= p.n_design:
        return f"{head}: reached ({p.n_now:,} reviewed, about {p.n_design:,} needed)"
    return f"{head}: {p.n_now:,} of about {p.n_design:,} reviewed ({p.n_design - p.n_now:,} more, {p.design} design)"
