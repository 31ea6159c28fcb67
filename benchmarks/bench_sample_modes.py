"""What the judge's confidence costs per example in each mode, against the local chat-completions stub.

On real RAGBench examples (../shared/ragbench, the first rows of each subset) with N samples (default 5), prints
per example: HTTP requests, prompt and completion tokens (as the stub reports them: characters / 4, the prompt
counted once per request and every choice's completion) and the wall time at the stub's latency, for

- ``--sample-mode separate``: the kept answer, then one request per sample (N requests);
- ``--sample-mode n``: the kept answer, then samples 2..N as one request with ``n = N - 1`` (2 requests);
- ``--confidence logprobs``: the kept answer asked with ``logprobs`` (1 request, no samples);
- a rerun of each on the same database (0 requests: every answer cached).

    python benchmarks/bench_sample_modes.py [--n 100] [--samples 5] [--latency 0.1]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_judge import examples_from_ragbench  # noqa: E402
from ragviz.judge import JudgeCache, JudgeSettings  # noqa: E402
from ragviz.judge.sampling.run import judge_with_samples  # noqa: E402
from ragviz.store.label_store import LabelStore  # noqa: E402

_spec = importlib.util.spec_from_file_location("stub", ROOT / "tests" / "openai_stub_server.py")
assert _spec is not None and _spec.loader is not None
_stub = importlib.util.module_from_spec(_spec)
sys.modules["stub"] = _stub  # its dataclasses look their module up
_spec.loader.exec_module(_stub)
StubServer = _stub.StubServer


def measure(examples: list, stub: StubServer, db: Path, samples: int, **mode: str) -> dict[str, float]:
    settings = JudgeSettings(
        model="gpt-4o-mini", base_url=stub.base_url, api_key="no-key", concurrency=16, response_format="json_object"
    )
    with LabelStore(db) as store, JudgeCache(db) as cache:
        started = time.perf_counter()
        run = judge_with_samples(examples, settings, cache, store, samples=samples, **mode)
        wall = time.perf_counter() - started
    n = len(examples)
    return {
        "requests": run.requests / n,
        "prompt": run.prompt_tokens / n,
        "completion": run.completion_tokens / n,
        "wall_ms": 1000 * wall / n,
        "confident": len(run.confidence),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--ragbench", type=Path, default=ROOT.parent / "shared" / "ragbench")
    args = parser.parse_args()
    examples = examples_from_ragbench(args.ragbench, args.n)
    modes = {
        "separate": {"sample_mode": "separate"},
        "n": {"sample_mode": "n"},
        "logprobs": {"confidence": "logprobs"},
    }
    print(f"{args.n} RAGBench examples, N = {args.samples}, stub latency {args.latency:g} s, concurrency 16")
    print(f"{'mode':<10} {'run':<6} {'requests/ex':>11} {'prompt tok/ex':>13} {'compl. tok/ex':>13} {'ms/ex':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, mode in modes.items():
            with StubServer(latency=args.latency, vary=True, token_probs={"fully_supported:a": 0.6}) as stub:
                db = Path(tmp) / f"{name}.db"
                for label in ("first", "rerun"):
                    m = measure(examples, stub, db, args.samples, **mode)
                    print(
                        f"{name:<10} {label:<6} {m['requests']:>11.2f} {m['prompt']:>13.0f} {m['completion']:>13.0f}"
                        f" {m['wall_ms']:>7.1f}   (confidence for {m['confident']:.0f})"
                    )


if __name__ == "__main__":
    main()
