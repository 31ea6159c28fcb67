"""The design estimators against their references: stratified PPI++ = glide-py 0.11's StratifiedPPIMeanEstimator,
IPW PPI++ = its ASIMeanEstimator (point estimates and 95 % intervals, to 1e-9; the centred IPW PPI++ the app uses =
ASIMeanEstimator over the audit's Hájek-centred values, shifted back), Neyman / proportional allocation =
ssepy 0.1.1's rounded counts.

glide-py needs Python >= 3.12 and ragviz runs on 3.10+, so the references live in their own venv
(``scripts/reference_venv.sh`` builds ``.venv-reference``; ``RAGVIZ_REFERENCE_PYTHON`` names another interpreter)
and answer through ``tests/analysis/audits/glide_reference.py`` over JSON. Without that venv these tests are skipped and
say why.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragviz.analysis.audits.active import hajek_mean, ipw_people_ci, ipw_ppi_ci
from ragviz.analysis.audits.allocation import allocate, allocation_shares
from ragviz.analysis.audits.stratified import stratified_ppi_ci
from tests.sample import ROOT

REFERENCE = Path(os.environ.get("RAGVIZ_REFERENCE_PYTHON", ROOT / ".venv-reference" / "bin" / "python"))
TOL = 1e-9

pytestmark = pytest.mark.skipif(
    not REFERENCE.is_file(),
    reason=f"no reference venv at {REFERENCE} (glide-py 0.11 needs Python >= 3.12): run scripts/reference_venv.sh",
)


def _reference(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    done = subprocess.run(
        [str(REFERENCE), str(ROOT / "tests" / "analysis" / "audits" / "glide_reference.py")],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout)


def _stratified_case(rng: np.random.Generator) -> tuple[dict[str, Any], tuple[Any, ...]]:
    k = int(rng.integers(2, 5))
    sizes = rng.integers(20, 200, size=k)
    groups = np.repeat(np.arange(k), sizes)
    truth = rng.random(groups.size) < rng.uniform(0.3, 0.9, size=k)[groups]
    yhat = np.clip(truth + rng.normal(0, rng.uniform(0.1, 0.6), groups.size), 0, 1)
    audited = np.zeros(groups.size, dtype=bool)
    for h in range(k):
        idx = np.flatnonzero(groups == h)
        audited[rng.choice(idx, size=int(rng.integers(3, idx.size // 2)), replace=False)] = True
    y = truth.astype(float)
    case = {
        "kind": "stratified",
        "y": [float(v) if a else None for v, a in zip(y, audited)],
        "yhat": yhat.tolist(),
        "groups": groups.tolist(),
    }
    ours = (y[audited], yhat[audited], groups[audited].astype(str), yhat[~audited], groups[~audited].astype(str))
    return case, ours


def _active_case(rng: np.random.Generator) -> tuple[dict[str, Any], tuple[Any, ...]]:
    m = int(rng.integers(100, 800))
    truth = rng.random(m) < rng.uniform(0.2, 0.9)
    yhat = np.clip(truth + rng.normal(0, 0.4, m), 0, 1)
    pi = np.clip(rng.uniform(0.05, 0.6, m), 0.05, 1.0)
    audited = rng.random(m) < pi
    y = truth.astype(float) + rng.normal(0, 0.1, m)
    case = {
        "kind": "active",
        "y": [float(v) if a else None for v, a in zip(y, audited)],
        "yhat": yhat.tolist(),
        "pi": pi.tolist(),
    }
    return case, (y[audited], yhat[audited], pi[audited], yhat[~audited])


def _centred(case: dict[str, Any], ours: tuple[Any, ...]) -> tuple[dict[str, Any], float]:
    """The case with people's and the judge's values centred on the audit's Hájek means, and people's mean."""
    y, yhat, pi, _ = ours
    shift_y, shift_f = hajek_mean(y, pi), hajek_mean(yhat, pi)
    centred_y = [None if v is None else v - shift_y for v in case["y"]]
    return {**case, "y": centred_y, "yhat": (np.array(case["yhat"]) - shift_f).tolist()}, shift_y


def _assert_equal(got: Any, ref: dict[str, Any], shift: float = 0.0) -> None:
    assert got.estimate == pytest.approx(ref["estimate"] + shift, abs=TOL)
    assert got.low == pytest.approx(ref["low"] + shift, abs=TOL)
    assert got.high == pytest.approx(ref["high"] + shift, abs=TOL)


def test_stratified_and_active_equal_glide_on_random_inputs() -> None:
    rng = np.random.default_rng(23)
    stratified = [_stratified_case(rng) for _ in range(25)]
    active = [_active_case(rng) for _ in range(25)]
    centred = [_centred(case, ours) for case, ours in active]
    people = [{**case, "kind": "ipw_classical"} for case, _ in centred]
    answers = _reference([c for c, _ in stratified] + [c for c, _ in active] + [c for c, _ in centred] + people)
    for (_, args), ref in zip(stratified, answers[:25]):
        _assert_equal(stratified_ppi_ci(*args).interval, ref)
    for (_, args), ref in zip(active, answers[25:50]):
        _assert_equal(ipw_ppi_ci(*args, centred=False).interval, ref)
    for (_, args), (_, shift), ref in zip(active, centred, answers[50:75]):
        _assert_equal(ipw_ppi_ci(*args).interval, ref, shift)
    for (_, args), (_, shift), ref in zip(active, centred, answers[75:]):
        y, _, pi, yhat_u = args
        _assert_equal(ipw_people_ci(y, pi, y.size + yhat_u.size)[0], ref, shift)


def test_allocation_equals_ssepy() -> None:
    """ssepy rounds the shares with np.round and hands any left-over out at random; ours settles it by the largest
    remainder. Where rounding leaves nothing over the counts are equal; always within one per stratum."""
    rng = np.random.default_rng(5)
    cases, ours = [], []
    for i in range(40):
        k = int(rng.integers(2, 6))
        sizes = rng.integers(30, 400, size=k)
        groups = np.repeat(np.arange(k), sizes)
        budget = int(rng.integers(4 * k, min(200, int(sizes.sum()) // 2)))
        variances = rng.uniform(0.05, 0.25, size=k) if i % 2 else None
        allocation = "neyman" if variances is not None else "proportional"
        cases.append(
            {
                "kind": "neyman",
                "yhat": rng.random(groups.size).tolist(),
                "groups": groups.tolist(),
                "budget": budget,
                "allocation": allocation,
                "variances": None if variances is None else variances.tolist(),
            }
        )
        spreads = None if variances is None else np.sqrt(variances)
        exact = allocation_shares(sizes, spreads) * budget
        ours.append(
            (
                allocate(budget, sizes.tolist(), None if spreads is None else spreads.tolist(), minimum=0),
                int(np.round(exact).sum()) == budget,
            )
        )
    exact_matches = 0
    for case, (mine, no_leftover), ref in zip(cases, ours, _reference(cases)):
        assert sum(mine) == case["budget"]  # ssepy's rounding may overshoot the budget by one a stratum; ours never
        assert max(abs(a - b) for a, b in zip(mine, ref["counts"])) <= 1
        if no_leftover:
            assert mine == ref["counts"]
            exact_matches += 1
    assert exact_matches >= 10
