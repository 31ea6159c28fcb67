"""``ragviz export --labels gold`` of a team round at scale, against the plain export of the same file and pyarrow's
read + write floor, measured in the same run: each measurement is a fresh process (what a person runs: the data
loaded, the round compared, the file written), the contenders alternately so all see the same machine load; prints
each one's median wall and CPU seconds and the ratios.

    .venv/bin/python benchmarks/bench_gold_export.py DATA [--annotators 3] [--overlap 2] [--runs 3]
        [--formats parquet,jsonl] [--baseline DIR] [--round-kept]

DATA: e.g. ``/tmp/syn100k.parquet`` (``benchmarks/make_synthetic.py 100000 /tmp/syn100k``). The store gets every
example assigned to *overlap* of *annotators* annotators and every assignment decided (``bench_team.seed_decisions``:
one in ten drops a relevant key, so those examples wait for an adjudicator). ``--baseline DIR``: another ragviz
source tree (``git archive <commit> | tar -x -C DIR``), its gold export timed in the same alternation.
``--round-kept``: instead, in one process (as the app, whose Team page compared the round already), the round
compared cold once, then the gold and the plain export alternately with the round kept.
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_export_floor import FLOOR, timed  # noqa: E402


def prepare_round(data: str, db: str, annotators: int, overlap: int) -> int:
    """The round's store: every example assigned and decided; returns the number of decisions."""
    from bench_team import seed_decisions

    from ragviz.data.load import load
    from ragviz.store.label_store import LabelStore

    dataset = load([data]).dataset
    pool = [f"annotator{i:02d}@example.org" for i in range(annotators)]
    with LabelStore(db) as store:
        store.team.assignments.assign(list(dataset.uids), overlap, pool, "bench")
        return seed_decisions(store, dataset)


def round_kept(data: str, db: str, formats: list[str], runs: int, out: Path) -> None:
    """The round cold, then per format the gold and the plain export (no store) alternately, the round kept."""
    from ragviz.analysis.labelsets.selection import GOLD
    from ragviz.analysis.team.table import current_round_table
    from ragviz.data.load import load
    from ragviz.export.targets import Target, export
    from ragviz.store.label_store import LabelStore

    def timed_here(work: Callable[[], object]) -> tuple[float, float, float]:
        wall, cpu = time.perf_counter(), time.process_time()
        work()
        return time.perf_counter() - wall, time.process_time() - cpu, os.getloadavg()[0]

    dataset = load([data]).dataset
    with LabelStore(db) as store:
        wall, cpu, load_now = timed_here(lambda: current_round_table(dataset, store))
        print(f"{'the round, cold':>22}: {wall:6.1f} s wall, {cpu:6.1f} s CPU (load {load_now:.1f})", flush=True)
        found: dict[str, list[tuple[float, float, float]]] = {}
        for _ in range(runs):
            for fmt in formats:
                for name, labels in (("gold", store), ("plain", None)):
                    target = Target(str(out / f"kept-{name}.{fmt}"), fmt)
                    whose = GOLD if labels is not None else None
                    work = functools.partial(export, labels, whose, dataset, target)
                    found.setdefault(f"{name} {fmt}", []).append(timed_here(work))
    for name, measured in found.items():
        wall, cpu = statistics.median(w for w, _, _ in measured), statistics.median(c for _, c, _ in measured)
        loads = ", ".join(f"{x:.1f}" for _, _, x in measured)
        print(f"{name + ', round kept':>22}: {wall:6.1f} s wall, {cpu:6.1f} s CPU (medians; load {loads})", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--annotators", type=int, default=3)
    parser.add_argument("--overlap", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--formats", default="parquet", help="comma-separated: parquet, jsonl, csv")
    parser.add_argument("--baseline", type=Path, default=None)
    parser.add_argument("--round-kept", action="store_true", help="in one process, the round compared once")
    args = parser.parse_args(argv)
    data = str(Path(args.data).resolve())
    out = Path(tempfile.mkdtemp(prefix="bench_gold_export_"))
    db = str(out / "labels.db")
    t = time.perf_counter()
    n = prepare_round(data, db, args.annotators, args.overlap)
    print(f"round prepared in {time.perf_counter() - t:.0f} s: {n:,} decisions in {db}", flush=True)
    if args.round_kept:
        round_kept(data, db, args.formats.split(","), args.runs, out)
        shutil.rmtree(out)
        return 0
    ragviz = [sys.executable, "-m", "ragviz", "export", data]
    contenders: dict[str, tuple[list[str], Path]] = {
        "floor": ([sys.executable, "-c", FLOOR, data, str(out / "floor.parquet")], ROOT),
        "plain parquet": ([*ragviz, "-o", str(out / "plain.parquet")], ROOT),
    }
    baseline = args.baseline.resolve() if args.baseline is not None else None
    old_db = str(out / "baseline-labels.db")
    if baseline is not None:
        shutil.copy(db, old_db)
    for fmt in args.formats.split(","):
        gold = ["--labels", "gold", "-o"]
        contenders[f"gold {fmt}"] = ([*ragviz, "--db", db, *gold, str(out / f"gold.{fmt}")], ROOT)
        if baseline is not None:
            cmd = [*ragviz, "--db", old_db, *gold, str(out / f"baseline.{fmt}")]
            contenders[f"baseline gold {fmt}"] = (cmd, baseline)
    found: dict[str, list[tuple[float, float, float]]] = {name: [] for name in contenders}
    for _ in range(args.runs):
        for name, (cmd, cwd) in contenders.items():
            seconds, cpu_seconds, _ = timed(cmd, cwd)
            found[name].append((seconds, cpu_seconds, os.getloadavg()[0]))
            print(f"  {name}: {seconds:.1f} s wall, {cpu_seconds:.1f} s CPU, load {found[name][-1][2]:.1f}", flush=True)
    if baseline is not None:
        for fmt in args.formats.split(","):
            same = (out / f"gold.{fmt}").read_bytes() == (out / f"baseline.{fmt}").read_bytes()
            print(f"gold {fmt}: {'the same bytes as' if same else 'DIFFERENT from'} the baseline's", flush=True)
    wall = {name: statistics.median(w for w, _, _ in runs) for name, runs in found.items()}
    cpu = {name: statistics.median(c for _, c, _ in runs) for name, runs in found.items()}
    for name, runs in found.items():
        loads = ", ".join(f"{x:.1f}" for _, _, x in runs)
        print(f"{name:>22}: {wall[name]:6.1f} s wall, {cpu[name]:6.1f} s CPU (medians; load {loads})", flush=True)
    for name in wall:
        if name != "floor":
            print(f"{name} / floor: wall {wall[name] / wall['floor']:.2f}, CPU {cpu[name] / cpu['floor']:.2f}")
    for fmt in args.formats.split(","):
        if fmt == "parquet":
            g = "gold parquet"
            print(
                f"gold / plain parquet: wall {wall[g] / wall['plain parquet']:.2f}, CPU {cpu[g] / cpu['plain parquet']:.2f}"
            )
        if f"baseline gold {fmt}" in wall:
            g, b = f"gold {fmt}", f"baseline gold {fmt}"
            print(f"gold {fmt} / baseline: wall {wall[g] / wall[b]:.2f}, CPU {cpu[g] / cpu[b]:.2f}")
    shutil.rmtree(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
