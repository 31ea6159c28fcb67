"""How often one stakeholder report fingerprints the loaded examples, and what one fingerprint costs: the report
asks the label store for the audit samples drawn from the loaded uids (``AuditSamples.list_samples``), which hashes
every uid sorted (``population_fingerprint``); the headline's sample and the two systems' comparison each asked.

    .venv/bin/python benchmarks/bench_report_fingerprint.py [--data sample_data] [--uids 100000] [--runs 5]

Counts the calls during one ``report_bytes`` of DATA (a fresh store with a reviewed audit drawn as the Review page
draws it, tests/export/report_setup.py) and times ``population_fingerprint`` over --uids synthetic uids (median of
--runs; wall and CPU: the machine's load swings the wall time).
"""

from __future__ import annotations

import argparse
import runpy
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT / "sample_data"))
    parser.add_argument("--uids", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)

    import ragviz.store.audit_samples as audit_samples
    from ragviz.data.load import load
    from ragviz.export.report import ReportRequest, report_bytes
    from ragviz.store.label_store import LabelStore

    review_audit = runpy.run_path(str(ROOT / "tests" / "export" / "report_setup.py"))["review_audit"]
    dataset = load([args.data]).dataset
    real = audit_samples.population_fingerprint
    calls = []
    with tempfile.TemporaryDirectory() as tmp, LabelStore(Path(tmp) / "labels.db") as store:
        review_audit(store, dataset, min(16, len(dataset)), min(14, len(dataset)))
        audit_samples.population_fingerprint = lambda uids: calls.append(1) or real(uids)  # type: ignore[assignment]
        try:
            report_bytes(dataset, store, ReportRequest(paths=(args.data,), db="labels.db", date="2026-11-29"))
        finally:
            audit_samples.population_fingerprint = real
    uids = [f"subset_{i % 7}/q{i:07d}/model-{i % 2}" for i in range(args.uids)]
    times, cpu = [], []
    for _ in range(args.runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        real(uids)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    print(f"population_fingerprint calls in one report of {len(dataset):,} rows: {len(calls)}")
    print(
        f"one population_fingerprint of {args.uids:,} uids: median {statistics.median(times):.3f} s wall, "
        f"{statistics.median(cpu):.3f} s CPU"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
