"""PPI++ with a cross-fitted :math:`\\lambda` (issue 36 item 5): the power-tuned :math:`\\hat\\lambda` is a function
of the audit it weights, which biases the estimate by a fraction of its SE at n = 100 (``benchmarks/bench_lambda.py``).
The audit is cut into *K* folds (a seeded random order, so the same audit gives the same estimate) and fold *k* is
weighted with the :math:`\\lambda_k` tuned on the other folds (and the judge on every example not audited):

.. math:: \\hat\\theta_{cf} = \\sum_k \\frac{n_k}{n}\\Big(\\bar Y_k - \\lambda_k\\,(\\bar{\\hat Y}_k - \\bar{\\hat Y}^u)\\Big)

Each fold's term is unbiased given its :math:`\\lambda_k`, which its own examples did not choose. Its variance
(:func:`crossfit_ppi`) is that of the out-of-fold residuals :math:`Y_i - \\lambda_{k(i)}\\hat Y_i` over *n* plus
:math:`\\bar\\lambda^2 s^2_{\\hat Y^u}/N`: the tuned λ's own variance is too small, as tuning minimised it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ragviz.analysis.estimates.ppi import Values, as_vector, power_tuning
from ragviz.analysis.estimates.student_t import kurtosis_df

__all__ = ["FOLDS", "CrossFit", "crossfit_ppi", "crossfit_ppi_mean", "fold_of"]


FOLDS = 5


def fold_of(n: int, folds: int = FOLDS, seed: int = 0) -> np.ndarray:
    """Each of *n* audited examples' fold (0 .. *folds* - 1): a seeded random order cut into near-equal parts
    (read-only: the same array for the same arguments).

    >>> sorted(np.bincount(fold_of(10, 3)).tolist())
    [3, 3, 4]
    """
    return _folds(n, folds, seed)


@lru_cache(maxsize=64)
def _folds(n: int, folds: int, seed: int) -> np.ndarray:
    order = np.random.default_rng(seed).permutation(n)
    out = np.empty(n, dtype=np.int64)
    out[order] = np.arange(n) % folds
    out.flags.writeable = False
    return out


def crossfit_ppi_mean(
    y: Values, yhat: Values, yhat_u: Values, folds: int = FOLDS, seed: int = 0
) -> tuple[float, float]:
    """``(estimate, mean lambda)`` of PPI++ with :math:`\\lambda` cross-fitted over *folds* folds (module
    docstring). Needs at least 2 audited examples per fold (*folds* is lowered to fit) and *yhat_u* not empty.

    >>> est, lam = crossfit_ppi_mean([1.0, 0.0] * 10, [1.0, 0.0] * 10, [1.0, 0.0, 0.0] * 30, folds=2)
    >>> round(est, 6), round(lam, 3)
    (0.342004, 0.941)
    """
    fit = crossfit_ppi(y, yhat, yhat_u, folds, seed)
    return fit.estimate, fit.lam


@dataclass(frozen=True)
class CrossFit:
    """A cross-fitted PPI++ estimate: the mean λ, the variance of the out-of-fold residuals' estimate and the
    degrees of freedom of that variance (:func:`ragviz.analysis.estimates.student_t.kurtosis_df`)."""

    estimate: float
    lam: float
    variance: float
    df: float


def crossfit_ppi(y: Values, yhat: Values, yhat_u: Values, folds: int = FOLDS, seed: int = 0) -> CrossFit:
    """:func:`crossfit_ppi_mean` with its variance (module docstring): needs at least 2 audited examples per fold.

    >>> c = crossfit_ppi([1.0, 0.0] * 10, [1.0, 0.0] * 10, [1.0, 0.0, 0.0] * 30, folds=2)
    >>> round(c.estimate, 6), round(c.variance, 6), round(c.df, 1)
    (0.342004, 0.002228, 108.6)
    """
    y_arr, f_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(yhat_u)
    n = y_arr.size
    k = max(1, min(folds, n // 2))
    if fu_arr.size == 0 or k < 2:
        lams = np.full(n, power_tuning(y_arr, f_arr, fu_arr))
    else:
        lams = np.empty(n)
        which = fold_of(n, k, seed)
        for j in range(k):
            inside = which == j
            lams[inside] = power_tuning(y_arr[~inside], f_arr[~inside], fu_arr)
    residual = y_arr - lams * f_arr
    lam_bar = float(lams.mean())
    estimate = float(residual.mean()) + (lam_bar * float(fu_arr.mean()) if fu_arr.size else 0.0)
    own = float(np.var(residual)) / n
    judge = lam_bar * lam_bar * float(fu_arr.var()) / fu_arr.size if fu_arr.size else 0.0
    return CrossFit(estimate, lam_bar, own + judge, kurtosis_df(residual))
