"""Dashboard analysis at scale: the bootstrap interval and triage leverage, before/after issue 11.

    .venv/bin/python benchmarks/bench_triage_bootstrap.py DATA [--runs 3] [--resamples 2000]

DATA is a file from ``benchmarks/make_synthetic.py`` (e.g. /tmp/syn100k.parquet). Bootstrap: the
mean relevance of every row with a 95 % interval, old = one resamples x n index matrix, new =
``ragviz.analysis.stats.bootstrap_mean_ci`` (batched); seconds and peak traced memory
(``tracemalloc``, numpy's allocations included). Triage: ``leverage_by_metric`` over every row's
own labels, old = apply and score every candidate change (``single_changes``), new = counts
(``best_moves``); seconds, examples already built. Medians over the runs.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def old_bootstrap(values, n_resamples=2000, level=0.95, seed=0):
    import numpy as np

    data = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(n_resamples, len(data)))].mean(axis=1)
    return np.quantile(means, [(1 - level) / 2, (1 + level) / 2])


def old_leverage(items, metrics, top=20):
    from ragviz.analysis.dashboard.triage import single_changes

    best = {m: [] for m in metrics}
    for index, example, labels in items:
        if labels is None:
            continue
        changes = single_changes(example, labels)
        for metric in metrics:
            moves = [(c.description, d) for c in changes if (d := c.deltas[metric])]
            if moves:
                best[metric].append((index, *max(moves, key=lambda m: abs(m[1]))))
    return {m: sorted(found, key=lambda t: (-abs(t[2]), t[0]))[:top] for m, found in best.items()}


def timed(fn, runs, trace=False):
    secs, peaks, result = [], [], None
    for _ in range(runs):
        if trace:
            tracemalloc.start()
        t0 = time.perf_counter()
        result = fn()
        secs.append(time.perf_counter() - t0)
        if trace:
            peaks.append(tracemalloc.get_traced_memory()[1] / 2**20)
            tracemalloc.stop()
    return statistics.median(secs), (statistics.median(peaks) if peaks else None), secs, result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--resamples", type=int, default=2000)
    p.add_argument("--triage-rows", type=int, default=None, help="limit triage to the first N rows")
    args = p.parse_args(argv)

    from ragviz.analysis.dashboard.triage import leverage_by_metric
    from ragviz.analysis.stats import bootstrap_mean_ci
    from ragviz.data.load import load
    from ragviz.metrics.trace import TRACE_METRICS, dataset_trace_records

    dataset = load(args.data).dataset
    values = [r["relevance"] for r in dataset_trace_records(dataset) if r["relevance"] is not None]
    print(f"{len(dataset)} rows; bootstrap over {len(values)} relevance values, {args.resamples} resamples", flush=True)
    for name, fn in (
        ("old", lambda: tuple(old_bootstrap(values, args.resamples))),
        ("new", lambda: (lambda ci: (ci.low, ci.high))(bootstrap_mean_ci(values, args.resamples))),
    ):
        secs, peak, runs, (low, high) = timed(fn, args.runs, trace=True)
        print(
            f"bootstrap {name}: median {secs:5.1f} s (runs {', '.join(f'{s:.1f}' for s in runs)}); "
            f"peak traced memory {peak:7.0f} MB; interval [{low:.3f}, {high:.3f}]",
            flush=True,
        )

    n = len(dataset) if args.triage_rows is None else min(args.triage_rows, len(dataset))
    t0 = time.perf_counter()
    items = [(i, dataset.example(i), dataset.example(i).labels) for i in range(n)]
    print(f"triage over {n} examples (built in {time.perf_counter() - t0:.1f} s)", flush=True)
    for name, fn in (
        ("old", lambda: old_leverage(items, TRACE_METRICS)),
        ("new", lambda: leverage_by_metric(items, TRACE_METRICS, 20)),
    ):
        secs, _, runs, _ = timed(fn, args.runs)
        print(f"triage {name}: median {secs:5.1f} s (runs {', '.join(f'{s:.1f}' for s in runs)})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
