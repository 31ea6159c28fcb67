"""Audit designs (issue 23): coverage and width of uniform, stratified and active audits, 1,000 simulated audits each.

    .venv/bin/python benchmarks/bench_designs.py [--population ragbench|synthetic] [--reps 1000] [--sizes 100,300,1000]
    (also: .venv/bin/python benchmarks/bench_ppi.py --designs ...)

Population ``ragbench``: the 2,896 RAGBench test rows; their stored labels are people's, the noisy judge of
``bench_ppi.py`` (``biased``) labels a copy; TRACe metrics under both. Population ``synthetic``: 2,896 rows in 7
strata whose judge errs at different rates (2 %-35 %), each metric a 0/1 or [0, 1] value. Each replicate draws the
M judged examples i.i.d. from the population (the model PPI assumes; target: the population mean), then an audit of
n under each design from the same confidence, and estimates each metric with the design's estimator:

* uniform — PPI++ (``ppi_py``'s, normal, within the range; with ``--interval t`` the app's Student's t around the
  cross-fitted estimate, :func:`ragviz.analysis.estimates.estimate.estimate_mean`);
* stratified — strata = the subset, Neyman allocation from the confidence; stratified PPI++ as the app shows it
  (:func:`ragviz.analysis.audits.stratified_crossfit.shown_stratified`, λ cross-fitted: with ``--interval t`` its
  Student's t, with ``bootstrap-t`` / ``normal`` the tuned λ's interval moved to the cross-fitted estimate);
* active — Poisson sampling, inclusion probability from the confidence with floor 0.5 (``--floor``); the app's
  centred IPW PPI++ (``glide-py``'s ASI over the audit's Hájek-centred values). With ``--interval t`` the
  uncalibrated active sample as the app draws it (:func:`ragviz.analysis.audits.designs.active_draw`, its seeded hash
  and ``judge_confidence``, no pilot) and its shown interval (:func:`ragviz.analysis.audits.design_estimate.design_report`'s:
  :func:`~ragviz.analysis.audits.active_crossfit.crossfitted_active`'s Student's t, its ν over Kish's effective size, the bootstrap-t where λ is 0);
* calibrated — the active design calibrated on a pilot (:mod:`ragviz.analysis.audits.calibration`): a uniform
  pilot of :data:`PILOT` examples (at most n/3) is reviewed first, then an active sample of n - pilot new examples
  on average is drawn from the calibrated spreads with floor 0.1 (``--calibrated-floor``), and both are estimated
  as one audit, each example at its chance of being in either sample (as
  :func:`ragviz.analysis.audits.design_estimate.design_info` does): n people-reviews in all, as uniform's.

Confidence (``--judge biased``): ``informative`` — the judge's chance of being right as it would report it: high where
its labels equal people's on every metric, lower the larger its error, blurred by noise (sd 0.1); ``noise`` — uniform
on 0.5-1, unrelated to the errors. ``--judge sampled`` (RAGBench only; :func:`sampled_table`): the confidence is what
ragviz measures, ``ragviz label --samples N`` simulated — the biased judge's error rates vary by example (Gamma
``--shape``), it answers ``--samples`` times, and the confidence is the least sure metric's 1 - 2 sd over the answers
(the ``judge_confidence`` column the active design draws from); ``noise`` is the same values shuffled over the rows
(the same spread of probabilities, unrelated to the errors). Printed per (confidence, design, n, metric): coverage of the 95 % interval, mean width and
width relative to uniform at the same n, then each design's coverage with its Wilson 95 % lower bound. ``--designs``
picks the designs (with ``--interval t``: uniform and stratified by default, active too when named;
``bench_design_target.py`` measures the calibrated design's t). Exit 1 when a coverage falls outside 93-97 % or an interval leaves [0, 1].
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

from ragviz.analysis.audits.active import ipw_ppi_ci
from ragviz.analysis.audits.active_bootstrap import active_bootstrap_t
from ragviz.analysis.audits.active_crossfit import crossfitted_active
from ragviz.analysis.audits.allocation import allocate, spread_from_confidence
from ragviz.analysis.audits.calibration import calibrate, calibrated_spread
from ragviz.analysis.audits.designs import DEFAULT_FLOOR, active_level, selection_weights, weights_from_spread
from ragviz.analysis.audits.designs import active_draw as app_active_draw
from ragviz.analysis.audits.stratified_crossfit import shown_stratified
from ragviz.analysis.estimates.estimate import estimate_mean
from ragviz.analysis.estimates.ppi import ppi_mean_ci
from ragviz.metrics.trace import TRACE_METRICS

DESIGNS = ("uniform", "stratified", "active", "calibrated")
PILOT = 50  # the calibrated design's pilot: a uniform audit reviewed before the active sample is drawn
UNIT = (0.0, 1.0)


def ragbench_table(data: Path, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    from bench_ppi import JUDGES, noisy_judge

    from ragviz.data.dataset import iter_examples
    from ragviz.data.load import load
    from ragviz.metrics.trace import trace_scores

    result = load([data])
    rng = np.random.default_rng(seed)
    truth, judge, subset = [], [], []
    for i, example in iter_examples(result.dataset):
        if example.labels is None:
            continue
        n = example.n_context_sentences
        t, j = (
            trace_scores(example.labels, n),
            trace_scores(noisy_judge(example, example.labels, rng, JUDGES["biased"]), n),
        )
        row_t, row_j = [getattr(t, m) for m in TRACE_METRICS], [getattr(j, m) for m in TRACE_METRICS]
        if any(v is None for v in row_t + row_j):
            continue
        truth.append(row_t)
        judge.append(row_j)
        subset.append(result.dataset.datasets[i])
    return np.asarray(truth, float), np.asarray(judge, float), np.asarray(subset)


def sampled_table(
    data: Path, seed: int, shape: float, samples: int, oracle: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """RAGBench rows judged by ``bench_ppi``'s biased judge whose error rates vary by example: example *i*'s rates
    are the biased judge's times :math:`s_i \\sim \\Gamma(k, 1/k)` (mean 1; *shape* k, 0 = every example alike), capped
    at 0.95. The judge answers *samples* times; the first answer is kept and the confidence per TRACe metric is the
    app's (:func:`ragviz.judge.sampling.agreement.metric_confidence`, 1 - 2 sd over the samples). Returns truth,
    judge, subset, the confidence per metric and, with *oracle* > 0, each example's expected squared error
    :math:`E[(Y - \\hat Y - b)^2]` per metric (*b*: the judge's mean error) from *oracle* further answers of its own
    (drawn from a generator of their own, so the table is the same with or without them)."""
    from bench_ppi import JUDGES, noisy_judge

    from ragviz.data.dataset import iter_examples
    from ragviz.data.load import load
    from ragviz.judge.sampling.agreement import metric_confidence
    from ragviz.metrics.trace import trace_scores

    result = load([data])
    rng = np.random.default_rng(seed)
    base = np.array(JUDGES["biased"])
    extra_rng = np.random.default_rng(seed + 1000)
    truth, judge, subset, conf, moments = [], [], [], [], []
    for i, example in iter_examples(result.dataset):
        if example.labels is None:
            continue
        n = example.n_context_sentences
        scale = rng.gamma(shape, 1.0 / shape) if shape > 0 else 1.0
        rates = tuple(float(r) for r in np.minimum(base * scale, 0.95))
        t = trace_scores(example.labels, n)
        answers = [trace_scores(noisy_judge(example, example.labels, rng, rates), n) for _ in range(samples)]
        row_t, row_j = [getattr(t, m) for m in TRACE_METRICS], [getattr(answers[0], m) for m in TRACE_METRICS]
        if any(v is None for v in row_t + row_j):
            continue
        truth.append(row_t)
        judge.append(row_j)
        subset.append(result.dataset.datasets[i])
        conf.append([metric_confidence([getattr(a, m) for a in answers]) for m in TRACE_METRICS])
        if oracle:
            more = [trace_scores(noisy_judge(example, example.labels, extra_rng, rates), n) for _ in range(oracle)]
            err = np.array([[row_t[j] - (getattr(a, m) if getattr(a, m) is not None else row_j[j])
                             for j, m in enumerate(TRACE_METRICS)] for a in more])  # fmt: skip
            moments.append(np.concatenate([err.mean(axis=0), (err**2).mean(axis=0)]))
    expected = None
    if oracle:
        table = np.asarray(moments)
        mean_err, mean_sq = table[:, :4], table[:, 4:]
        bias = mean_err.mean(axis=0)
        expected = np.maximum(mean_sq - 2 * bias * mean_err + bias**2, 1e-12)
    return np.asarray(truth, float), np.asarray(judge, float), np.asarray(subset), np.asarray(conf, float), expected


def synthetic_table(seed: int, m: int = 2896) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    strata = np.repeat(np.arange(7), m // 7 + 1)[:m]
    err = np.array([0.02, 0.04, 0.06, 0.1, 0.15, 0.25, 0.35])[strata]
    base = np.array([0.9, 0.8, 0.85, 0.7, 0.6, 0.75, 0.5])[strata]
    truth = np.column_stack([rng.beta(2 + 6 * base, 2, m), rng.beta(2, 3, m), rng.beta(3, 2, m), rng.random(m) < base])
    wrong = rng.random((m, 4)) < err[:, None]
    judge = np.where(wrong, np.clip(truth + rng.normal(0.15, 0.3, (m, 4)), 0, 1), truth)
    judge[:, 3] = np.where(wrong[:, 3], 1.0, truth[:, 3])  # the 0/1 metric: the judge misses failures
    return truth.astype(float), judge.astype(float), np.array([f"s{h}" for h in strata])


def confidences(truth: np.ndarray, judge: np.ndarray, rng: np.random.Generator) -> dict[str, np.ndarray]:
    error = np.abs(truth - judge).mean(axis=1)
    informative = np.clip(0.97 - 1.5 * error + rng.normal(0, 0.1, error.size), 0.3, 1.0)
    return {"informative": informative, "noise": rng.uniform(0.5, 1.0, error.size)}


def _uniform(rng, m, n):
    chosen = np.zeros(m, bool)
    chosen[rng.choice(m, n, replace=False)] = True
    return chosen


def _stratified_counts(conf, strata, n):
    names = sorted(set(strata.tolist()))
    sizes = [int(np.sum(strata == h)) for h in names]
    spreads = spread_from_confidence(conf, strata)
    return names, allocate(n, sizes, [spreads[h] for h in names])


RESAMPLES = 1000  # bootstrap-t resamples per interval here (the app: 2,000)


UIDS: list[str] = []  # the app draw's uids: each audit's examples by position
FALLBACKS = [0]  # active t intervals that fell back to the bootstrap-t (lambda 0)


def _app_active(conf, n, floor, seed):
    """The uncalibrated active sample as the app draws it (``ragviz audit draw --design active``): its mask and each
    example's inclusion probability."""
    m = conf.size
    if len(UIDS) != m:
        UIDS[:] = [f"{i:05d}" for i in range(m)]
    drawn = app_active_draw(UIDS, dict(zip(UIDS, conf.tolist())), n, seed, floor)
    mask, pi = np.zeros(m, bool), np.zeros(m)
    for member in drawn.members:
        mask[int(member.uid)], pi[int(member.uid)] = True, member.inclusion_probability
    return mask, pi


def _shown_active(batch, seed):
    """The app's shown interval of one active audit (design_estimate's ``_metric`` with the t)."""
    tuned = ipw_ppi_ci(*batch, bounds=UNIT)
    shown, crossfitted = crossfitted_active(tuned, *batch, UNIT, 0.05, unequal=True)
    if crossfitted:
        return shown.interval
    FALLBACKS[0] += 1
    return active_bootstrap_t([batch], bounds=UNIT, seed=seed)[0].interval


def _active(batch, method, seed):
    if method == "t":
        return _shown_active(batch, seed)
    if method == "normal":
        return ipw_ppi_ci(*batch, bounds=UNIT).interval
    return active_bootstrap_t([batch], bounds=UNIT, resamples=RESAMPLES, seed=seed)[0].interval


def simulate(
    truth,
    judge,
    subset,
    conf,
    n,
    reps,
    rng,
    floor=DEFAULT_FLOOR,
    per_metric=None,
    calibrated_floor=0.1,
    method="normal",
    expected=None,
    designs=DESIGNS,
):
    """Per design and metric: covered (reps,), width (reps,), in range (bool). *per_metric*: the confidence per
    metric the calibrated design reads (default: *conf* for every metric). *expected*: each example's expected
    squared error per metric, for the ``oracle`` bound (an active draw that knows them, floor as calibrated's)."""
    m, k = truth.shape
    target = truth.mean(axis=0)
    designs = tuple(designs) + (("oracle",) if expected is not None else ())
    out = {d: {"cov": np.zeros((reps, k)), "width": np.zeros((reps, k)), "in01": True} for d in designs}
    for r in range(reps):
        idx = rng.integers(0, truth.shape[0], m)
        y_all, f_all, g_all, c_all = truth[idx], judge[idx], subset[idx], conf[idx]
        masks = {"uniform": _uniform(rng, m, n)}
        names, counts = _stratified_counts(c_all, g_all, n)
        strat = np.zeros(m, bool)
        for h, c in zip(names, counts):
            members = np.flatnonzero(g_all == h)
            strat[rng.choice(members, min(c, members.size), replace=False)] = True
        masks["stratified"] = strat
        q = selection_weights(c_all, floor)
        pi = np.minimum(1.0, active_level(q, float(n)) * q)
        masks["active"] = rng.random(m) < pi
        if method == "t" and "active" in designs:  # the app's own draw, seeded per audit
            masks["active"], pi = _app_active(c_all, n, floor, int(rng.integers(2**31)))
        cm = np.repeat(c_all[:, None], k, axis=1) if per_metric is None else per_metric[idx]
        n_pilot = min(PILOT, n // 3)
        pilot = _uniform(rng, m, n_pilot)
        q_cal = np.full(m, 1.0 / m)  # not drawn (the same random numbers are taken, so other cells are unchanged)
        if "calibrated" in designs:
            cal = calibrate({t: (y_all[pilot, j], f_all[pilot, j], cm[pilot, j]) for j, t in enumerate(TRACE_METRICS)})
            q_cal = weights_from_spread(
                calibrated_spread(
                    cal,
                    {t: cm[:, j] for j, t in enumerate(TRACE_METRICS)},
                    {t: f_all[:, j] for j, t in enumerate(TRACE_METRICS)},
                ),
                calibrated_floor,
            )
        # the active batch's budget: n - n_pilot new examples on average (a pilot member drawn again costs nothing)
        rest = q_cal[~pilot].sum()
        pi_cal = np.minimum(1.0, active_level(q_cal[~pilot] / rest, float(n - n_pilot)) * q_cal / rest)
        second = rng.random(m) < pi_cal
        masks["calibrated"] = pilot | second
        union = 1.0 - (1.0 - n_pilot / m) * (1.0 - pi_cal)
        probabilities = {"active": pi}
        if expected is not None:
            e = expected[idx]
            q_or = weights_from_spread(np.sqrt((e / e.mean(axis=0)).mean(axis=1)), calibrated_floor)
            probabilities["oracle"] = np.minimum(1.0, active_level(q_or, float(n)) * q_or)
            masks["oracle"] = rng.random(m) < probabilities["oracle"]
        for d in designs:
            a = masks[d]
            for j in range(k):
                y, f, fu = y_all[a, j], f_all[a, j], f_all[~a, j]
                if d == "uniform" and method == "t":  # the app's (estimate_report's) interval
                    iv = estimate_mean(y, f, fu).ppi
                elif d == "uniform":
                    iv = ppi_mean_ci(y, f, fu, method=method, resamples=RESAMPLES, seed=r, bounds=UNIT)
                elif d == "stratified":  # the app's function (design_estimate), its bootstrap-t the app's 2,000
                    keys, keys_u = np.asarray(g_all[a]).astype(str), np.asarray(g_all[~a]).astype(str)
                    iv = shown_stratified(y, f, keys, fu, keys_u, UNIT, method=method)[0].interval
                elif d == "calibrated":  # the app's estimate: one audit at each example's chance of either sample
                    iv = _active((y, f, union[a], fu), method, r)
                else:
                    iv = _active((y, f, probabilities[d][a], fu), method, r)
                assert iv.low is not None and iv.high is not None
                out[d]["cov"][r, j] = iv.low <= target[j] <= iv.high
                out[d]["width"][r, j] = iv.high - iv.low
                out[d]["in01"] &= 0.0 <= iv.low and iv.high <= 1.0
    return out


def wilson_lower(covered: np.ndarray, z: float = 1.959963984540054) -> float:
    """The Wilson 95 % lower bound of the share of *covered* (the Monte-Carlo bound BENCHMARKS.md reads)."""
    n, p = covered.size, float(covered.mean())
    return (p + z * z / (2 * n) - z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--population", default="ragbench", choices=("ragbench", "synthetic"))
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "ragbench"))
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--sizes", default="100,300,1000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--judge", default="biased", choices=("biased", "sampled"))
    parser.add_argument("--shape", type=float, default=0.5, help="sampled judge: the Gamma shape of its difficulty")
    parser.add_argument("--samples", type=int, default=4, help="sampled judge: answers per example")
    parser.add_argument("--floor", type=float, default=DEFAULT_FLOOR, help="the active design's floor")
    parser.add_argument("--calibrated-floor", type=float, default=0.1, help="the calibrated active design's floor")
    parser.add_argument(
        "--oracle",
        type=int,
        default=0,
        help="sampled judge: also the bound no design can beat, an active draw from each example's true expected "
        "error (from this many further answers per example; 0 = off)",
    )
    parser.add_argument(
        "--interval",
        default="normal",
        choices=("normal", "bootstrap-t", "t"),
        help="every design's interval (t: the app's shown one; not for calibrated: bench_design_target.py)",
    )
    parser.add_argument("--designs", default=None, help="comma-separated, of " + ", ".join(DESIGNS) + " (default: all)")
    parser.add_argument("--confidences", default="informative,noise", help="which confidences to run")
    args = parser.parse_args(argv)
    chosen = tuple(args.designs.split(",")) if args.designs else DESIGNS
    if args.interval == "t" and not args.designs:
        chosen = ("uniform", "stratified")  # as measured before the active t (the same random numbers)
    if chosen[0] != "uniform" or not set(chosen) <= set(DESIGNS) or (args.interval == "t" and "calibrated" in chosen):
        parser.error("--designs: uniform first, of " + ", ".join(DESIGNS) + " (with --interval t: not calibrated)")
    start = time.perf_counter()
    rng = np.random.default_rng(args.seed + 1)
    metric_conf: dict[str, np.ndarray] = {}
    expected = None
    if args.judge == "sampled":
        truth, judge, subset, per_metric, expected = sampled_table(
            Path(args.data), args.seed, args.shape, args.samples, args.oracle
        )
        least = per_metric.min(axis=1)  # the app's judge_confidence column: the least sure metric
        shuffled = rng.permutation(least.size)
        conf = {"informative": least, "noise": least[shuffled]}
        metric_conf = {"informative": per_metric, "noise": per_metric[shuffled]}
    elif args.population == "ragbench":
        truth, judge, subset = ragbench_table(Path(args.data), args.seed)
        conf = confidences(truth, judge, rng)
    else:
        truth, judge, subset = synthetic_table(args.seed)
        conf = confidences(truth, judge, rng)
    conf = {kind: conf[kind] for kind in args.confidences.split(",")}
    print(
        f"population {args.population}: {truth.shape[0]} examples, {len(set(subset.tolist()))} strata; {args.reps} audits per cell"
    )
    designs = chosen + (("oracle",) if expected is not None else ())
    print(
        f"{'confidence':<12}{'n':>6}  {'metric':<13}"
        + "".join(f"{d + ' cov':>16}{'width':>8}" for d in designs)
        + "".join(f"{d[:6] + '/unif':>12}" for d in designs[1:])
    )
    failed, wins, bounds = [], {}, []
    for kind, c in conf.items():
        for n in [int(s) for s in args.sizes.split(",")]:
            res = simulate(
                truth,
                judge,
                subset,
                c,
                n,
                args.reps,
                rng,
                args.floor,
                metric_conf.get(kind),
                args.calibrated_floor,
                args.interval,
                expected,
                chosen,
            )
            for j, metric in enumerate(TRACE_METRICS):
                cells, ratios = "", []
                for d in designs:
                    cov, width = res[d]["cov"][:, j].mean(), res[d]["width"][:, j].mean()
                    cells += f"{100 * cov:>15.1f}%{width:>8.3f}"
                    if not 0.93 <= cov <= 0.97:
                        failed.append(f"{kind} n={n} {metric} {d}: coverage {100 * cov:.1f}%")
                    if d != "uniform":
                        ratios.append(width / res["uniform"]["width"][:, j].mean())
                print(f"{kind:<12}{n:>6}  {metric:<13}{cells}" + "".join(f"{r:>12.3f}" for r in ratios))
                wins.setdefault((kind, n), []).append(min(ratios[:3]) if ratios else 1.0)  # the oracle: a bound
                bounds.append(f"{kind} n={n} {metric}: " + "; ".join(
                    f"{d} {100 * res[d]['cov'][:, j].mean():.1f} % (Wilson lower {100 * wilson_lower(res[d]['cov'][:, j]):.1f})"
                    for d in designs))  # fmt: skip
            for d in designs:
                if not res[d]["in01"]:
                    failed.append(f"{kind} n={n} {d}: an interval left [0, 1]")
    print("\n".join(bounds))
    for (kind, n), best in sorted(wins.items()):
        narrower = sum(1 for b in best if b <= 0.85)
        print(
            f"{kind} n={n}: best design / uniform width per metric {', '.join(f'{b:.3f}' for b in best)}; "
            f"{narrower} of 4 metrics >= 15% narrower; widest {max(best):.3f}"
        )
    if FALLBACKS[0]:
        print(f"active t intervals that fell back to the bootstrap-t (lambda 0): {FALLBACKS[0]}")
    print(f"{time.perf_counter() - start:.0f} s wall, {time.process_time():.0f} s CPU")
    for f in failed:
        print(f"FAIL: {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
