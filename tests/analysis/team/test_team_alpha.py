"""Krippendorff's alpha of the team's sentence labels equals the `krippendorff` package's on the same data."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from ragviz.analysis.team.alpha import alpha_of_units


def _reference(examples):
    """The same units as a coders x units matrix (NaN where a coder gave no value)."""
    units = [u for ex in examples for u in ex]
    n_coders = max(len(u) for u in units)
    data = np.full((n_coders, len(units)), np.nan)
    for j, u in enumerate(units):
        for i, v in enumerate(u):
            if v is not None:
                data[i, j] = float(v)
    return krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")


@pytest.mark.parametrize("seed", range(6))
def test_alpha_equals_the_krippendorff_package(seed):
    rng = np.random.default_rng(seed)
    examples = []
    for _ in range(int(rng.integers(5, 40))):
        n_coders = int(rng.integers(2, 5))
        truth = rng.random(int(rng.integers(1, 12))) < 0.4
        units = []
        for t in truth:
            values: list[bool | None] = [bool(t) if rng.random() < 0.8 else bool(not t) for _ in range(n_coders)]
            values += [None] * (4 - n_coders)
            if rng.random() < 0.1:
                values[0] = None  # a missing value
            units.append(tuple(values))
        examples.append(units)
    ours = alpha_of_units(examples, "relevant", n_boot=200)
    assert ours.alpha == pytest.approx(_reference(examples), abs=1e-9)
    assert ours.low is not None and ours.high is not None and ours.low <= ours.alpha <= ours.high


def test_alpha_by_hand_and_undefined_cases():
    # two coders, four units: agree on 3 (1,1 / 0,0 / 1,1), differ on 1: n=8, n1=5, n0=3, D = 2*1*1/1 = 2
    examples = [[(True, True), (False, False)], [(True, True), (True, False)]]
    assert alpha_of_units(examples, n_boot=50).alpha == pytest.approx(1 - 7 * 2 / (64 - 25 - 9))
    assert alpha_of_units([[(True, True), (True, True)]]).alpha is None  # one value only: undefined
    assert alpha_of_units([[(True, None)]]).alpha is None  # nothing pairable
