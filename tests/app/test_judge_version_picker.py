"""The Dashboard's label-set picker offers every judge version with labels in the store as ``judge:NAME`` (issue 35),
named as ``ragviz agreement --against`` takes it, and the figures follow the one picked. AppTest, a real SQLite
store, the sample data."""

from __future__ import annotations

from dataclasses import replace

from ragviz.analysis.labelsets.selection import HUMAN, LabelSelection
from ragviz.data.load import load
from ragviz.data.model import Provenance
from ragviz.judge.prompt import PROMPT_VERSION
from ragviz.judge.versions.prompt import version_prompt
from ragviz.judge.versions.registry import create_version
from ragviz.store.label_store import LabelStore
from ragviz.ui.audit.truth import truth_words
from tests.apptest_helpers import open_page, shown
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
    assert [shown(i.value) for i in at.info] == [
        "Too few labelled by judge version v2 to say (3 of 10): every figure below is from 3 examples labelled by "
        "judge version v2, with no interval until 10 are."
    ]
    assert any(
        "on the 3 examples judge version v2 labelled; precision/recall treat its labels" in shown(c.value)
        for c in at.caption
    )
    table = next(df.value for df in at.dataframe if "Figure" in df.value.columns).set_index("Figure")
    relevant = table["relevant"]
    # v2 marked nothing relevant: every sentence the judge (v1, latest) marked is a false positive against it
    assert relevant["FP"] == f"{judge_keys}" and relevant["TP"] == "0"

    picker = at.selectbox(key="dashboard.against").set_value(LabelSelection.of_version("v1", PROMPT_VERSION)).run()
    table = next(df.value for df in at.dataframe if "Figure" in df.value.columns).set_index("Figure")
    relevant = table["relevant"]
    assert relevant["FP"] == "0" and relevant["TP"] == f"{judge_keys}"  # the judge's latest labels are v1's


def test_what_people_would_say_against_a_judge_version_names_the_version(app_env):
    """Against judge:v2 the audit is the members v2 labelled: the panel's words say so, not "reviewed"."""
    v2, _ = _two_versions(app_env["db"])
    with LabelStore(app_env["db"]) as store:
        store.audits.draw_sample(load([SAMPLE_DATA]).dataset.uids, 22, "lead", seed=4)  # every row: v2's three too
    at = open_page("pages/dashboard.py", labels="judge:v2")
    assert not at.exception
    said = [shown(e.value) for e in (*at.caption, *at.warning, *at.info, *at.markdown)]
    assert any("3 members labelled by judge version v2 are the audit (judge:v2's labels)" in t for t in said)
    assert any(t.startswith("Too few labelled by judge version v2 to correct yet: 97 more needed") for t in said), said
    assert any("how little 3 examples labelled by judge version v2 say" in t for t in said)
    assert any("its bias removed by the questions whose two answers judge version v2 labelled" in t for t in said)
    how_to = ("Draw a paired audit", "Examples someone already reviewed")  # what people do: people's words
    bad = [t for t in said if "reviewed" in t and not t.startswith(how_to)]
    assert not bad, "\n".join(bad)
    headers = [h.value for h in at.header]
    assert "What judge version v2 would say" in headers and "What people would say" not in headers
    table = next(df.value for df in at.dataframe if "corrected 95% CI" in df.value.columns)
    assert {"judge version v2 only", "judge version v2 95% CI", "worth n judge version v2-only"} <= set(table.columns)
    assert not any("people" in c for c in table.columns)
    people = truth_words("by the questions whose two answers people reviewed", HUMAN)
    assert people.endswith("people reviewed")  # a person's labels: the words are unchanged


def test_the_export_page_offers_an_admin_a_judge_versions_labels(app_env):
    v2, _ = _two_versions(app_env["db"])
    at = open_page("pages/export.py")  # locally the person is the admin
    assert [shown(o) for o in at.radio(key="export.whose").options] == [
        "Your current labels (tester)",
        "The team's latest decisions",
        "Judge version v1's labels",
        "Judge version v2's labels",
    ]
    at.radio(key="export.whose").set_value(LabelSelection.of_version("v2", v2)).run()
    assert not at.exception
    assert any("Where judge version v2 labelled an example" in shown(c.value) for c in at.caption)
    command = next(c.value for c in at.code if c.value.startswith("ragviz export"))
    assert command.endswith("-o labels.jsonl \\\n  --labels judge:v2")  # named as the picker does, one part a line
    assert [b.label for b in at.get("download_button")] == ["Download labels (JSONL)"]  # built: the export ran


def test_the_dashboards_link_carries_its_label_set(app_env):
    """``?labels=`` in ``--against``'s words opens the Dashboard on that label set and follows the picker; a label
    set the page does not offer is said in one line, naming those it offers, and the page stays on human."""
    v2, _ = _two_versions(app_env["db"])
    at = open_page("pages/dashboard.py", labels="judge:v2")
    assert at.selectbox(key="dashboard.against").value == LabelSelection.of_version("v2", v2)
    assert any("examples judge version v2 labelled" in shown(c.value) for c in at.caption)
    assert any(shown(c.value).startswith("22 examples · 3 labelled by judge version v2 (judge:v2)") for c in at.caption)
    assert at.query_params["labels"] == "judge:v2"
    at.selectbox(key="dashboard.against").set_value(LabelSelection.of_version("v1", PROMPT_VERSION)).run()
    assert at.query_params["labels"] == "judge:v1"  # a copied link opens v1 now
    human = at.selectbox(key="dashboard.against").options.index("human")
    at.selectbox(key="dashboard.against").select_index(human).run()
    assert at.selectbox(key="dashboard.against").value.name == "human"
    assert "labels" not in at.query_params  # human, the default, needs no parameter

    at = open_page("pages/dashboard.py", labels="judge:v9")
    assert [shown(w.value) for w in at.warning] == [
        "?labels=judge:v9: not a label set this page offers you (it offers: human, judge:v1, judge:v2)"
    ]
    assert at.selectbox(key="dashboard.against").value.name == "human"
    at = open_page("pages/dashboard.py", labels="gold")  # no team round assigned: no gold labels to offer
    assert [shown(w.value) for w in at.warning] == [
        "?labels=gold: not a label set this page offers you (it offers: human, judge:v1, judge:v2)"
    ]


def test_the_compare_page_diffs_two_judge_versions(app_env):
    v2, judge_keys = _two_versions(app_env["db"])
    at = open_page("pages/compare.py")
    assert at.selectbox(key="compare.a").options == ["llm", "human", "judge:v1", "judge:v2"]
    at.selectbox(key="compare.a").set_value(LabelSelection.of_version("v1", PROMPT_VERSION))
    at.selectbox(key="compare.b").set_value(LabelSelection.of_version("v2", v2)).run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["examples compared"] == "3"  # the rows both versions labelled
    assert metrics["relevant keys ±"] == f"+0 / −{judge_keys}"  # v2 marked none of v1's relevant sentences


def test_the_compare_pages_link_carries_label_set_b(app_env):
    """``?labels=judge:v2`` opens the Compare page with B on judge version v2 (A the judge's); picking another B
    updates the link; one the page does not offer is said in one line and B stays human."""
    v2, judge_keys = _two_versions(app_env["db"])
    at = open_page("pages/compare.py", labels="judge:v2")
    assert at.selectbox(key="compare.a").value.name == "llm"
    assert at.selectbox(key="compare.b").value == LabelSelection.of_version("v2", v2)
    assert not at.warning
    at.selectbox(key="compare.a").set_value(LabelSelection.of_version("v1", PROMPT_VERSION)).run()
    assert {m.label: m.value for m in at.metric}["relevant keys ±"] == f"+0 / −{judge_keys}"
    assert at.query_params["labels"] == "judge:v2"
    at.selectbox(key="compare.b").set_value(LabelSelection.of_version("v1", PROMPT_VERSION)).run()
    assert at.query_params["labels"] == "judge:v1"
    at.selectbox(key="compare.b").set_value(HUMAN).run()
    assert "labels" not in at.query_params  # B's default needs no parameter

    at = open_page("pages/compare.py", labels="annotator:nobody")
    assert [shown(w.value) for w in at.warning] == [
        "?labels=annotator:nobody: not a label set this page offers you (it offers: llm, human, judge:v1, judge:v2)"
    ]
    assert at.selectbox(key="compare.b").value.name == "human"


def test_the_explainer_offers_judge_versions_and_its_link_carries_one(app_env):
    """The Explainer's picker offers judge versions as the Dashboard's does; ``?labels=judge:v2`` opens it on v2,
    whose labels of the example stand beside the judge's under its own title."""
    v2, _ = _two_versions(app_env["db"])
    at = open_page("pages/explainer.py", labels="judge:v2")
    picker = at.selectbox(key="explainer.other")
    assert picker.options == ["human", "judge:v1", "judge:v2"]
    assert picker.value == LabelSelection.of_version("v2", v2)
    assert "Judge version v2 said" in [shown(h.value) for h in at.subheader]  # row 0: v2 labelled it
    assert at.query_params["labels"] == "judge:v2"
    at.selectbox(key="explainer.other").set_value(HUMAN).run()
    assert "labels" not in at.query_params
    assert not any("Judge version" in shown(h.value) for h in at.subheader)

    at = open_page("pages/explainer.py", labels="judge:v9")
    assert [shown(w.value) for w in at.warning] == [
        "?labels=judge:v9: not a label set this page offers you (it offers: human, judge:v1, judge:v2)"
    ]
    assert at.selectbox(key="explainer.other").value.name == "human"
