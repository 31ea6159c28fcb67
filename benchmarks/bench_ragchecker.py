"""RagChecker's 11 values over 10,000 checked items: `ragviz metrics --family ragchecker` vs the
`ragchecker` package itself, on the same file, in the same run.

    .venv/bin/python benchmarks/bench_ragchecker.py [--items 10000] [--ragchecker-python /tmp/rcvenv/bin/python]

The ragchecker side needs a separate interpreter with ragchecker installed. Its LLM front end
(`ragchecker.evaluator`, imported by the package __init__) pulls in refchecker -> torch with CUDA,
which cannot be installed here, so the venv holds `ragchecker==0.1.9 --no-deps` plus its light
dependencies (numpy, dataclasses-json, loguru), e.g.:

    python3 -m venv /tmp/rcvenv && pip download ragchecker==0.1.9 --no-deps -d /tmp/rc \
      && /tmp/rcvenv/bin/pip install --no-deps /tmp/rc/ragchecker-0.1.9-*.whl \
      && /tmp/rcvenv/bin/pip install numpy "dataclasses-json>=0.6,<0.7" "loguru>=0.7,<0.8"

and the timed script imports ragchecker's own `container` (RAGResults.from_json) and `computation`
(METRIC_FUNC_MAP) modules and aggregates exactly as `RAGChecker.evaluate` does (mean x100, round 1).
Both sides are timed as whole processes (start-up, JSON parse, compute, output).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LABELS = ("Entailment", "Neutral", "Contradiction")

RAGCHECKER_SCRIPT = r"""
import importlib.util, json, sys, time, types
spec = importlib.util.find_spec("ragchecker")
pkg = types.ModuleType("ragchecker"); pkg.__path__ = list(spec.submodule_search_locations)
sys.modules["ragchecker"] = pkg  # skip ragchecker/__init__.py: it imports the LLM evaluator (torch)
import numpy as np
from ragchecker.container import RAGResults
from ragchecker.computation import METRIC_FUNC_MAP
from ragchecker.metrics import METRIC_GROUP_MAP, all_metrics
with open(sys.argv[1]) as f:
    results = RAGResults.from_json(f.read())
for metric, func in METRIC_FUNC_MAP.items():
    for result in results.results:
        func(result)
out = {}
for group, names in METRIC_GROUP_MAP.items():
    if group == all_metrics:
        continue
    for m in names:
        out[m] = round(np.mean([r.metrics[m] for r in results.results]) * 100, 1)
print(json.dumps(out))
"""


def generate(n_items: int, seed: int = 7) -> dict:
    rng = random.Random(seed)
    results = []
    for q in range(n_items):
        n_resp, n_gt, n_chunks = rng.randint(1, 8), rng.randint(1, 8), rng.randint(1, 10)
        lab = lambda: rng.choice(LABELS)  # noqa: E731
        results.append(
            {
                "query_id": str(q),
                "query": f"question {q}?",
                "gt_answer": f"reference answer {q}.",
                "response": f"response {q}.",
                "retrieved_context": [{"doc_id": f"{q}-{c}", "text": f"chunk {c} of {q}"} for c in range(n_chunks)],
                "response_claims": [["s", "p", f"r{i}"] for i in range(n_resp)],
                "gt_answer_claims": [["s", "p", f"g{j}"] for j in range(n_gt)],
                "answer2response": [lab() for _ in range(n_resp)],
                "response2answer": [lab() for _ in range(n_gt)],
                "retrieved2response": [[lab() for _ in range(n_chunks)] for _ in range(n_resp)],
                "retrieved2answer": [[lab() for _ in range(n_chunks)] for _ in range(n_gt)],
            }
        )
    return {"results": results}


def timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    """Wall seconds of a child process; its CPU seconds (user + sys, robust to a busy machine)
    are stored on the result as ``cpu``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)  # type: ignore[attr-defined]
    return wall, proc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--ragchecker-python", default="/tmp/rcvenv/bin/python")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "checked.json"
        path.write_text(json.dumps(generate(args.items)))
        print(f"{args.items} checked items, {path.stat().st_size / 1e6:.1f} MB")

        ragviz_s, proc = timed(
            [
                sys.executable,
                "-m",
                "ragviz",
                "metrics",
                "--family",
                "ragchecker",
                str(path),
                "-o",
                str(Path(tmp) / "out.jsonl"),
            ]
        )
        if proc.returncode != 0:
            print(proc.stderr)
            return 1
        line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("RagChecker (x100"))
        ours = dict(
            (part.rsplit(" ", 1)[0], float(part.rsplit(" ", 1)[1])) for part in line.split(": ", 1)[1].split(", ")
        )
        ragviz_cpu = proc.cpu
        print(
            f"ragviz metrics --family ragchecker: {ragviz_s:.2f} s wall, {ragviz_cpu:.2f} s CPU ({ragviz_s / args.items * 1e6:.0f} us/item wall)"
        )

        if not Path(args.ragchecker_python).exists():
            print(
                f"ragchecker interpreter {args.ragchecker_python} not found: ragviz time alone (see the module docstring)"
            )
            return 0
        theirs_s, proc = timed([args.ragchecker_python, "-c", RAGCHECKER_SCRIPT, str(path)])
        if proc.returncode != 0:
            print(proc.stderr[-2000:])
            return 1
        theirs = json.loads(proc.stdout)
        print(
            f"ragchecker 0.1.9 (from_json + METRIC_FUNC_MAP + evaluate's aggregation): {theirs_s:.2f} s wall, {proc.cpu:.2f} s CPU"
        )
        print(f"speed-up: {theirs_s / ragviz_s:.1f}x wall, {proc.cpu / ragviz_cpu:.1f}x CPU")
        print(f"aggregates (x100): ragviz {ours}")
        same = ours == theirs
        print("aggregates identical" if same else f"AGGREGATES DIFFER: ragchecker {theirs}")
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
