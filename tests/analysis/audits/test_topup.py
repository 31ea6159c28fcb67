"""The calibrated active sample drawn on top of its uniform pilot (issue 36 item 8, ragviz.analysis.audits.topup)."""

from __future__ import annotations

import numpy as np
import pytest

from ragviz.analysis.audits.designs import active_draw, unit_draw, weights_from_spread
from ragviz.analysis.audits.topup import topped_chance, topped_key, topped_level

UIDS = [f"u{i:03d}" for i in range(300)]
SPREAD = {u: (0.05 if i % 3 else 1.0) * (1 + i % 7) for i, u in enumerate(UIDS)}


def test_without_a_pilot_it_is_the_active_draw():
    plain = active_draw(UIDS, {}, 40, 5, 0.1, SPREAD)
    zero = active_draw(UIDS, {}, 40, 5, 0.1, SPREAD, base=0.0)
    assert plain == zero and "base" not in plain.params


def test_the_union_follows_the_rule_where_it_asks_more_than_the_pilot():
    base, budget = 20 / 300, 40.0
    q = weights_from_spread([SPREAD[u] for u in UIDS], 0.05)
    level = topped_level(q, budget, base)
    active = topped_chance(level, q, base)
    assert active.sum() == pytest.approx(budget, rel=1e-9)
    union = 1 - (1 - base) * (1 - active)
    assert union == pytest.approx(np.maximum(base, np.minimum(1.0, level * q)), rel=1e-9)
    assert (active == 0).any() and (active > 0).any()  # the pilot alone carries the low-spread examples
    drawn = active_draw(UIDS, {}, int(budget), 5, 0.05, SPREAD, base=base)
    assert drawn.params["base"] == base and drawn.params["level"] == pytest.approx(level)
    got = {m.uid: m.inclusion_probability for m in drawn.members}
    assert all(got[u] == pytest.approx(active[i]) for i, u in enumerate(UIDS) if u in got)
    assert all(active[UIDS.index(u)] > 0 for u in got)


def test_each_example_is_drawn_at_its_chance():
    """Over many seeds each example's share of draws is its topped-up chance (within 4 binomial SE)."""
    base, budget, seeds = 0.1, 30, 600
    q = weights_from_spread([SPREAD[u] for u in UIDS], 0.05)
    chance = topped_chance(topped_level(q, float(budget), base), q, base)
    counts = np.zeros(len(UIDS))
    for seed in range(seeds):
        members = set(active_draw(UIDS, {}, budget, seed, 0.05, SPREAD, base=base).uids)
        counts += [u in members for u in UIDS]
    se = np.sqrt(np.maximum(chance * (1 - chance), 1e-12) / seeds)
    assert np.all(np.abs(counts / seeds - chance) <= 4 * se + 1e-9)
    assert counts[chance == 0].sum() == 0


def test_a_larger_budget_keeps_every_member_and_the_keys_order_the_sample():
    base = 0.05
    small = active_draw(UIDS, {}, 30, 9, 0.1, SPREAD, base=base)
    large = active_draw(UIDS, {}, 60, 9, 0.1, SPREAD, base=base)
    assert set(small.uids) < set(large.uids)
    q = {m.uid: m.selection_weight for m in large.members}
    keys = [float(topped_key(unit_draw(9, u, "active:"), q[u], base)) for u in large.uids]
    assert keys == sorted(keys) and keys[-1] <= large.params["level"]
    # a partly drawn sample is the sample at the level of its next member's key: the members before it, exactly
    k = len(small.members)
    assert large.uids[:k] == small.uids and keys[k - 1] <= small.params["level"] < keys[k]
