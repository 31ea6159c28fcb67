"""The Dashboard's computation at scale, piece by piece (no Streamlit): the per-row figures of the data
(cached per data file in the app), the families present, ``dashboard_data`` cold (the bootstrap
intervals included) and again after one more decision, and the histogram counts the charts draw.

Each figure is the median of --runs runs, wall and CPU seconds, with the load average (the machine
may be shared). The store holds one human decision on every --every-th labelled example.

    .venv/bin/python benchmarks/bench_dashboard.py --data /tmp/syn100k.parquet [--runs 3] [--every 1000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def timed(label: str, runs: int, work: Callable[[], Any]) -> Any:
    walls, cpus, result = [], [], None
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    print(
        f"{label:>34}  {statistics.median(walls):7.2f} s  (cpu {statistics.median(cpus):6.2f} s)"
        f"  load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--every", type=int, default=1000)
    args = parser.parse_args(argv)

    from ragviz.analysis.dashboard import families
    from ragviz.analysis.dashboard import figures as dashboard
    from ragviz.analysis.dashboard.rows import row_figures
    from ragviz.analysis.labelsets.named import HUMAN
    from ragviz.data.labels import Change
    from ragviz.data.load import load
    from ragviz.store.label_store import LabelStore

    dataset = timed("load", 1, lambda: load([args.data]).dataset)
    with tempfile.TemporaryDirectory() as tmp, LabelStore(Path(tmp) / "bench.db") as store:
        decided = 0
        for i in range(0, len(dataset), args.every):
            ex = dataset.example(i)
            if ex.labels is not None and ex.labels.relevant_keys:
                store.record(ex.uid, "bench", [Change("relevant_keys", list(ex.labels.relevant_keys), [])])
                decided += 1
        print(f"{len(dataset):,} rows, {decided} decisions", flush=True)
        timed("families present (columns)", args.runs, lambda: families.dataset_families(dataset))
        base = timed("row figures (once per data)", args.runs, lambda: row_figures(dataset))
        data = timed(
            "dashboard_data (given row figures)",
            args.runs,
            lambda: dashboard.dashboard_data(dataset, HUMAN, store, base=base),
        )
        import pandas as pd

        from ragviz.analysis.dashboard.aggregates import subset_mean_state

        records = pd.DataFrame({"dataset": dataset.datasets, **base.scores})
        means = timed("base means (once per data)", 1, lambda: subset_mean_state(records))
        timed(
            "dashboard_data given base means",
            args.runs,
            lambda: dashboard.dashboard_data(dataset, HUMAN, store, base=base, base_means=means),
        )
        ex = next(
            dataset.example(i)
            for i in range(1, len(dataset), 7)
            if (dataset.example(i).labels or 0) and dataset.example(i).labels.utilized_keys
        )
        store.record(ex.uid, "bench", [Change("utilized_keys", list(ex.labels.utilized_keys), [])])
        timed(
            "dashboard_data after one decision", 1, lambda: dashboard.dashboard_data(dataset, HUMAN, store, base=base)
        )
        timed(
            "... given base means",
            args.runs,
            lambda: dashboard.dashboard_data(dataset, HUMAN, store, base=base, base_means=means),
        )
        view = dashboard.trace_view(data)
        timed("histogram counts", args.runs, lambda: dashboard.histogram_counts(view.records, view.chart_metrics))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
