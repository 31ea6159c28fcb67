"""Judge versions compared on a 300-example test set against the stub server with 100 ms latency per call.

Measures (issue 24):
- the first comparison of v1 and v2 (concurrency 16): requests made (target: one per version and example, plus
  the one response-format probe), wall time;
- a second comparison on the same store: requests made (target 0) and wall time (the figures and their 1,000
  bootstrap resamples recomputed from cached answers);
- overhead per example beside the server's time, (wall at concurrency 1 - n x latency) / n for one version on a
  fresh store (target <= 10 ms): prompt building with few-shot examples, the client, validation, cache writes and
  the figures with their intervals;
- the Judge page's disagreement grouping over --page-rows examples of which --reviewed are reviewed (target <= 2 s).

The test set is an audit sample's reviewed members (marker rows of tests/judge/versions_setup.py, reviewed through
LabelStore.record); v2 shows two reviewed examples outside the sample. The stub runs in its own process.

    python benchmarks/bench_judge_compare.py [--n 300] [--latency 0.1] [--page-rows 100000] [--reviewed 2000]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ragviz.analysis.judge_compare.disagreements import disagreement_patterns  # noqa: E402
from ragviz.analysis.judge_trust import judge_people_triples  # noqa: E402
from ragviz.data.load import load  # noqa: E402
from ragviz.judge.cache import JudgeCache  # noqa: E402
from ragviz.judge.settings import JudgeSettings  # noqa: E402
from ragviz.judge.versions.compare import audit_test_set, compare_versions  # noqa: E402
from ragviz.judge.versions.registry import create_version, get_version  # noqa: E402
from ragviz.store.label_store import LabelStore  # noqa: E402


def _setup_module():
    # by path: an installed distribution's top-level `tests` package would shadow ours
    spec = importlib.util.spec_from_file_location("versions_setup", ROOT / "tests" / "judge" / "versions_setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vs = _setup_module()


def requests_made(base_url: str) -> int:
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/stats") as r:
        return int(json.loads(r.read())["requests"])


def prepare(tmp: Path, n: int) -> tuple[Path, Path, int]:
    data = vs.write_marker_data(tmp / "rows.jsonl", n + 20)
    dataset = load([str(data)]).dataset
    db = tmp / "ragviz.db"
    with LabelStore(str(db)) as store:
        sample = store.audits.draw_sample(dataset.uids, n, "lead", seed=1)
        vs.review_truth(store, dataset, list(sample.members))
        outside = [u for u in dataset.uids if u not in sample.members]
        marked = [u for u in outside if int(u.split("/")[1][1:]) % 2 == 0][:2]
        vs.review_truth(store, dataset, marked, note="The marked sentence answers the question.")
        create_version(store, dataset, "v2", example_uids=marked, rubric="The marked sentence matters.")
    return data, db, sample.id


def compare(data: Path, db: Path, sample_id: int, names: list[str], base_url: str, concurrency: int):
    dataset = load([str(data)]).dataset
    with LabelStore(str(db)) as store:
        test_set = audit_test_set(dataset, store, sample_id)
        settings = JudgeSettings(
            model="stub", base_url=base_url, concurrency=concurrency, response_format="json_object"
        )
        with JudgeCache(store.reopen_database()) as cache:
            before = requests_made(base_url)
            started = time.perf_counter()
            result = compare_versions([get_version(store, n) for n in names], test_set, store, settings, cache)
            wall = time.perf_counter() - started
    return result, requests_made(base_url) - before, wall


def page_grouping(rows: int, reviewed: int, tmp: Path) -> tuple[float, float, int]:
    data = vs.write_marker_data(tmp / "big.jsonl", rows)
    dataset = load([str(data)]).dataset
    with LabelStore(str(tmp / "big.db")) as store:
        vs.review_truth(store, dataset, dataset.uids[:reviewed])
        started = time.perf_counter()
        triples = judge_people_triples(dataset, store)
        paired = time.perf_counter() - started
        started = time.perf_counter()
        patterns = disagreement_patterns(triples)
        grouped = time.perf_counter() - started
    return paired, grouped, len(patterns)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--page-rows", type=int, default=100_000)
    ap.add_argument("--reviewed", type=int, default=2_000)
    args = ap.parse_args()
    server = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "openai_stub_server.py"),
            "--latency",
            str(args.latency),
            "--marker",
            vs.MARKER,
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = server.stdout.readline().strip()  # type: ignore[union-attr]
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            data, db, sample_id = prepare(tmp, args.n)
            fresh = tmp / "fresh.db"
            shutil.copyfile(db, fresh)
            first, r1, w1 = compare(data, db, sample_id, ["v1", "v2"], base_url, 16)
            second, r2, w2 = compare(data, db, sample_id, ["v1", "v2"], base_url, 16)
            one, r3, w3 = compare(data, fresh, sample_id, ["v2"], base_url, 1)
            print(f"test set: {first.test_set.what}; stub latency {args.latency * 1000:.0f} ms")
            for run in first.runs:
                k = run.figures.kinds["relevant"]
                print(
                    f"  {run.version.name}: relevant kappa {k.point['kappa']:.3f} [{k.low['kappa']:.3f}, {k.high['kappa']:.3f}]"
                )
            print(f"first compare (v1, v2, concurrency 16): {r1} requests (target {2 * args.n}), {w1:.1f} s")
            print(f"second compare: {r2} requests (target 0), {w2:.2f} s")
            overhead = (w3 - r3 * args.latency) / args.n * 1000
            print(
                f"overhead per example beside the server's time (v2 alone, concurrency 1, {r3} requests): "
                f"({w3:.1f} s - {r3} x {args.latency * 1000:.0f} ms) / {args.n} = {overhead:.2f} ms (target <= 10)"
            )
            if args.page_rows:
                paired, grouped, n_patterns = page_grouping(args.page_rows, args.reviewed, tmp)
                print(
                    f"Judge page at {args.page_rows:,} rows, {args.reviewed:,} reviewed: pairing judge and people "
                    f"{paired:.2f} s, disagreement grouping {grouped:.2f} s (target <= 2), {n_patterns} patterns"
                )
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
