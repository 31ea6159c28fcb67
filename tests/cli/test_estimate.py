"""`ragviz estimate` and the pairing behind it: real files, the numbers against ppi_py, bad input."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import numpy as np
import ppi_py
import pyarrow.parquet as pq
import pytest
from scipy.stats import t as student

from ragviz.analysis.estimates import ppi
from ragviz.analysis.estimates.crossfit import FOLDS, crossfit_ppi, crossfit_ppi_mean
from ragviz.analysis.estimates.estimate import DEFAULT_INTERVAL
from ragviz.analysis.estimates.student_t import STUDENT_T
from ragviz.cli.estimate import INTERVALS
from ragviz.cli.main import main
from ragviz.data.ragbench import LABEL_FIELDS
from tests.cli_run import ragviz
from tests.ragbench_data import require_ragbench, shard
from tests.sample import SAMPLE_JSONL

METRICS = ("relevance", "utilization", "completeness", "adherence")


def _write(rows, path: Path) -> Path:
    path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows), encoding="utf-8")
    return path


def _judge(rows, seed: int = 0, miss: float = 0.7, drop: float = 0.4):
    """A biased judge: misses *miss* of the hallucinated answers and drops *drop* of the relevant keys."""
    rng = random.Random(seed)
    out = []
    for r in rows:
        j = dict(r)
        if j.get("unsupported_response_sentence_keys") and rng.random() < miss:
            j["unsupported_response_sentence_keys"] = []
        if j.get("all_relevant_sentence_keys") is not None:
            j["all_relevant_sentence_keys"] = [k for k in j["all_relevant_sentence_keys"] if rng.random() > drop]
        out.append(j)
    return out


def _export(truth, judge, audited, audit_column=None):
    """Rows as `ragviz export` writes them: people's labels plain, the judge's under llm_."""
    rows = []
    for i, (t, j) in enumerate(zip(truth, judge)):
        if i in audited or (audit_column is not None and i in audit_column.get("human_outside", ())):
            row = {**t, **{"llm_" + k: j.get(k) for k in LABEL_FIELDS}, "label_source": "human"}
        else:
            row = {**j, "label_source": "llm"}
        if audit_column is not None:
            row["audit_sample"] = i in audit_column["sample"]
        rows.append(row)
    return rows


@pytest.fixture(scope="module")
def ragbench_rows():
    require_ragbench()
    return [*pq.read_table(shard("covidqa")).to_pylist(), *pq.read_table(shard("hagrid")).to_pylist()]


def _trace_arrays(truth, judge, audited):
    """Each metric under truth and judge, straight from the metric functions (no ragviz.analysis)."""
    from ragviz.data.ragbench import example_from_row
    from ragviz.metrics.trace import example_trace

    y = {m: [] for m in METRICS}
    f = {m: [] for m in METRICS}
    fu = {m: [] for m in METRICS}
    for i, (t, j) in enumerate(zip(truth, judge)):
        ts, js = example_trace(example_from_row(t)), example_trace(example_from_row(j))
        for m in METRICS:
            if i in audited:
                y[m].append(getattr(ts, m))
                f[m].append(getattr(js, m))
            else:
                fu[m].append(getattr(js, m))
    return {m: tuple(np.array(a[m], dtype=float) for a in (y, f, fu)) for m in METRICS}


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main(["estimate", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_planted_bias_corrected_and_equal_to_ppi_py(tmp_path, capsys, ragbench_rows):
    truth = ragbench_rows
    judge = _judge(truth)
    audited = set(random.Random(1).sample(range(len(truth)), 200))
    data = _write(judge, tmp_path / "judge.jsonl")
    human = _write([truth[i] for i in sorted(audited)], tmp_path / "human.jsonl")
    code, out, err = _run(capsys, data, "--human", human, "--format", "json", "--interval", "normal")
    assert code == 0, err
    result = json.loads(out)
    assert set(result) == {"alpha", "interval", "design", "min_audited", "n_labeled", "n_unlabeled", "metrics"}
    assert result["design"] == {"name": "uniform"}  # people's labels from a file: a uniform audit
    assert (result["alpha"], result["n_labeled"], result["n_unlabeled"]) == (0.05, 200, len(truth) - 200)
    assert result["interval"] == "normal"
    # the bootstrap-t around the same estimate (ragviz.analysis.estimates.ppi, seed 0)
    code, out, err = _run(capsys, data, "--human", human, "--format", "json", "--interval", "bootstrap-t")
    assert code == 0, err
    boot = json.loads(out)
    assert boot["interval"] == "bootstrap-t"
    # the default (issue 36): Student's t around the cross-fitted estimate, its variance the out-of-fold residuals'
    code, out, err = _run(capsys, data, "--human", human, "--format", "json")
    assert code == 0, err
    shown = json.loads(out)
    assert shown["interval"] == "t"
    arrays = _trace_arrays(truth, judge, audited)
    for m in METRICS:
        y, f, fu = arrays[m]
        got = result["metrics"][m]
        lo, hi = ppi_py.ppi_mean_ci(y, f, fu, alpha=0.05)
        assert got["ppi"]["interval"] == "normal"
        # λ cross-fitted (issue 36): ppi_py's interval (λ tuned on the audit) moved to the cross-fitted estimate
        shift = 0.0
        if got["ppi"]["lambda_rule"].startswith("cross-fitted"):
            tuned = float(ppi_py.ppi_mean_pointestimate(y, f, fu)[0])
            shift = crossfit_ppi_mean(y, f, fu, FOLDS)[0] - tuned
            assert got["ppi"]["estimate"] == pytest.approx(crossfit_ppi_mean(y, f, fu, FOLDS)[0], abs=1e-9)
        lo, hi = lo + shift, hi + shift
        if np.count_nonzero(y != f) >= 5:  # the usual case: ppi_py's interval
            assert got["ppi"]["ci"] == pytest.approx([float(lo[0]), float(hi[0])], abs=1e-9)
        else:  # this judge never changes utilization: no disagreement, so the interval is floored, not ppi_py's
            assert m == "utilization" and got["ppi"]["ci"][0] < float(lo[0]) and got["ppi"]["ci"][1] > float(hi[0])
        b = boot["metrics"][m]
        assert (b["ppi"]["estimate"], b["ppi"]["lambda"], b["human"]) == (
            got["ppi"]["estimate"],
            got["ppi"]["lambda"],
            got["human"],
        )
        expected = ppi.ppi_mean_ci(y, f, fu, 0.05, method="bootstrap-t", bounds=(0.0, 1.0))
        moved = [min(1.0, max(0.0, v + shift)) for v in expected.ci()]
        assert b["ppi"]["interval"] == expected.method and b["ppi"]["ci"] == pytest.approx(moved, abs=1e-12)
        assert (b["ppi"]["ci"] != got["ppi"]["ci"]) == (expected.method == "bootstrap-t")
        t = shown["metrics"][m]["ppi"]
        if got["ppi"]["lambda_rule"].startswith("cross-fitted") and np.count_nonzero(y != f) >= 5:
            fit = crossfit_ppi(y, f, fu, FOLDS)
            half = student.ppf(0.975, fit.df) * fit.variance**0.5
            assert t["interval"] == "t" and t["estimate"] == pytest.approx(fit.estimate, abs=1e-12)
            assert t["ci"] == pytest.approx([max(0.0, fit.estimate - half), min(1.0, fit.estimate + half)], abs=1e-12)
        tuned_estimate = float(ppi_py.ppi_mean_pointestimate(y, f, fu)[0])
        assert got["ppi"]["estimate"] == pytest.approx(tuned_estimate + shift, abs=1e-9)
        if m == "adherence":  # a 0/1 metric: the Wilson interval (statsmodels' proportion_confint agrees)
            from statsmodels.stats.proportion import proportion_confint

            wilson = proportion_confint(int(np.sum(y)), len(y), alpha=0.05, method="wilson")
            assert got["human"]["ci"] == pytest.approx(list(wilson), abs=1e-9)
        else:
            assert got["human"]["ci"] == pytest.approx(list(ppi_py.classical_mean_ci(y, alpha=0.05)), abs=1e-9)
        assert got["judge"]["estimate"] == pytest.approx(np.concatenate([f, fu]).mean())
        assert 0.0 <= got["ppi"]["lambda"] <= 1.0 and got["gain"] > 0
    # the planted bias: the judge misses hallucinations and relevant sentences; PPI++ recovers the truth
    # (the stored scores of the RAGBench rows are the truth's metrics: tests/metrics/test_conformance.py)
    for m, true_mean, judge_gap in (
        ("adherence", np.mean([float(r["adherence_score"]) for r in truth]), 0.04),
        ("relevance", np.mean([r["relevance_score"] for r in truth]), -0.05),
    ):
        got = result["metrics"][m]
        gap = got["judge"]["estimate"] - true_mean
        assert gap > judge_gap if judge_gap > 0 else gap < judge_gap, (m, gap)
        for interval in (got, boot["metrics"][m]):
            lo, hi = interval["ppi"]["ci"]
            assert lo <= true_mean <= hi, m
        assert abs(got["ppi"]["estimate"] - true_mean) < abs(gap) / 2, m


def test_interval_choices_are_the_core_methods_default_first():
    assert set(INTERVALS) == {*ppi.INTERVAL_METHODS, STUDENT_T} and INTERVALS[0] == DEFAULT_INTERVAL == STUDENT_T


def test_export_rows_with_an_audit_column_give_the_same_numbers(tmp_path, capsys, ragbench_rows):
    truth = ragbench_rows[:300]
    judge = _judge(truth, seed=4)
    audited = set(random.Random(5).sample(range(len(truth)), 40))
    human = _write([truth[i] for i in sorted(audited)], tmp_path / "human.jsonl")
    plain = _write(judge, tmp_path / "judge.jsonl")
    _, expected, _ = _run(capsys, plain, "--human", human, "--format", "json", "--by", "dataset_name")
    # an export: 40 audited human rows, 10 more human rows outside the sample, 3 sampled rows not yet labelled
    outside = set(random.Random(6).sample(sorted(set(range(300)) - audited), 13))
    sample = audited | set(sorted(outside)[:3])
    rows = _export(truth, judge, audited, {"sample": sample, "human_outside": set(sorted(outside)[3:])})
    code, out, err = _run(capsys, _write(rows, tmp_path / "export.jsonl"), "--format", "json", "--by", "dataset_name")
    assert code == 0, err
    assert json.loads(out) == json.loads(expected)
    assert "10 rows with label_source human are outside the audit sample" in err
    assert "3 rows have audit_sample true but no people's labels yet" in err
    groups = json.loads(out)["groups"]
    assert set(groups) == {"covidqa_test", "hagrid_test"} and set(groups["covidqa_test"]) == {
        "alpha",
        "interval",
        "min_audited",
        "n_labeled",
        "n_unlabeled",
        "metrics",
    }


def test_export_without_an_audit_column_warns_and_counts_every_human_row(tmp_path, capsys):
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines()]
    judge = _judge(rows, seed=2, miss=1.0)
    exported = _export(rows, judge, set(range(0, 22, 2)))
    code, out, err = _run(capsys, _write(exported, tmp_path / "e.jsonl"), "--format", "csv")
    assert code == 0, err
    assert "no audit_sample column: all 11 rows with label_source human count as the audit" in err
    records = list(csv.DictReader(io.StringIO(out)))
    assert [r["metric"] for r in records] == list(METRICS)
    # one of the 11 human rows carries no labels: left out of every metric and counted
    assert {r["group"] for r in records} == {"ALL"} and {r["n_labeled"] for r in records} == {"10"}
    assert {r["excluded_labeled"] for r in records} == {"1"}
    assert "adherence: undefined on 1 audited and 0 other examples: left out" in err
    assert set(records[0]) >= {"judge", "human", "human_low", "human_high", "ppi", "ppi_low", "ppi_high", "lambda"}


def test_table_other_families_and_output_file(tmp_path, capsys):
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines()]
    judge = _judge(rows, seed=3, miss=1.0)
    data = _write(judge, tmp_path / "judge.jsonl")
    human = _write(rows[:10], tmp_path / "human.jsonl")
    out_file = tmp_path / "estimate.txt"
    code, out, err = _run(capsys, data, "--human", human, "--family", "all", "-o", out_file)
    assert code == 0, err and out == ""
    table = out_file.read_text()
    # 10 audited: under the minimum, so no corrected figure in words, and the table marks its column
    assert (
        "hallucination rate (1 - adherence):" not in table and "too few reviewed to correct yet: 9" in table
    )  # 20 or 21 more
    assert "(too few)" in table
    for metric in (*METRICS, "retrieval_precision", "answer_consistency", "mrr", "ndcg@10"):
        assert f" {metric} " in table
    assert "undefined on" in err  # the one row without retrieved ids is left out and counted


def test_a_small_ragbench_audit_is_honest(tmp_path, capsys, ragbench_rows):
    """The issue's case: 6 reviewed members of an audit over RAGBench rows. On main the people-only intervals
    left [0, 1], the corrected adherence collapsed to the judge's noise, n_eff exceeded the rows and the
    table said a hallucination rate."""
    truth = ragbench_rows
    judge = _judge(truth, seed=2)
    audited = set(random.Random(6).sample(range(len(truth)), 6))
    data = _write(judge, tmp_path / "judge.jsonl")
    human = _write([truth[i] for i in sorted(audited)], tmp_path / "human.jsonl")
    code, out, err = _run(capsys, data, "--human", human, "--format", "json")
    assert code == 0, err
    result = json.loads(out)
    rows = result["n_labeled"] + result["n_unlabeled"]
    assert result["min_audited"] == 100
    for name, m in result["metrics"].items():
        for ci in (m["human"]["ci"], m["ppi"]["ci"]):
            assert 0.0 <= ci[0] <= ci[1] <= 1.0, name
        assert m["ppi"]["ci"][1] - m["ppi"]["ci"][0] > 0.1, name  # six examples cannot say more
        assert m["gain"] is None or m["gain"] <= rows, name
        assert m["more_needed"] == 94 and {"estimate", "ci"} <= set(m["ppi"])
    code, out, err = _run(capsys, data, "--human", human)
    assert "too few reviewed to correct yet: 94 more needed" in out and "hallucination rate (1 -" not in out
    assert "too few reviewed to correct yet: 94 more needed" in err.lower()


def test_one_audited_example_in_a_group_has_no_interval(tmp_path, capsys):
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines()]
    subsets = {r["dataset_name"] for r in rows}
    first_of = {}
    for i, r in enumerate(rows):
        first_of.setdefault(r["dataset_name"], i)
    picked = [rows[i] for i in sorted(first_of.values())] + [rows[i] for i in range(22) if i not in first_of.values()][
        :1
    ]
    human = _write(picked, tmp_path / "human.jsonl")
    code, out, err = _run(
        capsys, _write(rows, tmp_path / "d.jsonl"), "--human", human, "--by", "dataset_name", "--format", "json"
    )
    assert code == 0, err
    groups = json.loads(out)["groups"]
    single = [g for g, v in groups.items() if v["n_labeled"] == 1]
    assert single and len(subsets) == len(groups)
    for g in single:
        m = groups[g]["metrics"]["adherence"]
        assert m["human"]["ci"] is None and m["ppi"]["ci"] is None and m["ppi"]["estimate"] is None
        assert f"{g}: adherence: 1 audited example(s) with a value on both sides: no interval" in err


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("no_audit", "no audited rows"),
        ("one_audit", "the only audited row: an interval needs at least 2"),
        ("unmatched", "human.jsonl:2: id: no judged example with dataset"),
        ("bad_similarity", "answer_similarity: not a number: 'high'"),
        ("missing_file", "nowhere.jsonl"),
        ("bad_json", "bad.jsonl:1"),
        ("bad_flag", "audit_sample: expected true or false, got 'maybe'"),
        ("bad_alpha", "--alpha"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, setup, message):
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines()]
    data = _write(rows, tmp_path / "d.jsonl")
    args: list = [data]
    if setup == "one_audit":
        args += ["--human", _write(rows[:1], tmp_path / "human.jsonl")]
    elif setup == "unmatched":
        args += ["--human", _write([rows[0], {**rows[1], "id": "nope"}], tmp_path / "human.jsonl")]
    elif setup == "bad_similarity":
        bad = [{**r, "answer_similarity": "high"} for r in rows]
        args = [_write(bad, tmp_path / "d.jsonl"), "--human", _write(rows[:3], tmp_path / "h.jsonl")]
        args += ["--family", "tonic"]
    elif setup == "missing_file":
        args = [tmp_path / "nowhere.jsonl"]
    elif setup == "bad_json":
        (tmp_path / "bad.jsonl").write_text("{not json\n")
        args = [tmp_path / "bad.jsonl"]
    elif setup == "bad_flag":
        exported = _export(rows, rows, {0, 1}, {"sample": {0, 1}})
        exported[2]["audit_sample"] = "maybe"
        args = [_write(exported, tmp_path / "e.jsonl")]
    elif setup == "bad_alpha":
        args += ["--alpha", "1.5"]
    if setup == "bad_alpha":
        with pytest.raises(SystemExit) as exc:
            _run(capsys, *args)
        assert exc.value.code == 2 and message in capsys.readouterr().err
        return
    code, out, err = _run(capsys, *args)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err
    assert "Traceback" not in err


def test_subprocess_table_and_error(tmp_path):
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines()]
    data = _write(_judge(rows, seed=9, miss=1.0), tmp_path / "judge.jsonl")
    human = _write(rows[::2], tmp_path / "human.jsonl")

    def estimate(*args):
        return ragviz("estimate", *args)

    ok = estimate(data, "--human", human)
    assert ok.returncode == 0, ok.stderr
    assert "11 audited examples" in ok.stdout and "PPI++" in ok.stdout and "adherence" in ok.stdout
    bad = estimate(data)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("ragviz estimate: ") and "no audited rows" in bad.stderr


def test_human_given_a_ragviz_export_uses_only_the_rows_a_person_labelled(tmp_path, capsys, ragbench_rows):
    """Issue 29 item 6: an export given as --human holds the judge's own labels on every row nobody
    reviewed (label_source llm); those are not people's labels."""
    truth = ragbench_rows
    judge = _judge(truth)
    audited = set(random.Random(3).sample(range(len(truth)), 60))
    data = _write(judge, tmp_path / "judge.jsonl")
    people_only = _write([truth[i] for i in sorted(audited)], tmp_path / "human.jsonl")
    export = _write(_export(truth, judge, audited), tmp_path / "export.jsonl")
    code, expected, _ = _run(capsys, data, "--human", people_only, "--format", "json")
    assert code == 0
    code, out, err = _run(capsys, data, "--human", export, "--format", "json")
    assert code == 0, err
    assert json.loads(out) == json.loads(expected)
    assert json.loads(out)["n_labeled"] == 60
    left = len(truth) - 60
    assert f"{left:,} of {len(truth):,} rows of the people's labels left out ({left:,} with label_source llm)" in err


def test_people_labels_with_two_rows_for_one_example_are_refused(tmp_path, capsys):
    """The loader keeps the first of two rows with one uid: of people's labels, the audit silently lost the other."""
    rows = [json.loads(line) for line in SAMPLE_JSONL.read_text().splitlines()[:3]]
    again = {**rows[0], "unsupported_response_sentence_keys": []}
    human = _write([*rows, again], tmp_path / "human.jsonl")
    code, out, err = _run(capsys, SAMPLE_JSONL, "--human", human)
    assert (code, out) == (2, "") and "Traceback" not in err
    assert err.strip() == (
        f"ragviz estimate: --human: {human}:4: id: duplicate of {human}:1 (same dataset, id and generation model): "
        "a file gives one row per example; remove one of them"
    )
    code, _, err = _run(capsys, SAMPLE_JSONL, "--compare", "--system", "generation_model_name", "--human", human)
    assert code == 2 and f"{human}:4: id: duplicate of {human}:1" in err
    assert _run(capsys, SAMPLE_JSONL, "--human", _write(rows, tmp_path / "once.jsonl"))[0] == 0
