"""Issue 36 item 8: the uniform design's shown interval's coverage on ``bench_design_target.py``'s simulation alone,
for the cells whose bound a design table left unsettled (uniform relevance at n = 1,000: 93.9 % over 2,000 audits,
95.3 % over 2,100 others).

    nice -n 10 .venv/bin/python benchmarks/bench_uniform_coverage.py [--sizes 1000] [--reps 6000] [--shard 7]

Each audit draws the 2,896 judged examples i.i.d. from RAGBench's rows (the biased judge with per-example difficulty,
as ``bench_design_target.py``) and a uniform audit of n; the app's estimate
(:func:`ragviz.analysis.estimates.estimate.estimate_mean`: PPI++ with λ cross-fitted, Student's t) per TRACe metric.
Printed: coverage of the 95 % interval per metric with its lower Monte-Carlo bound (coverage - 1.96 SE).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_designs import _uniform, sampled_table

from ragviz.analysis.estimates.estimate import estimate_mean
from ragviz.metrics.trace import TRACE_METRICS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "ragbench"))
    parser.add_argument("--sizes", default="1000")
    parser.add_argument("--reps", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shard", type=int, default=7, help="the audits' own random stream")
    parser.add_argument("--cache", help="the simulated table's .npz (bench_design_target.py --cache)")
    args = parser.parse_args(argv)
    if args.cache and Path(args.cache).exists():
        with np.load(args.cache) as table:
            truth, judge = table["truth"], table["judge"]
    else:
        truth, judge, *_ = sampled_table(Path(args.data), args.seed, 0.5, 4, 24)
    rng = np.random.default_rng([args.seed + 1, args.shard])
    m, k = truth.shape
    target = truth.mean(axis=0)
    for n in (int(x) for x in args.sizes.split(",")):
        start = time.process_time()
        covered = np.zeros((args.reps, k), bool)
        for r in range(args.reps):
            idx = rng.integers(0, m, m)
            y_all, f_all = truth[idx], judge[idx]
            a = _uniform(rng, m, n)
            for j in range(k):
                iv = estimate_mean(y_all[a, j], f_all[a, j], f_all[~a, j]).ppi
                covered[r, j] = iv.low <= target[j] <= iv.high
        cells = []
        for j, metric in enumerate(TRACE_METRICS):
            p = float(covered[:, j].mean())
            cells.append(f"{metric} {100 * p:.1f} ({100 * (p - 1.96 * math.sqrt(p * (1 - p) / args.reps)):.1f})")
        print(f"n={n} audits={args.reps}: " + ", ".join(cells) + f"  [{time.process_time() - start:.0f} s CPU]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
