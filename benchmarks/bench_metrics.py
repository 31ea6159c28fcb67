"""Wall time of `ragviz metrics` over the seven RAGBench shards vs reading the same files with
`pyarrow.parquet.read_table(f).to_pylist()`, measured in the same run (issue 2's target: ratio <= 1.5).

Both sides are measured twice: as whole commands (a fresh Python process each: start-up, imports,
work) and in-process (work only). Best of --repeat runs each.

    python benchmarks/bench_metrics.py [--repeat 5] [--ragbench ../shared/ragbench]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUBSETS = ("covidqa", "delucionqa", "emanual", "expertqa", "hagrid", "hotpotqa", "msmarco")


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ragbench", default=str(ROOT.parent / "shared" / "ragbench"))
    args = ap.parse_args()
    files = [str(Path(args.ragbench) / s / "test-00000-of-00001.parquet") for s in SUBSETS]

    import pyarrow.parquet as pq

    from ragviz.cli.main import main as ragviz_main

    def read_pylist():
        return sum(len(pq.read_table(f).to_pylist()) for f in files)

    def ragviz_inprocess():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assert ragviz_main(["metrics", *files]) == 0

    n_rows = read_pylist()
    t_ref = best_of(args.repeat, read_pylist)
    t_ours = best_of(args.repeat, ragviz_inprocess)

    ref_cmd = [
        sys.executable,
        "-c",
        "import sys, pyarrow.parquet as pq; [pq.read_table(f).to_pylist() for f in sys.argv[1:]]",
        *files,
    ]
    our_cmd = [sys.executable, "-m", "ragviz", "metrics", *files]

    def run(cmd):
        return subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)

    t_ref_cmd = best_of(args.repeat, lambda: run(ref_cmd))
    t_our_cmd = best_of(args.repeat, lambda: run(our_cmd))

    print(f"rows: {n_rows} over {len(files)} shards, best of {args.repeat}")
    print(
        f"in-process : read_table().to_pylist() {t_ref * 1000:8.1f} ms | ragviz metrics {t_ours * 1000:8.1f} ms | ratio {t_ours / t_ref:.2f}"
    )
    print(
        f"as commands: python -c to_pylist      {t_ref_cmd * 1000:8.1f} ms | ragviz metrics {t_our_cmd * 1000:8.1f} ms | ratio {t_our_cmd / t_ref_cmd:.2f}"
    )


if __name__ == "__main__":
    main()
