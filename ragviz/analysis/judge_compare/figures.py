"""Judge versions measured against people on a test set: agreement per label kind (:func:`kind_decisions`) and bias
per TRACe metric, each with a 95 % bootstrap interval under the rule of every judge-vs-people figure
(:mod:`ragviz.analysis.figure_intervals`; :func:`version_figures`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragviz.analysis.agreement import ADHERENT, RELEVANT, SUPPORTED, UTILIZED, decisions
from ragviz.analysis.coverage import MIN_REVIEWED, too_few_words
from ragviz.analysis.figure_intervals import confusion_intervals, mean_interval
from ragviz.analysis.stats import binary_kappa
from ragviz.data.keys import clean_key
from ragviz.data.model import Example, Labels
from ragviz.metrics.trace import trace_scores

__all__ = [
    "FIGURES",
    "KINDS",
    "KindAgreement",
    "MetricBias",
    "RESAMPLES",
    "SUPPORTING",
    "TRACE_METRICS",
    "Triple",
    "VersionFigures",
    "kind_decisions",
    "resample_weights",
    "version_figures",
]


SUPPORTING = "supporting"
KINDS = (RELEVANT, UTILIZED, SUPPORTED, SUPPORTING, ADHERENT)
FIGURES = ("kappa", "precision", "recall", "f1", "tnr")
TRACE_METRICS = ("relevance", "utilization", "completeness", "adherence")
RESAMPLES = 1000
Triple = tuple[Example, Labels, Labels]  # (example, people's labels, the judge's)


def kind_decisions(example: Example, labels: Labels) -> dict[str, dict[str, bool]]:
    """Every kind's decisions of *labels* on *example*, keyed by sentence key (pairs as ``"a|0b"``).

    Label kinds (one binary decision each, people's labels the reference, the judge's the candidate):

    ==============  =============================================  ==================================
    kind            one decision per                               positive when
    ==============  =============================================  ==================================
    ``relevant``    context sentence                               key in the relevant list
    ``utilized``    context sentence                               key in the utilized list
    ``supported``   response sentence (the support verdict)        sentence not counted unsupported
    ``supporting``  (response sentence, context sentence) pair     context key among its supporting keys
    ``adherent``    example (the overall adherence)                TRACe adherence is 1
    ==============  =============================================  ==================================
    """
    d = decisions(example, labels)
    context = example.context_keys()
    supporting: dict[str, bool] = {}
    for key in example.response_keys():
        s = labels.support_for(key)
        cited = {clean_key(k) for k in s.supporting_keys} if s is not None else set()
        supporting.update({f"{key}|{c}": c in cited for c in context})
    return {
        RELEVANT: d.relevant,
        UTILIZED: d.utilized,
        SUPPORTED: d.supported,
        SUPPORTING: supporting,
        ADHERENT: {"": d.adherent},
    }


@dataclass(frozen=True)
class KindAgreement:
    """One label kind: decisions compared, the confusion counts, each of :data:`FIGURES` with its interval."""

    kind: str
    n_examples: int
    n_decisions: int
    tp: int
    fp: int
    fn: int
    tn: int
    point: dict[str, float | None]
    low: dict[str, float | None]
    high: dict[str, float | None]


@dataclass(frozen=True)
class MetricBias:
    """The judge's mean minus people's mean of one TRACe metric over the examples where both define it."""

    metric: str
    n: int
    judge_mean: float | None
    people_mean: float | None
    bias: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class VersionFigures:
    """One judge version on one test set."""

    n_examples: int
    kinds: dict[str, KindAgreement]
    bias: dict[str, MetricBias]
    #: ``"too few reviewed to say (6 of 10)"`` when no figure has an interval for want of examples.
    too_few: str | None = None


def resample_weights(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """How often each of *n* examples is drawn in each resample (``n_resamples x n``), seeded."""
    draws = np.random.default_rng(seed).integers(0, n, (n_resamples, n))
    offsets = (np.arange(n_resamples) * n)[:, None]
    return np.bincount((draws + offsets).ravel(), minlength=n_resamples * n).reshape(n_resamples, n).astype(float)


def _figures(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> dict[str, np.ndarray]:
    """Each of :data:`FIGURES` from confusion counts (arrays), NaN where undefined."""
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), np.nan)
        recall = np.where(tp + fn > 0, tp / (tp + fn), np.nan)
        f1 = np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), np.nan)
        tnr = np.where(tn + fp > 0, tn / (tn + fp), np.nan)
    return {"kappa": binary_kappa(tp, fp, fn, tn), "precision": precision, "recall": recall, "f1": f1, "tnr": tnr}


def _value(x: np.ndarray) -> float | None:
    v = float(x)
    return None if not np.isfinite(v) else v


def version_figures(triples: Sequence[Triple], n_resamples: int = RESAMPLES, seed: int = 0) -> VersionFigures:
    """Agreement per kind and bias per TRACe metric of the judge's labels against people's over *triples*.

    Per kind: Cohen's kappa, precision / recall / F1 of the positive label and the true-negative rate, equal to
    scikit-learn's ``cohen_kappa_score`` and ``precision_recall_fscore_support`` on the same decisions (a test
    checks it). Intervals follow the rule of every judge-vs-people figure (:mod:`ragviz.analysis.figure_intervals`):
    none below :data:`ragviz.analysis.coverage.MIN_REVIEWED` test examples (:attr:`VersionFigures.too_few`
    says so), over the test set's *examples* (an example's decisions stay together), never of zero width. The bias
    of a TRACe metric is the judge's mean minus people's mean over the examples where both define it.
    """
    n = len(triples)
    counts = {kind: np.zeros((n, 4)) for kind in KINDS}
    n_decisions = dict.fromkeys(KINDS, 0)
    scores = np.full((n, len(TRACE_METRICS), 2), np.nan)
    for row, (example, people, judge) in enumerate(triples):
        ref, cand = kind_decisions(example, people), kind_decisions(example, judge)
        for kind in KINDS:
            r, c = ref[kind], cand[kind]
            for key, truth in r.items():
                said = c.get(key, False)
                counts[kind][row, (0 if said else 2) if truth else (1 if said else 3)] += 1
            n_decisions[kind] += len(r)
        for j, metric in enumerate(TRACE_METRICS):
            for side, labels in enumerate((judge, people)):
                value = getattr(trace_scores(labels, example.n_context_sentences), metric)
                scores[row, j, side] = np.nan if value is None else value
    weights = resample_weights(n, n_resamples, seed) if n >= MIN_REVIEWED else None
    kinds = {}
    for kind in KINDS:
        tp, fp, fn, tn = counts[kind].sum(axis=0)
        point = {k: _value(v) for k, v in _figures(*(np.array(x) for x in (tp, fp, fn, tn))).items()}
        low: dict[str, float | None] = dict.fromkeys(FIGURES)
        high: dict[str, float | None] = dict.fromkeys(FIGURES)
        if n:
            for name, fi in confusion_intervals(counts[kind], weights, seed=seed).items():
                if name in low:
                    low[name], high[name] = fi.low, fi.high
        kinds[kind] = KindAgreement(kind, n, n_decisions[kind], int(tp), int(fp), int(fn), int(tn), point, low, high)
    bias = {metric: _bias(metric, scores[:, j, 0], scores[:, j, 1]) for j, metric in enumerate(TRACE_METRICS)}
    return VersionFigures(n, kinds, bias, too_few_words(n, MIN_REVIEWED) if 0 < n < MIN_REVIEWED else None)


def _bias(metric: str, judge: np.ndarray, people: np.ndarray) -> MetricBias:
    both = np.isfinite(judge) & np.isfinite(people)
    m = int(both.sum())
    if m == 0:
        return MetricBias(metric, 0, None, None, None, None, None)
    jm, pm = float(judge[both].mean()), float(people[both].mean())
    fi = mean_interval(judge[both] - people[both])
    return MetricBias(metric, m, jm, pm, jm - pm, fi.low, fi.high)
