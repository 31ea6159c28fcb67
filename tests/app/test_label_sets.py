"""The Compare page, the Dashboard's Tonic view and annotator agreement on 600 synthetic rows with a
few decisions of two people: they show what every row's Example gave, and build an Example only for
the rows people decided on (a person sees the same diff, the app no longer holds every row as Python
objects for it)."""

from __future__ import annotations

import pytest

import ragviz.data.dataset
import ragviz.data.ragbench
from ragviz.analysis.dashboard.families import TONIC, family_records, family_view
from ragviz.analysis.labelsets.diff import diff_label_sets
from ragviz.analysis.labelsets.named import HUMAN, JUDGE
from ragviz.analysis.team.kappas import annotator_agreement
from ragviz.data.dataset import iter_examples
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.analysis.labelsets.test_row_labels import _reference_label_set
from tests.apptest_helpers import open_page
from tests.synthetic import make_synthetic

N = 600


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    module = make_synthetic()
    out = tmp_path_factory.mktemp("syn") / "syn"
    return next(p for p in module.write(N, str(out), seed=5, batch=256, jsonl=False) if p.suffix == ".parquet")


@pytest.fixture
def built(monkeypatch):
    """How many Examples were built (every path goes through ``example_from_row``)."""
    count = [0]
    real = ragviz.data.ragbench.example_from_row

    def counting(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(ragviz.data.ragbench, "example_from_row", counting)
    monkeypatch.setattr(ragviz.data.dataset, "example_from_row", counting)
    return count


def _decide(store, dataset):
    decided = list(range(0, N, 50))
    for k, i in enumerate(decided):
        ex = dataset.example(i)
        store.record(ex.uid, ("tester", "ann")[k % 2], [Change("review", None, "reviewed")])
        store.record(ex.uid, ("ann", "tester")[k % 2], [Change("relevant_keys", list(ex.labels.relevant_keys), [])])
    return decided


def test_compare_page_shows_the_per_example_diff_and_builds_only_decided_examples(
    synthetic, app_env, monkeypatch, built
):
    dataset = load([synthetic]).dataset
    with LabelStore(app_env["db"]) as store:
        decided = _decide(store, dataset)
        examples = dict(iter_examples(dataset))
        want = diff_label_sets(
            dataset,
            _reference_label_set(dataset, JUDGE, store, built=examples),
            _reference_label_set(dataset, HUMAN, store, built=examples),
        )
    monkeypatch.setenv("RAGVIZ_DATA", str(synthetic))
    built[0] = 0
    at = open_page("pages/compare.py")
    assert [m.value for m in at.metric][:2] == [f"{len(decided):,}", f"{len(want):,}"]
    assert list(at.dataframe[0].value["uid"]) == [d.uid for d in want] and len(want) >= len(decided) // 2
    assert built[0] <= 3 * len(decided)  # never every row (600)


def test_tonic_view_and_annotator_agreement_build_only_decided_examples(synthetic, tmp_path, built):
    dataset = load([synthetic]).dataset
    with LabelStore(tmp_path / "l.db") as store:
        decided = _decide(store, dataset)
        examples = dict(iter_examples(dataset))
        reference = _reference_label_set(dataset, HUMAN, store, "all", examples).labels
        want_agreement = annotator_agreement(dataset, examples, store)
        built[0] = 0
        view = family_view(dataset, None, HUMAN, store, TONIC)
        assert built[0] <= len(decided)
        assert view.records == family_records(examples, reference, TONIC)
        built[0] = 0
        got = annotator_agreement(dataset, None, store)
        assert built[0] <= len(decided)
        assert got == want_agreement and got.has_pairs
