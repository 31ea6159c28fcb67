"""Server-side rerun time of the Label, Explainer, Export (table shown) and Compare pages (AppTest).

Loads ../shared/ragbench (all seven subsets, 2,896 rows) and a 10-row slice of it; for each page
opens it once (loading and first-time caches are not timed), then times plain reruns with no
widget change — what every click elsewhere on the page costs. Prints the median of --runs reruns
per page and size (a store with one human decision on every 10th example), and the ratio between the two sizes (near 1: the rerun does not grow with the
data set).

    .venv/bin/python benchmarks/bench_pages.py [--runs 20]

With ``--data PATH`` (e.g. /tmp/syn100k.parquet from make_synthetic.py) it instead walks every page
once in one session, as a person would, on a store with one decision on every 1,000th example:
the Data page's first render (loading included), then per page the first render after the data is
loaded (the Dashboard's includes its bootstrap intervals: cold), the median of --reruns plain
reruns, the CPU seconds of each (this process, all threads) and the process's RSS after the page
(AppTest runs the script in this process, so it is the server's), and at the end the RSS and peak
RSS. Loading is timed on its own first (the app's cached load, so the Data page's first render that
follows is the page's own work). Each figure is printed as soon as it is measured, with the load
average. ``--pages`` picks the pages (``dashboard:tonic``: the Dashboard with the Tonic family picked);
``--page NAME`` (repeatable) is the same one page at a time. ``--next N`` adds, on the Review page,
the median of N presses of its Next button (J: the rerun that moves to the next example).

    PYTHONPATH=. .venv/bin/python benchmarks/bench_pages.py --data /tmp/syn100k.parquet [--reruns 3] [--page review]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from apptest_sizes import (
    RAGBENCH,
    ROOT,
    quiet_apptest,
    require_ragbench,
    write_small_slice,
)

# page -> widget values set before the first run (so the timed reruns show what the name says)
PAGES = {
    "label": ("pages/label.py", {}),
    "explainer": ("pages/explainer.py", {}),
    "export (table)": ("pages/export.py", {"export.show_table": True}),
    "compare": ("pages/compare.py", {}),
}


def time_page(page: str, widgets: dict, runs: int, warmup: int = 3) -> list[float]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    for key, value in widgets.items():
        at.session_state[key] = value
    at.switch_page(page)
    at.run()
    if at.exception:
        raise SystemExit(f"{page} failed: {at.exception[0].value}")
    times = []
    for i in range(warmup + runs):
        t0 = time.perf_counter()
        at.run()
        elapsed = time.perf_counter() - t0
        if at.exception:
            raise SystemExit(f"{page} failed: {at.exception[0].value}")
        if i >= warmup:
            times.append(elapsed * 1000)
    return times


def seed_decisions(data: str, db: Path, every: int = 10) -> int:
    """One human decision (relevant keys cleared) on every *every*-th labelled example, so Compare
    has differences to show; returns how many."""
    from ragviz.data.labels import Change
    from ragviz.data.load import load
    from ragviz.store.label_store import LabelStore

    ds = load([data]).dataset
    n = 0
    with LabelStore(db) as store:
        for i in range(0, len(ds), every):
            ex = ds.example(i)
            if ex.labels is not None and ex.labels.relevant_keys:
                store.record(ex.uid, "bench", [Change("relevant_keys", list(ex.labels.relevant_keys), [])])
                n += 1
    return n


def time_all(data: str, db: Path, runs: int) -> dict[str, float]:
    seed_decisions(data, db)
    os.environ["RAGVIZ_DATA"] = data
    os.environ["RAGVIZ_DB"] = str(db)
    os.environ["RAGVIZ_ANNOTATOR"] = "bench"
    return {name: statistics.median(time_page(page, widgets, runs)) for name, (page, widgets) in PAGES.items()}


#: Every page, in the order a person meets them (the Data page opens first); ``dashboard:FAMILY``
#: is the Dashboard with that metric family picked (TRACe is the default).
ALL_PAGES = (
    "review",
    "label",
    "judge",
    "dashboard",
    "dashboard:tonic",
    "dashboard:retrieval",
    "dashboard:answer",
    "explainer",
    "export",
    "compare",
    "claims",
)


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def walk_pages(data: str, db: Path, reruns: int, only: tuple[str, ...] = ALL_PAGES, nexts: int = 0) -> None:
    """First render and reruns of every page (or the pages *only* names) on *data* in one AppTest
    session (see the docstring)."""
    from streamlit.testing.v1 import AppTest

    from ragviz.ui.core import state

    t0 = time.perf_counter()
    n = seed_decisions(data, db, every=1000)
    print(f"store: {n} decisions ({time.perf_counter() - t0:.0f} s)", flush=True)
    os.environ.update(RAGVIZ_DATA=data, RAGVIZ_DB=str(db), RAGVIZ_ANNOTATOR="bench")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=3600)
    at.session_state["export.show_table"] = True
    wall, cpu = time.perf_counter(), time.process_time()
    state.load_result((data,))  # the app's cached load, outside any page
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"loading: {wall:.2f} s (CPU {cpu:.2f} s), load average {os.getloadavg()[0]:.1f}", flush=True)

    def timed(label: str, click: str | None = None) -> tuple[float, float]:
        start, cpu0 = time.perf_counter(), time.process_time()
        at.button(key=click).click().run() if click else at.run()
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu0
        if at.exception:
            raise SystemExit(f"{label} failed: {at.exception[0].value}")
        return elapsed, cpu

    print(f"{'page':>19}  {'first render (CPU)':>18}  {'rerun median (CPU)':>18}  {'RSS':>8}  load average", flush=True)
    for name in ("data", *only):
        page, _, family = name.partition(":")
        if name != "data":
            at.session_state["dashboard.family"] = family or "trace"
        at.switch_page(f"pages/{page}.py")
        first, first_cpu = timed(name)
        again = sorted(timed(name) for _ in range(reruns))[reruns // 2] if reruns else (float("nan"), float("nan"))
        load = os.getloadavg()[0]
        print(
            f"{name:>19}  {first:6.2f} s ({first_cpu:5.2f} s)  {again[0] * 1000:7.0f} ms ({again[1] * 1000:5.0f} ms)"
            f"  {_status_mb('VmRSS'):5.0f} MB  {load:.1f}",
            flush=True,
        )
        if page == "review" and nexts:
            moves = sorted(timed("review next", click="review.next") for _ in range(nexts))
            worst = moves[-1]
            print(
                f"{'review: Next (J)':>19}  median {moves[nexts // 2][0] * 1000:6.0f} ms ({moves[nexts // 2][1] * 1000:5.0f} ms CPU),"
                f" worst {worst[0] * 1000:.0f} ms, {nexts} presses  {_status_mb('VmRSS'):5.0f} MB  {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    print(f"RSS after every page: {_status_mb('VmRSS'):.0f} MB (peak {_status_mb('VmHWM'):.0f} MB)", flush=True)


def main(argv: list[str] | None = None) -> int:
    quiet_apptest()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--data", default=None, help="walk every page once on this data (e.g. 100k synthetic rows)")
    parser.add_argument("--reruns", type=int, default=3)
    parser.add_argument(
        "--pages", default=",".join(ALL_PAGES), help="with --data: the pages to walk after the Data page, in order"
    )
    parser.add_argument("--page", action="append", choices=ALL_PAGES, help="with --data: only this page (repeatable)")
    parser.add_argument("--next", type=int, default=0, help="with --data: time N presses of Review's Next button")
    args = parser.parse_args(argv)
    if args.data:
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["HOME"] = tmp
            pages = tuple(args.page) if args.page else tuple(args.pages.split(","))
            walk_pages(args.data, Path(tmp) / "walk.db", args.reruns, pages, args.next)
        return 0
    if not require_ragbench():
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        os.environ["HOME"] = str(tmp_path)
        small_dir = write_small_slice(tmp_path)
        big = time_all(str(RAGBENCH), tmp_path / "big.db", args.runs)
        small = time_all(str(small_dir), tmp_path / "small.db", args.runs)
    print(f"median of {args.runs} reruns (ms)")
    print(f"{'page':>16}  {'2,896 rows':>10}  {'10 rows':>8}  ratio")
    for name in PAGES:
        print(f"{name:>16}  {big[name]:10.1f}  {small[name]:8.1f}  {big[name] / small[name]:5.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
