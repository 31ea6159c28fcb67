"""``ragviz export`` at scale: seconds and peak RSS above the loaded data, old (all rows as dicts,
then one write) vs new (streamed in record batches).

    .venv/bin/python benchmarks/bench_export.py DATA [--runs 3] [--formats parquet,jsonl] [--modes old,new]

DATA is a file from ``benchmarks/make_synthetic.py`` (e.g. /tmp/syn100k.parquet). A label store in a
temporary folder gets 1,000 human decisions (relevance toggles, support flips, reviews) by one
annotator and stored judge labels for another 1,000 examples. Each measurement runs in a fresh
process: load DATA, reset the peak-RSS counter (``/proc/self/clear_refs``), export, then report the
seconds (wall and CPU) of the export and ``VmHWM - VmRSS`` after loading (the export's own memory),
with the 1-minute load average at the end of each run (the machine is shared). Figures are the
median over the runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ANNOTATOR = "alice"


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def prepare_store(data: str, db: str, n_edits: int = 1000, n_judged: int = 1000) -> None:
    from ragviz.data.labels import Change, field_value, support_field, toggle_key
    from ragviz.data.load import load
    from ragviz.store.label_store import LabelStore

    dataset = load(data).dataset
    step = max(1, len(dataset) // max(n_edits, 1))
    with LabelStore(db) as store:
        store.sources.register(data)
        judged = []
        for k in range(n_judged):
            example = dataset.example((k * step + step // 2) % len(dataset))
            if example.labels is not None:
                judged.append((example.uid, example.labels))
        store.judge.save_many(judged)
        for k in range(n_edits):
            example = dataset.example(k * step % len(dataset))
            cur = store.current_labels(example, ANNOTATOR)
            assert cur is not None
            changes = [
                Change(
                    "relevant_keys",
                    field_value(cur, "relevant_keys"),
                    toggle_key(cur.relevant_keys, example.context_keys()[-1]),
                )
            ]
            if k % 3 == 0 and cur.support:
                name = support_field(cur.support[0].key)
                old = field_value(cur, name)
                changes.append(Change(name, old, {**old, "supported": not old["supported"]}))
            if k % 2 == 0:
                changes.append(Change("review", None, "reviewed"))
            store.record(example.uid, ANNOTATOR, changes)


def measure(data: str, db: str, fmt: str, mode: str, out: str) -> dict:
    from ragviz.data.load import load
    from ragviz.export.files import jsonl_bytes, parquet_bytes, write_output
    from ragviz.export.rows import export_rows
    from ragviz.store.label_store import LabelStore

    dataset = load(data).dataset
    len(dataset.uids), dataset.n_context_sentences  # columnar views the app has computed already
    Path("/proc/self/clear_refs").write_text("5")
    rss0 = _status_kb("VmRSS")
    t0, c0 = time.perf_counter(), time.process_time()
    with LabelStore(db) as store:
        if mode == "old":
            rows = export_rows(dataset, store, ANNOTATOR)
            write_output(jsonl_bytes(rows) if fmt == "jsonl" else parquet_bytes(rows), out)
        else:
            from ragviz.export.files import write_export

            write_export(dataset, store, ANNOTATOR, fmt, out)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    load = os.getloadavg()[0]
    return {
        "seconds": seconds,
        "cpu": cpu,
        "load": load,
        "above_mb": (_status_kb("VmHWM") - rss0) / 1024,
        "loaded_mb": rss0 / 1024,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--formats", default="parquet,jsonl")
    p.add_argument("--modes", default="old,new")
    p.add_argument("--db", default=None, help="reuse this prepared store")
    p.add_argument("--_measure", nargs=4, metavar=("DB", "FMT", "MODE", "OUT"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args._measure:
        db, fmt, mode, out = args._measure
        print(json.dumps(measure(args.data, db, fmt, mode, out)))
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="bench_export_", dir="/tmp"))
    db = args.db or str(tmp / "labels.db")
    if args.db is None:
        t0 = time.perf_counter()
        prepare_store(args.data, db)
        print(f"store prepared in {time.perf_counter() - t0:.0f} s: {db}", flush=True)
    for fmt in args.formats.split(","):
        for mode in args.modes.split(","):
            results = []
            for _ in range(args.runs):
                out = str(tmp / f"out-{mode}.{fmt}")
                cmd = [sys.executable, __file__, args.data, "--_measure", db, fmt, mode, out]
                line = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
                results.append(json.loads(line))
            secs = statistics.median(r["seconds"] for r in results)
            above = statistics.median(r["above_mb"] for r in results)
            loaded = statistics.median(r["loaded_mb"] for r in results)
            runs = ", ".join(f"{r['seconds']:.1f}" for r in results)
            cpu = statistics.median(r.get("cpu", math.nan) for r in results)
            loads = ", ".join(f"{r.get('load', math.nan):.1f}" for r in results)
            print(
                f"{fmt:8} {mode:4} median {secs:6.1f} s (runs {runs}), {cpu:.1f} s CPU; peak RSS above the "
                f"loaded data {above:7.0f} MB (loaded: {loaded:.0f} MB); load average {loads}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
