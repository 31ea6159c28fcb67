"""Issue 36, one rule for every judge-vs-people figure shown with an interval: below the minimum of reviewed
examples no interval and "too few reviewed to say (N of M)"; from it on an interval that is never of zero width,
even when people and the judge agreed on every decision; the coverage behind the minimum is
benchmarks/bench_agreement_intervals.py's."""

from __future__ import annotations

import numpy as np
import pytest

from ragviz.analysis.agreement import agreement
from ragviz.analysis.coverage import MIN_REVIEWED, too_few_words
from ragviz.analysis.figure_intervals import (
    CONFUSION_FIGURES,
    clopper_pearson,
    confusion_intervals,
    mean_interval,
    rmse_interval,
)
from ragviz.data.load import load
from tests.sample import SAMPLE_DATA


def _perfect(n: int) -> np.ndarray:
    return np.array([[4, 0, 0, 8]] * n, dtype=float)  # every decision agreed: each resample gives κ = 1


@pytest.mark.parametrize("n", [2, 6])
def test_below_the_minimum_every_figure_says_too_few_and_has_no_interval(n):
    for name, fi in confusion_intervals(_perfect(n)).items():
        assert fi.value == 1.0 and fi.low is None and fi.high is None, name
        assert fi.state == f"too few reviewed to say ({n} of {MIN_REVIEWED})" == too_few_words(n, MIN_REVIEWED)
    for fi in (rmse_interval([0.0] * n), mean_interval([0.0] * n)):
        assert fi.low is None and fi.too_few


@pytest.mark.parametrize("n", [MIN_REVIEWED, 100])
def test_from_the_minimum_a_unanimous_audit_still_gets_an_interval_of_nonzero_width(n):
    got = confusion_intervals(_perfect(n))
    assert set(got) == set(CONFUSION_FIGURES)
    for name, fi in got.items():
        assert fi.low is not None and fi.high is not None, name
        assert fi.low < fi.high and fi.low <= fi.value <= fi.high, name
        assert fi.high == pytest.approx(1.0)
    assert got["kappa"].low < 0.95 and got["accuracy"].low < 0.99  # a few dozen agreements do not prove perfection
    rmse = rmse_interval([0.0] * n)
    bias = mean_interval([0.0] * n)
    assert rmse.value == 0.0 and rmse.low == 0.0 < rmse.high
    assert bias.low < 0.0 < bias.high


def test_examples_count_not_decisions():
    # 30 decisions of one example are one reviewed example: too few
    one = np.array([[10, 0, 0, 20]], dtype=float)
    assert confusion_intervals(one)["accuracy"].too_few
    # 3 disagreements in 900 decisions of 30 examples: sure of much more than 3 in 30 one-decision examples,
    # never as sure as 900 independent decisions (the interval is at least as wide as 30 decisions')
    grouped = confusion_intervals(np.array([[10, 1, 0, 20]] * 3 + [[10, 0, 0, 20]] * 27, dtype=float))["accuracy"]
    lone = confusion_intervals(np.array([[1, 0, 0, 0]] * 27 + [[0, 1, 0, 0]] * 3, dtype=float))["accuracy"]
    assert grouped.high - grouped.low < lone.high - lone.low
    assert grouped.low <= clopper_pearson(grouped.value, 30)[0]


def test_clopper_pearson_is_the_textbook_interval_at_whole_counts():
    from scipy.stats import beta

    for x, n in [(0, 30), (3, 30), (29, 30), (50, 100)]:
        low, high = clopper_pearson(x / n, n)
        assert low == pytest.approx(0.0 if x == 0 else beta.ppf(0.025, x, n - x + 1), abs=1e-9)
        assert high == pytest.approx(1.0 if x == n else beta.ppf(0.975, x + 1, n - x), abs=1e-9)


def test_the_cli_json_and_the_dashboard_carry_the_rule():
    from ragviz.analysis.dashboard.figures import agreement_rows

    data = load([SAMPLE_DATA]).dataset
    triples = [(ex, ex.judge_labels, ex.judge_labels) for i in range(len(data)) if (ex := data.example(i)).judge_labels]
    few = agreement(triples[:6]).as_dict()
    assert few["too_few"] == f"too few reviewed to say (6 of {MIN_REVIEWED})"
    assert few["relevant_kappa_low"] is None and few["relevance_rmse_high"] is None
    many = agreement(triples * (MIN_REVIEWED // len(triples) + 1))
    d = many.as_dict()
    assert d["too_few"] is None and d["relevant_accuracy_low"] < d["relevant_accuracy_high"] == pytest.approx(1.0)
    row = agreement_rows(many)[0]
    assert row["κ 95%"].count("–") == 1 and "too few" not in row["κ 95%"]


def test_the_estimate_header_names_the_interval_each_metric_got():
    # issue 36 item 9: "bootstrap-t" in the header while a metric fell back to the normal interval was untrue
    from ragviz.analysis.estimates.pairing import PairedExample
    from ragviz.analysis.estimates.report import EstimateReport, estimate_group

    rng = np.random.default_rng(1)
    examples = []
    for i in range(150):
        judged = {"relevance": float(rng.random()), "adherence": 1.0}
        human = None
        if i < 120:  # people differ from the judge on relevance; on adherence on none: the floored normal interval
            human = {"relevance": min(1.0, judged["relevance"] + float(rng.normal(0, 0.1)) ** 2), "adherence": 1.0}
        examples.append(PairedExample(f"u{i}", "d", "m", judged, human))
    group = estimate_group(examples, ["relevance", "adherence"], 0.05, "bootstrap-t")
    report = EstimateReport(0.05, group, interval="bootstrap-t")
    assert report.intervals_used() == "bootstrap-t (normal for adherence)"
    note = next(n for n in report.notes() if n.startswith("adherence:"))
    assert "relevance" not in note and "fewer than 5 examples" in note
