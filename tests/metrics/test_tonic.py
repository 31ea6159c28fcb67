"""Tonic Validate family: chunk labels derived from sentence keys or set directly, edge cases, and
agreement with TRACe adherence on the real RAGBench rows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragviz.data.dataset import Dataset
from ragviz.data.model import Labels, SentenceSupport
from ragviz.metrics.registry import dataset_family_records
from ragviz.metrics.tonic import TONIC_METRICS, example_tonic, family_records, tonic_scores

SHARED = Path(__file__).resolve().parents[2].parent / "shared"


def _labels(relevant=(), utilized=(), unsupported=None, support=()):
    return Labels(
        relevant_keys=tuple(relevant),
        utilized_keys=tuple(utilized),
        unsupported_keys=unsupported,
        support=tuple(support),
    )


def test_derived_from_sentence_keys():
    labels = _labels(["0a", "0b", "2c"], ["0b", "1a"], unsupported=("b",))
    s = tonic_scores(labels, 4, ["a", "b", "c"], answer_similarity=4)
    assert s.retrieval_precision == 0.5  # docs 0 and 2 of 4
    assert s.augmentation_accuracy == 0.5  # docs 0 and 1
    assert s.augmentation_precision == 0.5  # doc 0 of {0, 2}
    assert s.answer_consistency == pytest.approx(2 / 3)
    assert s.answer_consistency_binary == 0.0
    assert s.answer_similarity == 4.0
    assert s.overall == pytest.approx((0.5 + 0.5 + 0.5 + 2 / 3 + 0.0 + 0.8) / 6)


def test_direct_chunk_labels_win_and_edge_cases():
    labels = _labels(["0a"], ["0a"], unsupported=())
    s = tonic_scores(labels, 2, ["a"], chunk_relevant=[False, False], chunk_used=[True, True])
    assert (s.retrieval_precision, s.augmentation_accuracy, s.augmentation_precision) == (0.0, 1.0, 0.0)
    assert s.answer_consistency_binary == 1.0
    empty = tonic_scores(_labels(), 0, [])
    assert empty.retrieval_precision is None and empty.answer_consistency is None and empty.overall is None
    assert set(tonic_scores(None, 3, ["a"]).as_dict().values()) == {None}


def test_support_derived_when_no_stored_unsupported_list():
    labels = _labels(
        support=[
            SentenceSupport("a", True, ("0a",)),
            SentenceSupport("b", None, ()),
            SentenceSupport("c", False, ("0a",)),
        ]
    )
    s = tonic_scores(labels, 1, ["a", "b", "c"])
    assert s.answer_consistency == pytest.approx(1 / 3)


def test_rows_with_direct_fields_through_a_dataset(tmp_path):
    rows = [
        {
            "id": "x",
            "documents_sentences": [[["0a", "s"]], [["1a", "t"]]],
            "response_sentences": [["a", "r"]],
            "all_relevant_sentence_keys": ["0a"],
            "all_utilized_sentence_keys": ["0a"],
            "unsupported_response_sentence_keys": [],
            "chunk_relevant": [True, True],
            "answer_similarity": 5.0,
        }
    ]
    ds = Dataset.from_rows(rows, "demo", str(tmp_path / "d.jsonl"))
    (rec,) = dataset_family_records("tonic", ds)
    assert rec["retrieval_precision"] == 1.0 and rec["augmentation_precision"] == 0.5
    assert rec["overall"] == pytest.approx((1.0 + 0.5 + 0.5 + 1.0 + 1.0 + 1.0) / 6)
    with pytest.raises(ValueError, match="^:1: chunk_relevant: has 1 chunk labels but there are 2 documents$"):
        list(family_records([{**rows[0], "chunk_relevant": [True]}], [2]))


def _ragbench_dataset() -> Dataset:
    path = SHARED / "ragbench" / "covidqa" / "test-00000-of-00001.parquet"
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} missing in CI")
        pytest.skip("RAGBench data not available")
    from ragviz.data.load import load

    return load([str(path)]).dataset


@pytest.mark.conformance
def test_columnar_records_equal_per_example_and_agree_with_adherence():
    ds = _ragbench_dataset()
    records = list(dataset_family_records("tonic", ds))
    trace = list(dataset_family_records("trace", ds))
    assert len(records) == len(ds) > 0
    for i in range(0, len(ds), 7):
        ex = ds.example(i)
        assert example_tonic(ex).as_dict() == {k: v for k, v in records[i].items() if k not in ("id", "dataset")}
    for rec, tr, i in zip(records, trace, range(len(ds))):
        ex_unsupported = set(ds.row(i)["unsupported_response_sentence_keys"] or ())
        if ex_unsupported <= {k for k, _ in ds.row(i)["response_sentences"]}:
            assert rec["answer_consistency_binary"] == tr["adherence"]


def _columnar(dataset):
    import numpy as np

    from ragviz.analysis.dashboard.family_rows import _document_counts, tonic_columns

    values = tonic_columns(dataset.table, _document_counts(dataset))
    assert values is not None
    return [
        {m: (None if np.isnan(values[m][i]) else float(values[m][i])) for m in TONIC_METRICS}
        for i in range(len(dataset))
    ]


def test_tonic_on_columns_equals_tonic_scores_on_the_ragbench_shards():
    """tonic_columns gives the very floats tonic_scores gives, example by example (2,896 real rows)."""
    import pyarrow.parquet as pq

    from ragviz.data.dataset import Dataset, iter_examples
    from tests.ragbench_data import SUBSETS, require_ragbench, shard

    require_ragbench()
    dataset = Dataset.concat(Dataset.from_table(pq.read_table(shard(s)), s, str(shard(s))) for s in SUBSETS)
    got = _columnar(dataset)
    for i, ex in iter_examples(dataset):
        assert got[i] == example_tonic(ex).as_dict(), i


def test_tonic_on_columns_edge_cases():
    """Unlabeled rows, no document, keys naming no document (or with a dot), duplicates, a response
    key stored unsupported twice, similarity set or null: the same as tonic_scores."""
    import pyarrow as pa

    from ragviz.data.dataset import Dataset, iter_examples

    doc = [["0a", "x"], ["0b", "y"]]
    rows = [
        {
            "id": "1",
            "documents_sentences": [doc, [["1a", "z"]]],
            "response_sentences": [["a", "r"], ["b", "s"]],
            "all_relevant_sentence_keys": ["0a", "0a", "7c", "1a.", "junk"],
            "all_utilized_sentence_keys": ["0b"],
            "unsupported_response_sentence_keys": ["b", "b"],
            "answer_similarity": 4.0,
        },
        {"id": "2", "documents_sentences": [doc], "response_sentences": [["a", "r"]], "answer_similarity": 3.0},
        {
            "id": "3",
            "documents_sentences": [],
            "response_sentences": [],
            "all_relevant_sentence_keys": [],
            "all_utilized_sentence_keys": [],
            "answer_similarity": None,
        },
        {
            "id": "4",
            "documents_sentences": [doc],
            "response_sentences": [["a", "r"], ["a", "r"]],
            "all_relevant_sentence_keys": [],
            "all_utilized_sentence_keys": ["0a"],
            "sentence_support_information": [
                {
                    "response_sentence_key": "a",
                    "fully_supported": None,
                    "supporting_sentence_keys": [],
                    "explanation": "",
                }
            ],
        },
        {"id": "5", "documents_sentences": [doc], "response_sentences": [["a", "r"]]},
    ]
    dataset = Dataset(
        pa.Table.from_pylist([{**r, "_subset": "s", "_path": "p", "_row": k} for k, r in enumerate(rows)])
    )
    got = _columnar(dataset)
    for i, ex in iter_examples(dataset):
        assert got[i] == example_tonic(ex).as_dict(), i
