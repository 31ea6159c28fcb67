"""Every metric family over 10,000 generated items, per item, against the TRACe family.

    .venv/bin/python benchmarks/bench_families.py [--items 10000]

Dataset families (trace, tonic, retrieval, answer) run their ``family_records`` over one
generated :class:`ragviz.data.dataset.Dataset` (what ``ragviz metrics --family F`` does after loading);
ragchecker runs over 10,000 generated checked items already parsed. Reports CPU microseconds per
item (best of 3) and the ratio to TRACe; exits 1 when a family is slower than 2x TRACe.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ragviz.data.dataset import Dataset
from ragviz.data.formats.ragchecker import parse_ragchecker
from ragviz.data.keys import context_key, response_key
from ragviz.metrics.ragchecker import family_records as ragchecker_records  # noqa: E402
from ragviz.metrics.registry import dataset_family_records  # noqa: E402

WORDS = "the a paris tower river nile amazon long city france egypt water".split()


def generate_rows(n: int, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        docs = [
            [[context_key(d, j), f"sentence {j} of {d}"] for j in range(rng.randint(1, 8))]
            for d in range(rng.randint(1, 6))
        ]
        keys = [k for doc in docs for k, _ in doc]
        resp = [[response_key(j), " ".join(rng.choices(WORDS, k=6))] for j in range(rng.randint(1, 5))]
        rows.append(
            {
                "id": str(i),
                "question": "q?",
                "documents": [" ".join(t for _, t in doc) for doc in docs],
                "documents_sentences": docs,
                "response": " ".join(t for _, t in resp),
                "response_sentences": resp,
                "reference_answer": [" ".join(rng.choices(WORDS, k=4)) for _ in range(rng.randint(1, 3))],
                "all_relevant_sentence_keys": [k for k in keys if rng.random() < 0.3],
                "all_utilized_sentence_keys": [k for k in keys if rng.random() < 0.2],
                "unsupported_response_sentence_keys": [k for k, _ in resp if rng.random() < 0.2],
                "retrieved_ids": rng.sample([f"d{j}" for j in range(30)], 10),
                "relevant_ids": rng.sample([f"d{j}" for j in range(30)], rng.randint(1, 4)),
            }
        )
    return rows


def best_cpu(fn, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    args = parser.parse_args()
    n = args.items
    dataset = Dataset.from_rows(generate_rows(n), "bench", "bench.jsonl")
    from bench_ragchecker import generate

    items = parse_ragchecker(generate(n), "bench.json").items

    timings = {}
    for family in ("trace", "tonic", "retrieval", "answer"):
        timings[family] = best_cpu(lambda f=family: list(dataset_family_records(f, dataset)))
    timings["ragchecker"] = best_cpu(lambda: list(ragchecker_records(items)))
    base = timings["trace"] / n
    ok = True
    print(f"{n} items per family; CPU us/item (best of 3); ratio to TRACe")
    for family, seconds in timings.items():
        ratio = seconds / n / base
        ok &= ratio <= 2.0
        print(
            f"  {family:11s} {seconds / n * 1e6:8.1f} us  {ratio:5.2f}x{'' if ratio <= 2.0 else '  SLOWER THAN 2x TRACe'}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
