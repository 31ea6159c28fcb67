"""Two systems compared on the same questions (issue 39): pairing by question, the corrected difference against
ppi_py's mean estimator on the paired differences, the words, and the bad input refused in one line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import ppi_py
import pytest

from ragviz.analysis.compare_systems.difference import compare_report, difference_group
from ragviz.analysis.compare_systems.pairs import (
    Answer,
    CompareError,
    column_answers,
    pair_systems,
)
from ragviz.analysis.compare_systems.verdict import verdict
from ragviz.analysis.compare_systems.words import plan_questions, plan_questions_text
from ragviz.analysis.coverage import MIN_AUDITED
from ragviz.analysis.estimates.crossfit import crossfit_ppi_mean
from ragviz.analysis.estimates.pairing import PairedExample, pair_export
from ragviz.data.errors import BadInput
from ragviz.data.load import load

TOL = 1e-9
RAGBENCH = Path(__file__).resolve().parents[4] / "shared" / "ragbench"


def _answer(system: str, q: str, judge: dict, human: dict | None = None, subset: str = "s") -> Answer:
    uid = f"{subset}/{q}/{system}"
    return Answer(system, f"{subset}/{q}", subset, PairedExample(uid, subset, system, judge, human, f"f.jsonl:{q}"))


def _random_answers(seed: int, n: int, big_n: int) -> tuple[list[Answer], dict[str, np.ndarray]]:
    """Two systems' answers to n + big_n questions: the first n audited; a judge biased differently on each."""
    rng = np.random.default_rng(seed)
    total = n + big_n
    true_a, true_b = rng.beta(2, 3, total), rng.beta(3, 2, total)
    judge_a = np.clip(true_a + 0.1 + rng.normal(0, 0.15, total), 0, 1)
    judge_b = np.clip(true_b + 0.2 + rng.normal(0, 0.15, total), 0, 1)
    answers = []
    for i in range(total):
        audited = i < n
        for system, t, j in (("A", true_a, judge_a), ("B", true_b, judge_b)):
            answers.append(_answer(system, str(i), {"utilization": j[i]}, {"utilization": t[i]} if audited else None))
    d = {"y": (true_b - true_a)[:n], "yhat": (judge_b - judge_a)[:n], "yhat_u": (judge_b - judge_a)[n:]}
    return answers, d


@pytest.mark.parametrize(("seed", "n", "big_n"), [(0, 40, 400), (1, 150, 1500), (2, 500, 200)])
@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_corrected_difference_equals_ppi_py_on_the_paired_differences(seed, n, big_n, alpha):
    answers, d = _random_answers(seed, n, big_n)
    pairs = pair_systems(answers, "A", "B")
    m = difference_group(pairs.pairs, ["utilization"], alpha, interval="normal", bounded=False).metrics["utilization"]
    lo, hi = ppi_py.ppi_mean_ci(d["y"], d["yhat"], d["yhat_u"], alpha=alpha)
    point = ppi_py.ppi_mean_pointestimate(d["y"], d["yhat"], d["yhat_u"])
    assert m.ppi.estimate == pytest.approx(float(np.ravel(point)[0]), abs=TOL)
    assert m.ppi.low == pytest.approx(float(np.ravel(lo)[0]), abs=TOL)
    assert m.ppi.high == pytest.approx(float(np.ravel(hi)[0]), abs=TOL)
    c_lo, c_hi = ppi_py.classical_mean_ci(d["y"], alpha=alpha)
    assert m.human.low == pytest.approx(float(np.ravel(c_lo)[0]), abs=TOL)
    assert m.human.high == pytest.approx(float(np.ravel(c_hi)[0]), abs=TOL)
    assert m.judge == pytest.approx(float(np.concatenate([d["yhat"], d["yhat_u"]]).mean()), abs=TOL)
    # the interval shown (within -1..1) is ppi_py's moved to the cross-fitted estimate (issue 36: lambda from the
    # other folds) where nothing is clipped or floored
    shown = difference_group(pairs.pairs, ["utilization"], alpha, interval="normal").metrics["utilization"]
    crossfitted, _ = crossfit_ppi_mean(d["y"], d["yhat"], d["yhat_u"])
    shift = crossfitted - m.ppi.estimate
    assert shown.ppi.estimate == pytest.approx(crossfitted, abs=TOL)
    assert shown.ppi.low == pytest.approx(m.ppi.low + shift, abs=TOL)
    assert shown.ppi.high == pytest.approx(m.ppi.high + shift, abs=TOL)


def test_the_judge_bias_is_corrected_and_the_verdict_says_which_system_is_better():
    answers, d = _random_answers(3, 300, 3000)
    report = compare_report(pair_systems(answers, "A", "B"), names=["utilization"])
    m = report.overall.metrics["utilization"]
    assert m.judge > 0.25  # the judge flatters B more than A
    assert m.ppi.low < 0.2 < m.ppi.high < m.judge  # the truth: beta(3,2) - beta(2,3) = 0.2
    text = verdict("utilization", m, "A", "B")
    assert text.startswith(f"B is better on utilization by {round(100 * m.ppi.estimate)} points (")
    assert report.rows()[0]["verdict"] == text
    assert report.as_dict()["metrics"]["utilization"]["ppi"]["ci"] == [m.ppi.low, m.ppi.high]


def test_below_the_minimum_audit_the_same_too_few_words_and_no_verdict():
    answers, _ = _random_answers(4, MIN_AUDITED - 10, 500)
    report = compare_report(pair_systems(answers, "A", "B"), names=["utilization"])
    m = report.overall.metrics["utilization"]
    assert m.more_needed == 10 and m.ppi.low is not None  # the interval is there, the words are not
    assert verdict("utilization", m, "A", "B") == (
        "utilization: too few reviewed to correct yet: 10 more needed (a corrected figure needs "
        f"{MIN_AUDITED} audited questions)"
    )
    assert any("10 more needed" in n for n in report.notes())


def test_no_difference_in_words_when_the_interval_holds_zero():
    answers = [
        _answer(s, str(i), {"adherence": float(i % 2)}, {"adherence": float(i % 2)}) for i in range(200) for s in "AB"
    ]
    m = compare_report(pair_systems(answers), names=["adherence"]).overall.metrics["adherence"]
    assert verdict("adherence", m, "A", "B").startswith("no difference we can see on adherence (B − A: 0 points")


def test_unpaired_answers_are_listed_and_left_out_never_matched():
    answers = [
        _answer("A", "1", {"adherence": 1.0}),
        _answer("B", "1", {"adherence": 0.0}),
        _answer("A", "2", {"adherence": 1.0}),  # B never answered question 2
        _answer("B", "3", {"adherence": 1.0}),  # two answers of B to question 3, one of A
        _answer("B", "3", {"adherence": 0.0}),
        _answer("A", "3", {"adherence": 1.0}),
        _answer("A", "1", {"adherence": 1.0}, subset="other"),  # same id in another subset: another question
    ]
    pairs = pair_systems(answers)
    assert [p.question for p in pairs.pairs] == ["s/1"]
    reasons = {(u.system, u.question): u.reason for u in pairs.unpaired}
    assert reasons[("A", "s/2")] == "no answer of B"
    assert reasons[("B", "s/3")] == "2 answers of B to this question"
    assert reasons[("A", "s/3")] == "2 answers of B to this question"
    assert reasons[("A", "other/1")] == "no answer of B"
    assert len(pairs.unpaired) == 5
    assert pairs.notes()[0].startswith("5 answers have no pair and are left out: f.jsonl:2 (A, id s/2): no answer of B")


def test_half_reviewed_questions_are_judge_only_and_said():
    answers = [
        _answer("A", "1", {"adherence": 1.0}, {"adherence": 1.0}),
        _answer("B", "1", {"adherence": 0.0}),
        _answer("A", "2", {"adherence": 1.0}, {"adherence": 1.0}),
        _answer("B", "2", {"adherence": 1.0}, {"adherence": 0.0}),
    ]
    pairs = pair_systems(answers)
    assert pairs.n_audited == 1
    assert any("1 questions have only one of their two answers reviewed" in n for n in pairs.notes())


def test_bad_input_is_one_line_each():
    one = [_answer("A", str(i), {"adherence": 1.0}) for i in range(3)]
    with pytest.raises(BadInput, match=r"^generation_model_name: one system only \('A'\): a comparison needs two"):
        pair_systems(one)
    apart = [_answer("A", "1", {"adherence": 1.0}), _answer("B", "2", {"adherence": 1.0})]
    with pytest.raises(CompareError, match=r"'A' and 'B' share no question \(paired by id\): nothing to compare"):
        pair_systems(apart)
    missing = [_answer("A", "1", {"adherence": 1.0}), _answer("B", "1", {})]
    with pytest.raises(CompareError) as caught:
        pair_systems(missing)
    assert str(caught.value) == (
        "f.jsonl:1: labels: the answer of B to question s/1 has no judge labels, so its pair cannot be compared: "
        "label it (ragviz label) or leave the question out"
    )
    three = [_answer(s, "1", {"adherence": 1.0}) for s in "ABC"]
    with pytest.raises(CompareError, match=r"3 systems \('A', 'B', 'C'\): name the two to compare \(--compare A B\)"):
        pair_systems(three)
    with pytest.raises(CompareError, match=r"no system 'D' \(systems: 'A', 'B', 'C'\)"):
        pair_systems(three, "A", "D")
    assert "\n" not in str(caught.value)


@pytest.mark.skipif(not RAGBENCH.is_dir(), reason="needs ../shared/ragbench")
def test_ragbench_two_generation_models_pair_by_id():
    files = [RAGBENCH / s / "test-00000-of-00001.parquet" for s in ("delucionqa", "emanual", "covidqa")]
    dataset = load(files).dataset
    pairs = pair_systems(column_answers(dataset, pair_export(dataset)), "gpt-3.5-turbo-0125", "claude-3-haiku-20240307")
    assert len(pairs.pairs) == 92 + 66  # every question of delucionqa and emanual, both answers
    assert pairs.subsets() == ["delucionqa_test", "emanual_test"]
    assert pairs.unpaired == []  # covidqa's model is neither system: not listed
    report = compare_report(pairs)
    assert set(report.groups) == {"delucionqa_test", "emanual_test"}
    assert report.overall.n_audited == 0 and report.overall.metrics["adherence"].judge is not None
    plan = plan_questions(pairs.pairs, "adherence", 0.03)
    assert plan.from_judge and "first guess" in plan_questions_text(plan)
    covid = load(files[2:]).dataset
    with pytest.raises(CompareError, match=r"^generation_model_name: one system only \('gpt-3.5-turbo-1106'\)"):
        pair_systems(column_answers(covid, pair_export(covid)))
    with pytest.raises(CompareError, match=r"^--system: no column 'pipeline' in the data \(columns: id, "):
        column_answers(covid, pair_export(covid), system="pipeline")
