"""How much of a new session's first run goes to asking whether sign-in is configured (``st.secrets``).

Each run is a fresh Python process (a new session's first run, nothing parsed yet) that opens the Review page under
Streamlit's AppTest on the sample data, with no ``.streamlit/secrets.toml`` (ragviz's usual case on one machine: then
Streamlit looks for the file on every ``st.secrets`` lookup). It counts the calls of
``ragviz.ui.core.served.sign_in_configured``, the secrets files opened (an audit hook), and the wall and CPU
milliseconds spent inside those calls.

    .venv/bin/python benchmarks/bench_secrets.py [--runs 5] [--baseline DIR]

``--baseline DIR``: another ragviz source tree (``git archive <commit> | tar -x -C DIR``), measured alternately with
this one (baseline, this, baseline, ...). Prints the medians per tree and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ONE_RUN = r"""
import json, os, sys, time
opened = []
sys.addaudithook(lambda e, a: opened.append(a[0]) if e == "open" and str(a[0]).endswith("secrets.toml") else None)
from streamlit.testing.v1 import AppTest
from ragviz.ui.core import served
real, spent = served.sign_in_configured, {"n": 0, "wall": 0.0, "cpu": 0.0}
def timed():
    w, c = time.perf_counter(), time.thread_time()
    try:
        return real()
    finally:
        spent["n"] += 1
        spent["wall"] += time.perf_counter() - w
        spent["cpu"] += time.thread_time() - c
served.sign_in_configured = timed
at = AppTest.from_file(os.path.join(os.getcwd(), "app.py"), default_timeout=120)
at.switch_page("pages/review.py")
w = time.perf_counter()
at.run()
run_s = time.perf_counter() - w
assert not at.exception, [e.value for e in at.exception]
print(json.dumps({"calls": spent["n"], "opened": len(opened), "wall_ms": spent["wall"] * 1000,
                  "cpu_ms": spent["cpu"] * 1000, "run_s": run_s}))
"""


def one_run(tree: Path, workdir: Path) -> dict:
    home = workdir / "home"
    home.mkdir(exist_ok=True)
    db = workdir / "labels.db"
    db.unlink(missing_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "RAGVIZ_DB": str(db),
        "RAGVIZ_DATA": str(ROOT / "sample_data"),
        "RAGVIZ_ANNOTATOR": "bench",
        "RAGVIZ_SERVED": "0",
        "PYTHONPATH": str(tree),
    }
    out = subprocess.run(
        [sys.executable, "-c", ONE_RUN], cwd=tree, env=env, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", help="another ragviz source tree, measured alternately with this one")
    args = parser.parse_args(argv)
    trees = {"baseline": Path(args.baseline).resolve()} if args.baseline else {}
    trees["this"] = ROOT
    results: dict[str, list[dict]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            for name, tree in trees.items():
                results[name].append(one_run(tree, Path(tmp)))
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    for name, runs in results.items():

        def med(field: str, runs: list[dict] = runs) -> float:
            return statistics.median(r[field] for r in runs)

        print(
            f"{name:8s} sign_in_configured calls {med('calls'):.0f}, secrets files opened {med('opened'):.0f}, "
            f"in them {med('wall_ms'):.2f} ms wall / {med('cpu_ms'):.2f} ms CPU "
            f"(first run of the Review page {med('run_s'):.2f} s; medians of {len(runs)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
