"""The corrected difference between two systems per metric, overall and per subset: people's B − A on the questions
a paired audit drew corrects the judge's on every paired question, one PPI++ mean (:func:`difference_group`, whose
docstring gives the estimator), beside the judge-only and the people-only difference.

A question where the metric is undefined on either answer (completeness without a relevant sentence) is left out
of that metric and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragviz.analysis.compare_systems.pairs import QuestionPair, SystemPairs
from ragviz.analysis.compare_systems.verdict import verdict
from ragviz.analysis.coverage import MIN_AUDITED
from ragviz.analysis.estimates.estimate import MetricEstimate, estimate_mean
from ragviz.analysis.estimates.ppi import BOOTSTRAP_T
from ragviz.analysis.estimates.report import ALL, metric_bounds, too_few_text
from ragviz.analysis.estimates.small_audit import Bounds
from ragviz.metrics.trace import TRACE_METRICS

__all__ = [
    "CompareReport",
    "DifferenceGroup",
    "compare_report",
    "difference_arrays",
    "difference_bounds",
    "difference_group",
]


def difference_bounds(name: str) -> Bounds:
    """The range of B − A for metric *name*: ``(lo - hi, hi - lo)``.

    >>> difference_bounds("adherence")
    (-1.0, 1.0)
    """
    lo, hi = metric_bounds(name)
    return (lo - hi, hi - lo)


def _diff(a: Any, b: Any, name: str) -> float | None:
    if a is None or b is None:
        return None
    x, y = a.get(name), b.get(name)
    return None if x is None or y is None else float(y) - float(x)


def difference_arrays(
    pairs: Sequence[QuestionPair], name: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """``(y, yhat, yhat_u, (excluded audited, excluded other))`` of B − A on metric *name* (:func:`difference_group`)."""
    y: list[float] = []
    yhat: list[float] = []
    yhat_u: list[float] = []
    excluded_l = excluded_u = 0
    for p in pairs:
        judged = _diff(p.a.judge, p.b.judge, name)
        if p.audited:
            person = _diff(p.a.human, p.b.human, name)
            if judged is None or person is None:
                excluded_l += 1
            else:
                y.append(person)
                yhat.append(judged)
        elif judged is None:
            excluded_u += 1
        else:
            yhat_u.append(judged)
    return np.asarray(y), np.asarray(yhat), np.asarray(yhat_u), (excluded_l, excluded_u)


@dataclass(frozen=True)
class DifferenceGroup:
    """B − A on every metric over one group of questions (all, or one subset)."""

    n_pairs: int
    n_audited: int
    metrics: dict[str, MetricEstimate]


def difference_group(
    pairs: Sequence[QuestionPair],
    names: Sequence[str],
    alpha: float = 0.05,
    interval: str = BOOTSTRAP_T,
    bounded: bool = True,
) -> DifferenceGroup:
    """:func:`ragviz.analysis.estimates.estimate.estimate_mean` of B − A for each metric in *names* over *pairs*
    (a metric without a value on any pair is left out); ``bounded=False`` drops the range (``ppi_py``'s intervals,
    for the reference test).

    For question *q* with system A's answer and system B's, the judge gives :math:`\\hat D_q = \\hat Y_{B,q} - \\hat
    Y_{A,q}` on every paired question and people give :math:`D_q = Y_{B,q} - Y_{A,q}` on the audited ones (both answers
    reviewed). The audit draws questions uniformly (``ragviz audit draw --design paired``), so the :math:`D_q` of the
    audited questions are a uniform sample and the mean difference is one PPI++ mean: :func:`ragviz.analysis.estimates.
    estimate.estimate_mean` on *y* = :math:`D`, *yhat* = :math:`\\hat D` (audited), *yhat_u* = :math:`\\hat D`
    (the others), within the difference's range ``(lo - hi, hi - lo)``. Without bounds and with the normal interval it
    is ``ppi_py``'s ``ppi_mean_ci`` / ``ppi_mean_pointestimate`` on the paired differences
    (``tests/analysis/compare_systems/test_compare_systems.py``). Pairing by question is what makes the interval narrow: a question hard
    for both systems leaves the difference alone.

    The judge-only difference is the judge's mean :math:`\\hat D` over all paired questions (biased by whatever the
    judge gets wrong differently on the two systems), the people-only one the mean :math:`D` over the audited questions.
    """
    metrics = {}
    for name in names:
        y, yhat, yhat_u, excluded = difference_arrays(pairs, name)
        if y.size == 0 and yhat_u.size == 0 and excluded[0] == 0:
            continue
        bounds = difference_bounds(name) if bounded else None
        metrics[name] = estimate_mean(y, yhat, yhat_u, alpha, excluded, interval, bounds)
    return DifferenceGroup(len(pairs), sum(1 for p in pairs if p.audited), metrics)


@dataclass(frozen=True)
class CompareReport:
    """B − A per metric, overall and per subset, with the pairing's notes."""

    a: str
    b: str
    system: str
    pair_by: str
    alpha: float
    interval: str
    overall: DifferenceGroup
    groups: dict[str, DifferenceGroup]
    pairing_notes: tuple[str, ...] = ()
    n_unpaired: int = 0

    def sections(self) -> list[tuple[str, DifferenceGroup]]:
        """``(group, differences)``: ``ALL`` first, then each subset (only when there are several)."""
        return [(ALL, self.overall), *(self.groups.items() if len(self.groups) > 1 else ())]

    def rows(self) -> list[dict[str, Any]]:
        """One flat record per (group, metric): the CSV of ``ragviz estimate --compare`` and the tables."""
        out = []
        for group, g in self.sections():
            for name, m in g.metrics.items():
                out.append(
                    {
                        "group": group,
                        "metric": name,
                        "a": self.a,
                        "b": self.b,
                        "n_pairs": g.n_pairs,
                        "n_audited": m.n_labeled,
                        "n_judge_only": m.n_unlabeled,
                        "excluded_audited": m.excluded_labeled,
                        "excluded_judge_only": m.excluded_unlabeled,
                        "judge_diff": m.judge,
                        "people_diff": m.human.estimate,
                        "people_low": m.human.low,
                        "people_high": m.human.high,
                        "ppi_diff": m.ppi.estimate,
                        "ppi_low": m.ppi.low,
                        "ppi_high": m.ppi.high,
                        "lambda": m.ppi.lam,
                        "interval": m.ppi.method,
                        "more_needed": m.more_needed,
                        "verdict": verdict(name, m, self.a, self.b),
                    }
                )
        return out

    def as_dict(self) -> dict[str, Any]:
        """The JSON of ``ragviz estimate --compare``: the systems, the pairing, and per group and metric the
        judge-only, people-only and corrected differences (B − A) with the verdict in words."""

        def group(g: DifferenceGroup) -> dict[str, Any]:
            return {
                "n_pairs": g.n_pairs,
                "n_audited": g.n_audited,
                "metrics": {
                    name: {**m.as_dict(), "verdict": verdict(name, m, self.a, self.b)} for name, m in g.metrics.items()
                },
            }

        return {
            "a": self.a,
            "b": self.b,
            "difference": "b - a",
            "system": self.system,
            "pair_by": self.pair_by,
            "alpha": self.alpha,
            "interval": self.interval,
            "min_audited": MIN_AUDITED,
            "n_unpaired": self.n_unpaired,
            **group(self.overall),
            "groups": {name: group(g) for name, g in self.groups.items()},
            "notes": self.notes(),
        }

    def notes(self) -> list[str]:
        """What a reader must know: the pairing's notes, and the too-few words below the minimum audit."""
        out = list(self.pairing_notes)
        if self.overall.n_audited < MIN_AUDITED:
            out.append(
                too_few_text(self.overall.n_audited).capitalize().replace("audited examples", "audited questions")
                + ": below that the intervals are shown but no verdict is said in words"
            )
        return out


def compare_report(
    pairs: SystemPairs,
    alpha: float = 0.05,
    interval: str = BOOTSTRAP_T,
    names: Sequence[str] = TRACE_METRICS,
) -> CompareReport:
    """B − A on each metric of *names* (default the four TRACe metrics), overall and per subset."""
    overall = difference_group(pairs.pairs, names, alpha, interval)
    by_subset: dict[str, list[QuestionPair]] = {}
    for p in pairs.pairs:
        by_subset.setdefault(p.subset, []).append(p)
    groups = {s: difference_group(by_subset[s], names, alpha, interval) for s in sorted(by_subset)}
    return CompareReport(
        pairs.a,
        pairs.b,
        pairs.system,
        pairs.pair_by,
        alpha,
        interval,
        overall,
        groups,
        tuple(pairs.notes()),
        len(pairs.unpaired),
    )
