"""RAGBench baseline judges scored against the current labels: the published figures on the
untouched test splits, and what a human correction does to them (real SQLite store, real CLI)."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from sklearn.metrics import roc_auc_score

from ragviz.analysis.dashboard.baselines import agreement_report, baseline_records, baseline_table
from ragviz.analysis.labelsets.selection import HUMAN
from ragviz.data.labels import Change, field_value, support_field
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.cli_run import ragviz
from tests.ragbench_data import SUBSETS, require_ragbench, shard
from tests.sample import ROOT, SAMPLE_JSONL

# subset: gpt35 auroc / relevance rmse / utilization rmse, ragas auroc / relevance rmse, trulens auroc / relevance rmse
PUBLISHED = {
    "covidqa": (0.589, 0.172, 0.101, 0.627, 0.251, 0.651, 0.583),
    "delucionqa": (0.575, 0.180, 0.106, 0.698, 0.225, 0.550, 0.639),
    "emanual": (0.536, 0.170, 0.112, 0.568, 0.262, 0.609, 0.639),
    "expertqa": (0.547, 0.308, 0.230, 0.567, 0.279, 0.693, 0.590),
    "hagrid": (0.580, 0.224, 0.148, 0.625, 0.257, 0.675, 0.689),
    "hotpotqa": (0.580, 0.111, 0.079, 0.610, 0.195, 0.665, 0.724),
    "msmarco": (0.654, 0.229, 0.108, 0.646, 0.259, 0.625, 0.610),
}
KEYS = (
    "gpt35_hallucination_auroc",
    "gpt35_relevance_rmse",
    "gpt35_utilization_rmse",
    "ragas_hallucination_auroc",
    "ragas_relevance_rmse",
    "trulens_hallucination_auroc",
    "trulens_relevance_rmse",
)


@pytest.fixture(scope="module")
def ragbench_dataset():
    root = require_ragbench()
    result = load([root])
    assert result.ok, [str(p) for p in result.errors[:5]]
    return result.dataset


@pytest.mark.conformance
def test_baseline_table_reproduces_published_figures(ragbench_dataset):
    table = {row["dataset"]: row for row in baseline_table(baseline_records(ragbench_dataset))}
    for subset in SUBSETS:
        row = table[f"{subset}_test"]
        got = tuple(round(row[k], 3) for k in KEYS)
        assert got == PUBLISHED[subset], subset
    assert table["ALL"]["n"] == 2896
    # NaN predictions are dropped per figure, not per row: covidqa has 4 rows without a RAGAS faithfulness
    assert table["covidqa_test"]["ragas_n_auroc"] == 242 and table["covidqa_test"]["ragas_n_relevance"] == 246
    assert table["covidqa_test"]["trulens_n_relevance"] == 207


def _first_non_adherent(dataset, subset: str) -> int:
    for rec in baseline_records(dataset):
        if rec.subset == subset and rec.truth.adherence == 0.0:
            return rec.index
    raise AssertionError("no non-adherent example")


@pytest.mark.conformance
def test_human_correction_changes_the_table(tmp_path, ragbench_dataset):
    ds = ragbench_dataset
    i = _first_non_adherent(ds, "covidqa_test")
    ex = ds.example(i)
    db = tmp_path / "labels.db"
    with LabelStore(db) as store:
        current = store.current_labels(ex, "ann")
        # the annotator marks every response sentence supported: the example becomes adherent
        changes = []
        for key in ex.response_keys():
            f = support_field(key)
            old = field_value(current, f) or {"supported": None, "supporting_keys": [], "explanation": ""}
            changes.append(
                Change(f, old, {**old, "supported": True, "supporting_keys": old["supporting_keys"] or ["0a"]})
            )
        store.record(ex.uid, "ann", changes)
        report = {r["dataset"]: r for r in agreement_report(ds, HUMAN, store)}

    # independent computation straight from the Parquet file with the one truth value flipped
    table = pq.read_table(shard("covidqa")).to_pandas()
    truth = ~table["adherence_score"].astype(bool)
    row_in_file = ex.source.row - 1
    assert truth.iloc[row_in_file]
    truth.iloc[row_in_file] = False
    expected = roc_auc_score(truth, 1 - table["gpt3_adherence"])
    got = report["covidqa_test"]["gpt35_hallucination_auroc"]
    assert got == pytest.approx(expected, abs=1e-12)
    assert not math.isclose(got, 0.588628762541806, abs_tol=1e-9)  # the untouched figure
    # other subsets are untouched
    assert round(report["hotpotqa_test"]["gpt35_hallucination_auroc"], 3) == PUBLISHED["hotpotqa"][0]
    judge = report["covidqa_test"]["judge_agreement"]
    # reference = human (adherent), candidate = judge (not adherent): one false negative
    assert (
        judge["n"] == 1
        and judge["adherent_fn"] == 1
        and judge["adherent_tp"] == judge["adherent_fp"] == judge["adherent_tn"] == 0
    )
    assert judge["adherence_accuracy"] == 0.0
    assert report["hotpotqa_test"]["judge_agreement"]["n"] == 0


def _cli(*args: str, env_db: Path | None = None) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(env_db.parent if env_db else ROOT)}
    if env_db:
        env["RAGVIZ_DB"] = str(env_db)
    return ragviz("agreement", *args, env=env)


@pytest.mark.conformance
def test_cli_prints_one_json_object_per_subset():
    require_ragbench()
    out = _cli(str(shard("covidqa")), str(shard("msmarco")), "--against", "llm")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["dataset"] for r in rows] == ["covidqa_test", "msmarco_test", "ALL"]
    assert round(rows[0]["gpt35_hallucination_auroc"], 3) == 0.589
    assert round(rows[1]["trulens_relevance_rmse"], 3) == 0.610
    assert rows[0]["n"] == 246


def test_cli_against_annotator_with_a_real_store(tmp_path, capsys, monkeypatch):
    from ragviz.cli.main import main

    monkeypatch.setenv("RAGVIZ_DB", str(tmp_path / "default.db"))
    data = SAMPLE_JSONL
    result = load([data])
    ex = result.dataset.example(0)
    db = tmp_path / "l.db"
    with LabelStore(db) as store:
        store.record(ex.uid, "bob", [Change("relevant_keys", list(ex.labels.relevant_keys), [])])

    def run(*args: str) -> tuple[int, str, str]:
        code = main(["agreement", *args])
        out = capsys.readouterr()
        return code, out.out, out.err

    code, out, err = run(str(data), "--against", "bob", "--db", str(db))
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    agreed = [r for r in rows if r["judge_agreement"]["n"]]
    assert agreed and all(r["against"] == "bob" for r in rows)
    one = next(r for r in agreed if r["dataset"] == ex.dataset)["judge_agreement"]
    # bob removed every relevant key: the judge's relevant keys are all false positives
    assert one["relevant_tp"] == 0 and one["relevant_fp"] == len(set(ex.labels.relevant_keys)) > 0
    assert "no baseline-judge score columns" in err

    code, _, err = run(str(data), "--against", "nobody", "--db", str(db))
    assert code == 2 and "nobody" in err and "bob" in err
    code, _, err = run(str(data), "--db", str(tmp_path / "missing.db"))
    assert code == 2 and "missing.db: no label store" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q"}\n')
    code, _, err = run(str(bad), "--against", "llm")
    assert code == 2 and "bad.jsonl:1" in err
    assert not (tmp_path / "default.db").exists()  # reading never creates a store


@pytest.mark.parametrize("against", ["llm", "human"])
def test_agreement_scores_only_the_rows_whose_labels_are_not_their_own(tmp_path, against):
    """``agreement_report`` scores the rows whose truth is their own labels on the label columns and builds only the
    others (a reviewed export's judge copies under ``llm``; a person's rows, with or without the judge's copy, under
    ``human``; a person's decision in the store): the same figures as the label set read row by row."""
    from ragviz.analysis.dashboard.baselines import baseline_table_against
    from ragviz.analysis.labelsets.named import resolve_label_set
    from ragviz.analysis.labelsets.selection import parse_label_set
    from ragviz.data.ragbench import LABEL_FIELDS

    rows = pq.read_table(shard("covidqa")).to_pylist()[:120]
    for i, row in enumerate(rows):
        if i % 4 == 0:  # reviewed: a person's labels plain, the judge's copy under llm_ with one relevant key fewer
            judge = {k: row.get(k) for k in LABEL_FIELDS}
            judge["all_relevant_sentence_keys"] = (row.get("all_relevant_sentence_keys") or [])[1:]
            row.update({"llm_" + k: v for k, v in judge.items()}, label_source="human")
        elif i % 4 == 1:  # a person's labels, no judge's copy
            row["label_source"] = "human"
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows), encoding="utf-8")
    ds = load([path]).dataset
    selection = parse_label_set(against)
    with LabelStore(tmp_path / "labels.db") as store:
        ex = ds.example(2)
        key = ex.response_keys()[0]
        old = field_value(store.current_labels(ex, "ann"), support_field(key))
        store.record(ex.uid, "ann", [Change(support_field(key), old, {**(old or {}), "supported": False})])
        got = agreement_report(ds, selection, store)
        truth = resolve_label_set(ds, selection, store, scope="all")
        want = baseline_table_against(ds, truth)  # every row's truth read one by one
    assert [r["n"] for r in got] == [r["n"] for r in want] and want[0]["n"] > 0
    for a, b in zip(got, want, strict=True):
        for key, value in b.items():
            assert a[key] == (pytest.approx(value, rel=1e-12, abs=1e-12) if isinstance(value, float) else value), key
