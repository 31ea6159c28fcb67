"""`ragviz audit draw --design paired` and `ragviz estimate --compare` (issue 39) on RAGBench's two generation models
per question (delucionqa and emanual): the paired draw, people's reviews of both answers, the corrected difference,
and the bad input said in one line each."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ragviz.analysis.compare_systems.difference import compare_report
from ragviz.analysis.compare_systems.pairs import column_answers, pair_systems
from ragviz.analysis.compare_systems.sample import compare_sample, compare_sample_of
from ragviz.analysis.estimates.pairing import member_rows, pair_store
from ragviz.cli.main import main
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change, field_value, support_field
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.ragbench_data import require_ragbench, shard

A, B = "gpt-3.5-turbo-0125", "claude-3-haiku-20240307"


@pytest.fixture(scope="module")
def data_file(tmp_path_factory) -> Path:
    require_ragbench()
    rows = [*pq.read_table(shard("delucionqa")).to_pylist(), *pq.read_table(shard("emanual")).to_pylist()]
    path = tmp_path_factory.mktemp("compare") / "two_models.jsonl"
    path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows), encoding="utf-8")
    return path


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _review_both(store, dataset, uids, who="ana"):
    """People review every member; on B's answers they find the first response sentence unsupported (the judge had
    called it supported): B is worse on adherence than the judge says."""
    for row in member_rows(dataset, uids):
        ex = dataset.example(row)
        changes = []
        labels = store.current_labels(ex, who)
        if dataset.generation_models[row] == B and ex.response_keys():
            field = support_field(ex.response_keys()[0])
            before = field_value(labels, field)
            if before is not None and before["supported"]:
                changes.append(Change(field, before, {**before, "supported": False, "supporting_keys": []}))
        changes.append(Change(REVIEW_FIELD, None, REVIEWED))
        store.record(ex.uid, who, changes, example=ex)


def test_paired_draw_reviews_and_the_corrected_difference(tmp_path, capsys, data_file):
    db = tmp_path / "labels.db"
    code, out, err = _run(
        capsys,
        "audit",
        "draw",
        data_file,
        "--db",
        db,
        "--size",
        120,
        "--design",
        "paired",
        "--seed",
        7,
        "--annotator",
        "ana",
    )
    assert code == 0, err
    assert out.startswith(f"audit sample 1: paired, 120 questions of 158 ({A} and {B}: 240 answers), seed 7")
    assert "To tell a 3-point difference in adherence apart" in out
    dataset = load([data_file]).dataset
    with LabelStore(db) as store:
        sample = store.audits.get_sample(1)
        assert sample is not None and sample.design == "paired"
        members = list(sample.members)
        # both answers of each drawn question, one after the other
        for first, second in zip(members[::2], members[1::2]):
            i, j = dataset.index_of(first), dataset.index_of(second)
            assert dataset.ids[i] == dataset.ids[j] and dataset.datasets[i] == dataset.datasets[j]
            assert {dataset.generation_models[i], dataset.generation_models[j]} == {A, B}
        assert all(m.inclusion_probability == pytest.approx(120 / 158) for m in sample.member_details())
        _review_both(store, dataset, members[:-1])  # the last question has one answer reviewed
        pairing = pair_store(dataset, store, members)
    code, out, err = _run(capsys, "estimate", data_file, "--db", db, "--compare", A, B, "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert got["a"] == A and got["b"] == B and got["n_pairs"] == 158 and got["n_audited"] == 119
    adherence = got["metrics"]["adherence"]
    assert adherence["n_labeled"] == 119 and adherence["more_needed"] == 0
    low, high = adherence["ppi"]["ci"]
    assert high < 0 and adherence["judge"]["estimate"] > high  # people found B worse than the judge says
    assert adherence["verdict"].startswith(f"{A} is better on adherence by ")
    assert "1 questions have only one of their two answers reviewed" in err
    # the same figures as the core computes (what the Dashboard and the report show)
    report = compare_report(pair_systems(column_answers(dataset, pairing), A, B))
    assert report.overall.metrics["adherence"].ppi.ci() == [low, high]
    with LabelStore(db) as store:  # the Dashboard's, the Explainer's and the report's path
        shown = compare_sample(dataset, store, compare_sample_of(store, dataset))[1]
    assert shown.overall.metrics["adherence"].ppi.ci() == [low, high] and (shown.a, shown.b) == (A, B)
    assert set(got["groups"]) == {"delucionqa_test", "emanual_test"}
    code, out, _ = _run(capsys, "estimate", data_file, "--db", db, "--compare", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and {r["group"] for r in rows} == {"ALL", "delucionqa_test", "emanual_test"}
    assert (
        next(r for r in rows if r["group"] == "ALL" and r["metric"] == "adherence")["verdict"] == adherence["verdict"]
    )
    code, out, _ = _run(capsys, "estimate", data_file, "--db", db, "--compare")
    assert code == 0 and f"  {adherence['verdict']}" in out and "ALL              adherence" in out
    # the stakeholder report opens with the same comparison
    html_path = tmp_path / "report.html"
    code, _, err = _run(capsys, "report", data_file, "--db", db, "-o", html_path)
    html = html_path.read_text(encoding="utf-8")
    assert code == 0, err
    assert html.index('<section id="compare">') < html.index('<section id="headline">')
    assert f'<p class="lead">{adherence["verdict"]}</p>' in html
    # grown by questions: the first 120 stay, in order
    code, out, err = _run(
        capsys, "audit", "draw", data_file, "--db", db, "--size", 130, "--grow", 1, "--format", "json"
    )
    grown = json.loads(out)
    assert code == 0 and grown["size"] == 260 and [m["uid"] for m in grown["members"][:240]] == members


def test_two_data_sets_as_a_equals_path(tmp_path, capsys):
    require_ragbench()
    rows = pq.read_table(shard("emanual")).to_pylist()
    a_path, b_path = tmp_path / "dense.jsonl", tmp_path / "hybrid.jsonl"
    a_path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows if r["generation_model_name"] == A))
    b_path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows if r["generation_model_name"] == B))
    code, out, err = _run(capsys, "estimate", f"dense={a_path}", f"hybrid={b_path}", "--compare", "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    assert (got["a"], got["b"], got["system"], got["n_pairs"]) == ("dense", "hybrid", "file", 66)


def test_bad_input_one_line_each(tmp_path, capsys, data_file):
    require_ragbench()
    covid = shard("covidqa")
    code, _, err = _run(capsys, "estimate", covid, "--compare")
    assert code == 2 and err == (
        "generation_model_name: one system only ('gpt-3.5-turbo-1106'): a comparison needs two (another --system "
        "COLUMN, or two data sets as A=PATH B=PATH)\n"
    )
    rows = pq.read_table(shard("emanual")).to_pylist()
    a_path, b_path = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a_path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows[:10]))
    b_path.write_text("".join(json.dumps({**r, "id": "x" + str(r["id"])}, default=str) + "\n" for r in rows[10:20]))
    code, _, err = _run(capsys, "estimate", f"a={a_path}", f"b={b_path}", "--compare")
    assert code == 2 and err == "file: 'a' and 'b' share no question (paired by id): nothing to compare\n"
    both = [r for r in rows if r["id"] == rows[0]["id"]]
    assert len(both) == 2
    unlabeled = {**both[1]}
    for k in (
        "all_relevant_sentence_keys",
        "all_utilized_sentence_keys",
        "sentence_support_information",
        "unsupported_response_sentence_keys",
        "adherence_score",
        "relevance_score",
        "utilization_score",
        "completeness_score",
        "relevance_explanation",
        "overall_supported_explanation",
    ):
        unlabeled.pop(k)
    path = tmp_path / "missing.jsonl"
    path.write_text(json.dumps(both[0], default=str) + "\n" + json.dumps(unlabeled, default=str) + "\n")
    code, _, err = _run(capsys, "estimate", path, "--compare")
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"{path}:2: labels: the answer of {unlabeled['generation_model_name']} to question ")
    assert err.endswith(
        "has no judge labels, so its pair cannot be compared: label it (ragviz label) or leave the question out\n"
    )
    code, _, err = _run(capsys, "estimate", data_file, "--compare", A)
    assert code == 2 and err == "--compare: give two systems (A B) or none, got 1\n"


def test_a_stratified_sample_is_read_as_uniform_questions_and_the_outputs_say_so(tmp_path, capsys, data_file):
    db = tmp_path / "labels.db"
    code, _, err = _run(
        capsys, "audit", "draw", data_file, "--db", db, "--size", 60, "--design", "stratified", "--by", "dataset_name",
        "--seed", 3, "--annotator", "ana",
    )  # fmt: skip
    assert code == 0, err
    dataset = load([data_file]).dataset
    with LabelStore(db) as store:
        _review_both(store, dataset, list(store.audits.get_sample(1).members))
        pairs, _ = compare_sample(dataset, store, compare_sample_of(store, dataset))
    warning = "audit sample 1 is stratified: its reviewed pairs are read as a uniform sample of questions"
    assert any(warning in n for n in pairs.notes())
    code, out, err = _run(capsys, "estimate", data_file, "--db", db, "--compare", "--format", "json")
    assert code == 0 and f"warning: {warning}" in err
