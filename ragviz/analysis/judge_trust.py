"""How far the judge can be trusted: its agreement with people per label kind, with bootstrap intervals,
overall and per group, and a one-line verdict per label kind that weighs that agreement with the judge's
bias on the metric the label feeds.

The figures and their intervals are :func:`ragviz.analysis.agreement.agreement`'s (the Dashboard's; the
rule of :mod:`ragviz.analysis.figure_intervals`: none below a minimum of reviewed examples, never of zero
width). The bias is the corrected estimate's
(:mod:`ragviz.analysis.estimates.report`): the judge's mean minus what people would say.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragviz.analysis.agreement import ADHERENT, BINARY_LABELS, RELEVANT, SUPPORTED, UTILIZED, agreement
from ragviz.analysis.labelsets.named import judge_labels, resolve_label_set
from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.data.dataset import examples_at
from ragviz.data.model import Example, Labels

if TYPE_CHECKING:
    from ragviz.analysis.estimates.estimate import MetricEstimate
    from ragviz.data.dataset import Dataset
    from ragviz.store.label_store import LabelStore

__all__ = [
    "Bias",
    "LABEL_METRIC",
    "LabelTrust",
    "RELIABLE_KAPPA",
    "RESAMPLES",
    "Triple",
    "UNSURE_HALF_WIDTH",
    "judge_people_triples",
    "label_trust",
    "label_trust_by",
    "metric_bias",
    "verdict",
]


Triple = tuple[Example, Labels, Labels]  # (example, people's labels, the judge's)
RESAMPLES = 1000
#: The TRACe metric each label kind feeds: its bias is that metric's.
LABEL_METRIC = {RELEVANT: "relevance", UTILIZED: "utilization", SUPPORTED: "adherence", ADHERENT: "adherence"}
#: Cohen's kappa from which agreement counts as substantial (Landis & Koch 1977).
RELIABLE_KAPPA = 0.6
#: A bias interval wider than this either side is too wide to call the judge unbiased (in points of the mean).
UNSURE_HALF_WIDTH = 0.05


@dataclass(frozen=True)
class LabelTrust:
    """One label kind: decisions compared, Cohen's kappa and accuracy with their 95 % intervals."""

    label: str
    n_examples: int
    n_decisions: int
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None
    accuracy: float | None
    accuracy_low: float | None
    accuracy_high: float | None
    #: ``"too few reviewed to say (6 of 10)"`` when there is no interval for that reason, else ``None``.
    too_few: str | None = None


def judge_people_triples(
    dataset: Dataset,
    store: LabelStore | None,
    against: LabelSelection = HUMAN,
    examples: Mapping[int, Example] | None = None,
) -> list[Triple]:
    """Every example a person reviewed (*against*: ``human`` = every annotator's latest decision per field, or one annotator) that the
    judge labelled, as ``(example, people's labels, the judge's labels)`` in row order: the pairs the Dashboard's
    "How much can we trust the judge?" compares."""
    if store is None:
        return []
    reviewed = resolve_label_set(dataset, against, store, scope="reviewed", examples=examples)
    rows = sorted(reviewed.labels)
    built = examples_at(dataset, rows, examples)
    judged = store.judge.judged_uids()
    out = []
    for i in rows:
        ex = built[i]
        judge = judge_labels(ex, store if ex.uid in judged else None)
        if judge is not None:
            out.append((ex, reviewed.labels[i], judge))
    return out


def label_trust(
    triples: Sequence[Triple], labels: Sequence[str] = BINARY_LABELS, n_resamples: int = RESAMPLES, seed: int = 0
) -> dict[str, LabelTrust]:
    """:class:`LabelTrust` of each of *labels* over *triples* (people's labels the reference), the intervals
    :func:`ragviz.analysis.agreement.agreement`'s (:mod:`ragviz.analysis.figure_intervals`): none below
    :data:`ragviz.analysis.coverage.MIN_REVIEWED` reviewed examples, where :attr:`LabelTrust.too_few`
    says so."""
    point = agreement(triples)
    out = {}
    for label in labels:
        la = point.labels[label]
        kappa, accuracy = la.intervals.get("kappa"), la.intervals.get("accuracy")
        out[label] = LabelTrust(
            label,
            point.n_examples,
            la.confusion.n,
            la.kappa,
            kappa.low if kappa else None,
            kappa.high if kappa else None,
            la.confusion.accuracy,
            accuracy.low if accuracy else None,
            accuracy.high if accuracy else None,
            point.too_few,
        )
    return out


def label_trust_by(
    triples: Sequence[Triple], group_of: Callable[[Example], str], labels: Sequence[str] = BINARY_LABELS
) -> dict[str, dict[str, LabelTrust]]:
    """:func:`label_trust` per group (sorted by name)."""
    groups: dict[str, list[Triple]] = {}
    for t in triples:
        groups.setdefault(group_of(t[0]), []).append(t)
    return {g: label_trust(groups[g], labels) for g in sorted(groups)}


@dataclass(frozen=True)
class Bias:
    """The judge's mean minus the corrected estimate of one metric, with the interval the corrected one gives."""

    metric: str
    bias: float | None
    low: float | None
    high: float | None
    n_audited: int


def metric_bias(name: str, m: MetricEstimate) -> Bias:
    """The judge's bias on metric *name* from its corrected estimate *m*: judge − corrected, the interval
    ``[judge − high, judge − low]`` (the judge's mean over all examples is known; the corrected one is not);
    none below :data:`ragviz.analysis.coverage.MIN_AUDITED` audited examples, where the corrected
    figure is not said either."""
    ppi = m.ppi
    if m.judge is None or ppi.estimate is None or m.more_needed:  # too small an audit: no corrected figure
        return Bias(name, None, None, None, m.n_labeled)
    low = None if ppi.high is None else m.judge - ppi.high
    high = None if ppi.low is None else m.judge - ppi.low
    return Bias(name, m.judge - ppi.estimate, low, high, m.n_labeled)


def _points(value: float) -> str:
    return f"{abs(round(100 * value))}"


def verdict(trust: LabelTrust | None, bias: Bias | None) -> str:
    """One line on one label kind, for a reader who will not look at the figures:

    - ``"too few audited to say"`` without an interval on the metric's bias or on the agreement;
    - ``"biased upward by 6 points"`` (downward) when the bias interval excludes 0;
    - ``"reliable"`` when the bias is within ±5 points and kappa's lower bound is at least 0.6;
    - otherwise what stops it: ``"unbiased on average, but agrees with people only moderately (κ 0.45)"`` or
      ``"too few audited to say (bias between −8 and +9 points)"``.

    >>> verdict(LabelTrust("supported", 40, 120, 0.8, 0.7, 0.9, 0.95, 0.9, 0.98), Bias("adherence", 0.06, 0.02, 0.1, 40))
    'biased upward by 6 points'
    """
    if bias is None or bias.bias is None or bias.low is None or bias.high is None:
        return "too few audited to say"
    if bias.low > 0 or bias.high < 0:
        direction = "upward" if bias.bias > 0 else "downward"
        points = _points(bias.bias)
        return f"biased {direction} by {points} point{'' if points == '1' else 's'}"
    if bias.high - bias.low > 2 * UNSURE_HALF_WIDTH:
        return f"too few audited to say (bias between {100 * bias.low:+.0f} and {100 * bias.high:+.0f} points)".replace(
            "-", "−"
        )
    if trust is None or trust.kappa is None or trust.kappa_low is None:
        return "unbiased on average; agreement per sentence not measurable"
    if trust.kappa_low >= RELIABLE_KAPPA:
        return "reliable"
    return f"unbiased on average, but agrees with people only moderately (κ {trust.kappa:.2f})"
