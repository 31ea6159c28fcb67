"""One definition of "the judge's labels" (ragviz.analysis.labelsets.named.judge_labels): the store's latest judge
label set, else Example.judge_labels — never labels a person made. Checked on a reviewed export
without llm_ columns through the core, the export, the Dashboard/Compare label sets and the Review
page (judge column "—", reset returns to the labels the file carried)."""

from __future__ import annotations

import json
from pathlib import Path

from ragviz.analysis.labelsets.named import (
    JUDGE,
    judge_labels,
    judge_labels_of,
    resolve_label_set,
)
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.data.model import Labels, Provenance
from ragviz.export.rows import exported_examples
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, press, review_formulas, review_metrics, toolbar_button
from tests.sample import SAMPLE_JSONL

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def write_reviewed_export(path: Path) -> Path:
    """The sample as a reviewed export whose rows were labelled by a person and carry no llm_ copies."""
    with SAMPLE_JSONL.open() as src, path.open("w") as out:
        for line in src:
            row = json.loads(line)
            assert not any(k.startswith("llm_") for k in row)
            row.update(label_source="human", reviewer="alice", reviewed_at="2026-01-01T00:00:00Z")
            out.write(json.dumps(row) + "\n")
    return path


def test_human_rows_without_llm_copies_have_no_judge_labels(tmp_path):
    ds = load([write_reviewed_export(tmp_path / "reviewed.jsonl")]).dataset
    ex = ds.example(ds.index_of(ML))
    assert ex.labels is not None and ex.labels.provenance.source == "human"
    assert judge_labels_of(ex, None) is None
    with LabelStore(tmp_path / "labels.db") as store:
        assert judge_labels(ex, store) is None
        assert len(resolve_label_set(ds, JUDGE, store)) == 0
        assert [e.judge for e in exported_examples(ds, store, LabelSelection.of("tester"))] == [None] * len(ds)
        # a judge run later: its labels win, everywhere
        judged = Labels(relevant_keys=("0a",), provenance=Provenance("llm", "judge-x"))
        store.judge.save(ML, judged)
        assert judge_labels(ex, store) == judged
        assert resolve_label_set(ds, JUDGE, store).labels == {ds.index_of(ML): judged}
        exported = {e.example.uid: e.judge for e in exported_examples(ds, store, LabelSelection.of("tester"))}
        assert exported[ML] == judged


def test_judge_labelled_rows_are_their_own_judge_labels():
    ds = load([SAMPLE_JSONL]).dataset
    ex = ds.example(ds.index_of(ML))
    assert ex.labels.provenance.source == "llm"
    assert judge_labels(ex, None) == ex.labels == ex.judge_labels


def test_review_page_without_judge_labels_shows_dash_and_resets_to_the_file(tmp_path, monkeypatch):
    data = write_reviewed_export(tmp_path / "reviewed.jsonl")
    db = tmp_path / "labels.db"
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGVIZ_DB", str(db))
    monkeypatch.setenv("RAGVIZ_DATA", str(data))
    monkeypatch.setenv("RAGVIZ_ANNOTATOR", "tester")
    at = open_page("pages/review.py", id="ml-vs-programming")
    formulas = review_formulas(at)
    assert len(formulas) == 4 and all("judge —" in f for f in formulas)
    # no judge, yet the file's labels can be accepted as right (Accept = the labels as shown)
    assert not toolbar_button(at, "accept")["disabled"]
    file_relevance = review_metrics(at)["Relevance"][0]
    assert file_relevance == "0.667"

    with LabelStore(db) as store:
        ds = load([data]).dataset
        keys = list(ds.example(ds.index_of(ML)).labels.relevant_keys)
        store.record(ML, "tester", [Change("relevant_keys", keys, [])])
    at.run()
    assert review_metrics(at)["Relevance"][0] == "0.000"
    press(at, "reset")
    assert not at.exception, [e.value for e in at.exception]
    assert review_metrics(at)["Relevance"][0] == file_relevance
