"""Reruns that change nothing do no work that grows with the data set (Label, Explainer, Export,
Compare), and what those pages cache refreshes when the label store, the store file or a widget
changes. Work is counted through wrappers around the O(N) functions the pages call."""

from __future__ import annotations

from collections import Counter

import pytest
from streamlit.testing.v1 import AppTest

import ragviz.export.rows
import ragviz.judge
import ragviz.judge.selection
import ragviz.ui.core.picker
from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.data.model import Provenance
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, shown
from tests.sample import SAMPLE_DATA

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


@pytest.fixture
def calls(monkeypatch):
    """Counts calls of the wrapped functions by name; ``wrap(module, name)`` installs a wrapper."""
    counter: Counter = Counter()

    def wrap(module, name):
        real = getattr(module, name)

        def counted(*args, **kwargs):
            counter[name] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)

    counter.wrap = wrap
    return counter


def rerun(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def sample():
    return load([SAMPLE_DATA]).dataset


def test_label_page_selection_and_estimate_are_not_redone_on_a_plain_rerun(app_env, monkeypatch, calls):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    calls.wrap(ragviz.judge.selection, "select_indices")
    calls.wrap(ragviz.judge, "run_cost")
    ds = sample()
    unlabeled = [ds.uids[i] for i in ragviz.judge.selection.unlabeled_indices(ds)]
    assert len(unlabeled) == 1

    at = open_page("pages/label.py")
    assert metric(at, "Examples") == "1" and metric(at, "Calls needed") == "1"
    assert calls == {"select_indices": 1, "run_cost": 1}
    rerun(rerun(at))
    assert calls == {"select_indices": 1, "run_cost": 1}

    # judge labels arrive in the store (another process): the unlabeled example is no longer selected
    with LabelStore(app_env["db"]) as store:
        store.judge.save(unlabeled[0], ds.example(0).labels.replace(provenance=Provenance("llm", "other")))
    rerun(at)
    assert calls == {"select_indices": 2, "run_cost": 2}
    assert metric(at, "Examples") == "0"

    # a widget the estimate depends on: only the estimate is redone
    at.segmented_control(key="label.selection").set_value("first_k").run()
    assert calls == {"select_indices": 3, "run_cost": 3} and metric(at, "Examples") == "10"
    at.text_input(key="label.model").set_value("gpt-4o").run()
    assert calls == {"select_indices": 3, "run_cost": 4} and metric(at, "Examples") == "10"
    rerun(at)
    assert calls == {"select_indices": 3, "run_cost": 4}


def test_explainer_offers_a_window_search_and_number_instead_of_every_example(app_env, monkeypatch, calls):
    monkeypatch.setattr(ragviz.ui.core.picker, "WINDOW", 2)
    calls.wrap(ragviz.ui.core.picker, "matching_rows")
    ds = sample()
    at = open_page("pages/explainer.py")
    pick = at.selectbox(key="explainer.index")
    assert pick.value == 0 and [shown(o) for o in pick.options] == [f"{i + 1}. {ds.uids[i]}" for i in range(3)]

    at.number_input(key="explainer.number").set_value(10).run()
    assert not at.exception
    assert at.selectbox(key="explainer.index").value == 9
    assert [shown(o) for o in at.selectbox(key="explainer.index").options] == [
        f"{i + 1}. {ds.uids[i]}" for i in range(7, 12)
    ]
    assert at.query_params["uid"] in ([ds.uids[9]], ds.uids[9])

    at.selectbox(key="explainer.index").set_value(11).run()
    assert at.number_input(key="explainer.number").value == 12 and at.query_params["uid"] in (
        [ds.uids[11]],
        ds.uids[11],
    )

    # a search lists the matches (the current example stays first so the picker can show it)
    query = " TECH-003/ "
    at.text_input(key="explainer.search").set_value(query).run()
    matches = [i for i, u in enumerate(ds.uids) if "tech-003/" in u]
    assert 0 < len(matches) < len(ds) and calls["matching_rows"] == 1
    assert [shown(o) for o in at.selectbox(key="explainer.index").options] == [
        f"{i + 1}. {ds.uids[i]}" for i in [11, *matches]
    ]
    assert any(c.value == f"{len(matches)} match(es)" for c in at.caption)
    at.selectbox(key="explainer.index").set_value(matches[-1]).run()
    rerun(at)
    assert calls["matching_rows"] == 1  # the search is not repeated on a rerun
    assert at.query_params["uid"] in ([ds.uids[matches[-1]]], ds.uids[matches[-1]])

    # a deep link far from the window still opens its example
    far = open_page("pages/explainer.py", uid=ds.uids[20])
    assert far.selectbox(key="explainer.index").value == 20 and far.number_input(key="explainer.number").value == 21


def test_export_table_is_computed_once_per_store_state_and_annotator(app_env, calls):
    calls.wrap(ragviz.export.rows, "metrics_table")
    at = open_page("pages/export.py")
    table = next(d.value for d in at.dataframe if "relevance" in d.value.columns)
    assert len(table) == len(sample()) and set(table["label_source"].dropna()) == {"llm"}
    assert calls["metrics_table"] == 1
    rerun(rerun(at))
    assert calls["metrics_table"] == 1

    ex = sample().example(sample().index_of(ML))
    with LabelStore(app_env["db"]) as store:
        store.record(ML, "tester", [Change("relevant_keys", list(ex.labels.relevant_keys), [])])
    rerun(at)
    assert calls["metrics_table"] == 2
    table = next(d.value for d in at.dataframe if "relevance" in d.value.columns)
    row = table[(table["id"] == "ml-vs-programming") & (table["generation_model"] == "gpt-4o-mini")].iloc[0]
    assert row["relevance"] == 0 and row["label_source"] == "human"


def test_compare_never_shares_a_result_between_two_stores_at_the_same_version(app_env, monkeypatch):
    ex = sample().example(sample().index_of(ML))
    keys = list(ex.labels.relevant_keys)
    assert len(keys) >= 2
    first, second = app_env["tmp"] / "first.db", app_env["tmp"] / "second.db"
    for db, new in ((first, keys[1:]), (second, [])):
        with LabelStore(db) as store:
            store.record(ML, "tester", [Change("relevant_keys", keys, new)])
            assert store.data_version() == (1, 0)  # the same version in both files

    seen = []
    for db in (first, second):
        monkeypatch.setenv("RAGVIZ_DB", str(db))
        at = open_page("pages/compare.py")
        seen.append(next(m.value for m in at.metric if m.label == "relevant keys ±"))
    assert seen == ["+0 / −1", f"+0 / −{len(keys)}"]


def test_picker_window_and_matches():
    from ragviz.ui.core.picker import matching_rows, picker_options, window_rows

    assert (
        window_rows(0, 10, 2) == [0, 1, 2] and window_rows(9, 10, 2) == [7, 8, 9] and window_rows(5, 10, 1) == [4, 5, 6]
    )
    uids = ["a/X-1/m", "b/x-12/m", "c/y/m", "d/x-1/n"]
    assert matching_rows(uids, " x-1") == ([0, 1, 3], 3)
    assert matching_rows(uids, "x-1", limit=2) == ([0, 1], 3)
    assert matching_rows(uids, "zzz") == ([], 0)
    assert picker_options(2, 4, [0, 1]) == [2, 0, 1] and picker_options(1, 4, [0, 1]) == [0, 1]
    assert picker_options(2, 4, []) == [2]
