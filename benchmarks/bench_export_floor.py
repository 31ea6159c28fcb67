"""``ragviz export`` of a Parquet file to Parquet at scale against its floor, measured in the same run: the floor is
pyarrow reading the same file and writing it again (``pq.read_table`` + ``pq.write_table``), the least any export
of it can cost. Each measurement is a fresh process (what a person runs), floor and export alternately so both see
the same machine load; prints each one's median wall and CPU seconds and peak RSS, and the export's ratios to the floor.

    .venv/bin/python benchmarks/bench_export_floor.py DATA [--runs 3] [--db DB] [--baseline DIR]

DATA: e.g. ``/tmp/syn100k.parquet`` from ``benchmarks/make_synthetic.py 100000 /tmp/syn100k --no-jsonl``. The label
store gets 1,000 decisions and 1,000 stored judge labels (``bench_export.prepare_store``) unless ``--db`` names one
already prepared. ``--baseline DIR``: another ragviz source tree (``git archive <commit> | tar -x -C DIR``), timed
in the same alternation.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

FLOOR = "import sys, pyarrow.parquet as pq; pq.write_table(pq.read_table(sys.argv[1]), sys.argv[2])"


def timed(cmd: list[str], cwd: Path = ROOT) -> tuple[float, float, float]:
    """Wall and CPU seconds (user + system) and peak RSS (MB) of one process running *cmd* (of the source tree
    *cwd*): the process's own figures (``os.wait4``), whatever ran before it."""
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, cwd=cwd, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed:\n{err.read().decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def baseline_store(data: str, db: str, baseline: Path) -> str:
    """A copy of *db*'s decisions for the *baseline* tree: prepared by the baseline's own code (an older ragviz
    refuses a store a newer one migrated), in a new file beside *db*."""
    old = str(Path(db).with_name("baseline-labels.db"))
    code = "import sys; sys.path.insert(0, 'benchmarks'); from bench_export import prepare_store; prepare_store(*sys.argv[1:])"
    subprocess.run(
        [sys.executable, "-c", code, data, old],
        cwd=baseline,
        check=True,
        env={**os.environ, "PYTHONPATH": str(baseline)},
    )
    return old


def measure(data: str, db: str, runs: int, baseline: Path | None = None) -> dict[str, list[tuple[float, float, float]]]:
    """Per contender (``floor``, ``export`` and ``baseline`` when given) the (wall, CPU, peak RSS MB) of *runs* runs,
    alternately."""
    out = Path(tempfile.mkdtemp(prefix="bench_export_floor_"))
    contenders = {
        "floor": ([sys.executable, "-c", FLOOR, data, str(out / "floor.parquet")], ROOT),
        "export": (
            [sys.executable, "-m", "ragviz", "export", data, "--db", db, "-o", str(out / "export.parquet")],
            ROOT,
        ),
    }
    if baseline is not None:
        old_db = baseline_store(data, db, baseline.resolve())
        cmd = [sys.executable, "-m", "ragviz", "export", data, "--db", old_db, "-o", str(out / "baseline.parquet")]
        contenders["baseline"] = (cmd, baseline.resolve())
    found: dict[str, list[tuple[float, float, float]]] = {name: [] for name in contenders}
    for _ in range(runs):
        for name, (cmd, cwd) in contenders.items():
            found[name].append(timed(cmd, cwd))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--db", default=None, help="a store prepared by an earlier run")
    parser.add_argument("--baseline", type=Path, default=None)
    args = parser.parse_args(argv)
    data = str(Path(args.data).resolve())
    db = args.db
    if db is None:
        from bench_export import prepare_store

        db = str(Path(tempfile.mkdtemp(prefix="bench_export_floor_")) / "labels.db")
        t = time.perf_counter()
        prepare_store(data, db)
        print(f"store prepared in {time.perf_counter() - t:.0f} s: {db}", flush=True)
    load0 = os.getloadavg()[0]
    found = measure(data, db, args.runs, args.baseline)
    medians = {name: statistics.median(w for w, _, _ in runs) for name, runs in found.items()}
    cpus = {name: statistics.median(c for _, c, _ in runs) for name, runs in found.items()}
    for name, runs in found.items():
        walls = ", ".join(f"{w:.1f}" for w, _, _ in runs)
        peak = statistics.median(m for _, _, m in runs)
        print(f"{name:>8}: {medians[name]:6.1f} s (runs {walls}; cpu {cpus[name]:.1f} s; peak RSS {peak:,.0f} MB)")
    for name in medians:
        if name != "floor":
            wall, cpu = medians[name] / medians["floor"], cpus[name] / cpus["floor"]
            print(f"{name} / floor = {wall:.2f} (CPU {cpu:.2f})", flush=True)
    print(f"load average {load0:.1f} -> {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
