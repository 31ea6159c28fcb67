"""Judge-version figures equal scikit-learn's on the same decisions, point and bootstrap interval alike; the
disagreement patterns count what differs."""

from __future__ import annotations

import random

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support

from ragviz.analysis.judge_compare.disagreements import JUDGE_NO, JUDGE_YES, describe, disagreement_patterns
from ragviz.analysis.judge_compare.figures import KINDS, kind_decisions, resample_weights, version_figures
from ragviz.data.model import Example, Labels, Provenance, Sentence, SentenceSupport
from ragviz.metrics.trace import trace_scores


def _example(i: int, rng: random.Random) -> Example:
    docs = tuple(
        tuple(Sentence(f"{d}{c}", f"s{d}{c}") for c in "abc"[: rng.randint(1, 3)]) for d in range(rng.randint(1, 3))
    )
    resp = tuple(Sentence(k, f"r{k}") for k in "abc"[: rng.randint(1, 3)])
    return Example(str(i), "alpha" if i % 2 else "beta", "q", (), docs, "r", resp, "g")


def _labels(example: Example, rng: random.Random, who: str) -> Labels:
    keys = example.context_keys()
    support = tuple(
        SentenceSupport(k, rng.random() < 0.7, tuple(c for c in keys if rng.random() < 0.3))
        for k in example.response_keys()
    )
    return Labels(
        relevant_keys=tuple(k for k in keys if rng.random() < 0.5),
        utilized_keys=tuple(k for k in keys if rng.random() < 0.3),
        support=support,
        provenance=Provenance("human" if who == "people" else "llm", who),
    )


def _triples(n: int, seed: int):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        ex = _example(i, rng)
        people = _labels(ex, rng, "people")
        judge = people if rng.random() < 0.3 else _labels(ex, rng, "judge")
        out.append((ex, people, judge))
    return out


def _sklearn(triples, kind):
    ref, cand = [], []
    for ex, people, judge in triples:
        r, c = kind_decisions(ex, people)[kind], kind_decisions(ex, judge)[kind]
        ref += [r[k] for k in r]
        cand += [c.get(k, False) for k in r]
    kappa = cohen_kappa_score(ref, cand) if len(set(ref) | set(cand)) > 1 else float("nan")
    p, r, f, _ = precision_recall_fscore_support(ref, cand, pos_label=True, average="binary", zero_division=np.nan)
    tnr = precision_recall_fscore_support(ref, cand, pos_label=False, average="binary", zero_division=np.nan)[1]
    return {"kappa": kappa, "precision": p, "recall": r, "f1": f, "tnr": tnr}


def _same(a, b):
    if a is None or (isinstance(b, float) and np.isnan(b)):
        return a is None and (b is None or np.isnan(b))
    return a == pytest.approx(float(b), abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_points_and_intervals_equal_scikit_learn(seed):
    triples = _triples(40, seed)
    n_resamples = 60
    figures = version_figures(triples, n_resamples=n_resamples, seed=seed)
    weights = resample_weights(len(triples), n_resamples, seed)
    for kind in KINDS:
        expected = _sklearn(triples, kind)
        got = figures.kinds[kind]
        for name, value in expected.items():
            assert _same(got.point[name], value), (kind, name)
        # κ: at least as wide as the 95 % percentiles of scikit-learn's κ on the resampled examples (the interval
        # widens them for few examples, and by the accuracy's bounds); the proportions: never of zero width
        kappas = []
        for w in weights:
            drawn = [t for t, times in zip(triples, w) for _ in range(int(times))]
            kappas.append(_sklearn(drawn, kind)["kappa"])
        finite = np.array([v for v in kappas if np.isfinite(v)])
        if got.point["kappa"] is not None and finite.size >= n_resamples * 0.5:
            low, high = np.quantile(finite, [0.025, 0.975])
            assert got.low["kappa"] <= low + 1e-9 and got.high["kappa"] >= high - 1e-9, kind
        for name in expected:
            if got.point[name] is not None:
                assert got.low[name] <= got.point[name] + 1e-9 <= got.high[name] + 2e-9, (kind, name)
                assert got.low[name] < got.high[name], (kind, name)
    # bias: the judge's mean minus people's, over the examples where both define the metric
    for metric, bias in figures.bias.items():
        pairs = [
            (
                getattr(trace_scores(j, ex.n_context_sentences), metric),
                getattr(trace_scores(p, ex.n_context_sentences), metric),
            )
            for ex, p, j in triples
        ]
        pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
        assert bias.bias == pytest.approx(np.mean([a for a, _ in pairs]) - np.mean([b for _, b in pairs]))
        assert bias.low <= bias.bias <= bias.high
    assert figures.too_few is None


def test_a_small_test_set_has_no_intervals_and_says_why():
    figures = version_figures(_triples(6, 4), n_resamples=60)
    assert figures.too_few == "too few reviewed to say (6 of 10)"
    for k in figures.kinds.values():
        assert all(v is None for v in k.low.values()) and all(v is None for v in k.high.values())
    assert all(b.low is None and b.high is None for b in figures.bias.values())


def test_disagreement_patterns_group_by_subset_kind_and_direction():
    triples = _triples(30, 9)
    patterns = disagreement_patterns(triples)
    total = {}
    for ex, people, judge in triples:
        ref, cand = kind_decisions(ex, people), kind_decisions(ex, judge)
        for kind in KINDS:
            for k, truth in ref[kind].items():
                said = cand[kind].get(k, False)
                if said != truth:
                    key = (ex.dataset, kind, JUDGE_YES if said else JUDGE_NO)
                    total[key] = total.get(key, 0) + 1
    assert {(p.subset, p.kind, p.direction): p.n_decisions for p in patterns} == total
    assert [p.n_decisions for p in patterns] == sorted((p.n_decisions for p in patterns), reverse=True)
    assert describe("relevant", JUDGE_YES) == "the judge said relevant where people said not relevant"
