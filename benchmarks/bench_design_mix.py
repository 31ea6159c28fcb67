"""Issue 23's width target on completeness: does an active design with per-metric inclusion probabilities, or one
sample mixed across the metrics, reach uniform's width with fewer audited examples without hurting coverage?

    .venv/bin/python benchmarks/bench_design_mix.py [--reps 1000] [--sizes 100,300,1000]

The RAGBench population and noisy judge of ``bench_designs.py``. The judge's confidence is per metric here (issue 23
item 1 asks the judge for one per TRACe metric): ``c_ij = clip(0.97 - 1.5 |judge_ij - people_ij| + N(0, 0.1), 0.3, 1)``;
the one-per-row confidence of ``bench_designs.py`` (their mean error) is kept for the design the app draws today.
Designs, each with IPW PPI++ (``glide-py``'s ASI estimator, normal interval) and Poisson sampling at budget n:

* ``active-row`` — today's: one confidence per row, floor 0.5;
* ``per-metric`` — metric j audited by its own sample, inclusion probability from c_ij (floor 0.5): the
  Zrnic & Candès rule per metric (pi proportional to the expected |residual| of that metric); a review then covers
  only the metric it was drawn for, so its people-hours are 4x the others' at equal n — reported for the width alone;
* ``row-centred`` / ``per-metric-centred`` / ``mixed-centred`` — the samples of ``active-row`` / ``per-metric`` /
  mixed (one sample for all metrics: selection weight proportional to the mean over metrics of
  sqrt(1 - c_ij) / its mean over rows, floor 0.5) with the app's centred IPW PPI++ (:func:`ragviz.analysis.audits.active.ipw_ppi_ci`,
  ``centred=True``: the rectifier centred on its Hajek mean; the other columns ``centred=False``, glide-py's ASI).

Confidence ``informative`` as above, ``noise``: uniform 0.5-1 per row and metric, unrelated to the errors.
Printed per (n, metric): coverage and mean width per design, width / uniform's at the same n. Exit 1 when a
coverage falls outside 93-97 %.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_designs import UNIT, ragbench_table

from ragviz.analysis.audits.active import ipw_ppi_ci
from ragviz.analysis.audits.designs import DEFAULT_FLOOR, active_level, selection_weights
from ragviz.analysis.estimates.ppi import ppi_mean_ci
from ragviz.metrics.trace import TRACE_METRICS

DESIGNS = ("uniform", "active-row", "per-metric", "row-centred", "per-metric-centred", "mixed-centred")


def per_metric_confidence(truth: np.ndarray, judge: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    error = np.abs(truth - judge)
    return np.clip(0.97 - 1.5 * error + rng.normal(0, 0.1, error.shape), 0.3, 1.0)


def row_confidence(truth: np.ndarray, judge: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    error = np.abs(truth - judge).mean(axis=1)
    return np.clip(0.97 - 1.5 * error + rng.normal(0, 0.1, error.size), 0.3, 1.0)


def mixed_weights(conf: np.ndarray, floor: float = DEFAULT_FLOOR) -> np.ndarray:
    spread = np.sqrt(1.0 - conf)
    scaled = (spread / np.maximum(spread.mean(axis=0), 1e-12)).mean(axis=1)
    return floor / scaled.size + (1.0 - floor) * scaled / scaled.sum()


def _poisson(q: np.ndarray, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    pi = np.minimum(1.0, active_level(q, float(n)) * q)
    return rng.random(q.size) < pi, pi


def simulate(truth, judge, conf_row, conf_metric, n, reps, rng):
    m, k = truth.shape
    target = truth.mean(axis=0)
    cov = {d: np.zeros((reps, k)) for d in DESIGNS}
    width = {d: np.zeros((reps, k)) for d in DESIGNS}
    for r in range(reps):
        idx = rng.integers(0, m, m)
        y_all, f_all, cr, cm = truth[idx], judge[idx], conf_row[idx], conf_metric[idx]
        uniform = np.zeros(m, bool)
        uniform[rng.choice(m, n, replace=False)] = True
        row = _poisson(selection_weights(cr, DEFAULT_FLOOR), n, rng)
        mixed = _poisson(mixed_weights(cm), n, rng)
        for j in range(k):
            per = _poisson(selection_weights(cm[:, j], DEFAULT_FLOOR), n, rng)
            for d, (a, pi) in {
                "uniform": (uniform, None),
                "active-row": row,
                "per-metric": per,
                "row-centred": row,
                "per-metric-centred": per,
                "mixed-centred": mixed,
            }.items():
                y, f, fu = y_all[a, j], f_all[a, j], f_all[~a, j]
                if pi is None:
                    iv = ppi_mean_ci(y, f, fu, bounds=UNIT)
                    low, high = iv.low, iv.high
                else:
                    iv = ipw_ppi_ci(y, f, pi[a], fu, bounds=UNIT, centred=d.endswith("centred")).interval
                    low, high = iv.low, iv.high
                assert low is not None and high is not None
                cov[d][r, j] = low <= target[j] <= high
                width[d][r, j] = high - low
    return cov, width


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "ragbench"))
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--sizes", default="100,300,1000")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    truth, judge, _ = ragbench_table(Path(args.data), args.seed)
    rng = np.random.default_rng(args.seed + 1)
    confidences = {
        "informative": (row_confidence(truth, judge, rng), per_metric_confidence(truth, judge, rng)),
        "noise": (rng.uniform(0.5, 1.0, truth.shape[0]), rng.uniform(0.5, 1.0, truth.shape)),
    }
    print(f"RAGBench: {truth.shape[0]} examples; {args.reps} audits per cell")
    print(f"{'n':>5}  {'metric':<13}" + "".join(f"{d + ' cov':>16}{'width':>8}" for d in DESIGNS)
          + "".join(f"{d + '/unif':>16}" for d in DESIGNS[1:]))  # fmt: skip
    failed = []
    for (kind, (conf_row, conf_metric)), n in itertools.product(confidences.items(), map(int, args.sizes.split(","))):
        print(kind)
        cov, width = simulate(truth, judge, conf_row, conf_metric, n, args.reps, rng)
        for j, metric in enumerate(TRACE_METRICS):
            cells = "".join(f"{100 * cov[d][:, j].mean():>15.1f}%{width[d][:, j].mean():>8.3f}" for d in DESIGNS)
            base = width["uniform"][:, j].mean()
            ratios = "".join(f"{width[d][:, j].mean() / base:>16.3f}" for d in DESIGNS[1:])
            print(f"{n:>5}  {metric:<13}{cells}{ratios}")
            failed += [
                f"{kind} n={n} {metric} {d}: coverage {100 * cov[d][:, j].mean():.1f}%"
                for d in DESIGNS
                if not 0.93 <= cov[d][:, j].mean() <= 0.97
            ]
    print(f"{time.perf_counter() - start:.0f} s")
    for f in failed:
        print(f"FAIL: {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
