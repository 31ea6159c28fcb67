"""Loading JSON Lines at scale: Arrow's JSON reader vs the row-by-row path, seconds and peak RSS.

    .venv/bin/python benchmarks/bench_load.py DATA.jsonl [--runs 3] [--paths arrow,rows]
    .venv/bin/python benchmarks/bench_load.py DATA.jsonl --parquet DATA.parquet [--runs 5] [--baseline DIR]

DATA is a file from ``benchmarks/make_synthetic.py`` (e.g. /tmp/syn100k.jsonl). Each run is a fresh
process calling ``ragviz.data.load.load(DATA)``; ``rows`` disables the Arrow reader (today's path
before issue 11). Prints the median seconds and the median peak RSS (``VmHWM``) of the process.

``--parquet``: the same rows as Parquet loaded alternately with the JSON Lines file (JSONL, Parquet, JSONL, ...),
so both see the same machine load; prints each one's median wall and CPU seconds and peak RSS, and JSONL's time
as a ratio of Parquet's (issue 38: at most 1.5, peak RSS at most 0.6 GB at 100k). ``--baseline DIR``: another
ragviz source tree (``git archive <commit> | tar -x -C DIR``) loads both files in the same alternation.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def measure(data: str, path: str) -> dict:
    from ragviz.data.formats import json_rows
    from ragviz.data.load import load

    if path == "rows":
        json_rows._arrow_jsonl = lambda data: None  # type: ignore[assignment]
    t0, c0 = time.perf_counter(), time.process_time()
    result = load(data)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert result.ok, result.errors[:3]
    return {"seconds": seconds, "cpu": cpu, "peak_mb": _peak_mb(), "rows": len(result.dataset)}


def _run(data: str, tree: Path | None = None) -> dict:
    """:func:`measure` of *data* in a fresh process of the source tree *tree* (default: this one)."""
    here = Path(__file__).resolve()
    env = {**os.environ, "PYTHONPATH": str(tree or here.parents[1])}
    cmd = [sys.executable, str(here), data, "--_measure", "arrow"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env, cwd=tree or here.parents[1])
    return json.loads(out.stdout.strip().splitlines()[-1])


def against_parquet(jsonl: str, parquet: str, runs: int, baseline: Path | None) -> None:
    """JSON Lines and Parquet of the same rows loaded alternately (module docstring)."""
    trees: list[tuple[str, Path | None]] = [("", None)] + ([("baseline ", baseline)] if baseline else [])
    found: dict[str, list[dict]] = {}
    loads = []
    for _ in range(runs):
        for prefix, tree in trees:
            for name, data in (("jsonl", jsonl), ("parquet", parquet)):
                found.setdefault(prefix + name, []).append(_run(data, tree))
                loads.append(os.getloadavg()[0])
    med = {k: {f: statistics.median(r[f] for r in v) for f in ("seconds", "cpu", "peak_mb")} for k, v in found.items()}
    for name, m in med.items():
        runs_text = ", ".join(f"{r['seconds']:.1f}" for r in found[name])
        print(
            f"{name:>16}: {m['seconds']:6.1f} s (runs {runs_text}; cpu {m['cpu']:.1f} s)  peak RSS {m['peak_mb']:,.0f} MB"
        )
    for prefix, _ in trees:
        j, q = med[prefix + "jsonl"], med[prefix + "parquet"]
        print(
            f"{prefix}jsonl / parquet = {j['seconds'] / q['seconds']:.2f} wall, {j['cpu'] / q['cpu']:.2f} cpu; "
            f"jsonl peak RSS {j['peak_mb'] / 1024:.2f} GB"
        )
    print(f"load average {min(loads):.1f}-{max(loads):.1f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--paths", default="arrow,rows")
    p.add_argument("--parquet", default=None, help="the same rows as Parquet, loaded alternately with DATA")
    p.add_argument("--baseline", type=Path, default=None, help="another ragviz source tree, timed alike")
    p.add_argument("--_measure", metavar="PATH", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args._measure:
        print(json.dumps(measure(args.data, args._measure)))
        return 0
    if args.parquet:
        against_parquet(str(Path(args.data).resolve()), str(Path(args.parquet).resolve()), args.runs, args.baseline)
        return 0
    for path in args.paths.split(","):
        results = []
        for _ in range(args.runs):
            cmd = [sys.executable, __file__, args.data, "--_measure", path]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            results.append(json.loads(out.strip().splitlines()[-1]))
        secs = statistics.median(r["seconds"] for r in results)
        peak = statistics.median(r["peak_mb"] for r in results)
        runs = ", ".join(f"{r['seconds']:.1f}" for r in results)
        print(
            f"{path:5} {results[0]['rows']} rows: median {secs:6.1f} s (runs {runs}); peak RSS {peak:6.0f} MB",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
