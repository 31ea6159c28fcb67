"""Agreement between label sets of the same examples: judge vs human, annotator vs annotator,
judge v1 vs judge v2.

One label set is the *reference* (taken as the truth), the other the *candidate*. Every comparison
is made at sentence level on the binary decisions a label set makes:

=============  ====================================================  ===========================
label          one decision per                                      positive when
=============  ====================================================  ===========================
``relevant``   context sentence of the example                       key in the relevant list
``utilized``   context sentence of the example                       key in the utilized list
``supported``  response sentence of the example                      key not counted unsupported
``adherent``   example                                               TRACe adherence is 1
=============  ====================================================  ===========================

Keys are matched after :func:`ragviz.keys.clean_key` (``"0b."`` counts as ``"0b"``); a key that names
no sentence of the example makes no decision. The per-example scores (relevance, utilization,
completeness, adherence) always come from :func:`ragviz.metrics.trace.trace_scores`; this module
only compares them. Cohen's kappa and AUROC come from scikit-learn.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ragviz.keys import clean_key
from ragviz.metrics.trace import TraceScores, trace_scores, unsupported_keys
from ragviz.model import Example, Labels

RELEVANT = "relevant"
UTILIZED = "utilized"
SUPPORTED = "supported"
ADHERENT = "adherent"
SENTENCE_LABELS = (RELEVANT, UTILIZED, SUPPORTED)
BINARY_LABELS = (*SENTENCE_LABELS, ADHERENT)
SCORE_METRICS = ("relevance", "utilization", "completeness")


# -- small statistics --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Confusion:
    """Counts of a binary candidate against a binary reference.

    ``tp``: both positive; ``fp``: candidate positive, reference negative; ``fn``: candidate
    negative, reference positive; ``tn``: both negative.
    """

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    @property
    def precision(self) -> float | None:
        """tp / (tp + fp); ``None`` when the candidate has no positive."""
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        """tp / (tp + fn); ``None`` when the reference has no positive."""
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float | None:
        """2 tp / (2 tp + fp + fn); ``None`` when neither side has a positive."""
        return _ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    @property
    def accuracy(self) -> float | None:
        """(tp + tn) / n; ``None`` when there is no decision."""
        return _ratio(self.tp + self.tn, self.n)

    def __add__(self, other: "Confusion") -> "Confusion":
        return Confusion(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn)

    def as_dict(self) -> dict[str, int]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn}


def _ratio(num: float, den: float) -> float | None:
    return num / den if den else None


def confusion(reference: Sequence[bool], candidate: Sequence[bool]) -> Confusion:
    """Confusion counts of *candidate* against *reference* (same length).

    >>> confusion([True, True, False, False], [True, False, True, False])
    Confusion(tp=1, fp=1, fn=1, tn=1)
    """
    if len(reference) != len(candidate):
        raise ValueError(f"reference has {len(reference)} decisions, candidate {len(candidate)}")
    tp = fp = fn = tn = 0
    for r, c in zip(reference, candidate):
        if r and c:
            tp += 1
        elif c:
            fp += 1
        elif r:
            fn += 1
        else:
            tn += 1
    return Confusion(tp, fp, fn, tn)


def cohen_kappa(reference: Sequence[Any], candidate: Sequence[Any]) -> float | None:
    """Cohen's kappa of two raters (scikit-learn's ``cohen_kappa_score``).

    .. math:: \\kappa = (p_o - p_e) / (1 - p_e)

    *p_o* is the observed share of agreeing items, *p_e* the agreement expected by chance from each
    rater's label frequencies. ``None`` when undefined: no item, or both raters gave every item the
    same single label (then *p_e* = 1).

    >>> round(cohen_kappa([1, 1, 0, 0], [1, 0, 1, 0]), 6)
    0.0
    >>> cohen_kappa([1, 1], [1, 1]) is None
    True
    """
    if len(reference) != len(candidate):
        raise ValueError(f"reference has {len(reference)} decisions, candidate {len(candidate)}")
    if not reference or len(set(reference) | set(candidate)) < 2:
        return None
    from sklearn.metrics import cohen_kappa_score

    value = float(cohen_kappa_score(list(reference), list(candidate)))
    return None if math.isnan(value) else value


def auroc(truth: Sequence[bool], score: Sequence[float]) -> float | None:
    """Area under the ROC curve of *score* for the positive class of *truth* (scikit-learn's
    ``roc_auc_score``): the probability that a random positive scores above a random negative,
    ties counting one half. ``None`` when *truth* has only one class.

    >>> auroc([True, False, True, False], [0.9, 0.1, 0.4, 0.4])
    0.875
    """
    if len(truth) != len(score):
        raise ValueError(f"truth has {len(truth)} values, score {len(score)}")
    if len(set(bool(t) for t in truth)) < 2:
        return None
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score([bool(t) for t in truth], list(score)))


def rmse(reference: Sequence[float], candidate: Sequence[float]) -> float | None:
    """Root mean squared error.

    .. math:: \\mathrm{RMSE} = \\sqrt{\\tfrac{1}{n} \\sum_i (c_i - r_i)^2}

    ``None`` when there is no pair.

    >>> rmse([0.0, 1.0], [1.0, 1.0])
    0.7071067811865476
    """
    if len(reference) != len(candidate):
        raise ValueError(f"reference has {len(reference)} values, candidate {len(candidate)}")
    if not reference:
        return None
    return math.sqrt(sum((c - r) ** 2 for r, c in zip(reference, candidate)) / len(reference))


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa of several raters; *counts[i][j]* = raters who gave item *i* category *j*
    (every item rated by the same number *n* of raters).

    .. math::
        P_i = \\frac{\\sum_j n_{ij}^2 - n}{n(n-1)}, \\quad \\bar P = \\frac{1}{N}\\sum_i P_i, \\quad
        p_j = \\frac{\\sum_i n_{ij}}{N n}, \\quad \\bar P_e = \\sum_j p_j^2, \\quad
        \\kappa = \\frac{\\bar P - \\bar P_e}{1 - \\bar P_e}

    ``None`` when undefined (no item, fewer than two raters, or a single category used: P_e = 1).
    Fleiss (1971), "Measuring nominal scale agreement among many raters".
    """
    if not counts:
        return None
    n = sum(counts[0])
    if n < 2:
        return None
    for i, row in enumerate(counts):
        if sum(row) != n:
            raise ValueError(f"item {i} has {sum(row)} ratings, item 0 has {n}")
    n_items = len(counts)
    p_bar = sum((sum(c * c for c in row) - n) / (n * (n - 1)) for row in counts) / n_items
    totals = [sum(col) for col in zip(*counts)]
    p_e = sum((t / (n_items * n)) ** 2 for t in totals)
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1 - p_e)


# -- decisions of one label set ------------------------------------------------------------------------


@dataclass(frozen=True)
class Decisions:
    """The binary decisions one label set makes on one example, keyed by sentence key
    (``adherent`` under the key ``""``)."""

    relevant: dict[str, bool]
    utilized: dict[str, bool]
    supported: dict[str, bool]
    adherent: bool
    scores: TraceScores

    def of(self, label: str) -> dict[str, bool]:
        if label == ADHERENT:
            return {"": self.adherent}
        return getattr(self, label)


def decisions(example: Example, labels: Labels) -> Decisions:
    """Sentence-level decisions of *labels* on *example* (see the module docstring)."""
    context = example.context_keys()
    relevant = {clean_key(k) for k in labels.relevant_keys}
    utilized = {clean_key(k) for k in labels.utilized_keys}
    unsupported = {clean_key(k) for k in unsupported_keys(labels)}
    scores = trace_scores(labels, example.n_context_sentences)
    return Decisions(
        relevant={k: k in relevant for k in context},
        utilized={k: k in utilized for k in context},
        supported={k: k not in unsupported for k in example.response_keys()},
        adherent=scores.adherence == 1.0,
        scores=scores,
    )


# -- agreement of two label sets -----------------------------------------------------------------------


@dataclass(frozen=True)
class LabelAgreement:
    """One binary label compared over every decision: confusion counts, Cohen's kappa, and the
    candidate's precision / recall / F1 against the reference."""

    label: str
    confusion: Confusion
    kappa: float | None

    def as_dict(self) -> dict[str, Any]:
        c = self.confusion
        return {
            "n": c.n, "kappa": self.kappa, "precision": c.precision, "recall": c.recall,
            "f1": c.f1, "accuracy": c.accuracy, **c.as_dict(),
        }


@dataclass(frozen=True)
class ScoreAgreement:
    """One per-example score compared over the examples where both sides define it."""

    metric: str
    n: int
    rmse: float | None
    reference_mean: float | None
    candidate_mean: float | None


@dataclass(frozen=True)
class Agreement:
    """Everything :func:`agreement` measures between a reference and a candidate label set."""

    n_examples: int
    n_skipped: int
    labels: dict[str, LabelAgreement]
    scores: dict[str, ScoreAgreement]

    @property
    def adherence_accuracy(self) -> float | None:
        """Share of examples whose adherence (0/1) is the same under both label sets."""
        return self.labels[ADHERENT].confusion.accuracy

    def as_dict(self) -> dict[str, Any]:
        """Flat JSON-ready figures: ``relevant_kappa``, ``supported_f1``, ``relevance_rmse``, ..."""
        out: dict[str, Any] = {"n": self.n_examples, "n_skipped": self.n_skipped}
        for name, la in self.labels.items():
            for k, v in la.as_dict().items():
                out[f"{name}_{k}"] = v
        for name, sa in self.scores.items():
            out[f"{name}_rmse"] = sa.rmse
        out["adherence_accuracy"] = self.adherence_accuracy
        return out


@dataclass
class _Collector:
    reference: dict[str, list[bool]] = field(default_factory=lambda: {k: [] for k in BINARY_LABELS})
    candidate: dict[str, list[bool]] = field(default_factory=lambda: {k: [] for k in BINARY_LABELS})
    score_pairs: dict[str, list[tuple[float, float]]] = field(default_factory=lambda: {m: [] for m in SCORE_METRICS})

    def add(self, ref: Decisions, cand: Decisions) -> None:
        for label in BINARY_LABELS:
            r, c = ref.of(label), cand.of(label)
            for key, value in r.items():
                self.reference[label].append(value)
                self.candidate[label].append(c.get(key, False))
        for m in SCORE_METRICS:
            a, b = getattr(ref.scores, m), getattr(cand.scores, m)
            if a is not None and b is not None:
                self.score_pairs[m].append((a, b))


def agreement(items: Iterable[tuple[Example, Labels | None, Labels | None]]) -> Agreement:
    """Compare the candidate label set with the reference over ``(example, reference, candidate)``
    triples; a triple with either side ``None`` (unlabeled) is skipped and counted."""
    col = _Collector()
    n = skipped = 0
    for example, ref, cand in items:
        if ref is None or cand is None:
            skipped += 1
            continue
        n += 1
        col.add(decisions(example, ref), decisions(example, cand))
    labels = {
        label: LabelAgreement(
            label,
            confusion(col.reference[label], col.candidate[label]),
            cohen_kappa(col.reference[label], col.candidate[label]),
        )
        for label in BINARY_LABELS
    }
    scores = {}
    for m, pairs in col.score_pairs.items():
        refs, cands = [a for a, _ in pairs], [b for _, b in pairs]
        scores[m] = ScoreAgreement(
            m, len(pairs), rmse(refs, cands),
            sum(refs) / len(refs) if refs else None,
            sum(cands) / len(cands) if cands else None,
        )
    return Agreement(n, skipped, labels, scores)


# -- several raters --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairKappa:
    """Cohen's kappa of two raters on one label, over the examples both labelled."""

    rater_a: str
    rater_b: str
    label: str
    n_examples: int
    n_decisions: int
    kappa: float | None


@dataclass(frozen=True)
class MultiRaterKappa:
    """Fleiss' kappa of every rater on one label, over the examples all of them labelled."""

    label: str
    n_raters: int
    n_examples: int
    n_decisions: int
    kappa: float | None


def _aligned(example: Example, sets: Sequence[Labels], label: str) -> list[list[bool]]:
    """Per rater, their decisions on *label* in the same key order."""
    per_rater = [decisions(example, labels).of(label) for labels in sets]
    keys = list(per_rater[0])
    return [[d.get(k, False) for k in keys] for d in per_rater]


def pairwise_kappas(
    examples: Sequence[Example], raters: Mapping[str, Mapping[str, Labels]], labels: Sequence[str] = BINARY_LABELS
) -> list[PairKappa]:
    """Cohen's kappa for every pair of raters and every label. *raters* maps a rater's name to
    ``{example uid: labels}`` for the examples that rater labelled."""
    out = []
    names = sorted(raters)
    for a, b in itertools.combinations(names, 2):
        common = [e for e in examples if e.uid in raters[a] and e.uid in raters[b]]
        for label in labels:
            ra: list[bool] = []
            rb: list[bool] = []
            for e in common:
                da, db = _aligned(e, [raters[a][e.uid], raters[b][e.uid]], label)
                ra += da
                rb += db
            out.append(PairKappa(a, b, label, len(common), len(ra), cohen_kappa(ra, rb)))
    return out


def multi_rater_kappas(
    examples: Sequence[Example], raters: Mapping[str, Mapping[str, Labels]], labels: Sequence[str] = BINARY_LABELS
) -> list[MultiRaterKappa]:
    """Fleiss' kappa per label over the examples every rater in *raters* labelled (each sentence
    decision is one item with two categories)."""
    names = sorted(raters)
    common = [e for e in examples if all(e.uid in raters[n] for n in names)]
    out = []
    for label in labels:
        counts: list[list[int]] = []
        for e in common:
            per_rater = _aligned(e, [raters[n][e.uid] for n in names], label)
            for item in zip(*per_rater):
                yes = sum(item)
                counts.append([yes, len(names) - yes])
        kappa = fleiss_kappa(counts) if len(names) >= 2 else None
        out.append(MultiRaterKappa(label, len(names), len(common), len(counts), kappa))
    return out


# -- intervals -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeanInterval:
    """A mean with its percentile-bootstrap confidence interval."""

    n: int
    mean: float | None
    low: float | None
    high: float | None


def bootstrap_mean_ci(values: Sequence[float], n_resamples: int = 2000, level: float = 0.95, seed: int = 0) -> MeanInterval:
    """Mean of *values* with a percentile-bootstrap interval.

    .. math:: [\\,q_{(1-\\ell)/2},\\; q_{(1+\\ell)/2}\\,] \\text{ of } \\{\\bar x^{*}_b\\}_{b=1}^{B}

    where each :math:`\\bar x^{*}_b` is the mean of *n* values drawn with replacement (seeded, so
    the interval is the same on every rerun). ``None`` bounds for an empty sample.

    >>> bootstrap_mean_ci([1.0, 1.0, 1.0])
    MeanInterval(n=3, mean=1.0, low=1.0, high=1.0)
    """
    import numpy as np

    n = len(values)
    if n == 0:
        return MeanInterval(0, None, None, None)
    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, n, size=(n_resamples, n))].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return MeanInterval(n, float(data.mean()), float(low), float(high))
