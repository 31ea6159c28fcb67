"""Issue 36 item 8, the restated design target: the calibrated active design against uniform and the oracle bound.

    nice -n 10 .venv/bin/python benchmarks/bench_design_target.py [--reps 2000] [--sizes 30,50,100,300,1000]
    ... --lean --shard K --save part-K.npz   (several at once), then  --merge part-1.npz,part-2.npz,...

The simulation of ``bench_designs.py --judge sampled --oracle 24`` (RAGBench's 2,896 test rows as people's labels;
``bench_ppi``'s biased judge whose error rates vary by example, Gamma shape 0.5; it answers 4 times and the
confidence is the app's, 1 - 2 sd per TRACe metric; ``noise`` = the same confidences shuffled over the rows). Each
audit draws the M = 2,896 judged examples i.i.d. from the rows (the target is the rows' mean) and then, with the same
budget of n people-reviews:

* ``uniform`` — the app's uniform estimate (:func:`ragviz.analysis.estimates.estimate.estimate_mean`: PPI++ with λ
  cross-fitted over 5 folds, Student's t around it, :mod:`ragviz.analysis.estimates.student_t`);
* ``calibrated`` — a uniform pilot of min(``--pilot``, n/3) reviewed first, the active design calibrated on it
  (:mod:`ragviz.analysis.audits.calibration`) with the floor chosen from the pilot
  (:func:`ragviz.analysis.audits.floor_tuning.pilot_floor`) draws n - pilot examples on average on top of the pilot
  (:mod:`ragviz.analysis.audits.topup`: each example's chance of being in either is max(p, the rule's); ``--added``:
  the rule before, drawn over the non-pilot examples with its chances added to the pilot's), and both are
  estimated as one audit, each example at its chance of being in either (the app's
  :func:`ragviz.analysis.audits.active_crossfit.crossfitted_active` with the t); ``cal_app_floor``: the same at the
  fixed ``--floor``;
* ``oracle`` — the bound no design can beat: an active draw of n from each example's *true* expected squared error
  (24 further answers of the judge), floor ``--floor``, one sample for the four metrics.

Printed per (confidence, n, metric): the coverage of the shown 95 % interval (uniform and calibrated) with its lower
Monte-Carlo bound (coverage - 1.96 SE), and the width ratios to uniform at the same n: the shown intervals' and the
normal intervals' (calibrated, oracle, the fixed-floor calibrated); ``capture`` = the calibrated design's variance
reduction as a share of the oracle's, :math:`(1 - r_c^2) / (1 - r_o^2)` with the normal width ratios; the floors the
pilot chose. Then the target's checks. ``--lean``: the shown intervals only (no normal ones), for coverage shards.
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
from ragviz.analysis.audits.active_crossfit import crossfitted_active
from ragviz.analysis.audits.calibration import calibrate, calibrated_spread
from ragviz.analysis.audits.designs import active_level, weights_from_spread
from ragviz.analysis.audits.floor_tuning import CAUTION as FLOOR_CAUTION
from ragviz.analysis.audits.floor_tuning import pilot_floor
from ragviz.analysis.audits.topup import topped_chance, topped_level
from ragviz.analysis.estimates.estimate import estimate_mean
from ragviz.metrics.trace import TRACE_METRICS

UNIT = (0.0, 1.0)
#: the designs measured: "calibrated" with the floor chosen from the pilot (the app's), "cal_app_floor" at --floor
CELLS = ("uniform", "calibrated", "oracle", "cal_app_floor")
CHOSEN: list[float] = []  # the floors pilot_floor chose, one per audit
CAUTION = [FLOOR_CAUTION]  # pilot_floor's caution (--caution; the app's by default)


def _calibrated_chances(y_all, f_all, cm, m, n, floor, rng, pilot_max=PILOT, topup=False):
    """The pilot, and each example's chance of being in the pilot or the calibrated active sample."""
    k = y_all.shape[1]
    n_pilot = min(pilot_max, n // 3)
    pilot = _uniform(rng, m, n_pilot)
    cal = calibrate({t: (y_all[pilot, j], f_all[pilot, j], cm[pilot, j]) for j, t in enumerate(TRACE_METRICS)})
    conf = {t: cm[:, j] for j, t in enumerate(TRACE_METRICS)}
    judge = {t: f_all[:, j] for j, t in enumerate(TRACE_METRICS)}
    spread = calibrated_spread(cal, conf, judge)
    people = {t: np.where(pilot, y_all[:, j], np.nan) for j, t in enumerate(TRACE_METRICS)}
    base = n_pilot / m if topup else 0.0
    chosen = pilot_floor(people, conf, judge, float(n - n_pilot), base=base, caution=CAUTION[0]).floor
    CHOSEN.append(chosen)
    out = {}
    for name, phi in (("calibrated", chosen), ("cal_app_floor", floor)):
        q = weights_from_spread(spread, phi)
        if topup:  # the app's: the active sample (n - pilot on average, over all M) tops the pilot's chance up
            active = topped_chance(topped_level(q, float(n - n_pilot), base), q, base)
            out[name] = (pilot | (rng.random(m) < active), 1.0 - (1.0 - base) * (1.0 - active))
            continue
        rest = q[~pilot].sum()
        pi = np.minimum(1.0, active_level(q[~pilot] / rest, float(n - n_pilot)) * q / rest)
        mask = pilot | (rng.random(m) < pi)
        out[name] = (mask, 1.0 - (1.0 - n_pilot / m) * (1.0 - pi))
    assert k == len(TRACE_METRICS)
    return out


def simulate(
    truth, judge, per_metric, expected, n, reps, rng, floor, shown, progress=0, pilot_max=PILOT, lean=False, topup=False
):
    """Per cell (design) and metric: normal covered/width, and for uniform and calibrated the shown interval's;
    *lean*: the shown intervals only (the normal ones NaN)."""
    m, k = truth.shape
    target = truth.mean(axis=0)
    normal = {d: {"cov": np.full((reps, k), np.nan), "width": np.full((reps, k), np.nan)} for d in CELLS}
    boot = {d: {"cov": np.zeros((reps, k)), "width": np.zeros((reps, k))} for d in ("uniform", "calibrated")}
    for r in range(reps):
        idx = rng.integers(0, truth.shape[0], m)
        y_all, f_all, cm, e = truth[idx], judge[idx], per_metric[idx], expected[idx]
        masks = {"uniform": (_uniform(rng, m, n), None)}
        masks.update(_calibrated_chances(y_all, f_all, cm, m, n, floor, rng, pilot_max, topup))
        q_or = weights_from_spread(np.sqrt((e / e.mean(axis=0)).mean(axis=1)), floor)
        pi_or = np.minimum(1.0, active_level(q_or, float(n)) * q_or)
        masks["oracle"] = (rng.random(m) < pi_or, pi_or)
        for d, (a, pi) in masks.items():
            for j in range(0 if lean else k):
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
            if d == "uniform":  # the app's estimate_mean per metric: Student's t around the cross-fitted estimate
                shown_ivs = [estimate_mean(y_all[a, j], f_all[a, j], f_all[~a, j]).ppi for j in range(k)]
            else:
                shown_ivs = []
                for j in range(k):  # the app's design_report: the t of the cross-fitted estimate
                    batch = (y_all[a, j], f_all[a, j], pi[a], f_all[~a, j])
                    tuned = ipw_ppi_ci(*batch, bounds=UNIT)
                    shown_ivs.append(crossfitted_active(tuned, *batch, UNIT, 0.05)[0].interval)
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
    parser.add_argument(
        "--floor", type=float, default=0.1, help="the oracle's floor and the fixed-floor calibrated design's"
    )
    parser.add_argument("--pilot", type=int, default=PILOT, help="the calibrated design's pilot: min(this, n/3)")
    parser.add_argument("--shown-for", default="informative,noise", help="confidences that get the shown interval")
    parser.add_argument("--confidences", default="informative,noise")
    parser.add_argument("--progress", type=int, default=0, help="print the running coverage every this many audits")
    parser.add_argument("--shard", type=int, default=-1, help="draw the audits from a stream of their own (>= 0)")
    parser.add_argument(
        "--added",
        dest="topup",
        action="store_false",
        help="the calibrated active part drawn on its own over the non-pilot examples, its chances added to the "
        "pilot's (the rule before the top-up; default: it tops the pilot's chance up, the app's)",
    )
    parser.add_argument(
        "--caution", type=float, default=FLOOR_CAUTION, help="pilot_floor's caution in standard errors (the app's)"
    )
    parser.add_argument("--lean", action="store_true", help="the shown intervals only (no normal ones, no oracle)")
    parser.add_argument("--cache", help="keep the simulated table in this .npz (made when missing)")
    parser.add_argument("--save", help="keep every audit's figures in this .npz (for --merge)")
    parser.add_argument("--merge", help="comma-separated .npz files of --save: print their audits together")
    args = parser.parse_args(argv)
    CAUTION[0] = args.caution
    start = time.perf_counter()
    cells: dict[tuple[str, int], list] = {}
    if args.merge:
        for path in args.merge.split(","):
            with np.load(path, allow_pickle=True) as saved:
                for key, value in saved["cells"].item().items():
                    cells.setdefault(key, []).extend(value)
    else:
        rng = np.random.default_rng(args.seed + 1)
        if args.cache and Path(args.cache).exists():
            with np.load(args.cache) as table:
                truth, judge, per_metric, expected = (table[k] for k in ("truth", "judge", "per_metric", "expected"))
        else:
            truth, judge, _subset, per_metric, expected = sampled_table(Path(args.data), args.seed, 0.5, 4, 24)
            if args.cache:
                np.savez(args.cache, truth=truth, judge=judge, per_metric=per_metric, expected=expected)
        shuffled = rng.permutation(per_metric.shape[0])
        if args.shard >= 0:
            rng = np.random.default_rng([args.seed + 1, args.shard])
        confidence = {"informative": per_metric, "noise": per_metric[shuffled]}
        for kind in args.confidences.split(","):
            shown = kind in args.shown_for.split(",")
            for n in (int(x) for x in args.sizes.split(",")):
                t0 = time.process_time()
                CHOSEN.clear()
                normal, boot = simulate(
                    truth, judge, confidence[kind], expected, n, args.reps, rng, args.floor, shown, args.progress,
                    args.pilot, args.lean, args.topup,
                )  # fmt: skip
                cells[(kind, n)] = [(normal, boot, shown, list(CHOSEN))]
                print(f"  ({kind} n={n}: {time.process_time() - t0:.0f} s CPU)", flush=True)
        if args.save:
            np.savez(args.save, cells=np.array(cells, dtype=object))
    print(f"floor {args.floor}; pilot min({args.pilot}, n/3)")
    print(
        f"{'confidence':<12}{'n':>6} {'audits':>7} {'metric':<13}{'unif cov (low)':>16}{'cal cov (low)':>16}"
        f"{'cal/unif shown':>16}{'cal/unif':>10}{'oracle/unif':>12}{'capture':>12}{'cal φ fixed/unif':>17}"
        f"{'normal cov u/c':>16}"
    )
    rows: list[dict] = []
    for (kind, n), parts in cells.items():
        normal = {d: {k: np.concatenate([p[0][d][k] for p in parts]) for k in ("cov", "width")} for d in CELLS}
        boot = {d: {k: np.concatenate([p[1][d][k] for p in parts]) for k in ("cov", "width")} for d in parts[0][1]}
        _report_cell(kind, n, normal, boot, parts[0][2], [f for p in parts for f in p[3]], rows)
    _targets(rows)
    print(f"{time.perf_counter() - start:.0f} s")
    return 0


def _spread(normal: dict, boot: dict, j: int, shown: bool, resamples: int = 400) -> tuple[float, float]:
    """Monte-Carlo SEs of the capture and of the shown width ratio of metric *j*: the bootstrap over the audits (each
    audit's designs share its population draw, so they are resampled together)."""
    rng = np.random.default_rng(12345)
    wu, wc, wo = (normal[d]["width"][:, j] for d in ("uniform", "calibrated", "oracle"))
    full = np.flatnonzero(np.isfinite(wu) & np.isfinite(wc) & np.isfinite(wo))
    captures, ratios = [], []
    for _ in range(resamples):
        if full.size > 1:
            pick = rng.choice(full, full.size)
            r_c, r_o = wc[pick].mean() / wu[pick].mean(), wo[pick].mean() / wu[pick].mean()
            captures.append((1 - r_c**2) / (1 - r_o**2) if r_o < 1 else math.nan)
        if shown:
            pick = rng.integers(0, boot["uniform"]["width"].shape[0], boot["uniform"]["width"].shape[0])
            ratios.append(boot["calibrated"]["width"][pick, j].mean() / boot["uniform"]["width"][pick, j].mean())
    return (float(np.nanstd(captures)) if captures else math.nan), (float(np.std(ratios)) if ratios else math.nan)


def _report_cell(kind: str, n: int, normal: dict, boot: dict, shown: bool, chosen: list, rows: list) -> None:
    reps = normal["uniform"]["cov"].shape[0]
    for j, metric in enumerate(TRACE_METRICS):
        w = {
            d: np.nanmean(normal[d]["width"][:, j]) if np.isfinite(normal[d]["width"][:, j]).any() else math.nan
            for d in CELLS
        }
        r_cal, r_or = w["calibrated"] / w["uniform"], w["oracle"] / w["uniform"]
        capture = (1 - r_cal**2) / (1 - r_or**2) if r_or < 1 else math.nan
        normals = int(np.isfinite(normal["uniform"]["width"][:, j]).sum())
        cov = {d: boot[d]["cov"][:, j].mean() for d in boot} if shown else {}
        shown_ratio = (
            boot["calibrated"]["width"][:, j].mean() / boot["uniform"]["width"][:, j].mean() if shown else math.nan
        )
        row = {
            "kind": kind,
            "n": n,
            "reps": reps,
            "normals": normals,
            "metric": metric,
            "cov_u": cov.get("uniform", math.nan),
            "cov_c": cov.get("calibrated", math.nan),
            "shown": shown_ratio,
            "cal": r_cal,
            "oracle": r_or,
            "capture": capture,
            "app_floor": w["cal_app_floor"] / w["uniform"],
            "ncov_u": np.nanmean(normal["uniform"]["cov"][:, j]) if np.isfinite(w["uniform"]) else math.nan,
            "ncov_c": np.nanmean(normal["calibrated"]["cov"][:, j]) if np.isfinite(w["uniform"]) else math.nan,
        }
        row["capture_se"], row["shown_se"] = _spread(normal, boot, j, shown)
        rows.append(row)
        shown_txt = f"{shown_ratio:.3f} ± {row['shown_se']:.3f}"
        capture_txt = f"{capture:.2f} ± {row['capture_se']:.2f}"
        cu = f"{100 * row['cov_u']:.1f} ({100 * _lower(row['cov_u'], reps):.1f})" if shown else "-"
        cc = f"{100 * row['cov_c']:.1f} ({100 * _lower(row['cov_c'], reps):.1f})" if shown else "-"
        print(
            f"{kind:<12}{n:>6} {reps:>7} {metric:<13}{cu:>16}{cc:>16}{shown_txt:>16}{r_cal:>10.3f}{r_or:>12.3f}"
            f"{capture_txt:>12}{row['app_floor']:>17.3f}"
            f"{100 * row['ncov_u']:>8.1f}/{100 * row['ncov_c']:.1f}",
            flush=True,
        )
    values, counts = np.unique(np.round(np.array(chosen), 2), return_counts=True)
    print(f"  ({kind} n={n}: floors chosen from the pilot {', '.join(f'{v:g}: {c}' for v, c in zip(values, counts))})")


def _targets(rows: list[dict]) -> None:
    """The restated target's checks, one line each: met or not, with the figures."""
    three = ("relevance", "utilization", "adherence")
    inf = [r for r in rows if r["kind"] == "informative"]
    mid = [r for r in inf if 100 <= r["n"] <= 300 and r["metric"] in three]
    if mid:
        worst = min(mid, key=lambda r: r["capture"])
        print(
            "target: capture >= 60 % of the oracle's variance reduction (3 metrics, n = 100-300): worst "
            f"{worst['capture']:.2f} ± {worst['capture_se']:.2f} ({worst['metric']} n={worst['n']})"
        )
        ratio = max(r["shown"] if not math.isnan(r["shown"]) else r["cal"] for r in mid)
        print(f"target: >= 10 % narrower than uniform (3 metrics, n = 100-300): widest ratio {ratio:.3f}")
    big = [r for r in inf if r["n"] == 1000]
    if big:
        ratios = [r["shown"] if not math.isnan(r["shown"]) else r["cal"] for r in big]
        print(f"target: >= 5 % narrower on 3 of 4 at n = 1,000: {sum(x <= 0.95 for x in ratios)} of 4 ({ratios})")
    noise = [r for r in rows if r["kind"] == "noise" and r["n"] >= 100]
    if noise:
        widest = max(noise, key=lambda r: r["shown"] if not math.isnan(r["shown"]) else r["cal"])
        print(
            "target: noise confidence <= 1.02 x uniform at n >= 100: widest "
            f"{widest['shown'] if not math.isnan(widest['shown']) else widest['cal']:.3f} ± {widest['shown_se']:.3f} "
            f"({widest['metric']} n={widest['n']})"
        )
    covs = [
        (r["kind"], r["n"], r["metric"], d, r[f"cov_{d[0]}"], r["reps"])
        for r in rows
        if r["n"] >= 100
        for d in ("uniform", "calibrated")
    ]
    covs = [c for c in covs if not math.isnan(c[4])]
    if covs:
        low = min(covs, key=lambda c: _lower(c[4], c[5]))
        print(
            f"target: coverage lower bound >= 93 % from n = 100: lowest {100 * _lower(low[4], low[5]):.1f} % "
            f"({low[0]} n={low[1]} {low[2]} {low[3]}: {100 * low[4]:.1f} %)"
        )


if __name__ == "__main__":
    sys.exit(main())
