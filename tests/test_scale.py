"""Issue 11 (scale): the synthetic RAGBench generator loads cleanly; streamed exports, columnar
JSONL loading, the batched bootstrap and columnar triage give today's results."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ragviz.data.keys import context_key, response_key
from ragviz.data.load import load

ROOT = Path(__file__).resolve().parents[1]


def _make_synthetic():
    spec = importlib.util.spec_from_file_location("make_synthetic", ROOT / "benchmarks" / "make_synthetic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_synthetic", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """300 synthetic rows as Parquet and JSONL (small batches, so several batches are joined)."""
    out = tmp_path_factory.mktemp("syn") / "syn"
    paths = _make_synthetic().write(300, str(out), seed=3, batch=128)
    return {p.suffix[1:]: p for p in paths}


def test_synthetic_rows_load_without_problems_and_use_the_ragbench_key_scheme(synthetic):
    for fmt in ("parquet", "jsonl"):
        result = load(synthetic[fmt])
        assert result.errors == [] and result.warnings == [], fmt
        assert len(result.dataset) == 300
    dataset = load(synthetic["parquet"]).dataset
    for i in range(0, 300, 7):
        example = dataset.example(i)
        assert 1 <= len(example.document_sentences) <= 16
        for d, doc in enumerate(example.document_sentences):
            assert 1 <= len(doc) <= 550
            assert [s.key for s in doc] == [context_key(d, j) for j in range(len(doc))]
        assert 1 <= len(example.response_sentences) <= 26
        assert [s.key for s in example.response_sentences] == [
            response_key(j) for j in range(len(example.response_sentences))
        ]
        keys = set(example.context_keys())
        assert set(example.labels.relevant_keys) <= keys
        assert set(example.labels.utilized_keys) <= set(example.labels.relevant_keys)


def test_synthetic_rows_are_deterministic_by_seed(tmp_path):
    make = _make_synthetic()
    a = make.write(50, str(tmp_path / "a"), seed=1, jsonl=False)[0]
    b = make.write(50, str(tmp_path / "b"), seed=1, jsonl=False)[0]
    c = make.write(50, str(tmp_path / "c"), seed=2, jsonl=False)[0]
    assert pq.read_table(a).equals(pq.read_table(b))
    assert not pq.read_table(a).equals(pq.read_table(c))
