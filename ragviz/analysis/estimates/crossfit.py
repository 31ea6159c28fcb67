"""PPI++ with a cross-fitted :math:`\\lambda` (issue 36 item 5): the power-tuned :math:`\\hat\\lambda` is a function
of the same audit it weights, which biases the estimate by a fraction of its standard error at n = 100
(``benchmarks/bench_lambda.py``). Cross-fitting splits the audit into *K* folds and weights fold *k* with the
:math:`\\lambda_k` tuned on the other folds (and the judge on every example not audited):

.. math:: \\hat\\theta_{cf} = \\sum_k \\frac{n_k}{n}\\Big(\\bar Y_k - \\lambda_k\\,(\\bar{\\hat Y}_k - \\bar{\\hat Y}^u)\\Big)

Each fold's term is unbiased for the mean given its :math:`\\lambda_k` (which its own examples did not choose), so
the estimate is unbiased up to the judge-only mean's share in :math:`\\lambda_k` (order 1/N). Its variance is
PPI++'s at the mean :math:`\\bar\\lambda = \\sum_k (n_k/n)\\lambda_k` (:func:`ragviz.analysis.estimates.ppi.ppi_variance`).
The folds are the audit's examples in a seeded random order cut into *K* near-equal parts, so the same audit gives
the same estimate.
"""

from __future__ import annotations

import numpy as np

from ragviz.analysis.estimates.ppi import Values, as_vector, power_tuning

__all__ = ["FOLDS", "crossfit_ppi_mean", "fold_of"]


FOLDS = 5


def fold_of(n: int, folds: int = FOLDS, seed: int = 0) -> np.ndarray:
    """Each of *n* audited examples' fold (0 .. *folds* - 1): a seeded random order cut into near-equal parts.

    >>> sorted(np.bincount(fold_of(10, 3)).tolist())
    [3, 3, 4]
    """
    order = np.random.default_rng(seed).permutation(n)
    out = np.empty(n, dtype=np.int64)
    out[order] = np.arange(n) % folds
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
    y_arr, f_arr, fu_arr = as_vector(y), as_vector(yhat), as_vector(yhat_u)
    n = y_arr.size
    k = max(1, min(folds, n // 2))
    if fu_arr.size == 0 or k < 2:
        lam = power_tuning(y_arr, f_arr, fu_arr)
        return float(np.mean(y_arr - lam * f_arr)) + (lam * float(fu_arr.mean()) if fu_arr.size else 0.0), lam
    which = fold_of(n, k, seed)
    fu_mean = float(fu_arr.mean())
    estimate = lam_bar = 0.0
    for j in range(k):
        inside = which == j
        lam = power_tuning(y_arr[~inside], f_arr[~inside], fu_arr)
        share = float(inside.sum()) / n
        estimate += share * (float(y_arr[inside].mean()) - lam * (float(f_arr[inside].mean()) - fu_mean))
        lam_bar += share * lam
    return estimate, lam_bar
