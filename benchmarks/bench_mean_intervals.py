"""Does the Dashboard's interval of a subset's mean cover, and from how many examples? A simulation on the RAGBench
test shards, for :data:`ragviz.analysis.coverage.MIN_EXAMPLES`.

    nice -n 10 .venv/bin/python benchmarks/bench_mean_intervals.py [--data ../shared/ragbench] [--reps 1000]
                                                                   [--sizes 3,5,10,20,30,50] [--seed 0]

The metric values are the scores RAGBench's authors stored (``relevance_score`` ... ``adherence_score``) of the
2,896 test rows. The estimand: the mean of each TRACe metric over the rows of the subset the examples come from
(a finite population: covidqa's 246 rows, hagrid's 1,318, ...). Each replicate draws *n* rows of one subset without
replacement and computes the interval the Dashboard, the report and ``subset_means`` show, with the app's own
function (:func:`ragviz.analysis.stats.bootstrap_mean_cis`, 1,000 resamples as the Dashboard, ``minimum=0`` so
that every size gets its interval). An interval covers when it contains the subset's mean. A sample whose values
are all equal gets no interval (resampling equal values says nothing); such samples are counted apart ("shown").

Per size and metric: the coverage of the intervals shown, pooled over the seven subsets (``--reps`` draws each),
with its 95 % Wilson lower bound, the lowest subset's coverage, and the share of samples that got an interval.
The minimum is the smallest size from which every metric's Wilson lower bound is at least 93 %.
"""

from __future__ import annotations

import argparse
import inspect
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragviz.analysis.stats import bootstrap_mean_cis  # noqa: E402
from ragviz.metrics.trace import TRACE_METRICS  # noqa: E402

STORED = {m: f"{m}_score" for m in TRACE_METRICS}


def wilson_low(hits: int, n: int, z: float = 1.959964) -> float:
    """The lower end of the 95 % Wilson interval of *hits* in *n*."""
    if n == 0:
        return float("nan")
    p = hits / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n)


def subsets(data: Path) -> dict[str, np.ndarray]:
    """Per subset, its rows' stored scores (rows x TRACe metrics)."""
    import pandas as pd

    out = {}
    for shard in sorted(data.glob("*/test-*.parquet")):
        frame = pd.read_parquet(shard, columns=list(STORED.values()))
        out[shard.parent.name] = frame.to_numpy(dtype=float)
    if not out:
        sys.exit(f"{data}: no RAGBench test shards (<subset>/test-*.parquet)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "ragbench"))
    parser.add_argument("--reps", type=int, default=1000, help="samples per subset and size")
    parser.add_argument("--sizes", default="3,5,10,20,30,50,100")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    pops = subsets(Path(args.data))
    # the interval as shown, without the minimum (so that every size gets one); older code had no minimum
    extra = {"minimum": 0} if "minimum" in inspect.signature(bootstrap_mean_cis).parameters else {}
    rng = np.random.default_rng(args.seed)
    print(
        f"{sum(len(v) for v in pops.values()):,} rows in {len(pops)} subsets; {args.reps:,} samples per subset and size"
    )
    print(
        "coverage of the intervals shown, pooled over the subsets (Wilson 95 % lower bound); lowest subset; share shown"
    )
    start = time.process_time()
    lows: dict[int, float] = {}
    for n in sizes:
        covered = np.zeros((len(pops), len(TRACE_METRICS)), np.int64)
        shown = np.zeros_like(covered)
        for s, rows in enumerate(pops.values()):
            truth = rows.mean(axis=0)
            for _ in range(args.reps):
                sample = rows[rng.choice(len(rows), size=min(n, len(rows)), replace=False)]
                cis = bootstrap_mean_cis([sample[:, k] for k in range(len(TRACE_METRICS))], 1000, **extra)
                for k, ci in enumerate(cis):
                    if ci.low is None or ci.high is None:
                        continue
                    shown[s, k] += 1
                    covered[s, k] += ci.low <= truth[k] <= ci.high
        cells = []
        for k, m in enumerate(TRACE_METRICS):
            hit, tot = int(covered[:, k].sum()), int(shown[:, k].sum())
            by_subset = [covered[s, k] / shown[s, k] for s in range(len(pops)) if shown[s, k]]
            low = wilson_low(hit, tot)
            lows[n] = min(lows.get(n, 1.0), low)
            cells.append(
                f"{m} {100 * hit / max(tot, 1):.1f} % ({100 * low:.1f}); lowest {100 * min(by_subset):.1f} %; "
                f"shown {100 * tot / (args.reps * len(pops)):.0f} %"
            )
        print(f"n = {n:>4}: " + " | ".join(cells))
    minimum = next((n for n in sizes if all(lows[m] >= 0.93 for m in sizes if m >= n)), None)
    print(f"smallest size from which every metric's lower bound >= 93 %: {minimum}")
    print(f"CPU {time.process_time() - start:.1f} s")


if __name__ == "__main__":
    main()
