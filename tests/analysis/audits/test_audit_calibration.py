"""The active design calibrated on a pilot (issue 23, item 2): a confidence that predicts where people disagree
with the judge draws those examples more often; one that predicts nothing draws every example alike."""

from __future__ import annotations

import numpy as np
import pytest

from ragviz.analysis.audits.calibration import (
    MIN_PILOT,
    Calibration,
    CalibrationError,
    calibrate,
    calibrated_spread,
)
from ragviz.analysis.audits.designs import active_draw, weights_from_spread


def test_a_confidence_that_predicts_errors_draws_the_unsure_more_often() -> None:
    conf = np.tile([0.4, 1.0], 20)
    judge = np.ones(40)
    people = np.where((conf < 1) & (np.arange(40) % 4 == 0), 0.0, 1.0)  # the judge errs only where it is unsure
    calibration = calibrate({"adherence": (people, judge, conf)})
    assert calibration.n_pilot == 40 and calibration.terms["adherence"][1] > 0
    spread = calibrated_spread(calibration, {"adherence": np.array([0.4, 1.0])}, {"adherence": np.ones(2)})
    assert spread[0] > 2 * spread[1]


def test_a_confidence_that_predicts_nothing_draws_a_uniform_sample() -> None:
    conf = np.tile([0.4, 1.0], 20)
    people = np.where(np.arange(40) % 8 < 2, 0.0, 1.0)  # errors equally often at either confidence
    calibration = calibrate({"adherence": (people, np.ones(40), conf)})
    assert calibration.terms["adherence"][1] == pytest.approx(0.0, abs=1e-9)
    uids = [f"u{i}" for i in range(200)]
    conf_all, judge_all = {"adherence": np.tile([0.4, 1.0], 100)}, {"adherence": np.ones(200)}
    spread = dict(zip(uids, calibrated_spread(calibration, conf_all, judge_all).tolist()))
    drawn = active_draw(uids, {}, 30, 7, 0.2, spread)
    assert [m.inclusion_probability for m in drawn.members] == pytest.approx([0.15] * len(drawn.members))


def test_the_judges_own_value_steers_the_draw() -> None:
    """A judge that misses hallucinations errs only where it says "supported": the pilot learns that from the judge's
    value even where its confidence says nothing."""
    judge = np.tile([1.0, 0.0], 20)
    people = np.where((judge == 1) & (np.arange(40) % 4 == 0), 0.0, judge)
    calibration = calibrate({"adherence": (people, judge, np.full(40, 0.9))})
    spread = calibrated_spread(calibration, {"adherence": np.full(2, 0.9)}, {"adherence": np.array([1.0, 0.0])})
    assert spread[0] > 2 * spread[1]


def test_metrics_count_alike_whatever_their_scale() -> None:
    """Each metric's expected spread is divided by its mean: a metric on a small scale steers the draw as much."""
    cal = Calibration({"relevance": (0.0, 0.01, 0.0, 0.0, 0.0), "adherence": (0.0, 1.0, 0.0, 0.0, 0.0)}, 20)
    doubt = {"relevance": np.array([0.0, 1.0]), "adherence": np.array([1.0, 0.0])}
    spread = calibrated_spread(cal, {m: 1.0 - d for m, d in doubt.items()}, {m: np.ones(2) for m in doubt})
    assert spread[0] == pytest.approx(spread[1])
    assert weights_from_spread(spread, 0.5).tolist() == [0.5, 0.5]


def test_too_small_a_pilot_is_refused() -> None:
    with pytest.raises(CalibrationError, match=f"needs at least {MIN_PILOT}"):
        calibrate({"adherence": ([1.0] * 5, [1.0] * 5, [0.9] * 5)})


def test_one_batch_is_the_active_estimate_itself() -> None:
    from ragviz.analysis.audits.active import combined_ipw_ppi_ci, ipw_ppi_ci

    rng = np.random.default_rng(1)
    truth = rng.beta(3, 2, 800)
    judge = np.clip(truth + rng.normal(0.05, 0.1, 800), 0, 1)
    pi = np.where(rng.random(800) < 0.5, 0.05, 0.2)
    audited = rng.random(800) < pi
    batch = (truth[audited], judge[audited], pi[audited], judge[~audited])
    alone, combined = ipw_ppi_ci(*batch), combined_ipw_ppi_ci([batch])
    assert combined.interval == alone.interval and combined.variance == pytest.approx(alone.variance)


def test_a_pilot_and_an_active_sample_combined_cover_and_beat_either_alone() -> None:
    """A uniform pilot of 40 and an active sample of 60 drawn from a calibrated confidence, over 600 simulated
    audits: the combined 95 % interval covers 93-97 % of the time and is narrower than the active sample's alone."""
    from ragviz.analysis.audits.active import combined_ipw_ppi_ci, ipw_ppi_ci
    from ragviz.analysis.audits.designs import active_level

    rng = np.random.default_rng(7)
    m = 1500
    hard = rng.random(m) < 0.3
    truth = (rng.random(m) < 0.8).astype(float)
    judge = np.where(hard & (rng.random(m) < 0.4), 1.0 - truth, truth)
    conf = np.where(hard, 0.5, 0.95)
    covered, widths = [], []
    for _ in range(600):
        first = rng.random(m) < 40 / m
        pilot = calibrate({"adherence": (truth[first], judge[first], conf[first])})
        q = weights_from_spread(calibrated_spread(pilot, {"adherence": conf}, {"adherence": judge}), 0.1)
        pi = np.minimum(1.0, active_level(q, 60.0) * q)
        second = rng.random(m) < pi
        a = (truth[first], judge[first], np.full(first.sum(), 40 / m), judge[~first])
        b = (truth[second], judge[second], pi[second], judge[~second])
        both, alone = combined_ipw_ppi_ci([a, b], bounds=(0, 1)), ipw_ppi_ci(*b, bounds=(0, 1))
        assert both.interval.low is not None and both.interval.high is not None and alone.interval.high is not None
        covered.append(both.interval.low <= truth.mean() <= both.interval.high)
        widths.append((both.interval.high - both.interval.low, alone.interval.high - alone.interval.low))
    assert 0.93 <= np.mean(covered) <= 0.97
    both_width, alone_width = np.mean(widths, axis=0)
    assert both_width < alone_width


def test_a_pilot_members_own_spread_is_cross_fitted_so_its_own_residual_does_not_lower_its_weight() -> None:
    # issue 36 item 8: a confidence that predicts nothing, a pilot of 40 the calibration fits noise on. Fitted with
    # them, the members people and the judge disagreed on get a larger spread than the rest of the pilot (their own
    # residual pulled the fit up there); cross-fitted (crossfitted_spread) they do not, non-members keep theirs, and
    # every spread stays on the whole spread's scale
    from ragviz.analysis.audits.calibration import crossfitted_spread

    gaps = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        m = 1000
        conf, judge = rng.random(m), (rng.random(m) < 0.7).astype(float)
        people_all = np.where(rng.random(m) < 0.15, 1.0 - judge, judge)  # errors anywhere alike
        pilot = np.zeros(m, bool)
        pilot[rng.choice(m, 40, replace=False)] = True
        cal = calibrate({"adherence": (people_all[pilot], judge[pilot], conf[pilot])})
        people = {"adherence": np.where(pilot, people_all, np.nan)}
        own = calibrated_spread(cal, {"adherence": conf}, {"adherence": judge})
        crossed = crossfitted_spread(own, people, {"adherence": conf}, {"adherence": judge})
        assert np.array_equal(crossed[~pilot], own[~pilot])
        wrong = pilot & (people_all != judge)
        right = pilot & (people_all == judge)
        gaps.append((own[wrong].mean() - own[right].mean(), crossed[wrong].mean() - crossed[right].mean()))
    fitted, cross = np.mean(gaps, axis=0)
    assert fitted > 0 and cross < fitted / 2


def test_too_small_a_pilot_to_cut_keeps_its_spreads() -> None:
    from ragviz.analysis.audits.calibration import crossfitted_spread

    conf, judge = np.linspace(0, 1, 100), np.ones(100)
    people = {"adherence": np.where(np.arange(100) < 12, np.tile([0.0, 1.0], 50), np.nan)}
    cal = calibrate({"adherence": (people["adherence"][:12], judge[:12], conf[:12])})
    own = calibrated_spread(cal, {"adherence": conf}, {"adherence": judge})
    assert np.array_equal(crossfitted_spread(own, people, {"adherence": conf}, {"adherence": judge}), own)
