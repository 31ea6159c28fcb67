"""How biased is PPI++ when lambda is tuned on the audit it weights, and does cross-fitting remove it? (issue 36 item 5)

    .venv/bin/python benchmarks/bench_lambda.py [--reps 4000] [--sizes 30,50,100,300] [--folds 2,5]

Population: ``bench_ppi.py``'s table (people = RAGBench's labels, the ``biased`` noisy judge's TRACe metrics, 2,896
rows); the target is each metric's mean over it. Each replicate draws the M = 2,896 judged examples i.i.d. from it
(the model PPI assumes) and audits the first *n* (a uniform random sample). Per metric and *n*: the mean error of
the PPI++ estimate over the replicates in units of its standard deviation (bias / SE; Monte-Carlo SE of that ratio
about 1/sqrt(reps)), for lambda power-tuned on the audit (the app's, ``ppi_py``'s), cross-fitted over K folds
(:func:`ragviz.analysis.estimates.crossfit.crossfit_ppi_mean`) and lambda = 1 (plain PPI); and each estimator's SD
relative to the tuned one's (the price of cross-fitting in precision).

``--design active``: the same for the active design's centred IPW PPI++ (:func:`ragviz.analysis.audits.active.ipw_ppi_ci`,
λ tuned and clipped to [0, 1] as the app shows it; cross-fitted:
:func:`ragviz.analysis.audits.active_crossfit.crossfit_ipw_mean`): each replicate Poisson-samples the M examples with
chances from ``bench_designs.py``'s informative confidence (floor 0.5, n on average).

``--design stratified``: the stratified design's PPI++ (:func:`ragviz.analysis.audits.stratified.stratified_ppi_ci` with
bounds: one λ tuned on the audit; cross-fitted: :func:`ragviz.analysis.audits.stratified_crossfit.crossfit_stratified_mean`)
over RAGBench's subsets (``bench_designs.ragbench_table``), n allocated in proportion to the subsets' sizes (at least 2).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_ppi import metric_table  # noqa: E402

from ragviz.analysis.audits.active import ipw_ppi_ci  # noqa: E402
from ragviz.analysis.audits.active_crossfit import crossfit_ipw_mean  # noqa: E402
from ragviz.analysis.audits.designs import active_level, selection_weights  # noqa: E402
from ragviz.analysis.audits.stratified import stratified_ppi_ci  # noqa: E402
from ragviz.analysis.audits.stratified_crossfit import crossfit_stratified_mean  # noqa: E402
from ragviz.analysis.estimates.crossfit import crossfit_ppi_mean  # noqa: E402
from ragviz.analysis.estimates.ppi import power_tuning, ppi_mean  # noqa: E402
from ragviz.metrics.trace import TRACE_METRICS  # noqa: E402


def _strat_mean(y, f, g, fu, gu, lam):
    """The stratified PPI++ estimate with one λ (unclipped; the strata weighted by their sizes)."""
    total, out = y.size + fu.size, 0.0
    for h in np.unique(np.concatenate([g, gu])):
        yl, fl, fuh = y[g == h], f[g == h], fu[gu == h]
        out += (yl.size + fuh.size) / total * (yl.mean() - (lam * (fl.mean() - fuh.mean()) if fuh.size else 0.0))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "ragbench"))
    p.add_argument("--reps", type=int, default=4000)
    p.add_argument("--sizes", default="30,50,100,300")
    p.add_argument("--folds", default="2,5")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--design", default="uniform", choices=("uniform", "active", "stratified"))
    a = p.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    folds = [int(k) for k in a.folds.split(",")]
    if a.design == "stratified":
        from bench_designs import ragbench_table

        truth, judge, subset = ragbench_table(Path(a.data), a.seed)
    else:
        truth, judge, _ = metric_table(Path(a.data), a.seed)
    target = truth.mean(axis=0)
    m = truth.shape[0]
    names = ["tuned", *(f"cross-fit {k}" for k in folds), "lambda 1"]
    rng = np.random.default_rng(a.seed + 11)
    if a.design == "active":
        from bench_designs import confidences

        confidence = confidences(truth, judge, np.random.default_rng(a.seed + 1))["informative"]
    start = time.perf_counter()
    print(f"{a.design} design: bias / SE over {a.reps} audits (SD relative to tuned's in brackets)")
    print("metric        n     " + "".join(f"{name:>22}" for name in names))
    for n in sizes:
        errors = np.zeros((len(names), a.reps, len(TRACE_METRICS)))
        for r in range(a.reps):
            idx = rng.integers(0, m, m)
            if a.design == "active":
                q = selection_weights(confidence[idx], 0.5)
                pi = np.minimum(1.0, active_level(q, float(n)) * q)
                audited = rng.random(m) < pi
            if a.design == "stratified":
                g_all = subset[idx]
                names_h, counts_h = np.unique(g_all, return_counts=True)
                audited = np.zeros(m, bool)
                for h, size in zip(names_h, counts_h):
                    where = np.flatnonzero(g_all == h)
                    audited[rng.choice(where, min(size, max(2, round(n * size / m))), replace=False)] = True
            for j in range(len(TRACE_METRICS)):
                if a.design == "stratified":
                    y, f, g = truth[idx[audited], j], judge[idx[audited], j], g_all[audited]
                    fu, gu = judge[idx[~audited], j], g_all[~audited]
                    tuned = stratified_ppi_ci(y, f, g, fu, gu, bounds=(0.0, 1.0))
                    lam_t = next(iter(tuned.lams.values()))
                    got = [_strat_mean(y, f, g, fu, gu, lam_t)]
                    got += [crossfit_stratified_mean(y, f, g, fu, gu, k)[0] for k in folds]
                    got.append(_strat_mean(y, f, g, fu, gu, 1.0))
                    errors[:, r, j] = np.array(got) - target[j]
                    continue
                if a.design == "active":
                    y, f, p_a = truth[idx[audited], j], judge[idx[audited], j], pi[audited]
                    fu = judge[idx[~audited], j]
                    got = [ipw_ppi_ci(y, f, p_a, fu, bounds=(0.0, 1.0)).theta]
                    got += [crossfit_ipw_mean(y, f, p_a, fu, k, seed=r)[0] for k in folds]
                    got.append(ipw_ppi_ci(y, f, p_a, fu, lam=1.0).theta)
                    errors[:, r, j] = np.array(got) - target[j]
                    continue
                y, f = truth[idx[:n], j], judge[idx[:n], j]
                fu = judge[idx[n:], j]
                got = [ppi_mean(y, f, fu, power_tuning(y, f, fu))]
                got += [crossfit_ppi_mean(y, f, fu, k, seed=r)[0] for k in folds]
                got.append(ppi_mean(y, f, fu, 1.0))
                errors[:, r, j] = np.array(got) - target[j]
        sd_tuned = errors[0].std(axis=0)
        for j, metric in enumerate(TRACE_METRICS):
            cells = []
            for e in errors[:, :, j]:
                sd = e.std()
                cells.append(f"{e.mean() / sd:+.3f} ({sd / sd_tuned[j]:.3f})")
            print(f"{metric:13} {n:<5} " + "".join(f"{c:>22}" for c in cells), flush=True)
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
