"""Dashboard core beyond TRACe: the other metric families under the current labels, per-subset means
per retrieval system, and agreement between annotators (Cohen per pair, Fleiss overall) from a real
SQLite store, also through `ragviz agreement --annotators`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragviz.analysis.agreement import MultiRaterKappa, PairKappa
from ragviz.analysis.dashboard.annotator_tables import fleiss_rows, pair_rows
from ragviz.analysis.dashboard.families import (
    ANSWER,
    RETRIEVAL,
    TONIC,
    TRACE,
    FamilyView,
    chart_means,
    families_present,
    family_means,
    family_records,
    family_view,
)
from ragviz.analysis.dashboard.figures import DashboardData, baseline_rows, trace_view
from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.analysis.team.kappas import annotator_agreement
from ragviz.data.dataset import iter_examples
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.data.model import Example
from ragviz.metrics.answer import example_answer
from ragviz.metrics.retrieval import example_retrieval
from ragviz.metrics.tonic import example_tonic
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.store.label_store import LabelStore
from tests.cli_run import ragviz_here
from tests.sample import SAMPLE_DATA

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


@pytest.fixture(scope="module")
def sample():
    ds = load([SAMPLE_DATA]).dataset
    return ds, dict(iter_examples(ds))


def test_families_present_in_the_sample(sample):
    _, examples = sample
    assert families_present(examples) == [TRACE, TONIC, RETRIEVAL, ANSWER]
    bare = {0: Example("q", "d", "", (), (), "", ())}
    assert families_present(bare) == []


def test_family_records_follow_the_current_labels(sample, tmp_path):
    ds, examples = sample
    i = ds.index_of(ML)
    ex = examples[i]
    with LabelStore(tmp_path / "labels.db") as store:
        before = {r["uid"]: r for r in family_view(ds, examples, HUMAN, store, TONIC).records}
        assert before[ML]["retrieval_precision"] == example_tonic(ex, ex.labels).retrieval_precision == 1.0
        # a person says nothing in document 1 is relevant, and that kb-40 is not a gold id
        store.record(
            ML,
            "tester",
            [
                Change("relevant_keys", list(ex.labels.relevant_keys), ["0b", "0c"]),
                Change("relevant_ids", None, ["kb-12"]),
            ],
        )
        current = store.current_labels(ex, "tester")
        tonic = {r["uid"]: r for r in family_view(ds, examples, HUMAN, store, TONIC).records}
        assert tonic[ML]["retrieval_precision"] == example_tonic(ex, current).retrieval_precision == 0.5
        retrieval = family_view(ds, examples, LabelSelection.of("tester"), store, RETRIEVAL, ks=(1, 2))
        ml = [r for r in retrieval.records if r["uid"] == ML]
        assert ml == [
            {"uid": ML, "dataset": ex.dataset, "system": "default", **example_retrieval(ex, (1, 2), current)["default"]}
        ]
        assert ml[0]["recall@2"] == 1.0 and ml[0]["precision@2"] == 0.5
        assert retrieval.metrics[:2] == ("mrr", "recall@1") and retrieval.systems == ("default",)
        # every other example keeps the judge's labels
        untouched = next(r for r in tonic.values() if r["uid"] != ML)
        other = examples[ds.index_of(untouched["uid"])]
        assert untouched["overall"] == example_tonic(other, other.judge_labels).overall


def test_answer_family_and_unlabeled_rows(sample):
    ds, examples = sample
    records = family_records(examples, {}, ANSWER)
    assert len(records) == len(ds)
    assert records[0] == {
        "uid": examples[0].uid,
        "dataset": examples[0].dataset,
        **example_answer(examples[0]).as_dict(),
    }
    tonic = family_records(examples, {}, TONIC)
    assert all(r["retrieval_precision"] is None for r in tonic)  # nobody's labels: unlabeled
    with pytest.raises(ValueError, match="unknown metric family"):
        family_records(examples, {}, "bleu")


def test_means_per_retrieval_system_never_mix_systems():
    records = [
        {"uid": "a", "dataset": "s1", "system": "bm25", "mrr": 1.0},
        {"uid": "a", "dataset": "s1", "system": "dense", "mrr": 0.0},
        {"uid": "b", "dataset": "s2", "system": "bm25", "mrr": 0.5},
        {"uid": "b", "dataset": "s2", "system": "dense", "mrr": 0.5},
    ]
    means = {r["dataset"]: r["mean"] for r in family_means(records, ["mrr"], n_resamples=50)}
    assert means == {
        "s1 · bm25": 1.0,
        "s2 · bm25": 0.5,
        "ALL · bm25": 0.75,
        "s1 · dense": 0.0,
        "s2 · dense": 0.5,
        "ALL · dense": 0.25,
    }
    one = family_means([r for r in records if r["system"] == "bm25"], ["mrr"], n_resamples=50)
    assert [r["dataset"] for r in one] == ["s1", "s2", "ALL"]


def test_family_view_for_the_charts():
    means = [
        {"dataset": "ALL", "metric": m, "mean": 0.5, "low": 0.4, "high": 0.6, "n": 2}
        for m in ("mrr", "answer_similarity", "recall@1")
    ]
    records = [{"uid": "a", "system": "bm25"}, {"uid": "a", "system": "dense"}, {"uid": "b", "system": "bm25"}]
    view = FamilyView(RETRIEVAL, ("mrr", "recall@1"), ("recall@1", "mrr"), records, means, ("bm25", "dense"))
    assert view.n_examples == 2  # one record per example and system
    assert [m["metric"] for m in chart_means(view)] == ["recall@1", "mrr"]  # the charts' order, charted metrics only

    data = DashboardData(HUMAN, [{"uid": "a", "relevance": 1.0}], means[:1], 0, None, [], None)  # type: ignore[arg-type]
    trace = trace_view(data)
    assert (trace.family, trace.metrics, trace.chart_metrics, trace.systems) == (
        TRACE,
        TRACE_METRICS,
        TRACE_METRICS,
        (),
    )
    assert trace.records is data.records and trace.means is data.means and trace.n_examples == 1


def test_dashboard_table_rows():
    rows = [{"dataset": "ALL", "gpt3_auroc": 0.7, "gpt3_n_auroc": 9, "gpt3_relevance_rmse": 0.2}]
    assert baseline_rows(rows) == [{"dataset": "ALL", "gpt3_auroc": 0.7, "gpt3_relevance_rmse": 0.2}]
    assert fleiss_rows([MultiRaterKappa("relevant", 3, 4, 20, 0.5)]) == [
        {"label": "relevant", "annotators": 3, "shared examples": 4, "decisions": 20, "Fleiss' κ": 0.5}
    ]
    assert pair_rows([PairKappa("alice", "bob", "utilized", 2, 12, None)]) == [
        {
            "annotator A": "alice",
            "annotator B": "bob",
            "label": "utilized",
            "shared examples": 2,
            "decisions": 12,
            "Cohen's κ": None,
        }
    ]


def record_two_annotators(db: Path, ex) -> None:
    """alice accepts the judge's labels of ML; bob drops '1b' from its relevant keys (N=6, judge R=4)."""
    with LabelStore(db) as store:
        store.record(ML, "alice", [Change("review", None, "reviewed")])
        keys = list(ex.labels.relevant_keys)
        store.record(ML, "bob", [Change("relevant_keys", keys, [k for k in keys if k != "1b"])])


def test_annotator_agreement_by_hand(sample, tmp_path):
    ds, examples = sample
    ex = examples[ds.index_of(ML)]
    assert ex.n_context_sentences == 6 and len(set(ex.labels.relevant_keys)) == 4
    record_two_annotators(tmp_path / "labels.db", ex)
    with LabelStore(tmp_path / "labels.db") as store:
        result = annotator_agreement(ds, examples, store)
        assert result.annotators == ("alice", "bob") and result.has_pairs
        pairs = {p.label: p for p in result.pairs}
        # Cohen: p_o = 5/6, p_e = 4/6·3/6 + 2/6·3/6 = 1/2 -> (5/6 − 1/2)/(1/2) = 2/3
        assert pairs["relevant"].kappa == pytest.approx(2 / 3)
        assert (pairs["relevant"].n_examples, pairs["relevant"].n_decisions) == (1, 6)
        assert pairs["utilized"].kappa == pytest.approx(1.0)
        overall = {m.label: m for m in result.overall}
        # Fleiss (2 raters = Scott's pi): p_e = (7/12)² + (5/12)² = 74/144 -> (5/6 − 74/144)/(70/144) = 46/70
        assert overall["relevant"].kappa == pytest.approx(46 / 70)
        assert overall["relevant"].n_examples == 1 and overall["relevant"].n_raters == 2

        other = next(e for e in examples.values() if e.uid != ML)
        store.record(other.uid, "carol", [Change("review", None, "reviewed")])
        result = annotator_agreement(ds, examples, store)
        with_carol = [p for p in result.pairs if "carol" in (p.rater_a, p.rater_b)]
        assert with_carol and all(p.n_examples == 0 and p.kappa is None for p in with_carol)
        assert all(m.n_examples == 0 and m.kappa is None for m in result.overall)  # nobody shared by all three


def test_no_store_or_one_annotator_has_no_pairs(sample, tmp_path):
    ds, examples = sample
    assert not annotator_agreement(ds, examples, None).has_pairs
    with LabelStore(tmp_path / "labels.db") as store:
        store.record(ML, "alice", [Change("review", None, "reviewed")])
        result = annotator_agreement(ds, examples, store)
    assert result.annotators == ("alice",) and result.pairs == [] and result.overall == []


def test_cli_agreement_annotators_prints_the_same_figures(sample, tmp_path):
    ds, examples = sample
    db = tmp_path / "labels.db"
    record_two_annotators(db, examples[ds.index_of(ML)])
    out = ragviz_here("agreement", SAMPLE_DATA, "--db", db, "--annotators")
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout)
    assert figures["annotators"] == {"alice": 1, "bob": 1}
    relevant = next(p for p in figures["pairs"] if p["label"] == "relevant")
    assert relevant == {
        "a": "alice",
        "b": "bob",
        "label": "relevant",
        "n_examples": 1,
        "n_decisions": 6,
        "cohen_kappa": pytest.approx(2 / 3),
    }
    assert next(m for m in figures["overall"] if m["label"] == "relevant")["fleiss_kappa"] == pytest.approx(46 / 70)
    alpha = figures.pop("krippendorff_alpha")  # the team's figure (issue 26) beside the Dashboard's
    assert alpha["relevant"]["n_examples"] == 1
    with LabelStore(db) as store:
        assert figures == annotator_agreement(ds, examples, store).as_dict()
