"""Audit designs: reproducible from the seed, growable without losing members, inclusion probabilities that add up,
and bad input refused with a message that says what to do (issue 23, items 2, 3 and 7)."""

from __future__ import annotations

import numpy as np
import pytest

from ragviz.analysis.audits.active import ProbabilityError, ipw_ppi_ci
from ragviz.analysis.audits.designs import DesignError, active_draw, stratified_draw, uniform_draw
from ragviz.analysis.audits.stratified import StratumError, stratified_ppi_ci
from ragviz.analysis.estimates.ppi import ppi_mean_ci
from ragviz.store.audit_samples import draw_order

UIDS = [f"ex{i:04d}" for i in range(600)]
STRATA = {u: ("covidqa" if i < 400 else "hotpotqa" if i < 550 else "msmarco") for i, u in enumerate(UIDS)}
CONFIDENCE = {u: (0.98 if i % 3 else 0.55) for i, u in enumerate(UIDS)}


def test_uniform_draw_is_todays_draw() -> None:
    assert uniform_draw(UIDS, 50, 11).uids == draw_order(UIDS, 11)[:50]


def test_stratified_draw_reproducible_growable_and_proportional() -> None:
    small = stratified_draw(UIDS, STRATA, 60, 4)
    assert small.params["counts"] == {"covidqa": 40, "hotpotqa": 15, "msmarco": 5}
    assert stratified_draw(list(reversed(UIDS)), STRATA, 60, 4) == small
    grown = stratified_draw(UIDS, STRATA, 90, 4, current=small.params["counts"])
    assert set(small.uids) <= set(grown.uids) and len(grown.uids) == 90
    for m in grown.members:
        assert m.inclusion_probability == pytest.approx(
            grown.params["counts"][m.stratum] / grown.params["sizes"][m.stratum]
        )


def test_neyman_puts_the_audit_where_the_judge_is_unsure() -> None:
    spreads = {"covidqa": 0.05, "hotpotqa": 0.5, "msmarco": 0.5}
    d = stratified_draw(UIDS, STRATA, 60, 4, "neyman", spreads)
    assert d.params["counts"]["hotpotqa"] > 15 and d.params["counts"]["covidqa"] < 40


def test_active_draw_favours_unsure_examples_keeps_a_floor_and_grows() -> None:
    d = active_draw(UIDS, CONFIDENCE, 100, 8, floor=0.2)
    unsure = sum(1 for m in d.members if CONFIDENCE[m.uid] < 0.9)
    assert unsure > len(d.members) - unsure  # 1/3 of the examples, more than half of the sample
    probabilities = [m.inclusion_probability for m in d.members]
    assert min(probabilities) > 0 and max(probabilities) <= 1
    assert abs(len(d.members) - 100) < 40  # Poisson sampling: 100 on average
    grown = active_draw(UIDS, CONFIDENCE, 150, 8, floor=0.2)
    assert set(d.uids) <= set(grown.uids)
    assert active_draw(list(reversed(UIDS)), CONFIDENCE, 100, 8, floor=0.2) == d


def test_active_design_refuses_missing_confidence_and_a_zero_floor() -> None:
    partial = dict(CONFIDENCE)
    del partial["ex0007"]
    with pytest.raises(DesignError, match="no judge confidence.*ex0007"):
        active_draw(UIDS, partial, 50, 1)
    with pytest.raises(DesignError, match="inclusion probability 0"):
        active_draw(UIDS, CONFIDENCE, 50, 1, floor=0.0)


def test_stratified_design_refuses_too_small_an_audit_and_too_few_audited() -> None:
    with pytest.raises(DesignError, match="audit at least 6"):
        stratified_draw(UIDS, STRATA, 5, 1)
    y = np.array([1.0, 0.0, 1.0])
    with pytest.raises(StratumError, match="stratum b \\(1 audited\\).*at least two"):
        stratified_ppi_ci(y, y, ["a", "a", "b"], np.ones(10), ["a"] * 5 + ["b"] * 5)


def test_zero_inclusion_probability_is_refused() -> None:
    with pytest.raises(ProbabilityError, match="inclusion probability 0.0"):
        ipw_ppi_ci([1.0, 0.0], [1.0, 1.0], [0.5, 0.0], np.ones(10))


def test_one_stratum_without_bounds_is_ppi_plus_plus_with_sample_variances() -> None:
    rng = np.random.default_rng(1)
    y, f, fu = rng.random(40), rng.random(40), rng.random(300)
    ours = stratified_ppi_ci(y, f, ["x"] * 40, fu, ["x"] * 300).interval
    lam = float(np.cov(y, f, ddof=1)[0, 1] / ((1 + 40 / 300) * np.var(np.concatenate([f, fu]), ddof=1)))
    assert ours.estimate == pytest.approx(ppi_mean_ci(y, f, fu, lam=lam).estimate, abs=1e-12)


def test_intervals_stay_in_range_and_do_not_collapse_on_unanimous_audits() -> None:
    y = np.ones(12)
    strat = stratified_ppi_ci(y, y, ["a"] * 6 + ["b"] * 6, np.ones(200), ["a"] * 100 + ["b"] * 100, bounds=(0, 1))
    assert strat.interval.high == 1.0 and strat.interval.low is not None and strat.interval.low < 0.95
    act = ipw_ppi_ci(y, y, np.full(12, 0.06), np.ones(188), bounds=(0, 1))
    assert act.interval.high == 1.0 and act.interval.low is not None and act.interval.low < 0.95


def test_active_estimate_does_not_charge_a_judge_for_a_constant_bias() -> None:
    """A judge whose every value is off by the same amount carries the same information as one that is not: the
    centred IPW PPI++ gives the same interval for both, where glide-py's ASI (uncentred) pays the bias squared over
    each inclusion probability and comes out wider."""
    rng = np.random.default_rng(4)
    m = 2000
    truth = rng.beta(4, 2, m)
    judge = np.clip(truth + rng.normal(0, 0.08, m), 0, 1)
    pi = np.where(rng.random(m) < 0.3, 0.15, 0.04)
    audited = rng.random(m) < pi
    args = (truth[audited], pi[audited])

    def interval(offset: float, centred: bool) -> tuple[float, float]:
        f = judge - offset
        got = ipw_ppi_ci(args[0], f[audited], args[1], f[~audited], centred=centred).interval
        assert got.low is not None and got.high is not None
        return got.low, got.high

    fair, biased = interval(0.0, True), interval(0.3, True)
    assert biased == pytest.approx(fair, abs=1e-12)
    uncentred_fair, uncentred_biased = interval(0.0, False), interval(0.3, False)
    assert uncentred_biased[1] - uncentred_biased[0] > 1.1 * (uncentred_fair[1] - uncentred_fair[0])
    assert biased[1] - biased[0] < uncentred_biased[1] - uncentred_biased[0]
