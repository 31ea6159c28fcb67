"""Does the corrected difference between two systems cover the true difference? A simulation on RAGBench's pairs.

    .venv/bin/python benchmarks/bench_compare.py [--data ../shared/ragbench] [--reps 1000] [--sizes 30,50,100,300,1000]
                                                 [--questions 3000] [--seed 0] [--resamples 2000]

RAGBench's delucionqa and emanual test splits hold two generation models' answers to each question (the same
``id``): 158 questions both answered (gpt-3.5-turbo-0125 = A, claude-3-haiku-20240307 = B). The truth is RAGBench's
own labels, with system B made worse on purpose (seeded): with probability ``WORSE_ANSWER`` one of an answer's supported
response sentences turns unsupported and each utilized key is dropped with ``WORSE_DROP``. The judge
is noisy and biased (``benchmarks/bench_ppi.py``'s :func:`noisy_judge`), and more lenient on B than on A (it misses
``MISS_B`` of B's unsupported sentences, ``MISS_A`` of A's), so the judge-only difference flatters B.

Design: the 158 pairs are the population, the target each metric's mean difference B − A over them. Each replicate
draws *--questions* pairs i.i.d. from it (the questions both systems answered), the first *n* are the audit (people
review both answers), the rest judge-only. The interval measured is the one the app and ``ragviz estimate --compare``
show: :func:`ragviz.analysis.estimates.ppi.bootstrap_t_intervals` within the difference's range (-1, 1) (the
estimator of :func:`ragviz.analysis.compare_systems.difference.difference_group`, every metric in one call, seed per
replicate), and ``normal`` the normal PPI++ interval (``ppi_py``'s). ``judge near`` = how often the judge-only
difference lies within the corrected half-width of the truth.

Exit 1 when a shown coverage at n >= 100 is under 93 %.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_ppi import JUDGES, noisy_judge  # noqa: E402

from ragviz.analysis.compare_systems.pairs import column_answers, pair_systems  # noqa: E402
from ragviz.analysis.estimates.pairing import PairedExample, Pairing  # noqa: E402
from ragviz.analysis.estimates.ppi import RESAMPLES, bootstrap_t_intervals, ppi_mean_ci  # noqa: E402
from ragviz.data.dataset import iter_examples  # noqa: E402
from ragviz.data.load import load  # noqa: E402
from ragviz.data.model import Example, Labels  # noqa: E402
from ragviz.data.ragbench import unsupported_keys  # noqa: E402
from ragviz.metrics.trace import TRACE_METRICS, trace_scores  # noqa: E402

SUBSETS = ("delucionqa", "emanual")
WORSE_ANSWER = 0.08
WORSE_DROP = 0.10
MISS_A, MISS_B = 0.60, 0.85
ALPHA = 0.05
BOUNDS = (-1.0, 1.0)


def made_worse(example: Example, labels: Labels, rng: np.random.Generator) -> Labels:
    """System B's true labels made worse on purpose (module docstring)."""
    bad = set(unsupported_keys(labels))
    supported = [k for k in example.response_keys() if k not in bad]
    if supported and rng.random() < WORSE_ANSWER:
        bad.add(supported[int(rng.integers(len(supported)))])
    worse = tuple(k for k in example.response_keys() if k in bad)
    kept = tuple(k for k in labels.utilized_keys if rng.random() >= WORSE_DROP)
    return labels.replace(unsupported_keys=worse, utilized_keys=kept)


def differences(data: Path, seed: int) -> tuple[np.ndarray, np.ndarray, str, str, int]:
    """``(truth, judge, a, b, dropped)``: B − A per paired question (rows) and TRACe metric (columns)."""
    result = load([data / s / "test-00000-of-00001.parquet" for s in SUBSETS])
    if not result.ok:
        sys.exit(f"{data}: {result.errors[0]}")
    dataset = result.dataset
    rng = np.random.default_rng(seed)
    truth_rows, judge_rows = [], []
    models = dataset.generation_models
    b_name = "claude-3-haiku-20240307"
    for i, example in iter_examples(dataset):
        labels = example.labels
        assert labels is not None
        is_b = models[i] == b_name
        true = made_worse(example, labels, rng) if is_b else labels
        rates = list(JUDGES["biased"])
        rates[0] = MISS_B if is_b else MISS_A
        judged = noisy_judge(example, true, rng, tuple(rates))
        n = example.n_context_sentences
        truth_rows.append(trace_scores(true, n).as_dict())
        judge_rows.append(trace_scores(judged, n).as_dict())
    examples = [
        PairedExample(uid, d, m, j, t)
        for uid, d, m, j, t in zip(dataset.uids, dataset.datasets, models, judge_rows, truth_rows)
    ]
    pairs = pair_systems(column_answers(dataset, Pairing(examples)), b=b_name, a="gpt-3.5-turbo-0125")
    truth, judge, dropped = [], [], 0
    for p in pairs.pairs:
        t = [_d(p.a.human, p.b.human, m) for m in TRACE_METRICS]
        j = [_d(p.a.judge, p.b.judge, m) for m in TRACE_METRICS]
        if any(v is None for v in t + j):
            dropped += 1
            continue
        truth.append(t)
        judge.append(j)
    return np.asarray(truth), np.asarray(judge), pairs.a, pairs.b, dropped


def _d(a, b, m):  # type: ignore[no-untyped-def]
    return None if a.get(m) is None or b.get(m) is None else b[m] - a[m]


def simulate(truth: np.ndarray, judge: np.ndarray, n: int, m: int, reps: int, seed: int, resamples: int) -> dict:
    rng = np.random.default_rng(seed)
    target = truth.mean(axis=0)
    tallies: dict[str, dict[str, list[float]]] = {name: {} for name in TRACE_METRICS}
    for rep in range(reps):
        idx = rng.integers(0, truth.shape[0], size=m)
        audit, rest = idx[:n], idx[n:]
        shown = bootstrap_t_intervals(
            truth[audit], judge[audit], judge[rest], ALPHA, None, resamples, seed * 1_000_003 + rep, BOUNDS
        )
        for col, name in enumerate(TRACE_METRICS):
            y, f, fu = truth[audit, col], judge[audit, col], judge[rest, col]
            normal = ppi_mean_ci(y, f, fu, ALPHA)
            t = float(target[col])
            s = shown[col]
            assert s.low is not None and s.high is not None and normal.low is not None and normal.high is not None
            alone = float(np.concatenate([f, fu]).mean())
            row = tallies[name]
            for key, value in (
                ("shown", s.low <= t <= s.high),
                ("normal", normal.low <= t <= normal.high),
                ("half", (s.high - s.low) / 2),
                ("judge_near", abs(alone - t) <= (s.high - s.low) / 2),
                ("excludes_0", s.low > 0 or s.high < 0),
            ):
                row.setdefault(key, []).append(float(value))
    return {name: {k: float(np.mean(v)) for k, v in rows.items()} for name, rows in tallies.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "ragbench"))
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--sizes", default="30,50,100,300,1000")
    parser.add_argument("--questions", type=int, default=3000, help="questions both systems answered per replicate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=RESAMPLES)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    truth, judge, a, b, dropped = differences(Path(args.data), args.seed)
    print(
        f"{truth.shape[0]} paired questions ({dropped} dropped: a metric undefined on an answer); A = {a}, B = {b} made "
        f"worse ({WORSE_ANSWER:.0%} of its answers get one more unsupported sentence, {WORSE_DROP:.0%} of utilized keys dropped); "
        f"judge misses {MISS_A:.0%} of A's and {MISS_B:.0%} of B's unsupported sentences; {args.reps} audits per n, "
        f"{args.questions:,} questions per replicate"
    )
    print("true difference B - A:   " + ", ".join(f"{m} {v:+.4f}" for m, v in zip(TRACE_METRICS, truth.mean(axis=0))))
    print("judge-only difference:   " + ", ".join(f"{m} {v:+.4f}" for m, v in zip(TRACE_METRICS, judge.mean(axis=0))))
    print()
    header = (
        f"{'metric':<13}{'n':>6}{'shown cov':>11}{'normal cov':>12}{'half-width':>12}{'judge near':>12}{'excl. 0':>9}"
    )
    print(header)
    print("-" * len(header))
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {n: simulate(truth, judge, n, args.questions, args.reps, args.seed + n, args.resamples) for n in sizes}
    failed = []
    for name in TRACE_METRICS:
        for n in sizes:
            r = results[n][name]
            print(
                f"{name:<13}{n:>6}{r['shown']:>11.1%}{r['normal']:>12.1%}{100 * r['half']:>10.1f}pt"
                f"{r['judge_near']:>12.1%}{r['excludes_0']:>9.1%}"
            )
            if n >= 100 and r["shown"] < 0.93:
                failed.append(f"{name} n={n}: shown coverage {r['shown']:.1%} (under 93%)")
    print()
    print(
        "shown cov = share of 95% intervals (bootstrap-t within -1..1, as shown) containing the true difference; "
        "normal cov = the normal PPI++ interval (ppi_py's); half-width in points; judge near = judge-only difference "
        "within the half-width of the truth; excl. 0 = the interval says a difference"
    )
    print(
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, {time.perf_counter() - start:.0f} s"
    )
    for f in failed:
        print(f"FAIL: {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
