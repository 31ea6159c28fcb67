"""Intervals of the figures that compare the judge with people (Cohen's κ, accuracy, precision, recall, F1,
the true-negative rate, RMSE, the judge's bias), under one rule for every place that shows them (Dashboard,
report, Explainer, ``ragviz agreement``, ``ragviz judge compare``); for readers: docs/numbers-and-intervals.md.

Below :data:`ragviz.analysis.coverage.MIN_REVIEWED` reviewed examples, no interval, and the words of
:func:`ragviz.analysis.coverage.too_few_words` ("too few reviewed to say (6 of 10)"). The shares and κ:
:func:`confusion_intervals`; RMSE: :func:`rmse_interval`; the bias: :func:`mean_interval`. None of these is of zero
width. The minimum and the coverage of these intervals come from ``benchmarks/bench_agreement_intervals.py``
(BENCHMARKS.md, "Agreement with people at small n").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from ragviz.analysis.coverage import MIN_REVIEWED, too_few_words
from ragviz.analysis.small_sample import expanded_z, wilson_bounds
from ragviz.analysis.stats import binary_kappa

__all__ = [
    "BOOTSTRAP",
    "BOUNDED",
    "CONFUSION_FIGURES",
    "FigureInterval",
    "INTERVAL_NOTE",
    "NO_SPREAD",
    "PROPORTIONS",
    "RESAMPLES",
    "SHARE",
    "clopper_pearson",
    "confusion_intervals",
    "example_weights",
    "expanded_z",
    "mean_interval",
    "resample_sums",
    "rmse_interval",
    "wilson_bounds",
]


RESAMPLES = 1000
SHARE, BOOTSTRAP, BOUNDED = "Clopper-Pearson", "bootstrap", "bounded normal"
#: What a figure says when every bootstrap resample gave it the same value.
NO_SPREAD = "no interval: every resample of the reviewed examples gives the same value"
#: One line naming each figure's interval, for captions.
INTERVAL_NOTE = (
    "Clopper-Pearson for accuracy, precision, recall, F1 and RMSE; for κ a bootstrap, widened to κ at the "
    f"accuracy's bounds; none below {MIN_REVIEWED} reviewed examples"
)
#: Figures of a confusion table, and which of them are proportions (Clopper-Pearson intervals).
CONFUSION_FIGURES = ("kappa", "precision", "recall", "f1", "accuracy", "tnr")
PROPORTIONS = {
    "accuracy": ((0, 3), (0, 1, 2, 3)),
    "precision": ((0,), (0, 1)),
    "recall": ((0,), (0, 2)),
    "tnr": ((3,), (3, 1)),
    "f1": ((0,), (0, 1, 2)),  # the share tp / (tp + fp + fn), then F1 = 2 q / (1 + q)
}


@dataclass(frozen=True)
class FigureInterval:
    """One figure with its 95 % interval: *low* / *high* ``None`` when no interval is said, and then *state*
    says why (too few reviewed, or :data:`NO_SPREAD`); *method*: :data:`SHARE`, :data:`BOOTSTRAP` or :data:`BOUNDED`."""

    value: float | None
    low: float | None = None
    high: float | None = None
    method: str = ""
    state: str = ""

    @property
    def too_few(self) -> bool:
        return self.state.startswith("too few")


def _cluster_share(hits: np.ndarray, trials: np.ndarray, level: float) -> tuple[float | None, float | None]:
    """Clopper-Pearson bounds of ``sum(hits) / sum(trials)`` where each example's decisions are made together."""
    used = trials > 0
    a, d = hits[used], trials[used]
    total, n = float(d.sum()), int(used.sum())
    if total == 0:
        return None, None
    p = float(a.sum()) / total
    n_eff = float(n)  # each example one decision: where the design effect cannot be estimated
    if n > 1 and 0 < p < 1:
        # the ratio estimator's variance over the examples, with a pseudo-example of the mean size at each end
        # (all its decisions one way, all the other): a few examples can hold most of the disagreements
        size = total / n
        spread = float(((a - p * d) ** 2).sum()) + size**2 * ((1 - p) ** 2 + p**2)
        var = (n + 2) / (n + 1) * spread / (total + 2 * size) ** 2
        # never fewer than the examples (a design effect of at most their mean size)
        n_eff = max(n_eff, min(total, p * (1 - p) / var))
    return clopper_pearson(p, n_eff, 2 * (1 - NormalDist().cdf(expanded_z(n, level))))


def clopper_pearson(p: float, n_eff: float, alpha: float = 0.05) -> tuple[float, float]:
    """The Clopper-Pearson interval of a share *p* over *n_eff* (effective, maybe fractional) decisions: the
    beta quantiles at ``x = p n_eff`` successes.

    >>> [round(b, 4) for b in clopper_pearson(1.0, 30)]
    [0.8843, 1.0]
    """
    from scipy.special import betaincinv

    x = p * n_eff
    low = 0.0 if x <= 0 else float(betaincinv(x, n_eff - x + 1, alpha / 2))
    high = 1.0 if x >= n_eff else float(betaincinv(x + 1, n_eff - x, 1 - alpha / 2))
    return low, high


def example_weights(n: int, n_resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """How often each of *n* examples is drawn in each bootstrap resample (``n_resamples x n``), seeded."""
    draws = np.random.default_rng(seed).integers(0, n, (n_resamples, n))
    offsets = (np.arange(n_resamples) * n)[:, None]
    return np.bincount((draws + offsets).ravel(), minlength=n_resamples * n).reshape(n_resamples, n).astype(float)


def resample_sums(values: np.ndarray, n_resamples: int = RESAMPLES, seed: int = 0) -> np.ndarray:
    """``example_weights(n, n_resamples, seed) @ values`` (one row per resample) in blocks of resamples, so
    memory stays bounded however many examples were reviewed."""
    n = len(values)
    rng = np.random.default_rng(seed)
    out = np.empty((n_resamples, values.shape[1]))
    block = max(1, (1 << 21) // max(n, 1))
    for start in range(0, n_resamples, block):
        stop = min(n_resamples, start + block)
        draws = rng.integers(0, n, (stop - start, n))
        offsets = (np.arange(stop - start) * n)[:, None]
        w = np.bincount((draws + offsets).ravel(), minlength=(stop - start) * n).reshape(stop - start, n)
        out[start:stop] = w @ values
    return out


def _percentile(values: np.ndarray, level: float, n: int) -> tuple[float | None, float | None, str]:
    """The expanded percentile interval (:func:`expanded_z`) of bootstrap *values* over *n* examples."""
    finite = values[np.isfinite(values)]
    if finite.size == 0 or finite.size < len(values) * 0.5:
        return None, None, "no interval: the figure is undefined in most resamples"
    tail = 1 - NormalDist().cdf(expanded_z(n, level))
    low, high = np.quantile(finite, [tail, 1 - tail])
    if float(high) - float(low) <= 1e-12:
        return None, None, NO_SPREAD
    return float(low), float(high), ""


def _value(x: Any) -> float | None:
    v = float(x)
    return v if math.isfinite(v) else None


def _confusion_figures(tp: Any, fp: Any, fn: Any, tn: Any) -> dict[str, Any]:
    """Each of :data:`CONFUSION_FIGURES` from confusion counts (scalars or arrays), NaN where undefined."""
    tp, fp, fn, tn = (np.asarray(v, dtype=float) for v in (tp, fp, fn, tn))
    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "kappa": binary_kappa(tp, fp, fn, tn),
            "precision": np.where(tp + fp > 0, tp / (tp + fp), np.nan),
            "recall": np.where(tp + fn > 0, tp / (tp + fn), np.nan),
            "f1": np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), np.nan),
            "accuracy": np.where(tp + fp + fn + tn > 0, (tp + tn) / (tp + fp + fn + tn), np.nan),
            "tnr": np.where(tn + fp > 0, tn / (tn + fp), np.nan),
        }


def confusion_intervals(
    counts: np.ndarray,
    weights: np.ndarray | None = None,
    minimum: int = MIN_REVIEWED,
    level: float = 0.95,
    seed: int = 0,
    sums: np.ndarray | None = None,
) -> dict[str, FigureInterval]:
    """Each of :data:`CONFUSION_FIGURES` of one label kind with its interval under the module's rule.
    *counts*: one row ``(tp, fp, fn, tn)`` per reviewed example (an example without a decision of this kind
    has a row of zeros and does not count towards *minimum*); *weights*: :func:`example_weights` of those
    rows, to share one draw between label kinds; *sums*: the resamples' summed counts already drawn
    (:func:`resample_sums` of several kinds' counts side by side, four columns of them: one draw for all).

    A proportion (accuracy, precision, recall, true-negative rate, and F1 through the share tp / (tp + fp + fn),
    F1 = 2q / (1 + q)) gets the Clopper-Pearson interval at its effective number of decisions: the decisions of
    one example are made together, so they count as ``decisions / design effect``, the design effect estimated
    over the examples with a pseudo-example at each end (at least 1; each example one decision where every
    decision went one way), its level widened for few examples (:func:`expanded_z`). κ takes the wider, at each
    end, of an expanded percentile bootstrap over the reviewed *examples* (seeded: the same labels give the same
    interval) and κ at the accuracy's bounds (chance agreement as observed), so it keeps an interval when every
    resample gives κ = 1."""
    counts = np.asarray(counts, dtype=float).reshape(-1, 4)
    n_examples = int((counts.sum(axis=1) > 0).sum())
    point = {k: _value(v) for k, v in _confusion_figures(*counts.sum(axis=0)).items()}
    if n_examples < max(minimum, 3):
        state = too_few_words(n_examples, minimum)
        return {k: FigureInterval(v, state=state if v is not None else "") for k, v in point.items()}
    out: dict[str, FigureInterval] = {}
    for name, (hit, trial) in PROPORTIONS.items():
        low, high = _cluster_share(counts[:, hit].sum(axis=1), counts[:, trial].sum(axis=1), level)
        if low is None or high is None or point[name] is None:
            out[name] = FigureInterval(point[name])
            continue
        if name == "f1":
            low, high = 2 * low / (1 + low), 2 * high / (1 + high)
        out[name] = FigureInterval(point[name], low, high, SHARE)
    if sums is None:
        sums = weights @ counts if weights is not None else resample_sums(counts, RESAMPLES, seed)
    resampled = {"kappa": binary_kappa(sums[:, 0], sums[:, 1], sums[:, 2], sums[:, 3])}
    if point["kappa"] is None:
        out["kappa"] = FigureInterval(None)
    else:
        low, high, state = _percentile(resampled["kappa"], level, n_examples)
        mapped = _kappa_from_accuracy(counts.sum(axis=0), out["accuracy"])
        if mapped[0] is not None and mapped[1] is not None:  # the wider of the two at each end
            low = mapped[0] if low is None else min(low, mapped[0])
            high = mapped[1] if high is None else max(high, mapped[1])
            state = ""
        out["kappa"] = FigureInterval(point["kappa"], low, high, BOOTSTRAP if not state else "", state)
    return {k: out[k] for k in CONFUSION_FIGURES}


def _kappa_from_accuracy(total: np.ndarray, accuracy: FigureInterval) -> tuple[float | None, float | None, str]:
    """κ at the accuracy's bounds, chance agreement as observed (what is left when every bootstrap
    resample gives one κ: people and the judge agreed on every decision)."""
    tp, fp, fn, tn = (float(x) for x in total)
    n = tp + fp + fn + tn
    chance = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
    if chance >= 1 or accuracy.low is None or accuracy.high is None:
        return None, None, NO_SPREAD
    low, high = ((b - chance) / (1 - chance) for b in (accuracy.low, accuracy.high))
    return max(-1.0, low), min(1.0, high), ""


def _bounded(x: np.ndarray, lo: float, hi: float, level: float) -> tuple[float, float]:
    """A normal interval (quantile :func:`expanded_z`) of the mean of *x* in ``[lo, hi]``, its variance counted
    with one pseudo-example at each end of the range: a few examples with large errors can hold most of a
    mean (RMSE, bias), and an audit that missed them would otherwise say they do not exist."""
    n, mean = len(x), float(x.mean())
    var = (float(((x - mean) ** 2).sum()) + (lo - mean) ** 2 + (hi - mean) ** 2) / (n + 1)
    half = expanded_z(n, level) * math.sqrt(var / n)
    return max(lo, mean - half), min(hi, mean + half)


def mean_interval(
    values: Sequence[float] | np.ndarray,
    minimum: int = MIN_REVIEWED,
    level: float = 0.95,
    bounds: tuple[float, float] = (-1.0, 1.0),
) -> FigureInterval:
    """The mean of one value per reviewed example (NaN: none for that example; a difference of two TRACe
    metrics by default, in [-1, 1]; the judge's bias) with the interval of :func:`_bounded`: a normal interval
    whose variance counts a pseudo-example at each end of the range."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if not len(x):
        return FigureInterval(None)
    point = float(x.mean())
    if len(x) < max(minimum, 3):
        return FigureInterval(point, state=too_few_words(len(x), minimum))
    low, high = _bounded(x, *bounds, level)
    return FigureInterval(point, low, high, BOUNDED)


def rmse_interval(
    errors: Sequence[float] | np.ndarray, minimum: int = MIN_REVIEWED, level: float = 0.95
) -> FigureInterval:
    """The root mean square of one error per reviewed example (NaN: none; each in [-1, 1]) with the root of the
    Clopper-Pearson interval of the mean squared error (valid for any mean in [0, 1]: a few examples with large
    errors hold most of it)."""
    x = np.asarray(errors, dtype=float)
    x = x[np.isfinite(x)] ** 2
    if not len(x):
        return FigureInterval(None)
    point = math.sqrt(float(x.mean()))
    if len(x) < max(minimum, 3):
        return FigureInterval(point, state=too_few_words(len(x), minimum))
    low, high = clopper_pearson(float(x.mean()), len(x), 1 - level)  # conservative for any mean in [0, 1]
    return FigureInterval(point, math.sqrt(low), math.sqrt(high), SHARE)
