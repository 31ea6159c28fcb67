"""Prediction-powered estimates for every metric of a :class:`ragviz.analysis.estimates.pairing.Pairing`, overall and per group.

For each metric, the audited examples where both the judge's and people's values are defined give
``y`` / ``yhat``, the other examples where the judge's value is defined give ``yhat_u``;
:func:`ragviz.analysis.estimates.estimate.estimate_mean` does the rest. Examples left out because the metric is
undefined there are counted (:attr:`ragviz.analysis.estimates.estimate.MetricEstimate.excluded_labeled` /
``excluded_unlabeled``) and named in :meth:`EstimateReport.notes`, as are metrics with fewer than two
audited pairs (no interval).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragviz.analysis.coverage import APPROXIMATE_BELOW, INTERVAL_COVERAGE, MIN_AUDITED, more_needed
from ragviz.analysis.estimates.estimate import DEFAULT_INTERVAL, MetricEstimate, estimate_mean
from ragviz.analysis.estimates.pairing import PairedExample, Pairing
from ragviz.analysis.estimates.planner import SamplePlan, plan_sample_size
from ragviz.analysis.estimates.small_audit import FEW, Bounds
from ragviz.metrics.registry import all_metrics

__all__ = [
    "ALL",
    "APPROXIMATE_BELOW",
    "EstimateReport",
    "GROUP_BY",
    "GroupEstimate",
    "INTERVAL_COVERAGE",
    "PLAIN_WORDS",
    "approximate_note",
    "estimate_group",
    "estimate_report",
    "metric_arrays",
    "metric_bounds",
    "plain_words",
    "plan",
    "plan_text",
    "too_few_text",
]


GROUP_BY = {"dataset_name": "dataset", "generation_model_name": "generation_model"}
ALL = "ALL"


def approximate_note(n_audited: int, alpha: float = 0.05, interval: str = "t", design: str | None = None) -> str | None:
    """What a reader must know about a PPI++ interval (method *interval*) from *n_audited* examples.

    ``benchmarks/bench_design_target.py``, ``bench_designs.py`` and ``bench_ppi.py`` measure coverage at n = 100, 300 and 1,000 (and 30,
    50): the interval shown by default (the t) covers 93–96 % from 100 on and 91–98 % at 30–50, so below
    :data:`APPROXIMATE_BELOW` (100, also :data:`MIN_AUDITED`) it is approximate; the normal one (``ppi_py``'s) covers 90–95 % at 100 (short for skewed metrics) and
    92–96 % from 300 on. ``None`` from the method's threshold on.

    >>> approximate_note(100) is None, approximate_note(50).startswith("Approximate")
    (True, True)
    >>> approximate_note(300, interval="normal") is None, approximate_note(100, interval="normal") is None
    (True, False)
    >>> "design's normal" in approximate_note(100, interval="normal", design="active")
    True
    """
    below = APPROXIMATE_BELOW[interval]
    if n_audited >= below:
        return None
    level = f"{100 * (1 - alpha):g} %"
    if interval == "normal" and design not in (None, "uniform"):
        return (
            f"Approximate: with {n_audited:,} audited examples (under {below}) the {design} design's normal {level} "
            f"interval contains the true value less often than {level} — about 91–95 % at 100 in our simulation "
            "(benchmarks/bench_designs.py). The bootstrap-t interval (the default) does not fall short there; or "
            "grow the audit sample."
        )
    if interval == "normal":
        return (
            f"Approximate: with {n_audited:,} audited examples (under {below}) a normal {level} interval "
            f"contains the true value less often than {level} — about 91–93 % at 100 in our simulation, for "
            "skewed metrics such as utilization and adherence. The bootstrap-t interval (the default) does not "
            "fall short there; or grow the audit sample."
        )
    if interval == "t":
        return (
            f"Approximate: with {n_audited:,} audited examples (under {below}) the {level} interval may contain "
            f"the true value less often than {level} — about 90–94 % at 30–50 in our simulation, least where a "
            "calibrated pilot is a dozen examples. Grow the audit sample to be sure of it."
        )
    return (
        f"Approximate: with {n_audited:,} audited examples (under {below}) the {level} interval may contain "
        f"the true value less often than {level} — about 88–91 % at 30–50 in our simulation, for a rare 0/1 outcome "
        "such as hallucination. Grow the audit sample to be sure of it."
    )


def metric_arrays(
    examples: Sequence[PairedExample], name: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """``(y, yhat, yhat_u, (excluded audited, excluded unaudited))`` of one metric over *examples*."""
    y: list[float] = []
    yhat: list[float] = []
    yhat_u: list[float] = []
    excluded_l = excluded_u = 0
    for e in examples:
        judged = e.judge.get(name)
        if e.human is not None:
            person = e.human.get(name)
            if judged is None or person is None:
                excluded_l += 1
            else:
                y.append(float(person))
                yhat.append(float(judged))
        elif judged is None:
            excluded_u += 1
        else:
            yhat_u.append(float(judged))
    return np.asarray(y), np.asarray(yhat), np.asarray(yhat_u), (excluded_l, excluded_u)


def metric_bounds(name: str) -> Bounds:
    """The range of metric *name* (:mod:`ragviz.metrics.registry`; [0, 1] for a name it does not list, such as
    a retrieval cut-off outside the default ones): every interval is kept inside it.

    >>> metric_bounds("adherence"), metric_bounds("answer_similarity"), metric_bounds("recall@7")
    ((0.0, 1.0), (0.0, 5.0), (0.0, 1.0))
    """
    for spec in all_metrics():
        if spec.name == name:
            return (spec.lower, spec.upper)
    return (0.0, 1.0)


def too_few_text(n_audited: int) -> str:
    """What every output says instead of a corrected figure below :data:`MIN_AUDITED` audited examples.

    >>> too_few_text(6)
    'too few reviewed to correct yet: 94 more needed (a corrected figure needs 100 audited examples)'
    """
    return (
        f"too few reviewed to correct yet: {more_needed(n_audited):,} more needed "
        f"(a corrected figure needs {MIN_AUDITED} audited examples)"
    )


@dataclass(frozen=True)
class GroupEstimate:
    """The estimates of every metric over one group of examples (or all of them)."""

    n_labeled: int
    n_unlabeled: int
    metrics: dict[str, MetricEstimate]

    def as_dict(self, alpha: float, interval: str = DEFAULT_INTERVAL) -> dict[str, Any]:
        return {
            "alpha": alpha,
            "interval": interval,
            "min_audited": MIN_AUDITED,
            "n_labeled": self.n_labeled,
            "n_unlabeled": self.n_unlabeled,
            "metrics": {name: m.as_dict() for name, m in self.metrics.items()},
        }


def estimate_group(
    examples: Sequence[PairedExample], names: Sequence[str], alpha: float, interval: str = DEFAULT_INTERVAL
) -> GroupEstimate:
    """:func:`ragviz.analysis.estimates.estimate.estimate_mean` of each metric in *names* over *examples* with the
    PPI++ interval method *interval* (a metric without a single value among them is left out)."""
    metrics = {}
    for name in names:
        y, yhat, yhat_u, excluded = metric_arrays(examples, name)
        if y.size == 0 and yhat_u.size == 0 and excluded[0] == 0:
            continue  # no value anywhere in this group: the metric is not present here
        metrics[name] = estimate_mean(y, yhat, yhat_u, alpha, excluded, interval, metric_bounds(name))
    n_labeled = sum(1 for e in examples if e.audited)
    return GroupEstimate(n_labeled, len(examples) - n_labeled, metrics)


@dataclass(frozen=True)
class EstimateReport:
    """Overall estimates and, with ``by``, one :class:`GroupEstimate` per group (sorted by name);
    ``interval`` is the PPI++ interval method asked for (:data:`ragviz.analysis.estimates.ppi.INTERVAL_METHODS`)."""

    alpha: float
    overall: GroupEstimate
    by: str | None = None
    groups: dict[str, GroupEstimate] | None = None
    interval: str = DEFAULT_INTERVAL
    design: dict[str, Any] | None = None  # the audit sample's design (ragviz.analysis.audits.design_estimate)

    @property
    def design_name(self) -> str:
        return str((self.design or {}).get("name") or "uniform")

    def as_dict(self) -> dict[str, Any]:
        """``{"alpha", "interval", "design", "n_labeled", "n_unlabeled", "metrics": {...}}`` plus ``"groups": {name:
        same shape}`` when grouped (the JSON of ``ragviz estimate``); ``design`` names the audit's sampling design."""
        out = self.overall.as_dict(self.alpha, self.interval)
        out["design"] = self.design or {"name": "uniform"}
        if self.groups is not None:
            out["groups"] = {g: est.as_dict(self.alpha, self.interval) for g, est in self.groups.items()}
        return out

    def intervals_used(self) -> str:
        """The interval each metric got, for a header: ``"t"`` when every metric got the method asked for, else e.g.
        ``"t (bootstrap-t for adherence)"`` (led by the one most got where none got it); :meth:`notes` says why."""
        used = [m.ppi.method for m in self.overall.metrics.values() if m.ppi.method is not None]
        # the method asked for, or (a design without it: the stratified design's t) the one most metrics got
        base = self.interval if self.interval in used or not used else max(used, key=used.count)
        other: dict[str, list[str]] = {}
        for name, m in self.overall.metrics.items():
            if m.ppi.method is not None and m.ppi.method != base:
                other.setdefault(m.ppi.method, []).append(name)
        if not other:
            return base
        parts = [f"{method} for " + ", ".join(names) for method, names in other.items()]
        return f"{base} ({'; '.join(parts)})"

    def sections(self) -> list[tuple[str, GroupEstimate]]:
        """``(group name, estimates)``: ``ALL`` first, then each group."""
        return [(ALL, self.overall), *(self.groups or {}).items()]

    def rows(self) -> list[dict[str, Any]]:
        """One flat record per (group, metric), for CSV and tables."""
        out = []
        for group, est in self.sections():
            for name, m in est.metrics.items():
                out.append(
                    {
                        "group": group,
                        "metric": name,
                        "n_labeled": m.n_labeled,
                        "n_unlabeled": m.n_unlabeled,
                        "excluded_labeled": m.excluded_labeled,
                        "excluded_unlabeled": m.excluded_unlabeled,
                        "judge": m.judge,
                        "human": m.human.estimate,
                        "human_low": m.human.low,
                        "human_high": m.human.high,
                        "ppi": m.ppi.estimate,
                        "ppi_low": m.ppi.low,
                        "ppi_high": m.ppi.high,
                        "lambda": m.ppi.lam,
                        "interval": m.ppi.method,
                        "gain": m.gain,
                        "more_needed": m.more_needed,
                    }
                )
        return out

    def notes(self) -> list[str]:
        """What a reader must know: intervals from a small audit are approximate
        (:func:`ragviz.analysis.estimates.pairing.approximate_note`), metrics without an interval or whose bootstrap-t
        interval fell back to the normal one, examples left out."""
        n_audited = self.overall.n_labeled
        if n_audited < MIN_AUDITED:
            small: str | None = too_few_text(n_audited).capitalize() + (
                ": below that the intervals are shown (always within the metric's range) but no corrected "
                "figure is said in words"
            )
        else:
            small = approximate_note(n_audited, self.alpha, self.interval, (self.design or {}).get("name"))
        out = [small] if small else []
        for group, est in self.sections():
            fell_back: dict[str, list[str]] = {}  # interval method shown -> the metrics that fell back to it
            for name, m in est.metrics.items():
                where = name if group == ALL else f"{group}: {name}"
                if m.n_labeled < 2:
                    out.append(
                        f"{where}: {m.n_labeled} audited example(s) with a value on both sides: "
                        "no interval (needs at least 2)"
                    )
                elif where != name and m.more_needed:
                    out.append(f"{where}: {too_few_text(m.n_labeled)}")
                elif m.ppi.method is not None and m.ppi.method != self.interval:
                    fell_back.setdefault(m.ppi.method, []).append(name)
                if m.excluded_labeled or m.excluded_unlabeled:
                    out.append(
                        f"{where}: undefined on {m.excluded_labeled} audited and {m.excluded_unlabeled} other "
                        "examples: left out"
                    )
            for method, names in fell_back.items():
                prefix = "" if group == ALL else f"{group}: "
                out.append(
                    f"{prefix}{', '.join(names)}: the audit's corrections (people's value against the judge's) leave their "
                    f"most common value on fewer than {FEW} examples, so a "
                    f"{self.interval} interval is not defined: showing the {method} one for "
                    f"{'it' if len(names) == 1 else 'these'}"
                )
        return out


def estimate_report(
    pairing: Pairing, alpha: float = 0.05, by: str | None = None, interval: str = DEFAULT_INTERVAL
) -> EstimateReport:
    """Estimates of every metric of *pairing* (:meth:`Pairing.metric_names`), overall and, with *by*
    (``dataset_name`` or ``generation_model_name``), per group; *interval* is the PPI++ interval
    method (default the bootstrap-t: ``BENCHMARKS.md`` has the coverage of both)."""
    names = pairing.metric_names()
    overall = estimate_group(pairing.examples, names, alpha, interval)
    if by is None:
        return EstimateReport(alpha, overall, interval=interval)
    if by not in GROUP_BY:
        raise ValueError(f"cannot group by {by!r}; expected one of {', '.join(GROUP_BY)}")
    attribute = GROUP_BY[by]
    members: dict[str, list[PairedExample]] = {}
    for e in pairing.examples:
        members.setdefault(getattr(e, attribute), []).append(e)
    groups = {g: estimate_group(members[g], names, alpha, interval) for g in sorted(members)}
    return EstimateReport(alpha, overall, by, groups, interval)


def plan(pairing: Pairing, name: str, half_width: float, alpha: float = 0.05) -> SamplePlan:
    """The audit size for a (1 - alpha) interval of ± *half_width* on metric *name* over all of
    *pairing* (:func:`ragviz.analysis.estimates.planner.plan_sample_size` on the audited examples so far;
    never fewer than :data:`ragviz.analysis.coverage.MIN_AUDITED`)."""
    y, yhat, yhat_u, _ = metric_arrays(pairing.examples, name)
    return plan_sample_size(y, yhat, yhat_u, half_width, alpha, MIN_AUDITED)


def plan_text(name: str, result: SamplePlan, n_now: int) -> str:
    """The planner's answer in one line.

    >>> plan_text("adherence", SamplePlan(0.02, 640, 1200), 300)
    '±0.02 on adherence needs about n = 640 audited examples (people alone: 1,200); 300 audited so far.'
    >>> plan_text("adherence", SamplePlan(0.02, 100, 100, 100), 6)
    '±0.02 on adherence needs at least n = 100 audited examples (the minimum for a corrected figure; people alone: 100); 6 audited so far: plan again then, from a larger audit.'
    """
    head = f"±{result.half_width:g} on {name}"
    if result.n_classical is None:
        return f"{head}: needs at least 2 audited examples with a value to plan from."
    if result.n_ppi is not None and result.n_ppi <= result.minimum:
        return (
            f"{head} needs at least n = {result.minimum:,} audited examples (the minimum for a corrected figure; "
            f"people alone: {result.n_classical:,}); {n_now:,} audited so far: plan again then, from a larger audit."
        )
    people = f"people alone: {result.n_classical:,}"
    if result.n_ppi is None:
        return f"{head}: not reachable even by auditing every example ({people}); {n_now:,} audited so far."
    return f"{head} needs about n = {result.n_ppi:,} audited examples ({people}); {n_now:,} audited so far."


# What each TRACe mean is, in words a stakeholder reads: "<value> <phrase>". Adherence is a share of
# answers; the others are per-answer fractions, averaged.
PLAIN_WORDS = {
    "adherence": ("of answers are supported", "answers"),
    "relevance": ("of the retrieved context is relevant to the question, on average", "answers"),
    "utilization": ("of the retrieved context is used by the answer, on average", "answers"),
    "completeness": ("of the relevant context is used by the answer, on average", "answers"),
}


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%"  # no space: a line never breaks between a number and its unit


def plain_words(name: str, m: MetricEstimate) -> str | None:
    """One sentence for stakeholders, e.g. "The judge says 81% of answers are supported; corrected with
    300 reviewed answers: 74% ± 3%." — or "74% (between 70% and 77%)" when the interval is lopsided
    at the shown precision (the bootstrap-t interval is asymmetric where the metric is skewed).
    ``None`` for a metric without words or without an estimate. Below
    :data:`ragviz.analysis.coverage.MIN_AUDITED` audited examples no corrected figure: the
    interval would not cover as often as it says (``BENCHMARKS.md``), so the sentence says how many more.

    >>> from ragviz.analysis.estimates.estimate import estimate_mean
    >>> plain_words("adherence", estimate_mean([1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0] * 8))
    'The judge says 100% of answers are supported; too few reviewed to correct yet: 96 more needed (4 reviewed answers in a random audit so far).'
    >>> plain_words("adherence", estimate_mean([1.0] * 80 + [0.0] * 20, [1.0] * 90 + [0.0] * 10, [1.0] * 180 + [0.0] * 20))
    'The judge says 90% of answers are supported; corrected with 100 reviewed answers: 79% ± 7%.'
    """
    if name not in PLAIN_WORDS or m.judge is None:
        return None
    phrase, unit = PLAIN_WORDS[name]
    text = f"The judge says {_pct(m.judge)} {phrase}"
    ppi = m.ppi
    if m.more_needed or ppi.estimate is None or ppi.low is None or ppi.high is None:
        return (
            text + f"; too few reviewed to correct yet: {max(m.more_needed, 1):,} more needed "
            f"({m.n_labeled:,} reviewed {unit} in a random audit so far)."
        )
    below, above = ppi.estimate - ppi.low, ppi.high - ppi.estimate
    spread = f"± {_pct(below)}" if _pct(below) == _pct(above) else f"(between {_pct(ppi.low)} and {_pct(ppi.high)})"
    return text + f"; corrected with {m.n_labeled:,} reviewed {unit}: {_pct(ppi.estimate)} {spread}."
