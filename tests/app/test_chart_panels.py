"""Issue 29 item 9: faceted figures stayed ~800 px wide at 1920 px; each panel is now a chart of its
own in a column (ui.core.facets), with the figure's colours and one legend."""

from __future__ import annotations

import copy
import json

from ragviz.ui.core import charts
from ragviz.ui.core.facets import facet_panels, legend_html

METRICS = ["relevance", "utilization", "completeness", "adherence"]


def histogram_spec():
    counts = [
        {"dataset": d, "metric": m, "bin_start": 0.5, "bin_end": 0.55, "count": 2}
        for m in METRICS
        for d in (["covidqa", "hagrid"] if m != "utilization" else ["hagrid"])  # covidqa missing in one panel
    ]
    return charts.histogram_chart(counts, METRICS).to_dict()


def test_one_panel_per_metric_in_order_each_filling_its_column():
    split = facet_panels(histogram_spec())
    assert [p["title"] for p in split.panels] == METRICS and split.columns == 4
    for panel, metric in zip(split.panels, METRICS):
        assert panel["width"] == "container"
        assert {"filter": {"field": "metric", "equal": metric}} in panel["transform"]
        assert panel["encoding"]["color"]["legend"] is None


def test_every_panel_keeps_the_figures_colours_and_one_legend_shows_them():
    split = facet_panels(histogram_spec())
    domains = {json.dumps(p["encoding"]["color"]["scale"]["domain"]) for p in split.panels}
    assert domains == {'["covidqa", "hagrid"]'}  # hagrid keeps its colour where covidqa is missing
    title, entries = split.legend
    assert title == "subset" and entries == [("covidqa", charts.OKABE_ITO[0]), ("hagrid", charts.OKABE_ITO[1])]
    assert "covidqa" in legend_html(split.legend) and "&lt;" in legend_html(("s", [("<b>", "#000")]))


def test_a_given_domain_stays_and_the_shared_spec_is_not_changed():
    spec = charts.estimates_chart(
        [{"metric": m, "estimate": "judge only", "value": 0.5, "low": None, "high": None} for m in METRICS]
    ).to_dict()
    before = copy.deepcopy(spec)
    split = facet_panels(spec)
    assert spec == before  # chart_spec hands the same dict to every session
    layers = split.panels[0]["layer"]
    assert all(layer["encoding"]["color"]["scale"]["domain"] == list(charts.ESTIMATORS) for layer in layers)
    assert [value for value, _ in split.legend[1]] == list(charts.ESTIMATORS)


def test_figures_that_are_not_faceted_are_left_whole():
    assert facet_panels(charts.confusion_chart("relevant", 1, 2, 3, 4).to_dict()) is None
