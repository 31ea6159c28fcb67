"""Retrieval ranking metrics against trec_eval semantics as served by ir-measures (the oracle)."""

from __future__ import annotations

import ir_measures
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_measures import RR, P, R, Success, nDCG

from ragviz.data.dataset import Dataset
from ragviz.metrics.retrieval import (
    compare_systems,
    family_records,
    gold_grades,
    mark_relevant,
    metric_names,
    parse_ks,
    retrieval_scores,
    systems_of,
)

KS = (1, 2, 3, 5, 10)
POOL = [f"d{i}" for i in range(12)]


def oracle(ranked: list[str], gold: dict[str, int], ks=KS) -> dict[str, float]:
    """ir-measures on one query; the run gets strictly decreasing scores by first occurrence."""
    docs = list(dict.fromkeys(ranked))
    run = {"q": {d: float(len(docs) - r) for r, d in enumerate(docs)}}
    qrels = {"q": dict(gold)}
    measures = [RR] + [m for k in ks for m in (R @ k, P @ k, Success @ k, nDCG @ k)]
    values = {str(m.measure): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    out = {"mrr": values["RR"]}
    for k in ks:
        out[f"recall@{k}"] = values[f"R@{k}"]
        out[f"precision@{k}"] = values[f"P@{k}"]
        out[f"hit@{k}"] = values[f"Success@{k}"]
        out[f"ndcg@{k}"] = values[f"nDCG@{k}"]
    return out


rankings = st.lists(st.sampled_from(POOL), min_size=1, max_size=14)
golds = st.dictionaries(st.sampled_from(POOL), st.integers(0, 3), min_size=1, max_size=8)


@settings(max_examples=250, deadline=None)
@given(rankings, golds)
def test_equals_ir_measures_graded(ranked, gold):
    ours = retrieval_scores(ranked, gold, KS)
    expected = oracle(ranked, gold)
    assert ours.keys() == expected.keys()
    for name, value in expected.items():
        assert ours[name] == pytest.approx(value, abs=1e-12), name


@settings(max_examples=100, deadline=None)
@given(rankings, st.lists(st.sampled_from(POOL), min_size=1, max_size=6, unique=True))
def test_equals_ir_measures_binary_relevant_ids(ranked, relevant_ids):
    gold = gold_grades(relevant_ids)
    ours = retrieval_scores(ranked, gold, KS)
    for name, value in oracle(ranked, gold).items():
        assert ours[name] == pytest.approx(value, abs=1e-12), name


def test_hand_computed_example():
    # relevant d1 (grade 2) and d3 (grade 1); d3 is never retrieved
    scores = retrieval_scores(["x", "d1", "d1", "y"], {"d1": 2, "d3": 1, "y": 0}, (1, 3))
    assert scores["mrr"] == 0.5
    assert scores["precision@3"] == pytest.approx(1 / 3)  # the repeated d1 counts once
    assert scores["recall@3"] == 0.5
    assert scores["hit@1"] == 0.0 and scores["hit@3"] == 1.0
    idcg = 2 / 1 + 1 / 1.584962500721156
    assert scores["ndcg@3"] == pytest.approx((2 / 1.584962500721156) / idcg)


def test_edge_cases():
    assert set(retrieval_scores([], {"a": 1}, (1, 5)).values()) == {0.0}
    assert set(retrieval_scores(["a"], {}, (1,)).values()) == {0.0}
    assert set(retrieval_scores(["a"], None, (1,)).values()) == {None}
    assert retrieval_scores(["a"], {"a": 1}, (10,))["precision@10"] == 0.1
    with pytest.raises(ValueError, match="relevant_grades: has 1 grades for 2 relevant ids"):
        gold_grades(["a", "b"], [1])


def test_parse_ks_and_names():
    assert parse_ks("5,1,3,1") == (1, 3, 5)
    with pytest.raises(ValueError, match="--k: 'x' is not a positive integer"):
        parse_ks("1,x")
    with pytest.raises(ValueError):
        parse_ks("0")
    assert metric_names((1,)) == ["mrr", "recall@1", "precision@1", "hit@1", "ndcg@1"]


def test_mark_relevant_becomes_gold():
    gold_ids = mark_relevant(("d1",), "d4", True)
    assert retrieval_scores(["d4", "d1"], gold_grades(gold_ids), (1,))["hit@1"] == 1.0
    assert mark_relevant(gold_ids, "d4", False) == ("d1",)
    assert mark_relevant(None, "d4", True) == ("d4",)


def test_systems_side_by_side_through_a_dataset(tmp_path):
    rows = [
        {
            "id": "q1",
            "retrieved_ids": ["a", "b"],
            "relevant_ids": ["b"],
            "retrieved_ids_by_system": {"bm25": ["a", "b"], "dense": ["b", "a"], "rrf": ["b", "c"]},
        },
        {
            "id": "q2",
            "retrieved_ids": ["c"],
            "relevant_ids": ["c", "d"],
            "relevant_grades": [2, 1],
            "retrieved_ids_by_system": {"bm25": ["c"], "dense": ["d", "c"], "rrf": None},
        },
        {"id": "q3", "retrieved_ids": ["c"], "relevant_ids": None},
    ]
    ds = Dataset.from_rows(rows, "demo", str(tmp_path / "demo.jsonl"))
    records = list(family_records(ds.iter_rows(), ds.datasets, ks=(1, 2)))
    assert [(r["id"], r["system"]) for r in records] == [
        ("q1", "bm25"),
        ("q1", "dense"),
        ("q1", "rrf"),
        ("q2", "bm25"),
        ("q2", "dense"),
        ("q3", "default"),
    ]
    assert records[-1]["mrr"] is None
    table = {row["system"]: row for row in compare_systems(records, ks=(1, 2))}
    assert table.keys() == {"bm25", "dense", "rrf"}  # q3 has no gold: not scored
    assert table["bm25"]["n"] == 2 and table["rrf"]["n"] == 1
    assert table["bm25"]["mrr"] == pytest.approx((0.5 + 1.0) / 2)
    assert table["dense"]["mrr"] == 1.0
    assert table["dense"]["recall@1"] == pytest.approx((1.0 + 0.5) / 2)


def test_systems_of_accepts_json_text():
    assert systems_of(None, '{"bm25": ["a", 1]}') == {"bm25": ["a", "1"]}
    assert systems_of(None, None) == {}


def test_one_pass_scores_equal_the_single_metric_functions_exactly():
    """retrieval_scores (one pass for every k) and the per-metric functions are the same sums."""
    import random

    from ragviz.metrics.retrieval import (
        first_occurrences,
        hit_at_k,
        ndcg_at_k,
        precision_at_k,
        recall_at_k,
        reciprocal_rank,
        retrieval_scores,
    )

    rng = random.Random(11)
    for _ in range(300):
        pool = [f"d{i}" for i in range(12)]
        ranked = [rng.choice(pool) for _ in range(rng.randint(0, 15))]
        gold = {d: rng.choice([0, 1, 1, 2, 3]) for d in rng.sample(pool, rng.randint(0, 6))}
        ks = tuple(sorted(rng.sample(range(1, 20), rng.randint(1, 4))))
        got = retrieval_scores(ranked, gold, ks)
        docs = first_occurrences(ranked)
        assert got["mrr"] == reciprocal_rank(docs, gold)
        for k in ks:
            assert got[f"recall@{k}"] == recall_at_k(docs, gold, k)
            assert got[f"precision@{k}"] == precision_at_k(docs, gold, k)
            assert got[f"hit@{k}"] == hit_at_k(docs, gold, k)
            assert got[f"ndcg@{k}"] == ndcg_at_k(docs, gold, k)
