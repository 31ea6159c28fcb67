"""Issue 11 (scale): no Dashboard chart sends more than ~5,000 marks at 100,000 examples: the
histograms carry counts per bin, the judge-vs-human scatter a labelled, evenly spaced sample."""

from __future__ import annotations

import random

import pytest

from ragviz.analysis.dashboard.figures import MAX_MARKS, SCATTER_EXAMPLES, histogram_counts, scatter_sample
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.ui.core import charts

N = 100_000
SUBSETS = ("covidqa", "delucionqa", "emanual", "expertqa", "hagrid", "hotpotqa", "msmarco")


def _chart_rows(chart) -> int:
    """Rows of data the chart's Vega-Lite spec carries to the browser (every dataset)."""
    spec = chart.to_dict()
    return sum(len(values) for values in spec.get("datasets", {}).values())


@pytest.fixture(scope="module")
def records():
    rng = random.Random(0)
    out = []
    for k in range(N):
        scores = {m: rng.random() for m in TRACE_METRICS}
        scores["adherence"] = float(rng.random() < 0.8)
        if k % 10 == 0:
            scores["relevance"] = None  # no context sentence
        out.append({"uid": f"s/{k}/m", "dataset": SUBSETS[k % len(SUBSETS)], **scores})
    return out


def test_histograms_of_100k_examples_send_counts_not_examples(records):
    chart = charts.distribution_chart(records, TRACE_METRICS)
    assert _chart_rows(chart) <= MAX_MARKS
    counts = histogram_counts(records, TRACE_METRICS)
    for m in TRACE_METRICS:
        total = sum(c["count"] for c in counts if c["metric"] == m)
        assert total == sum(1 for r in records if r[m] is not None)
    # 1.0 is counted in the last bin, 0.0 in the first (as Vega-Lite's extent [0, 1] bins them)
    adherence = {(c["bin_start"], c["dataset"]): c["count"] for c in counts if c["metric"] == "adherence"}
    assert sum(v for (start, _), v in adherence.items() if start == 0.95) == sum(r["adherence"] == 1.0 for r in records)
    assert sum(v for (start, _), v in adherence.items() if start == 0.0) == sum(r["adherence"] == 0.0 for r in records)


def test_histogram_counts_per_bin_and_colour():
    rows = [
        {"dataset": "a", "x": 0.0},
        {"dataset": "a", "x": 0.049},
        {"dataset": "a", "x": 0.05},
        {"dataset": "b", "x": 1.0},
        {"dataset": "b", "x": None},
        {"dataset": "b", "x": float("nan")},
    ]
    assert histogram_counts(rows, ["x"]) == [
        {"dataset": "a", "metric": "x", "bin_start": 0.0, "bin_end": 0.05, "count": 2},
        {"dataset": "a", "metric": "x", "bin_start": 0.05, "bin_end": 0.1, "count": 1},
        {"dataset": "b", "metric": "x", "bin_start": 0.95, "bin_end": 1.0, "count": 1},
    ]


def test_scatter_of_100k_decisions_is_an_evenly_spaced_sample(records):
    rows = list(range(N))
    sample = scatter_sample(rows)
    assert len(sample) == SCATTER_EXAMPLES and sample[0] == 0 and sample == sorted(set(sample))
    assert max(b - a for a, b in zip(sample, sample[1:])) <= N // SCATTER_EXAMPLES + 1
    points = [
        {"uid": records[i]["uid"], "metric": m, "judge": records[i][m], "human": records[i][m]}
        for i in sample
        for m in TRACE_METRICS
    ]
    assert _chart_rows(charts.scatter_chart(points)) <= MAX_MARKS + 2  # + the two ends of the y = x line
    assert scatter_sample([3, 5, 8]) == [3, 5, 8]
