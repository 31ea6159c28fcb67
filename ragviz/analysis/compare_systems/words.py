"""The comparison in words, and how many questions an audit needs to tell a difference apart.

:func:`verdict` says one metric's corrected difference as a stakeholder reads it ("B is better on adherence by 4
points (1 to 7)", "no difference we can see on adherence (B − A: +1 point, −2 to 4)"); below the minimum audit it
says the same "too few" words as every other estimate (:func:`ragviz.analysis.estimates.report.too_few_text`).
Higher is better on every TRACe metric. :func:`plan_questions` answers "how many questions to tell a 3-point
difference apart" with the PPI++ planner (:func:`ragviz.analysis.estimates.planner.plan_sample_size`) on the
paired differences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragviz.analysis.compare_systems.difference import CompareReport, difference_arrays
from ragviz.analysis.compare_systems.pairs import QuestionPair
from ragviz.analysis.compare_systems.verdict import points, verdict
from ragviz.analysis.coverage import MIN_AUDITED
from ragviz.analysis.estimates.planner import plan_sample_size
from ragviz.analysis.estimates.ppi import z_value

__all__ = ["POWER", "QuestionPlan", "headline", "plan_questions", "plan_questions_text", "verdicts"]


POWER = 0.8  # the planner's chance that the interval of a true difference of the asked size stays clear of 0


def verdicts(report: CompareReport) -> list[str]:
    """Every metric's verdict over all questions, in the report's order."""
    return [verdict(name, m, report.a, report.b) for name, m in report.overall.metrics.items()]


def headline(report: CompareReport, with_verdict: bool = True) -> str:
    """One sentence for stakeholders: what was compared on how many questions, and (*with_verdict*) adherence's
    verdict (else the first metric's)."""
    o = report.overall
    head = (
        f"{report.b} against {report.a} on {o.n_pairs:,} questions both answered, {o.n_audited:,} of them reviewed "
        "by people (both answers)"
    )
    name = "adherence" if "adherence" in o.metrics else next(iter(o.metrics), None)
    if name is None or not with_verdict:
        return head + "."
    return f"{head}: {verdict(name, o.metrics[name], report.a, report.b)}."


@dataclass(frozen=True)
class QuestionPlan:
    """How many audited questions tell a difference of *difference* apart (:func:`plan_questions`)."""

    metric: str
    difference: float
    half_width: float
    n_questions: int | None  # PPI++ (judge and people)
    n_people: int | None  # people alone
    n_pairs: int
    n_audited: int
    from_judge: bool  # planned from the judge's differences alone (no audit yet)


def plan_questions(
    pairs: Sequence[QuestionPair], name: str = "adherence", difference: float = 0.03, alpha: float = 0.05
) -> QuestionPlan:
    """The audited questions needed so that a true difference of *difference* on metric *name* gives an interval
    clear of 0 with chance :data:`POWER`: a half-width of :math:`d \\cdot z_{1-\\alpha/2} / (z_{1-\\alpha/2} +
    z_{\\mathrm{power}})` (2.1 points for 3), planned by :func:`ragviz.analysis.estimates.planner.plan_sample_size` on
    the paired differences audited so far, never under :data:`MIN_AUDITED`. Before two questions are audited the
    judge's differences stand in for people's (``from_judge``): a first guess, planned again once an audit runs."""
    if difference <= 0:
        raise ValueError(f"difference must be positive, got {difference}")
    z = z_value(alpha)
    half = difference * z / (z + z_value(2 * (1 - POWER)))
    y, yhat, yhat_u, _ = difference_arrays(pairs, name)
    from_judge = y.size < 2
    if from_judge:
        judged = np.concatenate([yhat, yhat_u])
        y, yhat, yhat_u = judged, judged, np.asarray([])
    result = plan_sample_size(y, yhat, yhat_u, half, alpha, MIN_AUDITED)
    n_people = result.n_classical
    if from_judge and n_people is not None:
        n_people = min(n_people, len(pairs))
    n_ppi = n_people if from_judge else result.n_ppi
    return QuestionPlan(
        name, difference, half, n_ppi, n_people, len(pairs), int(y.size) if not from_judge else 0, from_judge
    )


def plan_questions_text(plan: QuestionPlan) -> str:
    """The planner's answer in one line.

    >>> plan_questions_text(QuestionPlan("adherence", 0.03, 0.021, 640, 900, 1000, 120, False))
    'To tell a 3-point difference in adherence apart (a 95% interval clear of 0 four times in five: ± 2.1 points) needs about 640 audited questions (people alone: 900); 120 of 1,000 audited so far.'
    """
    head = (
        f"To tell a {points(plan.difference)}-point difference in {plan.metric} apart (a 95% interval clear of 0 "
        f"four times in five: ± {100 * plan.half_width:.1f} points)"
    )
    tail = f"{plan.n_audited:,} of {plan.n_pairs:,} audited so far"
    if plan.n_people is None:
        return f"{head}: the questions' differences do not vary, so there is nothing to plan from; {tail}."
    if plan.from_judge:
        reach = (
            f"needs about {plan.n_people:,} audited questions"
            if plan.n_people < plan.n_pairs
            else f"needs more than the {plan.n_pairs:,} questions both systems answered"
        )
        return f"{head} {reach} (a first guess from the judge's differences: plan again once people audit)."
    if plan.n_questions is None:
        return f"{head}: not reachable even by auditing every question (people alone: {plan.n_people:,}); {tail}."
    return f"{head} needs about {plan.n_questions:,} audited questions (people alone: {plan.n_people:,}); {tail}."
