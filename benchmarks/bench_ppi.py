"""Do PPI++ intervals cover the truth when the judge is biased? A simulation on the RAGBench test shards.

    .venv/bin/python benchmarks/bench_ppi.py [--data ../shared/ragbench] [--reps 1000] [--sizes 100,300,1000] [--seed 0]
                                             [--resamples 2000]

The truth is RAGBench's own labels. A judge is made noisy and biased on purpose (seeded): it misses
a hallucination (calls an unsupported response sentence supported) with probability ``MISS``, flags a
supported sentence with ``FALSE_FLAG``, drops each relevant / utilized key with ``DROP_RELEVANT`` /
``DROP_UTILIZED`` and adds each other context sentence with ``ADD_KEY``. Each example's TRACe metrics
are computed once under both label sets (:func:`ragviz.metrics.trace.trace_scores`); the replicates
only draw indices.

Design (the model PPI assumes): the 2,896 examples are the population, the target each metric's mean
over them. Each replicate draws M = 2,896 examples i.i.d. from it — the examples the judge labelled —
and the first *n* of them are the audit (a uniform random sample of the judged ones); the other
M - n are judge-only. Per metric and *n*: how often the 95 % interval of PPI++ and of people alone
covers the target, how far the judge alone is off (its bias, and how often it lands within the PPI++
half-width of the target: it has no valid interval of its own), the mean width ratio PPI++ / people
alone, the mean effective audit size and lambda.

The ``fixed`` columns answer the other question, "the mean over exactly these 2,896 rows": the audit
is drawn without replacement from them and the rest is judge-only. The i.i.d. formulas then ignore
the finite-population correction, so coverage comes out above 95 % (conservative) as n / M grows.

The ``t cov`` column is the PPI++ interval with a Student-t quantile on n - 1 degrees of freedom in
place of the normal one (the same centre, the half-width times t/z): the small-sample fix one might
try first; it measures how much of the shortfall at n = 100 that recovers (scipy, a dev dependency).

The ``boot-t cov`` column is the interval the app and ``ragviz estimate`` show: the percentile-t
bootstrap of :func:`ragviz.analysis.estimates.ppi.bootstrap_t_intervals` (*--resamples* resamples, lambda
re-tuned in each, seed ``seed * 1,000,003 + replicate`` so the other columns keep their draws; i.i.d.
design only), and
``width bt/n`` its mean width over the normal interval's.

The ``shown`` columns (issue 23) are the intervals the app and ``ragviz estimate`` show:
:func:`ragviz.analysis.estimates.estimate.estimate_mean` with the metric's range ([0, 1]), i.e. the bootstrap-t
clipped to the range, and the floored normal / Wilson interval where the audit barely varies
(:func:`ragviz.analysis.estimates.ppi.floored`); ``in 0-1`` says whether every one of them (people-only and
corrected) lay in [0, 1], ``ess<=rows`` whether every effective sample size was at most the rows. ``--judges
biased,near`` adds a judge right on nearly every example (``NEAR_MISS``: it misses 10 % of the unsupported
sentences and 2 % of the keys; on an audit of 10 it disagrees with people on none or one example most
of the time). ``--sizes 10,30,50`` is where the minimum audit (:data:`ragviz.analysis.coverage.MIN_AUDITED`)
comes from: the smallest n where every shown coverage is at least 93 %.

Exit 1 when a shown PPI++ coverage (i.i.d. design) at or above the minimum falls outside 93-97 %, or an
interval leaves [0, 1], or an effective sample size exceeds the rows.
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

from ragviz.analysis.coverage import MIN_AUDITED
from ragviz.analysis.estimates.estimate import effective_sample_size
from ragviz.analysis.estimates.ppi import (
    RESAMPLES,
    Interval,
    bootstrap_t_intervals,
    classical_mean_ci,
    people_mean_ci,
    ppi_mean_ci,
    z_value,
)
from ragviz.analysis.estimates.small_audit import UNIT
from ragviz.data.dataset import iter_examples
from ragviz.data.load import load
from ragviz.data.model import Example, Labels
from ragviz.data.ragbench import unsupported_keys
from ragviz.metrics.trace import TRACE_METRICS, trace_scores

MISS = 0.60  # an unsupported response sentence called supported: the judge under-reports hallucinations
FALSE_FLAG = 0.01  # a supported sentence called unsupported
DROP_RELEVANT = 0.25
DROP_UTILIZED = 0.15
ADD_KEY = 0.02  # each context sentence not in the list is added to it
ALPHA = 0.05
# a judge right on nearly every example: (miss, false flag, drop relevant, drop utilized, add key)
JUDGES = {"biased": (MISS, FALSE_FLAG, DROP_RELEVANT, DROP_UTILIZED, ADD_KEY), "near": (0.10, 0.002, 0.02, 0.02, 0.002)}


def noisy_judge(
    example: Example, labels: Labels, rng: np.random.Generator, rates: tuple[float, ...] = JUDGES["biased"]
) -> Labels:
    """The judge's label set for one example with the error *rates* of :data:`JUDGES` (module docstring)."""
    miss, false_flag, drop_relevant, drop_utilized, add_key = rates
    context = example.context_keys()

    def perturb(keys: tuple[str, ...], drop: float) -> tuple[str, ...]:
        present = set(keys)
        kept = [k for k in keys if rng.random() >= drop]
        added = [k for k in context if k not in present and rng.random() < add_key]
        return tuple(kept + added)

    bad = set(unsupported_keys(labels))
    judged_bad = tuple(
        k for k in example.response_keys() if (rng.random() >= miss if k in bad else rng.random() < false_flag)
    )
    return labels.replace(
        relevant_keys=perturb(labels.relevant_keys, drop_relevant),
        utilized_keys=perturb(labels.utilized_keys, drop_utilized),
        unsupported_keys=judged_bad,
    )


def metric_table(data: Path, seed: int, judge_name: str = "biased") -> tuple[np.ndarray, np.ndarray, int]:
    """``(truth, judge)``: one row per example, one column per TRACe metric; examples where a metric
    is undefined on either side (no labels, no context sentence) are dropped and counted."""
    result = load([data])
    if not result.ok:
        sys.exit(f"{data}: {result.errors[0]}")
    rng = np.random.default_rng(seed)
    truth, judge, dropped = [], [], 0
    for _, example in iter_examples(result.dataset):
        if example.labels is None:
            dropped += 1
            continue
        n = example.n_context_sentences
        t = trace_scores(example.labels, n)
        j = trace_scores(noisy_judge(example, example.labels, rng, JUDGES[judge_name]), n)
        row_t, row_j = [getattr(t, m) for m in TRACE_METRICS], [getattr(j, m) for m in TRACE_METRICS]
        if any(v is None for v in row_t + row_j):
            dropped += 1
            continue
        truth.append(row_t)
        judge.append(row_j)
    return np.asarray(truth, dtype=float), np.asarray(judge, dtype=float), dropped


def _bounds(interval: Interval) -> tuple[float, float]:
    if interval.low is None or interval.high is None:
        raise RuntimeError("an audit of at least 2 always has an interval")
    return interval.low, interval.high


def simulate(
    truth: np.ndarray, judge: np.ndarray, n: int, reps: int, seed: int, fixed: bool, resamples: int = 0
) -> dict[str, dict]:
    """Coverage and widths per metric over *reps* audits of size *n* (one audit serves every metric;
    with *resamples* > 0 also the bootstrap-t interval, all metrics in one call)."""
    from scipy.stats import t as student_t

    stretch = float(student_t.ppf(1 - ALPHA / 2, n - 1)) / z_value(ALPHA)  # t half-width / normal half-width
    rng = np.random.default_rng(seed)
    total = truth.shape[0]
    target = truth.mean(axis=0)
    tallies: dict[str, dict[str, list[float]]] = {m: {} for m in TRACE_METRICS}
    for rep in range(reps):
        idx = np.asarray(rng.permutation(total) if fixed else rng.integers(0, total, size=total))
        audit, rest = idx[:n], idx[n:]
        boot = (
            bootstrap_t_intervals(
                truth[audit], judge[audit], judge[rest], ALPHA, None, resamples, seed * 1_000_003 + rep, UNIT
            )
            if resamples
            else None
        )
        for col, metric in enumerate(TRACE_METRICS):
            y, f, fu = truth[audit, col], judge[audit, col], judge[rest, col]
            ppi = ppi_mean_ci(y, f, fu, ALPHA)
            (p_low, p_high), (c_low, c_high) = _bounds(ppi), _bounds(classical_mean_ci(y, ALPHA))
            alone = float(np.concatenate([f, fu]).mean())  # = ragviz.analysis.estimates.ppi.judge_mean(f, fu)
            t = float(target[col])
            gain = effective_sample_size(y, ppi.variance)
            row = tallies[metric]
            for key, value in (
                ("ppi", p_low <= t <= p_high),
                ("ppi_t", abs(t - (p_low + p_high) / 2) <= stretch * (p_high - p_low) / 2),
                ("people", c_low <= t <= c_high),
                ("judge_close", abs(alone - t) <= (p_high - p_low) / 2),
                ("judge_bias", alone - t),
                ("width_ratio", (p_high - p_low) / (c_high - c_low) if c_high > c_low else np.nan),
                ("n_eff", np.nan if gain is None else gain),
                ("lambda", np.nan if ppi.lam is None else ppi.lam),
            ):
                row.setdefault(key, []).append(float(value))
            if boot is not None:  # what estimate_mean shows: the interval within [0, 1], never collapsed
                s_low, s_high = _bounds(boot[col])
                h_low, h_high = _bounds(people_mean_ci(y, ALPHA, UNIT))
                shown_gain = effective_sample_size(y, boot[col].variance, total, UNIT)
                row.setdefault("shown_people", []).append(float(h_low <= t <= h_high))
                row.setdefault("in_range", []).append(float(0.0 <= min(s_low, h_low) and max(s_high, h_high) <= 1.0))
                row.setdefault("ess_ok", []).append(float(shown_gain is None or shown_gain <= total))
                b_low, b_high = _bounds(boot[col])
                row.setdefault("boot", []).append(float(b_low <= t <= b_high))
                row.setdefault("boot_width", []).append(
                    (b_high - b_low) / (p_high - p_low) if p_high > p_low else np.nan
                )
                row.setdefault("boot_normal", []).append(float(boot[col].method != "bootstrap-t"))
    return {m: {k: float(np.nanmean(v)) for k, v in rows.items()} for m, rows in tallies.items()}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--designs" in argv:  # issue 23: the sampling designs' simulation (benchmarks/bench_designs.py)
        from bench_designs import main as designs_main

        return designs_main([a for a in argv if a != "--designs"])
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "ragbench"))
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--sizes", default="100,300,1000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=RESAMPLES, help="bootstrap-t resamples (0: skip it)")
    parser.add_argument("--judges", default="biased", help="comma-separated: biased (default), near")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    start = time.perf_counter()
    failed = []
    for judge_name in args.judges.split(","):
        failed += run_judge(Path(args.data), judge_name, sizes, args)
    print(
        "cov = share of 95% intervals containing the truth (t cov: PPI++ with a t quantile, n-1 df; boot-t / shown: "
        f"the interval the app shows, {args.resamples} resamples, within [0, 1], floored where the audit barely "
        "varies; width bt/n: its width / the normal one's); in 0-1: every shown interval (people-only and "
        "corrected) within [0, 1]; ess<=rows: every n_eff at most the rows; judge near = judge-only estimate "
        "within the PPI++ half-width of the truth; n_eff = people-only audit size as precise as PPI++"
    )
    print(
        f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
        f"{time.perf_counter() - start:.0f} s; minimum audit for a corrected figure: {MIN_AUDITED}"
    )
    for f in failed:
        print(f"FAIL: {f}", file=sys.stderr)
    return 1 if failed else 0


def run_judge(data: Path, judge_name: str, sizes: list[int], args: argparse.Namespace) -> list[str]:
    """One judge's table; the failures (see the module docstring)."""
    truth, judge, dropped = metric_table(data, args.seed, judge_name)
    rates = JUDGES[judge_name]
    print(
        f"judge {judge_name}: {truth.shape[0]} examples ({dropped} dropped: a metric undefined); {args.reps} audits "
        f"per n; misses {rates[0]:.0%} of unsupported sentences, flags {rates[1]:.1%} of supported ones, drops "
        f"{rates[2]:.0%} / {rates[3]:.0%} of relevant / utilized keys, adds {rates[4]:.1%} of the others"
    )
    target = truth.mean(axis=0)
    print("truth (population mean): " + ", ".join(f"{m} {v:.4f}" for m, v in zip(TRACE_METRICS, target)))
    print("judge over all examples: " + ", ".join(f"{m} {v:.4f}" for m, v in zip(TRACE_METRICS, judge.mean(axis=0))))
    print()
    header = (
        f"{'metric':<13}{'n':>6}{'PPI++ cov':>11}{'t cov':>8}{'shown cov':>11}{'people cov':>12}{'in 0-1':>8}"
        f"{'ess<=rows':>11}{'width bt/n':>12}{'raw ppl cov':>13}{'judge near':>12}{'judge bias':>12}"
        f"{'width PPI/ppl':>15}{'n_eff':>8}{'lambda':>8}{'fixed: PPI':>12}{'people':>8}"
    )
    print(header)
    print("-" * len(header))
    failed = []
    results = {
        n: (
            simulate(truth, judge, n, args.reps, args.seed + n, fixed=False, resamples=args.resamples),
            simulate(truth, judge, n, args.reps, args.seed + n + 1, fixed=True),
        )
        for n in sizes
    }
    for metric in TRACE_METRICS:
        for n in sizes:
            iid, fin = results[n][0][metric], results[n][1][metric]
            nan = float("nan")
            print(
                f"{metric:<13}{n:>6}{iid['ppi']:>11.1%}{iid['ppi_t']:>8.1%}{iid.get('boot', nan):>11.1%}"
                f"{iid.get('shown_people', nan):>12.1%}{'yes' if iid.get('in_range') == 1.0 else 'NO':>8}"
                f"{'yes' if iid.get('ess_ok') == 1.0 else 'NO':>11}"
                f"{iid.get('boot_width', nan):>12.3f}{iid['people']:>13.1%}{iid['judge_close']:>12.1%}"
                f"{iid['judge_bias']:>+12.4f}{iid['width_ratio']:>15.3f}{iid['n_eff']:>8.0f}{iid['lambda']:>8.2f}"
                f"{fin['ppi']:>12.1%}{fin['people']:>8.1%}"
            )
            where = f"judge {judge_name}, {metric} n={n}"
            shown = iid.get("boot", iid["ppi"])
            if n >= MIN_AUDITED and not 0.93 <= shown <= 0.97:
                failed.append(f"{where}: shown PPI++ coverage {shown:.1%} (outside 93-97%)")
            if "in_range" in iid and iid["in_range"] < 1.0:
                failed.append(f"{where}: an interval outside [0, 1]")
            if "ess_ok" in iid and iid["ess_ok"] < 1.0:
                failed.append(f"{where}: an effective sample size above the rows")
            if iid.get("boot_normal"):
                print(f"  ({iid['boot_normal']:.1%} of these shown intervals are the floored normal / Wilson one)")
    print()
    return failed


if __name__ == "__main__":
    sys.exit(main())
