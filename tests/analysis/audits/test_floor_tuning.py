"""The calibrated design's floor chosen from the pilot (issue 36 item 8) and the stratified design's cross-fitted λ
(item 5)."""

from __future__ import annotations

import numpy as np
import pytest

from ragviz.analysis.audits.floor_tuning import FLOORS, pilot_floor
from ragviz.analysis.audits.stratified import stratified_ppi_ci
from ragviz.analysis.audits.stratified_crossfit import crossfit_stratified_mean, crossfitted_stratified


def _judged(seed: int, informative: bool, m: int = 3000):
    """A 0/1 metric the judge says 1 on, wrong mostly where its confidence is below 0.3 (*informative*) or anywhere
    alike; and each example's chance of the judge being wrong."""
    rng = np.random.default_rng(seed)
    confidence = rng.random(m)
    p_wrong = np.where(confidence < 0.3, 0.6, 0.02) if informative else np.full(m, 0.2)
    people = np.where(rng.random(m) < p_wrong, 0.0, 1.0)
    return people, np.ones(m), confidence, p_wrong


def _choose(seed: int, informative: bool):
    people, judge, confidence, p_wrong = _judged(seed, informative)
    pilot = np.full(people.size, np.nan)
    pilot[:50] = people[:50]
    choice = pilot_floor({"adherence": pilot}, {"adherence": confidence}, {"adherence": judge}, 150)
    # the draw at the chosen floor, its chances from the pilot's calibration, against the known error variance
    from ragviz.analysis.audits.calibration import calibrate, calibrated_spread
    from ragviz.analysis.audits.designs import active_level, weights_from_spread

    cal = calibrate({"adherence": (people[:50], judge[:50], confidence[:50])})
    spread = calibrated_spread(cal, {"adherence": confidence}, {"adherence": judge})
    v, flat = p_wrong * (1 - p_wrong), 150 / people.size

    def true_relative(floor: float) -> float:
        q = weights_from_spread(spread, floor)
        pi = np.minimum(1.0, active_level(q, 150.0) * q)
        return float(v @ ((1 - pi) / pi)) / float(v.sum() * (1 - flat) / flat)

    return choice, true_relative(choice.floor), true_relative(0.5)


@pytest.mark.parametrize("seed", range(3))
def test_a_confidence_that_predicts_the_errors_gets_a_low_floor_and_a_narrower_draw(seed):
    choice, true_relative, at_default = _choose(seed, True)
    assert set(choice.relative) == set(FLOORS) and choice.floor <= 0.3
    assert choice.relative[choice.floor] < 0.85 and true_relative < min(0.85, at_default)


@pytest.mark.parametrize("seed", range(3))
def test_a_confidence_that_predicts_nothing_draws_about_as_a_uniform_audit(seed):
    # the pilot sees no pattern: every floor's draw is near uniform, and the one chosen is not wider than uniform
    choice, true_relative, _ = _choose(seed, False)
    assert choice.relative[choice.floor] > 0.97 and true_relative < 1.02


@pytest.mark.parametrize("seed", range(3))
def test_each_floors_estimate_has_its_standard_error_and_caution_counts_it(seed):
    # uniform (floor 1) is known exactly; the others are uncertain. A cautious choice minimises estimate + k SE: with a
    # confidence that predicts nothing it never draws below the floor the estimate alone picks, and a clear gain (an
    # informative confidence) survives it
    for informative in (False, True):
        people, judge, confidence, _ = _judged(seed, informative)
        pilot = np.full(people.size, np.nan)
        pilot[:50] = people[:50]
        args = ({"adherence": pilot}, {"adherence": confidence}, {"adherence": judge}, 150)
        plain, careful = pilot_floor(*args), pilot_floor(*args, caution=2.0)
        assert plain.relative == careful.relative and plain.se == careful.se
        assert plain.se[1.0] == pytest.approx(0.0, abs=1e-12) and plain.relative[1.0] == pytest.approx(1.0)
        assert all(plain.se[f] > 0 for f in FLOORS[:-1])
        upper = {f: careful.relative[f] + 2.0 * careful.se[f] for f in FLOORS}
        assert careful.floor == min(FLOORS, key=lambda f: (upper[f], -f)) and upper[careful.floor] <= 1.0 + 1e-12
        assert careful.floor >= plain.floor
        if informative:
            assert careful.floor <= 0.3


def test_too_small_a_pilot_keeps_the_fallback():
    people, judge, confidence, _ = _judged(0, True)
    pilot = np.full(people.size, np.nan)
    pilot[:12] = people[:12]
    choice = pilot_floor({"adherence": pilot}, {"adherence": confidence}, {"adherence": judge}, 150, fallback=0.5)
    assert choice.floor == 0.5 and choice.relative == {}


def _strata(seed: int):
    rng = np.random.default_rng(seed)
    m = 2000
    g = np.array(["a", "b", "c"])[rng.integers(0, 3, m)]
    truth = np.clip(rng.normal(0.3, 0.2, m) + (g == "b") * 0.3, 0, 1)
    judge = np.clip(truth + rng.normal(0.1, 0.15, m), 0, 1)
    audited = np.zeros(m, bool)
    for h in "abc":
        audited[rng.choice(np.flatnonzero(g == h), 40, replace=False)] = True
    return truth[audited], judge[audited], g[audited], judge[~audited], g[~audited]


@pytest.mark.parametrize("seed", range(3))
def test_the_stratified_cross_fit_moves_the_tuned_interval_to_its_estimate(seed):
    y, f, g, fu, gu = _strata(seed)
    tuned = stratified_ppi_ci(y, f, g, fu, gu, bounds=(0.0, 1.0))
    moved, lam = crossfitted_stratified(tuned, y, f, g, fu, gu, (0.0, 1.0))
    estimate, lam_bar = crossfit_stratified_mean(y, f, g, fu, gu)
    assert lam == lam_bar and moved.interval.estimate == pytest.approx(estimate, abs=1e-12)
    shift = estimate - tuned.interval.estimate
    assert moved.interval.low == pytest.approx(tuned.interval.low + shift, abs=1e-12)
    assert moved.interval.high == pytest.approx(tuned.interval.high + shift, abs=1e-12)


def test_the_stratified_cross_fit_with_one_lambda_everywhere_is_the_tuned_estimate(monkeypatch):
    # every fold tuning the same λ: the estimate is stratified PPI++'s at that λ, to rounding
    from ragviz.analysis.audits import stratified, stratified_crossfit

    monkeypatch.setattr(stratified, "pooled_lambda", lambda *_: 0.7)
    monkeypatch.setattr(stratified_crossfit, "pooled_lambda", lambda *_: 0.7)
    y, f, g, fu, gu = _strata(5)
    estimate, lam = crossfit_stratified_mean(y, f, g, fu, gu)
    assert lam == pytest.approx(0.7) and estimate == pytest.approx(
        stratified_ppi_ci(y, f, g, fu, gu, bounds=(0.0, 1.0)).interval.estimate, abs=1e-12
    )
