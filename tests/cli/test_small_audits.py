"""Issue 36's "Done when", end to end: with 2, 6 and 30 reviewed examples of a RAGBench shard (people accepting every
label the judge gave: the unanimous audit where a resampling interval collapses to a point), no CLI output and no
report shows an interval of zero width, and every figure under its minimum carries its "too few" state."""

from __future__ import annotations

import html
import json
import re

import pytest

from ragviz.analysis.audits.samples import draw_design
from ragviz.analysis.coverage import MIN_AUDITED
from ragviz.analysis.estimates.pairing import member_rows
from ragviz.cli.main import main
from ragviz.data.labels import REVIEW_FIELD, REVIEWED, Change
from ragviz.data.load import load
from ragviz.store.label_store import LabelStore
from tests.ragbench_data import require_ragbench, shard

MIN_REVIEWED = 10  # ragviz.analysis.coverage.MIN_REVIEWED: the judge-vs-people figures' minimum
INTERVAL = re.compile(r"(\d+(?:\.\d+)?)(%?) [–−-] (\d+(?:\.\d+)?)\2")


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _pairs(node, found: list[tuple[str, float, float]], path: str = "") -> None:
    """Every interval in a JSON answer: ``X_low`` / ``X_high`` pairs and two-value ``ci`` lists."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key.endswith("_low") and f"{key[:-4]}_high" in node and value is not None:
                found.append((f"{path}/{key}", value, node[f"{key[:-4]}_high"]))
            if key == "ci" and isinstance(value, list) and len(value) == 2 and None not in value:
                found.append((f"{path}/ci", *value))
            _pairs(value, found, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _pairs(value, found, f"{path}[{i}]")


@pytest.fixture(scope="module")
def covidqa():
    require_ragbench()
    return shard("covidqa")


@pytest.mark.parametrize("k", [2, 6, 30])
def test_few_reviews_give_no_zero_width_interval_and_say_too_few(tmp_path, capsys, covidqa, k):
    db = tmp_path / "labels.db"
    dataset = load([covidqa]).dataset
    with LabelStore(db) as store:
        sample = draw_design(store, dataset, "uniform", k, "ana", 3)
        for row in member_rows(dataset, sample.members):  # people accept the judge's labels as shown
            ex = dataset.example(row)
            store.record(ex.uid, "ana", [Change(REVIEW_FIELD, None, REVIEWED)], example=ex)

    code, out, err = _run(capsys, "estimate", covidqa, "--db", db, "--format", "json")
    assert code == 0, err
    got = json.loads(out)
    intervals: list[tuple[str, float, float]] = []
    _pairs(got, intervals)
    assert intervals and all(high > low for _, low, high in intervals), intervals
    assert all(m["more_needed"] == MIN_AUDITED - k for m in got["metrics"].values())  # every figure: too few

    code, out, err = _run(capsys, "agreement", covidqa, "--db", db)
    assert code == 0, err
    trust = json.loads(out)["judge_agreement"]  # one subset: one JSON object
    intervals = []
    _pairs(trust, intervals)
    if k < MIN_REVIEWED:
        assert trust["too_few"] == f"too few reviewed to say ({k} of {MIN_REVIEWED})"
        assert not intervals and trust["relevant_kappa"] == 1.0  # the figure, with its state and no interval
    else:
        assert "too_few" not in trust or not trust["too_few"]
        assert len(intervals) >= 15 and all(high > low for _, low, high in intervals), intervals

    report = tmp_path / "report.html"
    code, _, err = _run(capsys, "report", covidqa, "--db", db, "-o", report, "--date", "2026-11-28")
    assert code == 0, err
    page = re.sub(r"<(style|script)\b.*?</\1>", "", report.read_text(encoding="utf-8"), flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    shown = INTERVAL.findall(text)
    assert shown and all(low != high for low, _, high in shown), [s for s in shown if s[0] == s[2]]
    assert f"too few reviewed to correct yet: {MIN_AUDITED - k} more needed" in text
    assert (f"too few reviewed to say ({k} of {MIN_REVIEWED})" in text) == (k < MIN_REVIEWED)
