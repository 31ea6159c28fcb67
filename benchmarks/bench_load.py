"""Loading JSON Lines at scale: Arrow's JSON reader vs the row-by-row path, seconds and peak RSS.

    .venv/bin/python benchmarks/bench_load.py DATA.jsonl [--runs 3] [--paths arrow,rows]

DATA is a file from ``benchmarks/make_synthetic.py`` (e.g. /tmp/syn100k.jsonl). Each run is a fresh
process calling ``ragviz.data.load.load(DATA)``; ``rows`` disables the Arrow reader (today's path
before issue 11). Prints the median seconds and the median peak RSS (``VmHWM``) of the process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


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
    t0 = time.perf_counter()
    result = load(data)
    seconds = time.perf_counter() - t0
    assert result.ok, result.errors[:3]
    return {"seconds": seconds, "peak_mb": _peak_mb(), "rows": len(result.dataset)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--paths", default="arrow,rows")
    p.add_argument("--_measure", metavar="PATH", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args._measure:
        print(json.dumps(measure(args.data, args._measure)))
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
