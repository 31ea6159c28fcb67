"""Do the intervals of the judge-vs-people figures cover, and from how many reviewed examples? A simulation on
the RAGBench test shards, for :data:`ragviz.analysis.coverage.MIN_REVIEWED`.

    .venv/bin/python benchmarks/bench_agreement_intervals.py [--data ../shared/ragbench] [--reps 1000]
                                                             [--sizes 5,10,20,30,50,100] [--seed 0]

People's labels are RAGBench's own; the judge is :mod:`bench_ppi`'s noisy judge (``biased``: misses 60 % of the
unsupported sentences, drops a quarter of the relevant keys ...; ``near``: right on nearly every decision,
the case where a resampling interval collapses to a point). The 2,896 examples are the population (the
estimand: the figure over this dataset's rows); each replicate reviews *n* of them drawn without replacement
and computes every figure the Dashboard and the report show with
:func:`ragviz.analysis.figure_intervals.confusion_intervals` (κ, precision, recall, F1, accuracy, true-negative
rate per label kind), :func:`~ragviz.analysis.figure_intervals.rmse_interval` and
:func:`~ragviz.analysis.figure_intervals.mean_interval` (the bias) per TRACe metric, ``minimum=0`` so that every
size gets its interval. Per size: the lowest coverage over the figures (which one), the share of figures and
replicates that got an interval, and how many intervals had zero width (must be 0). The minimum is the smallest
size from which every lower coverage is at least 93 % (the point figure; Monte-Carlo SE about 0.7 points at
1,000 replicates).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_ppi import JUDGES, noisy_judge  # noqa: E402

from ragviz.analysis.agreement import BINARY_LABELS, decisions  # noqa: E402
from ragviz.analysis.figure_intervals import (  # noqa: E402
    CONFUSION_FIGURES,
    _confusion_figures,
    confusion_intervals,
    example_weights,
    mean_interval,
    rmse_interval,
)
from ragviz.data.dataset import iter_examples  # noqa: E402
from ragviz.data.load import load  # noqa: E402
from ragviz.metrics.trace import TRACE_METRICS  # noqa: E402

TARGET = 0.93


def population(data: Path, judge: str, seed: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Per label kind one row of ``(tp, fp, fn, tn)`` per example, and per example the judge's error on each
    TRACe metric (NaN where undefined on either side)."""
    result = load([data])
    rng = np.random.default_rng(seed)
    counts: dict[str, list[list[int]]] = {k: [] for k in BINARY_LABELS}
    errors = []
    for _, ex in iter_examples(result.dataset):
        if ex.labels is None:
            continue
        people = decisions(ex, ex.labels)
        judged = decisions(ex, noisy_judge(ex, ex.labels, rng, JUDGES[judge]))
        for label in BINARY_LABELS:
            r, c = people.of(label), judged.of(label)
            row = [0, 0, 0, 0]
            for key, truth in r.items():
                said = c.get(key, False)
                row[(0 if said else 2) if truth else (1 if said else 3)] += 1
            counts[label].append(row)
        err = []
        for m in TRACE_METRICS:
            a, b = getattr(people.scores, m), getattr(judged.scores, m)
            err.append(np.nan if a is None or b is None else b - a)
        errors.append(err)
    return {k: np.asarray(v, dtype=float) for k, v in counts.items()}, np.asarray(errors, dtype=float)


def run(data: Path, judge: str, sizes: list[int], reps: int, seed: int) -> list[dict]:
    counts, errors = population(data, judge, seed)
    truth: dict[str, float] = {}
    for label, c in counts.items():
        for name, v in _confusion_figures(*c.sum(axis=0)).items():
            truth[f"{label} {name}"] = float(v)
    for j, m in enumerate(TRACE_METRICS):
        e = errors[:, j][np.isfinite(errors[:, j])]
        truth[f"{m} rmse"] = float(np.sqrt((e**2).mean()))
        truth[f"{m} bias"] = float(e.mean())
    n_pop = len(errors)
    rng = np.random.default_rng(seed + 1)
    out = []
    for n in sizes:
        covered = dict.fromkeys(truth, 0)
        given = dict.fromkeys(truth, 0)
        zero = 0
        for rep in range(reps):
            rows = rng.choice(n_pop, n, replace=False)
            w = example_weights(n, 1000, seed * 1_000_003 + rep)
            got = {}
            for label, c in counts.items():
                for name, fi in confusion_intervals(c[rows], w, minimum=0).items():
                    got[f"{label} {name}"] = fi
            for j, m in enumerate(TRACE_METRICS):
                got[f"{m} rmse"] = rmse_interval(errors[rows, j], minimum=0)
                got[f"{m} bias"] = mean_interval(errors[rows, j], minimum=0)
            for key, fi in got.items():
                if fi.low is None or fi.high is None or not np.isfinite(truth[key]):
                    continue
                given[key] += 1
                zero += fi.high - fi.low <= 1e-12
                covered[key] += fi.low - 1e-12 <= truth[key] <= fi.high + 1e-12
        cov = {k: covered[k] / given[k] for k in truth if given[k] >= reps // 2}
        worst = min(cov, key=cov.__getitem__)
        out.append(
            {
                "judge": judge,
                "n": n,
                "worst": worst,
                "worst_cov": cov[worst],
                "kappa_min": min(v for k, v in cov.items() if k.endswith("kappa")),
                "prop_min": min(
                    v for k, v in cov.items() if k.split()[-1] in ("accuracy", "precision", "recall", "tnr")
                ),
                "f1_min": min(v for k, v in cov.items() if k.endswith("f1")),
                "rmse_min": min(v for k, v in cov.items() if k.endswith("rmse")),
                "bias_min": min(v for k, v in cov.items() if k.endswith("bias")),
                "given": sum(given.values()) / (reps * len(truth)),
                "zero_width": zero,
            }
        )
        r = out[-1]
        print(
            f"{judge:6} n={n:4}  worst {r['worst_cov']:.3f} ({r['worst']})  κ {r['kappa_min']:.3f}  "
            f"proportions {r['prop_min']:.3f}  F1 {r['f1_min']:.3f}  RMSE {r['rmse_min']:.3f}  bias {r['bias_min']:.3f}  "
            f"given {r['given']:.2f}  zero-width {zero}",
            flush=True,
        )
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "ragbench"))
    p.add_argument("--reps", type=int, default=1000)
    p.add_argument("--sizes", default="5,10,20,30,50,100")
    p.add_argument("--judges", default="biased,near")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    start = time.perf_counter()
    rows = [r for judge in a.judges.split(",") for r in run(Path(a.data), judge, sizes, a.reps, a.seed)]
    ok = [n for n in sizes if all(r["worst_cov"] >= TARGET for r in rows if r["n"] >= n)]
    print(
        f"minimum reviewed (every coverage >= {TARGET:.0%} from there on): {min(ok) if ok else 'none of these sizes'}"
    )
    print(
        f"{a.reps} replicates per size; {time.perf_counter() - start:.0f} s; figures: {', '.join(CONFUSION_FIGURES)}, rmse, bias"
    )
    if any(r["zero_width"] for r in rows):
        sys.exit("an interval of zero width was given")


if __name__ == "__main__":
    main()
