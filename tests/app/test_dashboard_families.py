"""Dashboard under AppTest: the metric-family selector (Tonic, retrieval per k, answer) with values
under the current labels, cached per store version; the annotator-agreement section with two
annotators recorded in a real SQLite store."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import ragviz.analysis.dashboard.families
from ragviz.data.dataset import iter_examples
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.metrics.answer import example_answer
from ragviz.metrics.tonic import example_tonic
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page
from tests.sample import SAMPLE_DATA

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def open_dashboard() -> AppTest:
    return open_page("pages/dashboard.py")


def means_table(at: AppTest):
    return next(
        df.value for df in at.dataframe if {"subset", "metric", "mean", "95% interval"} <= set(df.value.columns)
    )


def all_mean(at: AppTest, metric: str) -> float:
    table = means_table(at)
    return float(table[(table["subset"] == "ALL") & (table["metric"] == metric)]["mean"].iloc[0])


def choose(at: AppTest, family: str) -> AppTest:
    at.segmented_control(key="dashboard.family").set_value(family).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_family_selector_switches_charts_and_means(app_env):
    ds = load([SAMPLE_DATA]).dataset
    examples = [ex for _, ex in iter_examples(ds)]
    at = open_dashboard()
    control = at.segmented_control(key="dashboard.family")
    assert list(control.options) == ["TRACe", "Tonic Validate", "Retrieval", "Answer EM / F1"]
    assert at.header[0].value == "TRACe under the current labels"

    choose(at, "tonic")
    assert at.header[0].value == "Tonic Validate under the current labels"
    expected = [v for ex in examples if (v := example_tonic(ex, ex.judge_labels).retrieval_precision) is not None]
    assert all_mean(at, "retrieval_precision") == pytest.approx(sum(expected) / len(expected))
    assert "answer_similarity" in set(means_table(at)["metric"])

    choose(at, "answer")
    f1 = [v for ex in examples if (v := example_answer(ex).f1) is not None]
    assert all_mean(at, "f1") == pytest.approx(sum(f1) / len(f1))

    choose(at, "retrieval")
    at.text_input(key="dashboard.ks").set_value("2, 1").run()
    assert not at.exception
    metrics = list(dict.fromkeys(means_table(at)["metric"]))
    assert metrics == [
        "mrr",
        "recall@1",
        "precision@1",
        "hit@1",
        "ndcg@1",
        "recall@2",
        "precision@2",
        "hit@2",
        "ndcg@2",
    ]
    at.text_input(key="dashboard.ks").set_value("0,x").run()
    assert any("k: &#x27;0&#x27; is not a positive integer" in h.value for h in at.get("html"))
    assert "recall@10" in set(means_table(at)["metric"])  # falls back to the default cut-offs


def test_a_correction_moves_the_family_means_and_the_cache_is_reused(app_env, monkeypatch):
    calls: list[str] = []
    real = ragviz.analysis.dashboard.families.family_view

    def counting(*args, **kwargs):
        calls.append(args[4])
        return real(*args, **kwargs)

    monkeypatch.setattr(ragviz.analysis.dashboard.families, "family_view", counting)
    at = choose(open_dashboard(), "tonic")
    before = all_mean(at, "retrieval_precision")
    table = means_table(at)
    n_labelled = int(table[(table["subset"] == "ALL") & (table["metric"] == "retrieval_precision")]["n"].iloc[0])
    assert calls == ["tonic"]
    at.run()
    at.run()
    assert calls == ["tonic"]  # nothing changed: no recomputation

    ds = load([SAMPLE_DATA]).dataset
    ex = ds.example(ds.index_of(ML))
    assert example_tonic(ex, ex.labels).retrieval_precision == 1.0
    with LabelStore(app_env["db"]) as store:  # document 1 no longer relevant: ML's precision 1.0 -> 0.5
        store.record(ML, "tester", [Change("relevant_keys", list(ex.labels.relevant_keys), ["0b", "0c"])])
    at.run()
    assert calls == ["tonic", "tonic"]
    assert all_mean(at, "retrieval_precision") == pytest.approx(before - 0.5 / n_labelled)


def test_annotator_agreement_moved_to_the_team_page(app_env):
    # the kappa matrix and Fleiss' kappa are on the Team page now (tests/app/test_team.py checks them there)
    at = open_dashboard()
    assert "Do the annotators agree?" in [h.value for h in at.header]
    assert any("is on the Team page" in c.value for c in at.caption)
    assert not any("kappa_text" in c.proto.spec for c in at.get("vega_lite_chart"))
