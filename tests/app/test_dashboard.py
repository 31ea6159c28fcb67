"""Dashboard and Compare pages under AppTest (real SQLite store), the baseline table on RAGBench, and a
real browser following a triage link to the Review page."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from streamlit.testing.v1 import AppTest

from ragviz.data.labels import Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, shown
from tests.browser_wait import expect as wait_expect
from tests.browser_wait import metric_card
from tests.ragbench_data import require_ragbench, shard
from tests.sample import SAMPLE_DATA

ML = "techqa_sample/ml-vs-programming/gpt-4o-mini"


def page_links(at: AppTest) -> list[tuple[str, str]]:
    """The page links to examples (not the one to the Team page, where annotator agreement moved)."""
    links = [(shown(p.proto.label), p.proto.query_string) for p in at.get("page_link")]
    return [link for link in links if link[0] != "Open the Team page"]


def correct_ml(db: Path, annotator: str = "tester") -> tuple[str, tuple[str, ...]]:
    """The annotator removes every relevant key of the ML example; returns the uid and the judge's keys."""
    ds = load([SAMPLE_DATA]).dataset
    ex = ds.example(ds.index_of(ML))
    with LabelStore(db) as store:
        store.record(ML, annotator, [Change("relevant_keys", list(ex.labels.relevant_keys), [])])
    return ML, ex.labels.relevant_keys


def test_dashboard_without_decisions_shows_distributions_and_triage(app_env):
    at = open_page("pages/dashboard.py")
    assert [h.value for h in at.header] == [
        "TRACe under the current labels",
        "What people would say",
        "Compare systems",  # the sample data holds two generation models' answers to three questions
        "How much can we trust the judge?",
        "Do the annotators agree?",
        "RAGBench baseline judges against the current labels",
        "What to review next",
    ]
    assert any("No example has a human decision yet" in i.value for i in at.info)
    downloads = [b.proto.label for b in at.get("download_button")]
    assert downloads == ["Download report", "PDF", "PNG", "SVG", "PNG", "SVG"]  # the report, then each chart
    links = page_links(at)
    assert len(links) == 10 and all(q.startswith("uid=") for _, q in links)
    assert all("mean adherence" in label for label, _ in links)
    said = [shown(c.value) for c in at.caption]
    # nothing reviewed: no "no disagreement" claimed, and the tie rule named for the metric picked
    assert "Nobody has reviewed an example yet: where judge and human disagree shows here once they do." in said
    assert any("Equal moves of the mean adherence (every verdict flip moves it by 1/n)" in t for t in said)
    at.segmented_control(key="dashboard.triage_metric").set_value("relevance").run()
    assert all("mean relevance" in label for label, _ in page_links(at))
    said = [shown(c.value) for c in at.caption]
    assert any("Equal moves of the mean relevance (the same move of its mean)" in t for t in said)
    assert not any("adherence by 1/n" in t for t in said)


def test_dashboard_after_a_correction_shows_agreement_and_disagreement_link(app_env):
    uid, judge_keys = correct_ml(app_env["db"])
    at = open_page("pages/dashboard.py")
    # issue 36: one reviewed example gives the figures but no interval, and says so once
    assert [i.value.split(":")[0] for i in at.info] == ["Too few reviewed to say (1 of 10)"]
    table = next(df.value for df in at.dataframe if "Figure" in df.value.columns).set_index("Figure")
    assert "relevant 95%" not in table.columns
    relevant = table["relevant"]
    # human removed every relevant key: each of the judge's relevant keys is a false positive
    assert relevant["FP"] == f"{len(set(judge_keys))}" and relevant["TP"] == "0"
    assert int(relevant["decisions"]) > 0
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["relevance RMSE"] != "0.000"
    # and each figure's card says it too, where its interval would be: read alone, 1.000 claimed more than one says
    states = [shown(c.value) for c in at.caption if c.value.startswith("no interval")]
    assert states == ["no interval: too few reviewed to say (1 of 10)"] * 4  # three RMSEs, adherence accuracy
    disagreement = [(label, q) for label, q in page_links(at) if "decision(s) differ" in label]
    assert disagreement == [(disagreement[0][0], "uid=" + quote(uid, safe=""))]
    assert f"{len(set(judge_keys))} decision(s) differ" in disagreement[0][0]
    assert len(at.get("download_button")) == 10  # the report (HTML, PDF) and 4 charts x PNG/SVG
    # issue 29: what to review next leaves out what someone reviewed, and says how it ranks ties
    leverage = [q for label, q in page_links(at) if "mean adherence" in label]
    assert len(leverage) == 10 and "uid=" + quote(uid, safe="") not in leverage
    assert any("already reviewed are left out" in c.value and "own size of effect" in c.value for c in at.caption)


def test_presentation_mode_hides_controls_on_dashboard(app_env):
    at = open_page("pages/dashboard.py", present="1")
    assert not at.get("download_button")
    assert not [s for s in at.selectbox if s.key == "dashboard.against"]
    # the flag lives in the session: it survives a page change, and ?present=0 turns it off
    at.switch_page("pages/compare.py").run()
    assert not at.get("download_button")
    at.query_params["present"] = "0"
    at.switch_page("pages/dashboard.py").run()
    assert len(at.get("download_button")) == 6


@pytest.mark.conformance
def test_dashboard_baseline_table_on_ragbench(app_env, monkeypatch):
    require_ragbench()
    monkeypatch.setenv("RAGVIZ_DATA", str(shard("covidqa")))
    at = open_page("pages/dashboard.py")
    baseline = next(df.value for df in at.dataframe if "hallucination AUROC" in df.value.columns)
    assert set(baseline["dataset"]) == {"covidqa_test"}  # one row per judge
    judge = baseline.set_index("judge")
    assert round(judge.loc["GPT-3.5 judge", "hallucination AUROC"], 3) == 0.589
    assert round(judge.loc["RAGAS", "hallucination AUROC"], 3) == 0.627
    assert round(judge.loc["TruLens", "hallucination AUROC"], 3) == 0.651
    assert round(judge.loc["GPT-3.5 judge", "utilization RMSE"], 3) == 0.101


def test_compare_page_lists_the_diff_with_metric_change(app_env):
    uid, judge_keys = correct_ml(app_env["db"])
    at = open_page("pages/compare.py")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["examples compared"] == "1" and metrics["examples that differ"] == "1"
    assert metrics["relevant keys ±"] == f"+0 / −{len(set(judge_keys))}"
    table = at.dataframe[0].value
    assert list(table["uid"]) == [uid]
    assert table.iloc[0]["relevant ±"] == " ".join(
        "−" + k for k in sorted(set(judge_keys), key=lambda k: (int(k[0]), k))
    )
    assert table.iloc[0]["Δ relevance"] < 0
    assert page_links(at) == [(f"{uid} — {len(set(judge_keys))} change(s)", "uid=" + quote(uid, safe=""))]
    # the same set on both sides is refused
    at.selectbox(key="compare.b").set_value("llm").run()
    assert any("two different" in i.value for i in at.info)


def test_compare_page_with_no_example_in_common_shows_no_totals(app_env):
    """Nobody decided yet: llm and human share no example. The page showed "examples that differ 0", "+0 / −0" and,
    in green, "share no example"; it says there is nothing to compare yet, with no totals of nothing."""
    at = open_page("pages/compare.py")
    assert not at.metric and not at.success
    said = " ".join(i.value for i in at.info)
    assert "llm and human share no example: nothing to compare yet." in said and "Review page" in said


@pytest.mark.browser
def test_browser_triage_link_opens_the_example_on_review(streamlit_server, page):
    expect = wait_expect()  # waits up to browser_wait.WAIT, whichever test this worker ran first

    correct_ml(streamlit_server.db, annotator="browser-tester")
    page.goto(f"{streamlit_server.url}/dashboard")
    link = page.get_by_role("link", name="decision(s) differ")
    expect(link).to_be_visible(timeout=60_000)
    link.click()
    page.wait_for_url(f"**/review?uid={quote(ML, safe='')}*", timeout=30_000)
    expect(page.get_by_text("id ml-vs-programming", exact=False)).to_be_visible(timeout=30_000)
    expect(metric_card(page, "Relevance")).to_be_visible()


def test_a_subset_mean_from_too_few_examples_has_no_interval_and_says_so(app_env):
    """The sample's subsets hold 5-7 examples: below MIN_EXAMPLES (20) a percentile bootstrap of the mean covered
    72-86 % (benchmarks/bench_mean_intervals.py), yet the chart and table showed it as a 95 % interval. Now each
    subset's mean says "too few examples to say (N of 20)" with no interval (a ring on the chart); ALL (22 examples)
    keeps its interval."""
    at = open_page("pages/dashboard.py")
    said = [shown(c.value) for c in at.caption]
    assert any(
        t.startswith("Ring: no interval. Too few examples to say (an interval from 20)")
        and "medqa_sample (5 examples)" in t  # every metric of the subset: named once
        and "techqa_sample (6 examples)" in t  # 7 examples, one without TRACe values
        for t in said
    ), said
    table = next(df.value for df in at.dataframe if "95% interval" in df.value.columns)
    medqa = table[(table["subset"] == "medqa_sample") & (table["metric"] == "relevance")].iloc[0]
    assert medqa["95% interval"] == "too few examples to say (5 of 20)" and medqa["n"] == 5
    assert medqa["mean"] is not None  # the mean is still shown
    subsets = table[table["subset"] != "ALL"]
    assert all(t.startswith("too few examples to say") for t in subsets["95% interval"] if t != "no values")
    whole = table[table["subset"] == "ALL"]["95% interval"]
    assert all(" – " in t for t in whole if t != "no values"), list(whole)  # 22 examples: a low – high interval


def test_compare_systems_legend_names_only_what_is_drawn(app_env):
    """No paired audit yet: only the judge's differences are drawn, yet the legend also named "corrected (PPI++)"."""
    at = open_page("pages/dashboard.py")
    legends = [h.proto.body for h in at.get("html") if "rv-legend" in h.proto.body and "judge only" in h.proto.body]
    assert len(legends) == 1 and "corrected" not in legends[0], legends
