"""Issue 27, how far the judge can be trusted: Cohen's kappa from confusion counts equals the kappa of the
decisions behind them, the agreement intervals are seeded and contain the point figure, and the verdicts say
what a reader needs."""

from __future__ import annotations

import numpy as np
import pytest

from ragviz.analysis.agreement import agreement
from ragviz.analysis.coverage import MIN_REVIEWED
from ragviz.analysis.estimates.estimate import estimate_mean
from ragviz.analysis.judge_trust import Bias, LabelTrust, label_trust, metric_bias, verdict
from ragviz.analysis.stats import binary_kappa, cohen_kappa, confusion
from ragviz.data.load import load
from ragviz.data.model import Labels
from tests.sample import SAMPLE_DATA


def test_binary_kappa_of_the_counts_is_cohens_kappa_of_the_decisions():
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        ref = list(rng.random(n) < rng.random())
        cand = list(rng.random(n) < rng.random())
        c = confusion(ref, cand)
        expected = cohen_kappa(ref, cand)
        got = float(binary_kappa(c.tp, c.fp, c.fn, c.tn))
        assert (np.isnan(got) and expected is None) or got == pytest.approx(expected, abs=1e-12)


@pytest.fixture(scope="module")
def triples():
    data = load([SAMPLE_DATA]).dataset
    out = []
    for i in range(len(data)):
        ex = data.example(i)
        if ex.judge_labels is None:
            continue
        people = ex.judge_labels if i % 3 else Labels(relevant_keys=ex.judge_labels.relevant_keys[1:])
        out.append((ex, people, ex.judge_labels))
    return out


def test_label_trust_is_the_dashboards_agreement_with_seeded_intervals(triples):
    few = label_trust(triples[:6])  # fewer reviewed examples than the minimum
    assert all(t.too_few == f"too few reviewed to say (6 of {MIN_REVIEWED})" for t in few.values())
    assert all(t.kappa_low is None and t.accuracy_low is None for t in few.values())
    many = triples * 2
    trust = label_trust(many)
    point = agreement(many)
    assert trust == label_trust(many)  # same labels, same intervals
    for label, t in trust.items():
        assert t.kappa == point.labels[label].kappa and t.n_decisions == point.labels[label].confusion.n
        assert t.too_few is None
        assert t.accuracy_low <= t.accuracy <= t.accuracy_high and t.accuracy_low < t.accuracy_high
        if t.kappa is not None:
            assert t.kappa_low <= t.kappa + 1e-9 and t.kappa <= t.kappa_high + 1e-9 and t.kappa_low < t.kappa_high
    assert trust["relevant"].accuracy < 1.0  # the people took relevant sentences away on every third example


def test_the_bias_is_judge_minus_corrected_with_the_corrected_interval():
    m = estimate_mean([1.0] * 70 + [0.0] * 30, [1.0] * 90 + [0.0] * 10, [1.0] * 360 + [0.0] * 40)
    b = metric_bias("adherence", m)
    assert b.bias == pytest.approx(m.judge - m.ppi.estimate) and b.bias > 0.1  # the judge says more
    assert (b.low, b.high) == pytest.approx((m.judge - m.ppi.high, m.judge - m.ppi.low))
    small = estimate_mean([0.0, 0.0, 1.0, 1.0, 0.0, 1.0], [1.0] * 6, [1.0] * 20)
    assert metric_bias("adherence", small).bias is None  # under 100 audited: no corrected figure, no bias


def _trust(kappa: float, low: float) -> LabelTrust:
    return LabelTrust("relevant", 300, 3000, kappa, low, min(kappa + 0.05, 1), 0.95, 0.93, 0.97)


@pytest.mark.parametrize(
    ("trust", "bias", "said"),
    [
        (None, None, "too few audited to say"),
        (_trust(0.8, 0.7), Bias("relevance", 0.06, 0.03, 0.09, 300), "biased upward by 6 points"),
        (_trust(0.8, 0.7), Bias("relevance", -0.012, -0.02, -0.004, 300), "biased downward by 1 point"),
        (_trust(0.8, 0.7), Bias("relevance", 0.01, -0.02, 0.04, 300), "reliable"),
        (_trust(0.45, 0.35), Bias("relevance", 0.01, -0.02, 0.04, 300), "agrees with people only moderately (κ 0.45)"),
        (_trust(0.8, 0.7), Bias("relevance", 0.01, -0.2, 0.2, 8), "too few audited to say (bias between −20 and +20"),
        (_trust(0.8, 0.7), Bias("relevance", 0.01, None, None, 1), "too few audited to say"),
    ],
)
def test_the_verdict_says_reliable_biased_or_too_few(trust, bias, said):
    assert said in verdict(trust, bias)
