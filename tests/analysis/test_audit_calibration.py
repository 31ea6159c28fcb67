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
    a, b = calibration.terms["adherence"]
    assert b > 0 and calibration.n_pilot == 40
    spread = calibrated_spread(calibration, {"adherence": np.array([0.4, 1.0])})
    assert spread[0] > 2 * spread[1]


def test_a_confidence_that_predicts_nothing_draws_a_uniform_sample() -> None:
    conf = np.tile([0.4, 1.0], 20)
    people = np.where(np.arange(40) % 8 < 2, 0.0, 1.0)  # errors equally often at either confidence
    calibration = calibrate({"adherence": (people, np.ones(40), conf)})
    assert calibration.terms["adherence"][1] == pytest.approx(0.0, abs=1e-12)
    uids = [f"u{i}" for i in range(200)]
    spread = dict(zip(uids, calibrated_spread(calibration, {"adherence": np.tile([0.4, 1.0], 100)}).tolist()))
    drawn = active_draw(uids, {}, 30, 7, 0.2, spread)
    assert {round(m.inclusion_probability, 12) for m in drawn.members} == {0.15}


def test_metrics_count_alike_whatever_their_scale() -> None:
    """Each metric's expected spread is divided by its mean: a metric on a small scale steers the draw as much."""
    cal = Calibration({"relevance": (0.0, 0.01), "adherence": (0.0, 1.0)}, 20)
    doubt = {"relevance": np.array([0.0, 1.0]), "adherence": np.array([1.0, 0.0])}
    spread = calibrated_spread(cal, {m: 1.0 - d for m, d in doubt.items()})
    assert spread[0] == pytest.approx(spread[1])
    assert weights_from_spread(spread, 0.5).tolist() == [0.5, 0.5]


def test_too_small_a_pilot_is_refused() -> None:
    with pytest.raises(CalibrationError, match=f"needs at least {MIN_PILOT}"):
        calibrate({"adherence": ([1.0] * 5, [1.0] * 5, [0.9] * 5)})
