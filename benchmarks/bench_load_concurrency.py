"""Does one user's load stall another session's rerun? Times plain reruns of the Review page on the
sample data (AppTest, in this process, as a second session would run in the server's) while nothing
else runs, then while another thread does what opening the Data page on --data costs: loading it,
the label-quality scan and the adherence column. Prints the median and the worst rerun of each, the
ratio of medians, and how long the other user's work took (wall and CPU seconds, load average).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_load_concurrency.py --data /tmp/syn100k.parquet
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from apptest_sizes import ROOT, quiet_apptest


def other_users_load(data: str) -> None:
    """The Data page's first render on *data*, outside Streamlit: load, quality scan, adherence."""
    from ragviz.data.load import load

    ds = load([data]).dataset
    try:
        from ragviz.analysis.quality_scan import scan_dataset
    except ImportError:  # before the columnar scan
        from ragviz.analysis.quality import scan_dataset  # type: ignore[attr-defined,no-redef]
    scan_dataset(ds)
    try:
        from ragviz.metrics.trace import dataset_adherence

        dataset_adherence(ds)
    except ImportError:  # before the columnar adherence: per row, as the app did
        from ragviz.data.ragbench import LABEL_FIELDS, labels_from_row
        from ragviz.metrics.trace import trace_scores

        [trace_scores(labels_from_row(row), 0).adherence for row in ds.iter_rows(LABEL_FIELDS)]


def reruns(at, seconds: float | None = None, count: int = 20, until: threading.Event | None = None) -> list[float]:
    times: list[float] = []
    while len(times) < count or (until is not None and not until.is_set()):
        start = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - start) * 1000)
        if at.exception:
            raise SystemExit(f"rerun failed: {at.exception[0].value}")
    return times


def main() -> int:
    quiet_apptest()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    from streamlit.testing.v1 import AppTest

    import ragviz

    print(f"ragviz from {Path(ragviz.__file__).parent}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(
            HOME=tmp,
            RAGVIZ_DB=str(Path(tmp) / "b.db"),
            RAGVIZ_DATA=str(ROOT / "sample_data"),
            RAGVIZ_ANNOTATOR="b",
        )
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        at.switch_page("pages/review.py")
        at.run()
        idle = reruns(at)
        done = threading.Event()
        took: dict[str, float] = {}

        def work() -> None:
            wall, cpu = time.perf_counter(), time.thread_time()
            other_users_load(args.data)
            took.update(wall=time.perf_counter() - wall, cpu=time.thread_time() - cpu)
            done.set()

        other = threading.Thread(target=work)
        other.start()
        busy = reruns(at, count=5, until=done)
        other.join()
    print(
        f"other user's load: {took['wall']:.1f} s (CPU of its thread {took['cpu']:.1f} s), load average {os.getloadavg()[0]:.1f}"
    )
    a, b = statistics.median(idle), statistics.median(busy)
    print(f"Review rerun, idle:  median {a:6.0f} ms, worst {max(idle):6.0f} ms ({len(idle)} reruns)")
    print(f"Review rerun, busy:  median {b:6.0f} ms, worst {max(busy):6.0f} ms ({len(busy)} reruns)")
    print(f"ratio of medians: {b / a:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
