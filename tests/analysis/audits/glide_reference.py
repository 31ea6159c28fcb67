"""Runs inside the reference venv (Python >= 3.12, scripts/reference_venv.sh), never imported by ragviz's tests:
reads cases as JSON on stdin, answers with glide-py 0.11's and ssepy 0.1.1's figures as JSON on stdout."""

from __future__ import annotations

import json
import sys

import numpy as np
from glide.estimators import ASIMeanEstimator, IPWClassicalMeanEstimator, StratifiedPPIMeanEstimator
from ssepy.model_performance_evaluator import StratifiedSampler


def _interval(result):
    ci = result.confidence_interval
    low, high = ci.lower_bound, ci.upper_bound
    return {
        "estimate": float(ci.mean),
        "low": float(low),
        "high": float(high),
        "ess": int(getattr(result, "effective_sample_size", getattr(result, "n", 0))),
    }


def stratified(case):
    y = np.array([np.nan if v is None else v for v in case["y"]], dtype=float)
    return _interval(StratifiedPPIMeanEstimator().estimate(y, np.array(case["yhat"]), np.array(case["groups"])))


def active(case):
    y = np.array([np.nan if v is None else v for v in case["y"]], dtype=float)
    return _interval(ASIMeanEstimator().estimate(y, np.array(case["yhat"]), np.array(case["pi"])))


def ipw_classical(case):
    y = np.array([np.nan if v is None else v for v in case["y"]], dtype=float)
    return _interval(IPWClassicalMeanEstimator().estimate(y, np.array(case["pi"])))


def neyman(case):
    sampler = StratifiedSampler(np.array(case["yhat"], dtype=float), case["budget"])
    sampler.strata_labels = np.array(case["groups"])
    np.random.seed(0)
    variances = None if case.get("variances") is None else np.array(case["variances"], dtype=float)
    sampler.allocate_budget(case["allocation"], variances)
    return {"counts": [int(c) for c in sampler.samples_per_stratum]}


def main() -> None:
    cases = json.load(sys.stdin)
    kinds = {"stratified": stratified, "active": active, "ipw_classical": ipw_classical, "neyman": neyman}
    json.dump([kinds[c["kind"]](c) for c in cases], sys.stdout)


if __name__ == "__main__":
    main()
