"""Issue 36 item 8, the restated design target: the calibrated active design against uniform and the oracle bound.

    nice -n 10 .venv/bin/python benchmarks/bench_design_target.py [--reps 2000] [--sizes 30,50,100,300,1000]

The simulation of ``bench_designs.py --judge sampled --oracle 24`` (RAGBench's 2,896 test rows as people's labels;
``bench_ppi``'s biased judge whose error rates vary by example, Gamma shape 0.5; it answers 4 times and the
confidence is the app's, 1 - 2 sd per TRACe metric, the least sure metric as ``judge_confidence``; ``noise`` = the
same confidences shuffled over the rows). Each audit draws the M = 2,896 judged examples i.i.d. from the rows (the
target is the rows' mean) and then, with the same budget of n people-reviews:

* ``uniform`` — the app's uniform estimate (:func:`ragviz.analysis.estimates.estimate.estimate_mean`: PPI++ with λ
  cross-fitted over 5 folds, bootstrap-t interval);
* ``calibrated`` — a uniform pilot of min(50, n/3) reviewed first, the active design calibrated on it
  (:mod:`ragviz.analysis.audits.calibration`, floor ``--floor``, 0.1) draws n - pilot new examples on average, and
  both are estimated as one audit, each example at its chance of being in either sample (the app's
  :func:`ragviz.analysis.audits.active_bootstrap.active_bootstrap_t`, moved to the estimate with λ cross-fitted,
  :mod:`ragviz.analysis.audits.active_crossfit`);
* ``oracle`` — the bound no design can beat: an active draw of n from each example's *true* expected squared error
  (24 further answers of the judge), same floor, one sample for the four metrics.

Printed per (confidence, n, metric): the coverage of the shown 95 % interval (bootstrap-t; uniform and calibrated)
with its lower Monte-Carlo bound (coverage - 1.96 SE), and the width ratios to uniform at the same n: the shown
intervals' (calibrated / uniform, bootstrap-t) and the normal intervals' (calibrated, oracle, and the calibrated
design at the app's default floor 0.5, each / uniform); ``capture`` = the calibrated design's variance reduction as a
share of the oracle's, :math:`(1 - r_c^2) / (1 - r_o^2)` with the normal width ratios. Then the target's checks.
``--resamples`` bootstrap resamples per interval (default 1,000; the app: 2,000). ``--shown-for`` which confidences
get the bootstrap-t (the slow part; the other ones: normal intervals only).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_designs import PILOT, _uniform, sampled_table

from ragviz.analysis.audits.active import ipw_ppi_ci
from ragviz.analysis.audits.active_bootstrap import active_bootstrap_t
from ragviz.analysis.audits.active_crossfit import crossfitted_active
from ragviz.analysis.audits.calibration import calibrate, calibrated_spread
from ragviz.analysis.audits.designs import DEFAULT_FLOOR, active_level, weights_from_spread
from ragviz.analysis.estimates.crossfit import FOLDS
from ragviz.analysis.estimates.estimate import _crossfitted, estimate_mean
from ragviz.analysis.estimates.ppi import bootstrap_t_intervals
from ragviz.metrics.trace import TRACE_METRICS

UNIT = (0.0, 1.0)
#: (design, interval) pairs measured; "shown" = the app's bootstrap-t
CELLS = ("uniform", "calibrated", "oracle", "cal_app_floor")


def _calibrated_chances(y_all, f_all, cm, m, n, floor, rng):
    """The pilot, and each example's chance of being in the pilot or the calibrated active sample."""
    k = y_all.shape[1]
    n_pilot = min(PILOT, n // 3)
    pilot = _uniform(rng, m, n_pilot)
    cal = calibrate({t: (y_all[pilot, j], f_all[pilot, j], cm[pilot, j]) for j, t in enumerate(TRACE_METRICS)})
    spread = calibrated_spread(
        cal, {t: cm[:, j] for j, t in enumerate(TRACE_METRICS)}, {t: f_all[:, j] for j, t in enumerate(TRACE_METRICS)}
    )
    out = {}
    for name, phi in (("calibrated", floor), ("cal_app_floor", DEFAULT_FLOOR)):
        q = weights_from_spread(spread, phi)
        rest = q[~pilot].sum()
        pi = np.minimum(1.0, active_level(q[~pilot] / rest, float(n - n_pilot)) * q / rest)
        mask = pilot | (rng.random(m) < pi)
        out[name] = (mask, 1.0 - (1.0 - n_pilot / m) * (1.0 - pi))
    assert k == len(TRACE_METRICS)
    return out


def _uniform_shown(y, f, fu, resamples, seed):
    """:func:`ragviz.analysis.estimates.estimate.estimate_mean`'s shown interval (bootstrap-t, λ cross-fitted over 5
    folds, the interval moved to the cross-fitted estimate) for every column, with *resamples* resamples shared by
    the columns (the app: 2,000 per metric)."""
    out = []
    for j, ppi in enumerate(bootstrap_t_intervals(y, f, fu, resamples=resamples, seed=seed, bounds=UNIT)):
        if ppi.lam and ppi.low is not None and y.shape[0] >= 2 * FOLDS:
            ppi, _rule = _crossfitted(ppi, y[:, j], f[:, j], fu[:, j], FOLDS, UNIT)
        out.append(ppi)
    return out


def simulate(truth, judge, per_metric, expected, n, reps, rng, floor, shown, resamples, progress=0):
    """Per cell (design) and metric: normal covered/width, and for uniform and calibrated the shown interval's."""
    m, k = truth.shape
    target = truth.mean(axis=0)
    normal = {d: {"cov": np.zeros((reps, k)), "width": np.zeros((reps, k))} for d in CELLS}
    boot = {d: {"cov": np.zeros((reps, k)), "width": np.zeros((reps, k))} for d in ("uniform", "calibrated")}
    for r in range(reps):
        idx = rng.integers(0, truth.shape[0], m)
        y_all, f_all, cm, e = truth[idx], judge[idx], per_metric[idx], expected[idx]
        masks = {"uniform": (_uniform(rng, m, n), None)}
        masks.update(_calibrated_chances(y_all, f_all, cm, m, n, floor, rng))
        q_or = weights_from_spread(np.sqrt((e / e.mean(axis=0)).mean(axis=1)), floor)
        pi_or = np.minimum(1.0, active_level(q_or, float(n)) * q_or)
        masks["oracle"] = (rng.random(m) < pi_or, pi_or)
        for d, (a, pi) in masks.items():
            for j in range(k):
                y, f, fu = y_all[a, j], f_all[a, j], f_all[~a, j]
                if d == "uniform":
                    iv = estimate_mean(y, f, fu, interval="normal").ppi
                elif d == "calibrated":  # the app's: λ cross-fitted, the interval moved to that estimate
                    iv = crossfitted_active(ipw_ppi_ci(y, f, pi[a], fu, bounds=UNIT), y, f, pi[a], fu, UNIT)[0].interval
                else:
                    iv = ipw_ppi_ci(y, f, pi[a], fu, bounds=UNIT).interval
                normal[d]["cov"][r, j] = iv.low <= target[j] <= iv.high
                normal[d]["width"][r, j] = iv.high - iv.low
            if not shown or d not in boot:
                continue
            if d == "uniform":  # the app's estimate_mean per metric, the four metrics sharing their resamples
                shown_ivs = _uniform_shown(y_all[a], f_all[a], f_all[~a], resamples, r)
            else:
                shown_ivs = []
                for j in range(k):  # the app's design_report: bootstrap-t, then moved to the cross-fitted estimate
                    batch = (y_all[a, j], f_all[a, j], pi[a], f_all[~a, j])
                    tuned = active_bootstrap_t([batch], bounds=UNIT, resamples=resamples, seed=r)[0]
                    shown_ivs.append(crossfitted_active(tuned, *batch, UNIT)[0].interval)
            for j, iv in enumerate(shown_ivs):
                boot[d]["cov"][r, j] = iv.low <= target[j] <= iv.high
                boot[d]["width"][r, j] = iv.high - iv.low
        if progress and shown and (r + 1) % progress == 0 and r + 1 < reps:
            cov_u, cov_c = boot["uniform"]["cov"][: r + 1].mean(0), boot["calibrated"]["cov"][: r + 1].mean(0)
            ratio = boot["calibrated"]["width"][: r + 1].mean(0) / boot["uniform"]["width"][: r + 1].mean(0)
            print(
                f"  after {r + 1} audits at n={n}: coverage uniform {np.round(100 * cov_u, 1).tolist()}, calibrated "
                f"{np.round(100 * cov_c, 1).tolist()}, width ratio {np.round(ratio, 3).tolist()}",
                flush=True,
            )
    return normal, boot


def _lower(cov: float, reps: int) -> float:
    return cov - 1.96 * math.sqrt(max(cov * (1 - cov), 1e-12) / reps)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "ragbench"))
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--sizes", default="30,50,100,300,1000")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--floor", type=float, default=0.1, help="the calibrated and oracle designs' floor")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--shown-for", default="informative,noise", help="confidences that get the bootstrap-t")
    parser.add_argument("--confidences", default="informative,noise")
    parser.add_argument("--progress", type=int, default=0, help="print the running coverage every this many audits")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rng = np.random.default_rng(args.seed + 1)
    truth, judge, _subset, per_metric, expected = sampled_table(Path(args.data), args.seed, 0.5, 4, 24)
    shuffled = rng.permutation(per_metric.shape[0])
    confidence = {"informative": per_metric, "noise": per_metric[shuffled]}
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{truth.shape[0]} rows; {args.reps} audits per cell; {args.resamples} resamples; floor {args.floor}")
    print(
        f"{'confidence':<12}{'n':>6} {'metric':<13}{'unif cov (low)':>16}{'cal cov (low)':>16}"
        f"{'cal/unif shown':>16}{'cal/unif':>10}{'oracle/unif':>12}{'capture':>9}{'cal φ0.5/unif':>15}"
        f"{'normal cov u/c':>16}"
    )
    rows = []
    for kind in args.confidences.split(","):
        shown = kind in args.shown_for.split(",")
        for n in sizes:
            t0 = time.process_time()
            normal, boot = simulate(
                truth,
                judge,
                confidence[kind],
                expected,
                n,
                args.reps,
                rng,
                args.floor,
                shown,
                args.resamples,
                args.progress,
            )
            for j, metric in enumerate(TRACE_METRICS):
                w = {d: normal[d]["width"][:, j].mean() for d in CELLS}
                r_cal, r_or = w["calibrated"] / w["uniform"], w["oracle"] / w["uniform"]
                capture = (1 - r_cal**2) / (1 - r_or**2) if r_or < 1 else math.nan
                cov = {d: boot[d]["cov"][:, j].mean() for d in boot} if shown else {}
                shown_ratio = (
                    boot["calibrated"]["width"][:, j].mean() / boot["uniform"]["width"][:, j].mean()
                    if shown
                    else math.nan
                )
                row = {
                    "kind": kind,
                    "n": n,
                    "metric": metric,
                    "cov_u": cov.get("uniform", math.nan),
                    "cov_c": cov.get("calibrated", math.nan),
                    "shown": shown_ratio,
                    "cal": r_cal,
                    "oracle": r_or,
                    "capture": capture,
                    "app_floor": w["cal_app_floor"] / w["uniform"],
                    "ncov_u": normal["uniform"]["cov"][:, j].mean(),
                    "ncov_c": normal["calibrated"]["cov"][:, j].mean(),
                }
                rows.append(row)
                cu = f"{100 * row['cov_u']:.1f} ({100 * _lower(row['cov_u'], args.reps):.1f})" if shown else "-"
                cc = f"{100 * row['cov_c']:.1f} ({100 * _lower(row['cov_c'], args.reps):.1f})" if shown else "-"
                print(
                    f"{kind:<12}{n:>6} {metric:<13}{cu:>16}{cc:>16}{shown_ratio:>16.3f}{r_cal:>10.3f}{r_or:>12.3f}"
                    f"{capture:>9.2f}{row['app_floor']:>15.3f}"
                    f"{100 * row['ncov_u']:>8.1f}/{100 * row['ncov_c']:.1f}",
                    flush=True,
                )
            print(f"  ({kind} n={n}: {time.process_time() - t0:.0f} s CPU)", flush=True)
    _targets(rows, args.reps)
    print(f"{time.perf_counter() - start:.0f} s")
    return 0


def _targets(rows: list[dict], reps: int) -> None:
    """The restated target's checks, one line each: met or not, with the figures."""
    three = ("relevance", "utilization", "adherence")
    inf = [r for r in rows if r["kind"] == "informative"]
    mid = [r for r in inf if 100 <= r["n"] <= 300 and r["metric"] in three]
    if mid:
        worst = min(r["capture"] for r in mid)
        print(f"target: capture >= 60 % of the oracle's variance reduction (3 metrics, n = 100-300): worst {worst:.2f}")
        ratio = max(r["shown"] if not math.isnan(r["shown"]) else r["cal"] for r in mid)
        print(f"target: >= 10 % narrower than uniform (3 metrics, n = 100-300): widest ratio {ratio:.3f}")
    big = [r for r in inf if r["n"] == 1000]
    if big:
        ratios = [r["shown"] if not math.isnan(r["shown"]) else r["cal"] for r in big]
        print(f"target: >= 5 % narrower on 3 of 4 at n = 1,000: {sum(x <= 0.95 for x in ratios)} of 4 ({ratios})")
    noise = [r for r in rows if r["kind"] == "noise" and r["n"] >= 100]
    if noise:
        worst = max(r["shown"] if not math.isnan(r["shown"]) else r["cal"] for r in noise)
        print(f"target: noise confidence <= 1.02 x uniform at n >= 100: widest {worst:.3f}")
    covs = [
        (r["kind"], r["n"], r["metric"], d, r[f"cov_{d[0]}"])
        for r in rows
        if r["n"] >= 100
        for d in ("uniform", "calibrated")
    ]
    covs = [c for c in covs if not math.isnan(c[4])]
    if covs:
        low = min(covs, key=lambda c: _lower(c[4], reps))
        print(
            f"target: coverage lower bound >= 93 % from n = 100: lowest {100 * _lower(low[4], reps):.1f} % "
            f"({low[0]} n={low[1]} {low[2]} {low[3]}: {100 * low[4]:.1f} %)"
        )


if __name__ == "__main__":
    sys.exit(main())
