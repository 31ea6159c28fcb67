"""Server-side rerun time of the Review page after one override (AppTest timing).

Loads ../shared/ragbench (all seven subsets, 2,896 rows) and a 10-row slice of it, opens the Review
page, then repeats: click the first context sentence in the text editor (one recorded decision) and time the
rerun that records it and redraws the page. Prints the median, p90 and the ratio between the two
sizes. Targets: median <= 50 ms with 2,896 rows; rerun(2,896) / rerun(10) <= 1.5.

    .venv/bin/python benchmarks/bench_rerun.py [--runs 40]
"""

from __future__ import annotations

import argparse
import json
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


def time_reruns(data: str, db: Path, runs: int, warmup: int = 5) -> list[float]:
    from streamlit.testing.v1 import AppTest

    os.environ["RAGVIZ_DATA"] = data
    os.environ["RAGVIZ_DB"] = str(db)
    os.environ["RAGVIZ_ANNOTATOR"] = "bench"
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.switch_page("pages/review.py")
    at.run()
    if at.exception:
        raise SystemExit(f"the Review page failed: {at.exception[0].value}")
    from ragviz.ui.review.sentence_editor import EVENTS

    uid = at.query_params["uid"]
    first = next(e for e in at.get("bidi_component") if '"kind": "context"' in e.proto.json)
    key = json.loads(first.proto.json)["docs"][0]["s"][0][0]  # the first context sentence
    times = []
    for i in range(warmup + runs):
        # a click on the text, as the browser sends it; the sentence goes round none -> R -> R+U -> U
        at.session_state[EVENTS] = [{"uid": uid, "kind": "label", "key": key, "n": i}]
        t0 = time.perf_counter()
        at.run()
        elapsed = time.perf_counter() - t0
        if at.exception:
            raise SystemExit(f"the Review page failed: {at.exception[0].value}")
        if i >= warmup:
            times.append(elapsed * 1000)
    return times


def summary(name: str, times: list[float]) -> float:
    med = statistics.median(times)
    p90 = sorted(times)[int(0.9 * (len(times) - 1))]
    print(f"{name:>14}: median {med:6.1f} ms   p90 {p90:6.1f} ms   min {min(times):6.1f} ms   ({len(times)} reruns)")
    return med


def main(argv: list[str] | None = None) -> int:
    quiet_apptest()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args(argv)
    if not require_ragbench():
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        os.environ["HOME"] = str(tmp_path)
        small_dir = write_small_slice(tmp_path)

        t0 = time.perf_counter()
        big = time_reruns(str(RAGBENCH), tmp_path / "big.db", args.runs)
        print(f"(2,896-row session incl. load: {time.perf_counter() - t0:.1f} s)")
        small = time_reruns(str(small_dir), tmp_path / "small.db", args.runs)
    m_big = summary("2,896 rows", big)
    m_small = summary("10 rows", small)
    ratio = m_big / m_small
    print(f"ratio rerun(2,896) / rerun(10) = {ratio:.2f}   (target <= 1.5; median target <= 50 ms)")
    return 0 if m_big <= 50 and ratio <= 1.5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
