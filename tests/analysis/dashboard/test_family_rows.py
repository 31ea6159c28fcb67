"""The Dashboard's Tonic, retrieval and answer views score the rows nobody decided on from their
columns and build Examples only for the others; the records and means are the ones every row's
Example gave (``family_records`` over all examples under the per-example label set), on the sample
data (all four families, direct chunk labels and gold overrides), a reviewed export and the RAGBench
shards, with decisions of two annotators and stored judge labels."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from ragviz.analysis.dashboard.families import ANSWER, RETRIEVAL, TONIC, family_means, family_records, family_view
from ragviz.analysis.dashboard.family_rows import row_records
from ragviz.analysis.labelsets.named import HUMAN
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.dataset import Dataset, iter_examples
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.export.files import write_jsonl
from ragviz.export.rows import export_rows
from ragviz.store.label_store import LabelStore
from tests.analysis.labelsets.test_row_labels import _decide, _reference_label_set
from tests.ragbench_data import SUBSETS, require_ragbench, shard
from tests.sample import SAMPLE_DATA


def _override(store, dataset):
    """A person's direct inputs: chunk labels, gold ids and a similarity score on a few rows."""
    for i in range(0, len(dataset), 4):
        ex = dataset.example(i)
        n_docs = len(ex.document_sentences)
        changes = [Change("answer_similarity", None, 2.5), Change("chunk_relevant", None, [True] * n_docs)]
        if ex.relevant_ids is not None:
            changes.append(Change("relevant_ids", None, list(ex.relevant_ids[:1])))
        store.record(ex.uid, "ann", changes)


def _check_views(dataset, store, families, ks=(1, 3)):
    examples = dict(iter_examples(dataset))
    for against in (HUMAN, LabelSelection.of("ann"), LabelSelection.of("bob")):
        reference = _reference_label_set(dataset, against, store, "all", examples).labels
        for family in families:
            view = family_view(dataset, None, against, store, family, ks)
            want = family_records(examples, {} if family == ANSWER else reference, family, ks)
            assert view.records == want, (against, family)
            assert [list(r) for r in view.records] == [list(r) for r in want]  # same columns, same order
            assert view.means == family_means(want, view.metrics)


def test_family_views_on_the_sample_equal_the_per_example_ones(tmp_path):
    dataset = load([SAMPLE_DATA]).dataset
    with LabelStore(tmp_path / "l.db") as store:
        _check_views(dataset, None, (TONIC, RETRIEVAL, ANSWER))
        _decide(store, dataset)
        _override(store, dataset)
        _check_views(dataset, store, (TONIC, RETRIEVAL, ANSWER))


def test_family_views_on_a_reviewed_export_equal_the_per_example_ones(tmp_path):
    dataset = load([SAMPLE_DATA]).dataset
    with LabelStore(tmp_path / "first.db") as first:
        _decide(first, dataset)
        _override(first, dataset)
        write_jsonl(export_rows(dataset, first, LabelSelection.of("ann")), tmp_path / "reviewed.jsonl")
    reviewed = load([tmp_path / "reviewed.jsonl"]).dataset
    with LabelStore(tmp_path / "second.db") as store:
        _check_views(reviewed, None, (TONIC, RETRIEVAL, ANSWER))
        for i in range(1, len(reviewed), 3):
            store.record(reviewed.example(i).uid, "bob", [Change("review", None, "reviewed")])
        _check_views(reviewed, store, (TONIC, RETRIEVAL))


def test_tonic_on_the_ragbench_shards_equals_the_per_example_one(tmp_path):
    require_ragbench()
    dataset = Dataset.concat(Dataset.from_table(pq.read_table(shard(s)), s, str(shard(s))) for s in SUBSETS)
    with LabelStore(tmp_path / "l.db") as store:
        _decide(store, dataset)
        _check_views(dataset, store, (TONIC,))


def test_row_records_refuse_a_family_without_a_row_function():
    with pytest.raises(ValueError, match="no row function"):
        list(row_records(Dataset.empty(), [], "trace"))
