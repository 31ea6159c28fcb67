"""Issue 11: a Dashboard rerun does not rebuild its charts: the Vega-Lite spec of each chart is
built once per distinct (small) data and handed out again."""

from __future__ import annotations

from ragviz.ui.core import chart_specs, charts


def test_a_chart_spec_is_built_once_per_data(monkeypatch):
    built = []

    def build(label: str, tp: int, fp: int, fn: int, tn: int):
        built.append(label)
        return charts.confusion_chart(label, tp, fp, fn, tn)

    first = chart_specs.chart_spec(build, "relevant", 1, 2, 3, 4)
    again = chart_specs.chart_spec(build, "relevant", 1, 2, 3, 4)
    other = chart_specs.chart_spec(build, "relevant", 1, 2, 3, 5)
    assert first is again and other is not first
    assert built == ["relevant", "relevant"]
    assert first["datasets"] == charts.confusion_chart("relevant", 1, 2, 3, 4).to_dict()["datasets"]


def test_the_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(chart_specs, "MAX_SPECS", 3)
    for k in range(10):
        chart_specs.chart_spec(charts.confusion_chart, "x", k, 0, 0, 0)
    assert len(chart_specs._SPECS) <= 3
