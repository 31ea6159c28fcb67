"""RagChecker family: the published example's aggregates, an independent NumPy oracle on random
label matrices, the loader's error messages, overrides."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragviz.data.checked_claims import CheckedItem, RetrievedChunk
from ragviz.data.formats.ragchecker import (
    RagCheckerFormatError,
    is_ragchecker_file,
    items_to_json,
    load_ragchecker,
    parse_ragchecker,
    read_ragchecker,
)
from ragviz.metrics.ragchecker import (
    RAGCHECKER_METRICS,
    aggregate,
    aggregate_reported,
    family_records,
    item_scores,
    reported,
)

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
EXAMPLE = SHARED / "ragchecker" / "checking_outputs.json"

PUBLISHED = {
    "precision": 76.4,
    "recall": 62.5,
    "f1": 68.3,
    "claim_recall": 61.4,
    "context_precision": 87.5,
    "context_utilization": 87.5,
    "noise_sensitivity_in_relevant": 19.1,
    "noise_sensitivity_in_irrelevant": 0.0,
    "hallucination": 4.5,
    "self_knowledge": 27.3,
    "faithfulness": 68.2,
}


def _example_path() -> Path:
    if not EXAMPLE.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{EXAMPLE} is missing in CI")
        pytest.skip(f"{EXAMPLE} not available")
    return EXAMPLE


@pytest.mark.conformance
def test_published_example_aggregates_ignoring_stored_metrics():
    path = _example_path()
    items = load_ragchecker(path)
    assert len(items) == 2
    assert aggregate_reported([item_scores(it) for it in items]) == PUBLISHED


@pytest.mark.conformance
def test_stored_metrics_are_never_used(tmp_path):
    data = json.loads(_example_path().read_text())
    for item in data["results"]:
        item["metrics"] = {name: 0.123 for name in RAGCHECKER_METRICS}
    data["metrics"] = {"overall_metrics": {"precision": 1.0}}
    poisoned = tmp_path / "poisoned.json"
    poisoned.write_text(json.dumps(data))
    assert aggregate_reported([item_scores(it) for it in load_ragchecker(poisoned)]) == PUBLISHED


# ---- an independent oracle: RagChecker's formulas transcribed onto NumPy arrays -----------------


def oracle(a2r, r2a, c2r, c2a, n_chunks):
    a2r = np.array(a2r, dtype=bool)
    r2a = np.array(r2a, dtype=bool)
    c2r = np.array(c2r, dtype=bool).reshape(len(a2r), n_chunks)
    c2a = np.array(c2a, dtype=bool).reshape(len(r2a), n_chunks)
    out = {}
    out["precision"] = a2r.mean() if a2r.size else 0.0
    out["recall"] = r2a.mean() if r2a.size else 0.0
    p, r = out["precision"], out["recall"]
    out["f1"] = 2 * p * r / (p + r) if p > 0 and r > 0 else 0.0
    has_retrieval = c2a.shape[0] > 0 and n_chunks > 0
    recalled = c2a.max(axis=1) if has_retrieval else None
    out["claim_recall"] = recalled.mean() if has_retrieval else 0.0
    out["context_precision"] = c2a.max(axis=0).mean() if has_retrieval else 0.0
    if has_retrieval and recalled.sum() > 0:
        out["context_utilization"] = (recalled & r2a).sum() / recalled.sum()
    else:
        out["context_utilization"] = 0.0
    if a2r.size and n_chunks and c2a.shape[0]:
        rel = c2a.max(axis=0, keepdims=True)
        rel_f = (rel & c2r).max(axis=1)
        irr_f = (~rel & c2r).max(axis=1) & ~rel_f
        out["noise_sensitivity_in_relevant"] = (rel_f & ~a2r).mean()
        out["noise_sensitivity_in_irrelevant"] = (irr_f & ~a2r).mean()
    else:
        out["noise_sensitivity_in_relevant"] = out["noise_sensitivity_in_irrelevant"] = 0.0
    if a2r.size and n_chunks:
        unfaithful = ~c2r.max(axis=1)
        out["hallucination"] = (unfaithful & ~a2r).mean()
        out["self_knowledge"] = (unfaithful & a2r).mean()
        out["faithfulness"] = c2r.max(axis=1).mean()
    else:
        out["hallucination"] = out["self_knowledge"] = out["faithfulness"] = 0.0
    return {k: float(v) for k, v in out.items()}


LABELS = st.sampled_from(["Entailment", "Neutral", "Contradiction", "entailment"])


@st.composite
def checked_items(draw, max_side=6):
    n_resp = draw(st.integers(0, max_side))
    n_gt = draw(st.integers(0, max_side))
    n_chunks = draw(st.integers(0, max_side))
    vec = lambda n: tuple(draw(st.lists(LABELS, min_size=n, max_size=n)))  # noqa: E731
    return CheckedItem(
        query_id=str(draw(st.integers(0, 999))),
        query="q",
        gt_answer="g",
        response="r",
        retrieved_context=tuple(RetrievedChunk(str(c), f"chunk {c}") for c in range(n_chunks)),
        response_claims=tuple(f"r{i}" for i in range(n_resp)),
        gt_answer_claims=tuple(("s", "p", f"o{j}") for j in range(n_gt)),
        answer2response=vec(n_resp),
        response2answer=vec(n_gt),
        retrieved2response=tuple(vec(n_chunks) for _ in range(n_resp)),
        retrieved2answer=tuple(vec(n_chunks) for _ in range(n_gt)),
    )


def _bools(item: CheckedItem):
    b = lambda v: [x == "Entailment" for x in v]  # noqa: E731
    return (
        b(item.answer2response),
        b(item.response2answer),
        [b(row) for row in item.retrieved2response],
        [b(row) for row in item.retrieved2answer],
        item.n_chunks,
    )


@settings(max_examples=300, deadline=None)
@given(checked_items())
def test_per_item_values_equal_the_numpy_oracle(item):
    assert item_scores(item).as_dict() == oracle(*_bools(item))


@settings(max_examples=40, deadline=None)
@given(st.lists(checked_items(), min_size=1, max_size=8))
def test_aggregate_is_the_mean_of_per_item_values(items):
    per_item = [oracle(*_bools(it)) for it in items]
    agg = aggregate([item_scores(it) for it in items])
    for name in RAGCHECKER_METRICS:
        assert agg[name] == pytest.approx(float(np.mean([p[name] for p in per_item])), abs=1e-12)
        assert 0.0 <= agg[name] <= 1.0


def test_only_exact_entailment_counts():
    item = CheckedItem(
        "1",
        "q",
        "g",
        "r",
        (RetrievedChunk("d", "t"),),
        ("a", "b"),
        ("c",),
        ("Entailment", "entailment"),
        ("Entailment ",),
        (("Entailment",), ("Neutral",)),
        (("Contradiction",),),
    )
    scores = item_scores(item)
    assert scores.precision == 0.5
    assert scores.recall == 0.0
    assert scores.faithfulness == 0.5


def test_empty_dimensions_give_zero_not_none():
    item = CheckedItem("1", "q", "g", "r", (), (), (), (), (), (), ())
    assert set(item_scores(item).as_dict().values()) == {0.0}


def test_reported_rounds_like_numpy():
    assert reported(0.19090909) == 19.1
    assert reported(0.00045) == 0.0
    assert reported(1.0) == 100.0
    assert reported(float(np.float64(0.3125))) == float(round(np.float64(0.3125) * 100, 1))


def test_override_recomputes():
    path = _example_path()
    item = load_ragchecker(path)[1]
    before = item_scores(item)
    flipped = item.with_label(
        "answer2response", 0, "Neutral" if item.answer2response[0] == "Entailment" else "Entailment"
    )
    after = item_scores(flipped)
    assert after.precision != before.precision
    assert abs(after.precision - before.precision) == pytest.approx(1 / len(item.response_claims))


def test_records_carry_id_dataset_and_all_eleven():
    records = list(family_records(load_ragchecker(_example_path())))
    assert [r["id"] for r in records] == ["0", "1"]
    assert all(r["dataset"] == "checking_outputs" for r in records)
    assert all(set(RAGCHECKER_METRICS) <= set(r) for r in records)


def test_round_trip_and_shape_sniffing(tmp_path):
    items = load_ragchecker(_example_path())
    out = tmp_path / "exported.json"
    out.write_text(json.dumps(items_to_json(items)))
    assert is_ragchecker_file(out)
    assert [item_scores(i) for i in load_ragchecker(out)] == [item_scores(i) for i in items]
    not_rc = tmp_path / "rows.json"
    not_rc.write_text(json.dumps([{"id": 1}]))
    assert not is_ragchecker_file(not_rc)


def _raw_item(**overrides):
    item = {
        "query_id": "7",
        "query": "q",
        "gt_answer": "g",
        "response": "r",
        "retrieved_context": [{"doc_id": "d0", "text": "t0"}, {"doc_id": "d1", "text": "t1"}],
        "response_claims": [["a", "b", "c"]],
        "gt_answer_claims": ["x", "y"],
        "answer2response": ["Entailment"],
        "response2answer": ["Neutral", "Entailment"],
        "retrieved2response": [["Entailment", "Neutral"]],
        "retrieved2answer": [["Neutral", "Neutral"], ["Entailment", "Contradiction"]],
    }
    item.update(overrides)
    return item


@pytest.mark.parametrize(
    "overrides, expected",
    [
        (
            {"answer2response": ["Entailment", "Neutral"]},
            "f.json:2: answer2response: has 2 labels but there are 1 response claims",
        ),
        (
            {"retrieved2answer": [["Neutral"], ["Entailment", "Neutral"]]},
            "f.json:2: retrieved2answer[0]: has 1 labels but there are 2 retrieved chunks",
        ),
        ({"retrieved2response": None}, "f.json:2: retrieved2response: missing"),
        (
            {"response_claims": [["a", 3]]},
            "f.json:2: response_claims[0]: a claim must be a string or a list of strings (a triplet)",
        ),
        (
            {"response2answer": ["Neutral", True]},
            "f.json:2: response2answer[1]: expected a label string such as 'Entailment', got true",
        ),
    ],
)
def test_bad_input_names_file_row_and_field(overrides, expected):
    with pytest.raises(RagCheckerFormatError) as err:
        parse_ragchecker({"results": [_raw_item(), _raw_item(**overrides)]}, "f.json")
    assert expected in [str(p) for p in err.value.problems]


def test_unknown_label_is_a_warning_and_counts_false():
    loaded = parse_ragchecker({"results": [_raw_item(answer2response=["entailed"])]}, "f.json")
    assert [str(w) for w in loaded.warnings] == [
        "f.json:1: answer2response[0]: label 'entailed' is not one of Entailment, Neutral, Contradiction; it counts as not entailed"
    ]
    assert item_scores(loaded.items[0]).precision == 0.0


def test_not_json_and_wrong_shape(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"results": [')
    with pytest.raises(RagCheckerFormatError) as err:
        read_ragchecker(bad)
    assert str(err.value).startswith(f"{bad}:1: json: not valid JSON")
    with pytest.raises(RagCheckerFormatError) as err:
        parse_ragchecker([1, 2], "x.json")
    assert str(err.value) == 'x.json:0: results: expected a JSON object {"results": [...]} (RagChecker checking output)'
