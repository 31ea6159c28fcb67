"""Agreement statistics on plain sequences: confusion counts, Cohen and Fleiss kappa, AUROC, RMSE, a bootstrap interval of a mean. No ragviz types here."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


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

    def __add__(self, other: Confusion) -> Confusion:
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


@dataclass(frozen=True)
class MeanInterval:
    """A mean with its percentile-bootstrap confidence interval."""

    n: int
    mean: float | None
    low: float | None
    high: float | None


#: Resample indices drawn at once by :func:`bootstrap_mean_ci` (8 MB of int64, 8 MB of values).
BOOTSTRAP_BATCH = 1 << 20


def bootstrap_mean_ci(
    values: Sequence[float], n_resamples: int = 2000, level: float = 0.95, seed: int = 0
) -> MeanInterval:
    """Mean of *values* with a percentile-bootstrap interval.

    .. math:: [\\,q_{(1-\\ell)/2},\\; q_{(1+\\ell)/2}\\,] \\text{ of } \\{\\bar x^{*}_b\\}_{b=1}^{B}

    where each :math:`\\bar x^{*}_b` is the mean of *n* values drawn with replacement (seeded, so
    the interval is the same on every rerun). ``None`` bounds for an empty sample.

    The resamples are drawn a batch of rows at a time (at most :data:`BOOTSTRAP_BATCH` indices in
    memory), from the same random stream as one ``B x n`` draw, so the interval is the one that
    draw gives while memory stays O(B) plus a fixed batch, whatever *n* is.

    >>> bootstrap_mean_ci([1.0, 1.0, 1.0])
    MeanInterval(n=3, mean=1.0, low=1.0, high=1.0)
    """
    import numpy as np

    n = len(values)
    if n == 0:
        return MeanInterval(0, None, None, None)
    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    rows = max(1, BOOTSTRAP_BATCH // n)
    for start in range(0, n_resamples, rows):
        stop = min(n_resamples, start + rows)
        means[start:stop] = data[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return MeanInterval(n, float(data.mean()), float(low), float(high))
