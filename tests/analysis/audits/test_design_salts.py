"""Issue 36 item 2: each design ranks examples with a hash salted by the design, so a pilot (uniform) and an
active or stratified sample drawn with the same seed overlap as independent draws would; a sample drawn before
the salt keeps its ranking (no ``salt`` in its params: the unsalted hash)."""

from __future__ import annotations

import hashlib

import numpy as np

from ragviz.analysis.audits.designs import SALTS, active_draw, stratified_draw, uniform_draw

UIDS = [f"ex{i:04d}" for i in range(2000)]


def test_a_pilot_and_an_active_sample_of_one_seed_overlap_as_independent_draws():
    overlaps = []
    for seed in range(1, 41):
        pilot = set(uniform_draw(UIDS, 50, seed).uids)
        active = active_draw(UIDS, dict.fromkeys(UIDS, 0.7), 50, seed)  # equal chances: a uniform Poisson draw
        assert active.params["salt"] == SALTS["active"]
        overlaps.append(len(pilot & set(active.uids)))
    expected = 50 * 50 / len(UIDS)  # 1.25 examples in common on average
    assert abs(np.mean(overlaps) - expected) < 0.6  # 40 seeds: SE about 0.18
    assert max(overlaps) <= 7  # unsalted, every seed gave 50 of 50


def test_stratified_draws_are_salted_too():
    strata = {u: ("a" if i % 2 else "b") for i, u in enumerate(UIDS)}
    common = [
        len(set(uniform_draw(UIDS, 100, s).uids) & set(stratified_draw(UIDS, strata, 100, s).uids))
        for s in range(1, 21)
    ]
    assert np.mean(common) < 10  # independent: 5 on average; unsalted about 100


def test_a_sample_drawn_before_the_salt_keeps_its_ranking():
    confidence = {u: 0.5 + 0.5 * (i % 7) / 7 for i, u in enumerate(UIDS)}
    old = active_draw(UIDS, confidence, 60, 11, salt="")  # what a grown pre-salt sample is drawn with
    q = {m.uid: m.selection_weight for m in old.members}

    def unsalted(uid: str) -> float:  # the hash samples were drawn with before (sha256 of "<seed>:<uid>")
        top = int.from_bytes(hashlib.sha256(f"11:{uid}".encode()).digest()[:8], "big")
        return (top + 0.5) / 2.0**64

    keys = [unsalted(m.uid) / q[m.uid] for m in old.members]
    assert keys == sorted(keys) and all(k <= old.params["level"] for k in keys)
    assert old.params["salt"] == ""
    assert set(old.uids) != set(active_draw(UIDS, confidence, 60, 11).uids)
