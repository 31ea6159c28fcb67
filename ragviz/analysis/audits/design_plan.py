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

An active design's variance is :math:`A/n + B` only while no chance reaches 1: past that, the examples drawn for
certain stop shrinking the variance. So an active estimate also carries its variance at other budgets
(:func:`variance_curve`: each member's chance scaled until the expected size is the budget, capped at 1, the design
part re-weighted from the audit) and :func:`planned_size_from_curve` reads the plan off it. In
``benchmarks/bench_planner.py`` that changed little (utilization ± 0.01 from an audit of 100: 1.047 x the target
against A/n + B's 1.042, 200 replicates; adherence ± 0.02 / 0.03: 1.018 / 1.004 against 1.023 / 1.019): what is left
of the shortfall comes from planning on the variance of an audit of 100, not from the capped chances.

No answer is below :data:`ragviz.analysis.coverage.MIN_AUDITED` (fewer give no corrected figure) nor
above the examples there are (``None``: not reachable).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragviz.analysis.coverage import MIN_AUDITED
from ragviz.analysis.estimates.pairing import Pairing
from ragviz.analysis.estimates.ppi import z_value
from ragviz.analysis.estimates.report import EstimateReport, plan

__all__ = [
    "DesignPlan",
    "design_plan_text",
    "plan_design",
    "planned_size",
    "planned_size_from_curve",
    "target_progress_text",
    "variance_curve",
]

CURVE_POINTS = 48  # budgets the variance curve holds, geometric from the minimum audit to every example


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
    Never below :data:`ragviz.analysis.coverage.MIN_AUDITED`.

    >>> planned_size(100, 0.0004, 0.0001, 10_000), planned_size(100, 0.0004, 0.0001, 10_000, fixed=0.00005)
    (400, 700)
    """
    if target <= fixed:
        return None
    need = max(MIN_AUDITED, math.ceil(n * max(variance - fixed, 0.0) / (target - fixed) - 1e-9))
    return need if need <= total else None


def _scales_for(pi: np.ndarray, budgets: np.ndarray) -> np.ndarray:
    """Per budget the factor *c* with :math:`\\sum_i \\min(1, c\\pi_i)/\\pi_i = ` budget (the Horvitz–Thompson estimate
    of the expected sample size at chances :math:`\\min(1, c\\pi_i)`), by bisection, every budget at once."""

    def size(c: np.ndarray) -> np.ndarray:
        return (np.minimum(1.0, c[:, None] * pi[None, :]) / pi[None, :]).sum(axis=1)

    low, high = np.zeros(budgets.size), np.ones(budgets.size)
    for _ in range(50):  # widen until every budget is bracketed (the largest factor needed: 1 / min(pi))
        short = size(high) < budgets
        if not short.any():
            break
        high = np.where(short, high * 2.0, high)
    for _ in range(60):
        mid = 0.5 * (low + high)
        below = size(mid) < budgets
        low, high = np.where(below, mid, low), np.where(below, high, mid)
    return high


def variance_curve(
    d: np.ndarray, pi: np.ndarray, variance: float, total: int, points: int = CURVE_POINTS
) -> list[list[float]]:
    """``[[budget, variance], ...]`` of an active estimate whose audited members have chances *pi* and centred
    residuals *d* (:math:`d = \\tilde Y - \\lambda \\tilde{\\hat Y}`) and whose variance now is *variance*, over *total*
    examples: at budget *n'* each chance becomes :math:`\\pi'_i = \\min(1, c\\pi_i)` with the expected size *n'*, and
    the design part :math:`\\frac1{M^2}\\sum_i (1/\\pi_i - 1) d_i^2` (estimated over the audit, each member weighted
    by :math:`1/\\pi_i`; at most *variance*) is scaled by its ratio at :math:`\\pi'` to the one now. Budgets from the
    minimum audit to every example.

    >>> curve = variance_curve(np.array([0.5, -0.5] * 50), np.full(100, 0.1), 0.0025, 1000, points=3)
    >>> [(round(n), round(v * 1e6)) for n, v in curve]  # every example audited: only the part no audit shrinks
    [(100, 2500), (316, 791), (1000, 250)]
    """
    sizes = np.geomspace(min(MIN_AUDITED, d.size), total, points)

    weight = d * d / pi
    base = float(np.sum((1.0 / pi - 1.0) * weight)) / total**2
    if base <= 0:
        return [[float(n), variance] for n in sizes]
    chances = np.minimum(1.0, _scales_for(pi, sizes)[:, None] * pi[None, :])
    design = ((1.0 / chances - 1.0) * weight[None, :]).sum(axis=1) / total**2
    shrinking = min(base, variance)  # the audit's estimate of the design part, never more than the whole
    return [[float(n), variance - shrinking + shrinking * float(v) / base] for n, v in zip(sizes, design)]


def planned_size_from_curve(curve: Sequence[Sequence[float]], target: float, total: int) -> int | None:
    """The smallest budget on *curve* (:func:`variance_curve`) whose variance reaches *target*, interpolated
    between the two budgets around it; ``None`` when not even every example reaches it. Never below
    :data:`ragviz.analysis.coverage.MIN_AUDITED`.

    >>> planned_size_from_curve([[100, 4e-4], [200, 2e-4], [400, 1e-4]], 1.5e-4, 1000)
    300
    """
    previous: Sequence[float] | None = None
    for n, v in curve:
        if v <= target:
            if previous is None or previous[1] == v:
                need = n
            else:
                n0, v0 = previous
                need = n0 + (n - n0) * (v0 - target) / (v0 - v)
            need = max(MIN_AUDITED, math.ceil(need - 1e-9))
            return need if need <= total else None
        previous = (n, v)
    return None


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
    curve = d.get("variance_curve")
    if curve:  # an active estimate's variance at other budgets, chances capped at 1 (module docstring)
        n_design = planned_size_from_curve(curve, target, total)
    else:
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
