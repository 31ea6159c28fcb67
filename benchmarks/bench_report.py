"""The stakeholder report at scale: ``ragviz report`` over N rows with a reviewed audit in the label store, as a
fresh process each time (what a person runs): wall seconds, the process's peak RSS and the file's size, for HTML
and PDF; and whether two HTML runs give the same bytes.

    .venv/bin/python benchmarks/bench_report.py --data /tmp/syn100k.parquet [--audit 500 --reviewed 300] [--runs 1]
        [--baseline DIR]

(``benchmarks/make_synthetic.py 100000 /tmp/syn100k --no-jsonl`` makes the data.) The audit is drawn and
reviewed as the Review page does (tests/export/report_setup.py); setting it up is not timed.

``--baseline DIR``: another source tree of ragviz (``git archive <commit> | tar -x -C DIR``) run the same way,
alternately with this one (baseline, this tree, baseline, ...), so both see the same machine load; prints each
tree's median and this tree's time as a ratio of the baseline's. A baseline that refuses this tree's store (an older
ragviz and a migrated store) gets its own, drawn and reviewed by its own code alike; its HTML is then not compared.
"""

from __future__ import annotations

import argparse
import os
import resource
import runpy
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RAGVIZ = [sys.executable, "-m", "ragviz"]


def run_once(args: list[str], tree: Path = ROOT) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of one ``ragviz`` process, of the source
    tree *tree* (this one by default)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    proc = subprocess.run([*RAGVIZ, *args], capture_output=True, text=True, cwd=tree, env=env)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"ragviz {' '.join(args)} failed:\n{proc.stderr}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024  # ru_maxrss: the largest child so far


def baseline_store(tree: Path, data: str, folder: Path, audit: int, reviewed: int) -> Path:
    """The audit store of :func:`main` made by the source tree *tree*'s own code (its migrations, its
    ``tests/export/report_setup.py``: the same seed, so the same sample and reviews) in *folder*."""
    db = folder / "baseline-labels.db"
    code = (
        "import runpy, sys; from ragviz.data.load import load; from ragviz.store.label_store import LabelStore; "
        "review = runpy.run_path('tests/export/report_setup.py')['review_audit']; "
        "s = LabelStore(sys.argv[1]); review(s, load([sys.argv[2]]).dataset, int(sys.argv[3]), int(sys.argv[4])); "
        "s.close()"
    )
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run(
        [sys.executable, "-c", code, str(db), data, str(audit), str(reviewed)], cwd=tree, env=env, check=True
    )
    return db


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--audit", type=int, default=500)
    parser.add_argument("--reviewed", type=int, default=300)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--no-pdf", action="store_true")
    parser.add_argument("--baseline", type=Path, help="another ragviz source tree, timed alternately with this one")
    args = parser.parse_args(argv)
    data_path = str(Path(args.data).resolve())

    from ragviz.data.load import load
    from ragviz.store.label_store import LabelStore

    review_audit = runpy.run_path(str(ROOT / "tests" / "export" / "report_setup.py"))["review_audit"]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "labels.db"
        t = time.perf_counter()
        data = load([args.data]).dataset
        with LabelStore(db) as store:
            review_audit(store, data, args.audit, args.reviewed)
        print(
            f"{len(data):,} rows; audit {args.audit}, {args.reviewed} reviewed (setup {time.perf_counter() - t:.1f} s)"
        )
        del data
        dbs = {"this": db}
        if args.baseline is not None:  # an older ragviz refuses a store a newer one migrated: its own, drawn alike
            tree = args.baseline.resolve()
            opens = "import sys; from ragviz.store.label_store import LabelStore; LabelStore(sys.argv[1]).close()"
            env = {**os.environ, "PYTHONPATH": str(tree)}
            same = subprocess.run([sys.executable, "-c", opens, str(db)], cwd=tree, env=env, capture_output=True)
            if same.returncode != 0:
                dbs["baseline"] = baseline_store(tree, data_path, Path(tmp), args.audit, args.reviewed)
        outputs: list[Path] = []
        before: list[Path] = []  # the baseline's files
        trees = [("this", ROOT)] if args.baseline is None else [("baseline", args.baseline.resolve()), ("this", ROOT)]
        for fmt in ("html", *(() if args.no_pdf else ("pdf",))):
            walls: dict[str, list[float]] = {name: [] for name, _ in trees}
            cpus: dict[str, list[float]] = {name: [] for name, _ in trees}
            peaks: dict[str, list[float]] = {name: [] for name, _ in trees}
            loads = []
            for k in range(args.runs if fmt == "pdf" else max(args.runs, 2)):
                for name, tree in trees:  # alternately, so both trees see the same load
                    out = Path(tmp) / f"{name}-{fmt}{k}" / f"report.{fmt}"  # one name: the report names it
                    out.parent.mkdir()
                    wall, cpu, peak = run_once(
                        ["report", data_path, "--db", str(dbs.get(name, db)), "-o", str(out), "--date", "2026-11-26"],
                        tree,
                    )
                    walls[name].append(wall)
                    cpus[name].append(cpu)
                    peaks[name].append(peak)
                    loads.append(os.getloadavg()[0])
                    (outputs if name == "this" else before).append(out)
            size = outputs[-1].stat().st_size
            for name, _ in trees:
                print(
                    f"{fmt:>4} {name:>8}: {statistics.median(walls[name]):6.1f} s "
                    f"(runs {', '.join(f'{w:.1f}' for w in walls[name])}; cpu {statistics.median(cpus[name]):.1f} s)  "
                    f"peak RSS {max(peaks[name]):,.0f} MB  file {size / 1e6:.2f} MB",
                    flush=True,
                )
            if args.baseline is not None:
                ratio = statistics.median(walls["this"]) / statistics.median(walls["baseline"])
                cpu_ratio = statistics.median(cpus["this"]) / statistics.median(cpus["baseline"])
                print(
                    f"{fmt:>4}: this / baseline = {ratio:.2f} wall, {cpu_ratio:.2f} cpu  "
                    f"(load {min(loads):.1f}-{max(loads):.1f})",
                    flush=True,
                )
        html = [o for o in outputs if o.suffix == ".html"]
        same = len({o.read_bytes() for o in html}) == 1
        print(f"HTML byte-identical over {len(html)} runs: {same}")
        if before and dbs.get("baseline", db) == db:  # another store's times are other bytes
            base_html = {o.read_bytes() for o in before if o.suffix == ".html"}
            print(f"HTML the same bytes as the baseline's: {base_html == {o.read_bytes() for o in html}}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
