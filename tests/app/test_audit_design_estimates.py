"""The Dashboard's "What people would say", the Explainer's plain words and the stakeholder report over a stratified
or active audit sample (issue 23 item 3 in the app): the estimator that matches the design, its name, the effective
sample size and the people-hours saved, each figure equal to ``ragviz estimate --db ... --format json``'s on the same
store (real RAGBench rows, a real SQLite store)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ragviz.analysis.audits.samples import draw_design
from ragviz.analysis.estimates.pairing import member_rows
from ragviz.cli.main import main
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, field_value
from ragviz.data.load import load
from ragviz.export.report.content import gather
from ragviz.export.report.html import method_html
from ragviz.export.report.request import ReportRequest
from ragviz.store.label_store import LabelStore
from tests.apptest_helpers import open_page, open_queue
from tests.ragbench_data import require_ragbench, shard

TRACE = ("relevance", "utilization", "completeness", "adherence")


@pytest.fixture
def judged(app_env, monkeypatch) -> Path:
    require_ragbench()
    rows = [*pq.read_table(shard("covidqa")).to_pylist()[:150], *pq.read_table(shard("hagrid")).to_pylist()[:150]]
    for i, r in enumerate(rows):
        r["judge_confidence"] = 0.55 if (r.get("unsupported_response_sentence_keys") or i % 7 == 0) else 0.97
    path = app_env["tmp"] / "judged.jsonl"
    path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setenv("RAGVIZ_DATA", str(path))
    return path


def _reviewed_sample(db: Path, data: Path, design: str, size: int = 120):
    dataset = load([data]).dataset
    with LabelStore(db) as store:
        sample = draw_design(store, dataset, design, size, "ana", 5, "dataset_name", "neyman")
        for row in member_rows(dataset, sample.members):
            ex = dataset.example(row)
            changes = [Change(REVIEW_FIELD, None, REVIEWED)]
            if row % 4 == 0:  # people disagree with the judge on some: no relevant sentence
                old = field_value(store.current_labels(ex, "ana"), "relevant_keys")
                changes.insert(0, Change("relevant_keys", old, []))
            store.record(ex.uid, "ana", changes, example=ex)
    return dataset, sample


def _cli(capsys, data: Path, db: Path) -> dict:
    code = main(["estimate", str(data), "--db", str(db), "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize("design", ["stratified", "active"])
def test_dashboard_explainer_and_report_say_the_clis_figures(judged, app_env, capsys, design):
    dataset, sample = _reviewed_sample(app_env["db"], judged, design)
    cli = _cli(capsys, judged, app_env["db"])
    assert cli["design"]["name"] == design and cli["n_labeled"] == sample.size

    at = open_page("pages/dashboard.py")
    captions = " ".join(c.value for c in at.caption).replace("\\", "")
    by = " by dataset_name" if design == "stratified" else ""
    assert f"design: {design} audit{by} (sample {sample.id})" in captions
    named = "stratified PPI++" if design == "stratified" else "inverse-probability-weighted PPI++"
    # either design's: Student's t around its cross-fitted estimate (issue 36), the CLI's header's word
    assert f"({named}, t" in captions  # then "intervals)", or which metric fell back to which first
    table = next(df.value for df in at.dataframe if "corrected 95% CI" in df.value.columns)
    saving = next(df.value for df in at.dataframe if "uniform n as precise" in df.value.columns).set_index("metric")
    for _, row in table.iterrows():
        m = cli["metrics"][row["metric"]]
        low, high = m["ppi"]["ci"]
        assert row["corrected"] == pytest.approx(m["ppi"]["estimate"], abs=1e-12)
        assert row["corrected 95% CI"] == f"{low:.3f} – {high:.3f}"
        assert row["people only"] == pytest.approx(m["human"]["estimate"], abs=1e-12)
        assert row["lambda"] == pytest.approx(m["ppi"]["lambda"], abs=1e-12)
        assert row["worth n people-only"] == pytest.approx(m["design"]["effective_n"], abs=1e-9)
        saved = saving.loc[row["metric"]]
        assert saved["effective n"] == pytest.approx(m["design"]["effective_n"], abs=1e-9)
        assert saved["uniform n as precise"] == m["design"]["uniform_equivalent"]
        assert saved["examples saved"] == m["design"]["saved_examples"]
        assert saved["people-hours saved"] == pytest.approx(m["design"]["saved_hours"])
    adherence = cli["metrics"]["adherence"]["design"]
    said = " ".join(m.value for m in at.markdown).replace("\\", "")
    eff = f"{adherence['effective_n']:,.0f}"
    assert f"effective sample size of {eff}" in said
    saved = adherence["saved_examples"]
    if saved >= 0:
        assert f"about {adherence['saved_hours']:g} people-hours saved at 4 minutes each" in said
    else:
        assert "no people-hours saved" in said

    at = open_page("pages/explainer.py")
    words = " ".join(m.value for m in at.markdown).replace("\\", "")
    ppi = cli["metrics"]["adherence"]["ppi"]
    assert f"corrected with {sample.size} reviewed answers: {100 * ppi['estimate']:.0f}%" in words
    assert f"The audit is an {design} audit" in words or f"The audit is a {design} audit" in words
    assert f"effective sample size of {eff}" in words

    with LabelStore(app_env["db"]) as store:
        content = gather(dataset, store, ReportRequest((str(judged),), str(app_env["db"])))
    assert content.design == f"{design} audit{by}"
    assert content.design_note is not None and f"effective sample size of {eff}" in content.design_note
    assert content.estimates is not None
    for name in TRACE:
        got, want = content.estimates.overall.metrics[name], cli["metrics"][name]
        assert [got.ppi.low, got.ppi.high] == pytest.approx(want["ppi"]["ci"], abs=1e-12)
        assert got.design is not None and got.design["uniform_equivalent"] == want["design"]["uniform_equivalent"]
        assert got.ppi.method == want["ppi"]["interval"] == "t"
    # the report's method section names the interval the estimates got, as the CLI's header does
    assert "prediction-powered (PPI++, t intervals)" in method_html(content)


def test_a_stratified_sample_whose_column_is_gone_says_so(judged, app_env, monkeypatch):
    rows = [json.loads(line) for line in judged.read_text().splitlines()]
    for i, r in enumerate(rows):
        r["team"] = "north" if i % 2 else "south"
    first = app_env["tmp"] / "teams.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with LabelStore(app_env["db"]) as store:
        draw_design(store, load([first]).dataset, "stratified", 20, "ana", 5, "team")
    for r in rows:
        r.pop("team")
    judged.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")  # the same examples, no team
    at = open_page("pages/dashboard.py")
    warnings = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "No corrected estimates: audit sample 1 (stratified): no column 'team' to stratify by" in warnings
    at = open_page("pages/explainer.py")
    assert "No corrected figure: audit sample 1 (stratified)" in " ".join(w.value for w in at.warning).replace("\\", "")
    with LabelStore(app_env["db"]) as store:
        content = gather(load([judged]).dataset, store, ReportRequest((str(judged),), str(app_env["db"])))
    assert content.notes[0].startswith("No corrected figure: audit sample 1 (stratified): no column 'team'")
    assert content.sample is None and content.design_note is None


def test_the_planner_plans_with_the_design_and_review_counts_toward_it(judged, app_env):
    from ragviz.analysis.audits.design_plan import design_plan_text, plan_design, target_progress_text
    from ragviz.analysis.audits.sample_estimate import sample_report

    dataset, sample = _reviewed_sample(app_env["db"], judged, "active", size=60)
    with LabelStore(app_env["db"]) as store:
        pairing, _, report = sample_report(dataset, store, sample)
    at = open_page("pages/dashboard.py")
    at.number_input(key="audit.plan_half").set_value(0.08).run()
    said = [m.value.replace("\\", "") for m in at.markdown if "on adherence" in m.value]
    expected = design_plan_text(plan_design(pairing, report, "adherence", 0.08))
    assert expected in said and "with this active design needs" in expected and "a uniform audit:" in expected
    at.switch_page("pages/review.py").run()
    open_queue(at)  # the Queue's widgets are drawn while it is open
    at.radio(key="review.queue").set_value("Audit sample").run()
    assert not at.exception
    bars = [p.proto.text.replace("\\", "") for p in at.get("progress")]
    toward = target_progress_text(plan_design(pairing, report, "adherence", 0.08))
    assert toward in bars and toward.startswith(f"Toward ±0.08 on adherence: {sample.size} of about")
