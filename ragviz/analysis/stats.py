"""Agreement statistics on plain sequences: confusion counts, Cohen and Fleiss kappa, AUROC, RMSE, a bootstrap interval of a mean. No ragviz types here."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from ragviz.analysis.coverage import MIN_EXAMPLES, too_few_words
from ragviz.analysis.poisson_bootstrap import resample_sums
from ragviz.analysis.small_sample import expanded_z, wilson_bounds

__all__ = [
    "BOOTSTRAP_BATCH",
    "Confusion",
    "LARGE_SAMPLE",
    "MeanInterval",
    "auroc",
    "binary_kappa",
    "bootstrap_mean_ci",
    "bootstrap_mean_cis",
    "cohen_kappa",
    "confusion",
    "fleiss_kappa",
    "fleiss_kappa_of_sums",
    "kappa_of_matrix",
    "rmse",
]


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
    """Cohen's kappa of two raters (what scikit-learn's ``cohen_kappa_score`` gives, without importing it).

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
    import numpy as np

    # scikit-learn's arithmetic (tests check the two agree): 1 - sum(off-diagonal) / sum(expected off-diagonal)
    try:
        labels = sorted(set(reference) | set(candidate))
    except TypeError:  # labels of mixed types: any fixed order gives the same kappa
        labels = sorted(set(reference) | set(candidate), key=repr)
    index = {v: k for k, v in enumerate(labels)}
    size = len(labels)
    cells = np.fromiter((index[r] * size + index[c] for r, c in zip(reference, candidate)), np.int64, len(reference))
    return kappa_of_matrix(np.bincount(cells, minlength=size * size).reshape(size, size))


def kappa_of_matrix(matrix: Any) -> float | None:
    """:func:`cohen_kappa` of the decisions counted in *matrix* (``matrix[r][c]``: items the reference gave
    category *r* and the candidate *c*; a numpy array or nested lists); categories neither rater used are left
    out, as :func:`cohen_kappa` never sees them. ``None`` when undefined (fewer than two categories used).

    >>> kappa_of_matrix([[4, 1], [0, 5]]) == cohen_kappa([0] * 5 + [1] * 5, [0] * 4 + [1] * 6)
    True
    """
    import numpy as np

    matrix = np.asarray(matrix, np.int64)
    used = (matrix.sum(axis=0) + matrix.sum(axis=1)) > 0
    if int(used.sum()) < 2:
        return None
    matrix = matrix[np.ix_(used, used)]
    size = len(matrix)
    expected = np.outer(matrix.sum(axis=0), matrix.sum(axis=1)) / matrix.sum()
    off = 1 - np.eye(size, dtype=np.int64)
    denominator = float(np.sum(off * expected))
    if denominator == 0:
        return None
    value = 1 - float(np.sum(off * matrix)) / denominator
    return None if math.isnan(value) else value


def auroc(truth: Sequence[bool], score: Sequence[float]) -> float | None:
    """Area under the ROC curve of *score* for the positive class of *truth* (what scikit-learn's
    ``roc_auc_score`` gives, without importing it: several seconds on a first call): the probability that a random positive scores above a random negative,
    ties counting one half. ``None`` when *truth* has only one class.

    >>> auroc([True, False, True, False], [0.9, 0.1, 0.4, 0.4])
    0.875
    """
    if len(truth) != len(score):
        raise ValueError(f"truth has {len(truth)} values, score {len(score)}")
    import numpy as np

    if isinstance(truth, np.ndarray) and truth.dtype == bool:
        positive = truth  # a boolean array as it is (no Python value per item)
    else:
        positive = np.fromiter((bool(t) for t in truth), bool, len(truth))
    n_pos = int(positive.sum())
    if n_pos in (0, len(positive)):
        return None
    # Mann-Whitney: (sum of the positives' mid-ranks - n_pos (n_pos + 1) / 2) / (n_pos n_neg)
    values = np.asarray(score, dtype=float)
    order = np.argsort(values)  # any order of tied values: each run of them gets its mean rank
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(ordered)]
    mid = (starts + ends + 1) / 2  # the mean rank (1-based) of each run of tied values
    ranks = np.empty(len(values))
    ranks[order] = np.repeat(mid, ends - starts)
    n_neg = len(positive) - n_pos
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def rmse(reference: Sequence[float], candidate: Sequence[float]) -> float | None:
    """Root mean squared error.

    .. math:: \\mathrm{RMSE} = \\sqrt{\\tfrac{1}{n} \\sum_i (c_i - r_i)^2}

    ``None`` when there is no pair.

    >>> rmse([0.0, 1.0], [1.0, 1.0])
    0.7071067811865476
    """
    if len(reference) != len(candidate):
        raise ValueError(f"reference has {len(reference)} values, candidate {len(candidate)}")
    if not len(reference):
        return None
    import numpy as np

    if isinstance(reference, np.ndarray) or isinstance(candidate, np.ndarray):
        # arrays: on the array, no Python float per pair (squares x * x and a pairwise sum: the float may
        # differ from the loop below in the last bits)
        squares = (np.asarray(candidate, dtype=float) - np.asarray(reference, dtype=float)) ** 2
        return math.sqrt(float(squares.sum()) / len(reference))
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
    return fleiss_kappa_of_sums(
        len(counts), n, sum(c * c for row in counts for c in row), [sum(col) for col in zip(*counts)]
    )


def fleiss_kappa_of_sums(n_items: int, n: int, squares: int, totals: Sequence[int]) -> float | None:
    """:func:`fleiss_kappa` of *n_items* items rated by *n* raters each, from its sums: *squares* =
    the sum over items and categories of n_ij², *totals* per category the sum over items of n_ij (so items
    counted apart add up).

    >>> fleiss_kappa_of_sums(2, 2, 2 * 2 + 1 + 1, [3, 1]) == fleiss_kappa([[2, 0], [1, 1]])
    True
    """
    if not n_items or n < 2:
        return None
    p_bar = (squares - n_items * n) / (n * (n - 1)) / n_items  # the mean of the items' P_i, summed exactly first
    p_e = sum((t / (n_items * n)) ** 2 for t in totals)
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1 - p_e)


@dataclass(frozen=True)
class MeanInterval:
    """A mean with its bootstrap confidence interval (expanded percentile, :func:`bootstrap_mean_ci`); *too_few*: the
    words said instead of an interval below the minimum number of values (``None`` from it on)."""

    n: int
    mean: float | None
    low: float | None
    high: float | None
    too_few: str | None = None


#: Resample indices drawn at once by :func:`bootstrap_mean_ci` (8 MB of int64, 8 MB of values).
BOOTSTRAP_BATCH = 1 << 20
#: From this sample size on, :func:`bootstrap_mean_ci` takes the Poisson bootstrap (Notes there).
LARGE_SAMPLE = 10_000


def bootstrap_mean_ci(
    values: Sequence[float], n_resamples: int = 2000, level: float = 0.95, seed: int = 0, minimum: int = MIN_EXAMPLES
) -> MeanInterval:
    """Mean of *values* with an expanded percentile-bootstrap interval (Hesterberg 2015): the percentile interval

    .. math:: [\\,q_{(1-\\ell)/2},\\; q_{(1+\\ell)/2}\\,] \\text{ of } \\{\\bar x^{*}_b\\}_{b=1}^{B}

    where each :math:`\\bar x^{*}_b` is the mean of *n* values drawn with replacement (seeded, so
    the interval is the same on every rerun), each end moved away from the mean by the factor
    :math:`\\sqrt{n/(n-1)}\\, t_{n-1} / z`: the plain percentile interval is as narrow as a z interval with
    the variance divided by *n*, and covers too little at small *n* (``benchmarks/bench_mean_intervals.py``).
    Values all in [0, 1] keep their interval in [0, 1]. ``None`` bounds for an empty sample, and below *minimum*
    values (default :data:`~ragviz.analysis.coverage.MIN_EXAMPLES`) no interval: ``too_few`` says so instead.

    The resamples are drawn a batch of rows at a time (at most :data:`BOOTSTRAP_BATCH` indices in
    memory), from the same random stream as one ``B x n`` draw, so the interval is the one that
    draw gives while memory stays O(B) plus a fixed batch, whatever *n* is.

    Notes: a large sample (n >= :data:`LARGE_SAMPLE`) takes the Poisson bootstrap instead
    (:func:`ragviz.analysis.poisson_bootstrap.resample_sums`): resample *b* gives row *r* the weight :math:`w_{rb}` ~ Poisson(1),
    independent across rows and resamples, and its mean is :math:`\\sum_r w_{rb} x_r / \\sum_r w_{rb}`
    (Hanley & MacGibbon 2006; Chamandy et al. 2012): the multinomial bootstrap's weights with
    their total left free, the same distribution to O(1/n). Each row's weights are a function of
    the row's position and *seed* alone, so one row's contribution can be taken out of the resample
    sums and put back changed (:meth:`~ragviz.analysis.poisson_bootstrap.ResampleSums.with_rows`): an override updates an interval in
    O(B), and gives the interval a full recomputation gives (to float rounding). Memory is O(B)
    per sample plus a block of weights. Every sample under :data:`LARGE_SAMPLE` (the RAGBench
    shards' subsets and all their rows together among them) takes the index draws above.

    Where every resample gives the same mean (all values equal) there is no interval: one of zero width says
    nothing about how the mean could vary. Values all 0 or 1 under :data:`LARGE_SAMPLE` (adherence) take the
    Wilson score interval at the same expanded quantile (:func:`wilson_bounds`, :func:`expanded_z`) instead: it is
    defined when every value is 1, and the bootstrap under-covered a share near 1.

    >>> bootstrap_mean_ci([0.5, 0.5, 0.5], minimum=0)
    MeanInterval(n=3, mean=0.5, low=None, high=None, too_few=None)
    >>> bootstrap_mean_ci([0.2, 0.4, 0.9]).too_few
    'too few examples to say (3 of 20)'
    """
    return bootstrap_mean_cis([values], n_resamples, level, seed, minimum)[0]


def bootstrap_mean_cis(
    samples: Sequence[Sequence[float]],
    n_resamples: int = 2000,
    level: float = 0.95,
    seed: int = 0,
    minimum: int = MIN_EXAMPLES,
) -> list[MeanInterval]:
    """:func:`bootstrap_mean_ci` of each of *samples*, the same intervals: samples of one size
    share one draw of resample indices (the draw depends only on the size and *seed*), so several
    metrics over the same examples cost one draw, not one each."""
    import numpy as np

    out: list[MeanInterval | None] = [None] * len(samples)
    alpha = (1 - level) / 2

    def interval(k: int, data: Any, means: Any) -> None:
        low, high = np.quantile(means, [alpha, 1 - alpha])
        mean = float(data.mean())
        if float(high) - float(low) <= 1e-12:  # every resample the same mean: that says nothing, no interval
            out[k] = MeanInterval(len(data), mean, None, None)
            return
        grow = expanded_z(len(data), level) / NormalDist().inv_cdf(0.5 + level / 2)
        low, high = mean - grow * (mean - float(low)), mean + grow * (float(high) - mean)
        if data.min() >= 0 and data.max() <= 1:
            low, high = max(0.0, low), min(1.0, high)
        out[k] = MeanInterval(len(data), mean, low, high)

    by_size: dict[int, list[tuple[int, Any]]] = {}
    for k, values in enumerate(samples):
        data = np.asarray(values, dtype=float)
        n = len(data)
        if n == 0:
            out[k] = MeanInterval(0, None, None, None)
        elif n < minimum:
            out[k] = MeanInterval(n, float(data.mean()), None, None, too_few_words(n, minimum, "examples"))
        elif n >= LARGE_SAMPLE:
            _, _, low, high = resample_sums(data[:, None], np.zeros(n, np.int64), 1, n_resamples, seed).interval(
                [0], 0, level
            )
            out[k] = MeanInterval(n, float(data.mean()), low, high)
        elif n >= 3 and bool(((data == 0) | (data == 1)).all()):
            # 0/1 values (adherence): the Wilson score interval at the expanded quantile; the bootstrap's covered
            # 87-91 % in a subset whose examples are nearly all 1, and gave none where all are (bench_mean_intervals)
            low, high = wilson_bounds(float(data.mean()), n, level, expanded_z(n, level))
            out[k] = MeanInterval(n, float(data.mean()), low, high)
        else:
            by_size.setdefault(n, []).append((k, data))
    for n, members in by_size.items():
        rng = np.random.default_rng(seed)
        means = np.empty((len(members), n_resamples))
        rows = max(1, BOOTSTRAP_BATCH // n)
        gathered = np.empty((rows, n))
        for start in range(0, n_resamples, rows):
            stop = min(n_resamples, start + rows)
            drawn = rng.integers(0, n, size=(stop - start, n))
            for j, (_, data) in enumerate(members):
                # the sum over n then / n: what ndarray.mean computes, without a new array per batch
                np.take(data, drawn, out=gathered[: stop - start])
                means[j, start:stop] = gathered[: stop - start].sum(axis=1) / n
        for j, (k, data) in enumerate(members):
            interval(k, data, means[j])
    return [m for m in out if m is not None]


def binary_kappa(tp: Any, fp: Any, fn: Any, tn: Any) -> Any:
    """Cohen's kappa of two binary raters from their confusion counts (scalars or numpy arrays, e.g. one
    per bootstrap resample): what :func:`cohen_kappa` gives on the decisions behind the counts, NaN where
    it gives ``None``.

    .. math:: \\kappa = 2 (tp \\cdot tn - fn \\cdot fp) / ((tp + fp)(fp + tn) + (tp + fn)(fn + tn))

    >>> round(float(binary_kappa(1, 1, 1, 1)), 6), float(binary_kappa(5, 1, 0, 4))
    (0.0, 0.8)
    """
    import numpy as np

    tp, fp, fn, tn = (np.asarray(v, dtype=float) for v in (tp, fp, fn, tn))
    denominator = (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, 2 * (tp * tn - fn * fp) / denominator, np.nan)
