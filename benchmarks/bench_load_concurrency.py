"""Does one user's load stall another session's rerun? Times plain reruns of the Review page on the
sample data (AppTest, in this process, as a second session would run in the server's) while nothing
else runs, then while another thread does what opening the Data page on --data costs: loading it,
the label-quality scan and the adherence column. Prints the median and the worst rerun of each, the
ratio of medians, and how long the other user's work took (wall and CPU seconds, load average).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_load_concurrency.py --data /tmp/syn100k.parquet

With ``--other dashboard`` the other user instead opens the Dashboard on --data cold: the data is loaded
first, apart (the app's process-wide cached load), then the Dashboard's computation (row figures, base
means, bootstrap intervals, agreement; not the charts) runs in another thread while the Review session
reruns.
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
        from ragviz.analysis.quality.scan import scan_dataset
    except ImportError:  # before the columnar scan
        from ragviz.analysis.quality.issues import scan_dataset  # type: ignore[attr-defined,no-redef]
    scan_dataset(ds)
    try:
        from ragviz.metrics.trace import dataset_adherence

        dataset_adherence(ds)
    except ImportError:  # before the columnar adherence: per row, as the app did
        from ragviz.data.ragbench import LABEL_FIELDS, labels_from_row
        from ragviz.metrics.trace import trace_scores

        [trace_scores(labels_from_row(row), 0).adherence for row in ds.iter_rows(LABEL_FIELDS)]


def other_users_dashboard(data: str) -> None:
    """The Dashboard's first render on *data* (the data already loaded): the same cached functions the page
    calls (families, row figures, base means, ``dashboard_data`` with its bootstrap intervals, the TRACe view,
    annotator agreement), called from this thread — a second AppTest cannot run beside the first (both use
    Streamlit's one Runtime). The charts' drawing is left out."""
    from ragviz.analysis.dashboard.figures import trace_view
    from ragviz.analysis.labelsets.named import HUMAN
    from ragviz.ui.core import results

    paths = (data,)
    results._metric_families(paths)
    dashboard = results._dashboard_data(paths, HUMAN, *results._store_key(), results._row_figures(paths))
    trace_view(dashboard)
    results._annotator_agreement(paths, *results._store_key())


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
    parser.add_argument("--other", choices=("data", "dashboard"), default="data", help="what the other user opens")
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
        if args.other == "dashboard":
            from ragviz.ui.core.state import load_result

            wall, cpu = time.perf_counter(), time.process_time()
            load_result((args.data,))  # the app's cached load: the Dashboard below starts from loaded data
            print(
                f"loading {args.data} first: {time.perf_counter() - wall:.1f} s (CPU {time.process_time() - cpu:.1f} s)"
            )
            idle += reruns(at)  # idle again, with the data resident
        done = threading.Event()
        took: dict[str, float] = {}

        def work() -> None:
            wall, cpu, pcpu = time.perf_counter(), time.thread_time(), time.process_time()
            (other_users_dashboard if args.other == "dashboard" else other_users_load)(args.data)
            took.update(wall=time.perf_counter() - wall, cpu=time.thread_time() - cpu, pcpu=time.process_time() - pcpu)
            done.set()

        other = threading.Thread(target=work)
        other.start()
        busy = reruns(at, count=5, until=done)
        other.join()
    print(
        f"other user's {'Dashboard (cold)' if args.other == 'dashboard' else 'load'}: {took['wall']:.1f} s (CPU of its thread {took['cpu']:.1f} s, of the process meanwhile {took['pcpu']:.1f} s), load average {os.getloadavg()[0]:.1f}"
    )
    a, b = statistics.median(idle), statistics.median(busy)
    print(f"Review rerun, idle:  median {a:6.0f} ms, worst {max(idle):6.0f} ms ({len(idle)} reruns)")
    print(f"Review rerun, busy:  median {b:6.0f} ms, worst {max(busy):6.0f} ms ({len(busy)} reruns)")
    print(f"ratio of medians: {b / a:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
