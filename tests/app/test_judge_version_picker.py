"""The Dashboard's label-set picker offers every judge version with labels in the store as ``judge:NAME`` (issue 35),
named as ``ragviz agreement --against`` takes it, and the figures follow the one picked. AppTest, a real SQLite
store, the sample data."""

from __future__ import annotations

from dataclasses import replace

from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.data.load import load
from ragviz.data.model import Provenance
from ragviz.judge.prompt import PROMPT_VERSION
from ragviz.judge.versions.prompt import version_prompt
from ragviz.judge.versions.registry import create_version
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page
from tests.sample import SAMPLE_DATA


def _two_versions(db) -> tuple[str, int]:
    """v2 marks no sentence relevant on rows 0-2; v1 (the shipped prompt) then labels them as the file does, so the
    judge's latest labels are v1's. Returns v2's prompt version and how many relevant keys the judge marked there."""
    ds = load([SAMPLE_DATA]).dataset
    with LabelStore(db) as store:
        v2 = version_prompt(create_version(store, ds, "v2", rubric="Mark nothing.", created_by="lead"), ()).version

        def labelled(row, keys, prompt):
            ex = ds.example(row)
            return ex.uid, replace(ex.labels, relevant_keys=keys, provenance=Provenance("llm", "m", None, prompt))

        store.judge.save_many([labelled(r, (), v2) for r in range(3)])
        store.judge.save_many([labelled(r, ds.example(r).labels.relevant_keys, PROMPT_VERSION) for r in range(3)])
    return v2, sum(len(set(ds.example(r).labels.relevant_keys)) for r in range(3))


def test_the_dashboard_offers_judge_versions_and_measures_the_judge_against_one(app_env):
    v2, judge_keys = _two_versions(app_env["db"])
    at = open_page("pages/dashboard.py")
    picker = at.selectbox(key="dashboard.against")
    assert picker.options == ["human", "judge:v1", "judge:v2"]  # nobody decided yet: no annotator to offer
    assert picker.value.name == "human"
    assert any("No example has a human decision yet" in i.value for i in at.info)

    picker.set_value(LabelSelection.of_version("v2", v2)).run()
    assert not at.exception
    assert at.selectbox(key="dashboard.against").value == LabelSelection.of_version("v2", v2)
    assert [i.value.split(":")[0] for i in at.info] == ["Too few reviewed to say (3 of 10)"]
    table = next(df.value for df in at.dataframe if "Cohen's κ" in df.value.columns)
    relevant = table[table["label"] == "relevant"].iloc[0]
    # v2 marked nothing relevant: every sentence the judge (v1, latest) marked is a false positive against it
    assert relevant["FP"] == judge_keys and relevant["TP"] == 0

    picker = at.selectbox(key="dashboard.against").set_value(LabelSelection.of_version("v1", PROMPT_VERSION)).run()
    table = next(df.value for df in at.dataframe if "Cohen's κ" in df.value.columns)
    relevant = table[table["label"] == "relevant"].iloc[0]
    assert relevant["FP"] == 0 and relevant["TP"] == judge_keys  # the judge's latest labels are v1's
