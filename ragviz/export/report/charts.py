"""The report's charts as Vega-Lite specs (plain dicts) rendered to SVG on the server by vl-convert (its own
engine: no browser, no script from a network), ready to sit inline in one HTML file.

The Dashboard's Altair charts live in ``ragviz.ui`` (above this floor), so the specs are built here from the
same figures: histogram counts (:func:`ragviz.analysis.dashboard.aggregates.histogram_counts`), subset means
with bootstrap intervals, the corrected estimates, the agreement intervals and the judge-vs-people pairs
counted on a grid: each chart carries at most a few thousand marks whatever the number of rows.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from typing import Any

from ragviz.metrics.trace import TRACE_METRICS

__all__ = [
    "CONFIG",
    "ESTIMATORS",
    "ESTIMATOR_COLORS",
    "FONT",
    "OKABE_ITO",
    "PANEL",
    "SCHEMA",
    "estimates_spec",
    "histogram_spec",
    "interval_spec",
    "means_spec",
    "scatter_spec",
    "to_svg",
    "warm_up",
]


OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000"]
ESTIMATORS = ("judge only", "people only", "corrected")
ESTIMATOR_COLORS = ("#E69F00", "#56B4E9", "#009E73")
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"  # a name Vega-Lite checks, never fetched
CONFIG = {
    "font": FONT,
    "view": {"stroke": "#ddd"},
    "axis": {"labelFontSize": 11, "titleFontSize": 11},
    "header": {"labelFontSize": 12, "labelFontWeight": "bold"},
    "legend": {"labelFontSize": 11, "titleFontSize": 11},
}
PANEL = 250  # width of one facet panel: two side by side fit a printed A4 / Letter page


def _spec(data: Sequence[dict[str, Any]], body: dict[str, Any]) -> dict[str, Any]:
    # padding: the browser draws the labels in its own system font, a little wider than vl-convert measured
    return {
        "$schema": SCHEMA,
        "data": {"values": list(data)},
        "config": CONFIG,
        "background": "white",
        "padding": {"left": 24, "right": 12, "top": 6, "bottom": 6},
        **body,
    }


def _facet(metrics: Sequence[str], columns: int = 2) -> dict[str, Any]:
    return {"facet": {"field": "metric", "type": "nominal", "sort": list(metrics), "title": None}, "columns": columns}


def histogram_spec(counts: Sequence[dict[str, Any]], color_title: str) -> dict[str, Any]:
    """Histogram of each TRACe metric, bars stacked by subset: *counts* ``{dataset, metric, bin_start, bin_end,
    count}`` per non-empty bin."""
    metrics = [m for m in TRACE_METRICS if any(c["metric"] == m for c in counts)]
    groups = sorted({c["dataset"] for c in counts})
    return _spec(
        counts,
        {
            **_facet(metrics),
            "resolve": {"scale": {"y": "independent"}},
            "spec": {
                "width": PANEL,
                "height": 130,
                "mark": "bar",
                "encoding": {
                    "x": {
                        "field": "bin_start",
                        "type": "quantitative",
                        "bin": {"binned": True, "step": 0.05},
                        "scale": {"domain": [0, 1]},
                        "title": "score",
                    },
                    "x2": {"field": "bin_end"},
                    "y": {"field": "count", "type": "quantitative", "title": "examples", "stack": "zero"},
                    "color": {
                        "field": "dataset",
                        "type": "nominal",
                        "title": color_title,
                        "scale": {"domain": groups, "range": _colors(len(groups))},
                        "legend": {"orient": "bottom", "columns": 3, "labelLimit": 220, "columnPadding": 28},
                    },
                },
            },
        },
    )


def _colors(n: int) -> list[str]:
    return (OKABE_ITO * (n // len(OKABE_ITO) + 1))[:n]


def _interval_layers(
    y: dict[str, Any], color: dict[str, Any], point: str, scale: dict[str, Any], title: str, stroke: int, size: int
) -> list[dict[str, Any]]:
    """A rule from ``low`` to ``high`` and a filled point at the field *point*, on the rows *y* names."""
    interval = {"field": "low", "type": "quantitative", "scale": scale, "title": title}
    return [
        {
            "mark": {"type": "rule", "strokeWidth": stroke},
            "encoding": {"y": y, "color": color, "x": interval, "x2": {"field": "high"}},
        },
        {
            "mark": {"type": "point", "filled": True, "size": size},
            "encoding": {"y": y, "color": color, "x": {"field": point, "type": "quantitative"}},
        },
    ]


def means_spec(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per-group mean with its 95 % bootstrap interval, one panel per metric: *rows* ``{dataset, metric, mean,
    low, high, n}``."""
    rows = [r for r in rows if r.get("mean") is not None]
    metrics = [m for m in TRACE_METRICS if any(r["metric"] == m for r in rows)]
    groups = sorted({r["dataset"] for r in rows} - {"ALL"})
    domain = [*groups, "ALL"] if any(r["dataset"] == "ALL" for r in rows) else groups
    colors = [*_colors(len(groups)), "#444444"][: len(domain)]
    y = {"field": "dataset", "type": "nominal", "title": None, "sort": domain, "axis": {"labelLimit": 150}}
    color = {"field": "dataset", "type": "nominal", "scale": {"domain": domain, "range": colors}, "legend": None}
    return _spec(
        [{k: r[k] for k in ("dataset", "metric", "mean", "low", "high")} for r in rows],
        {
            **_facet(metrics),
            "spec": {
                "width": PANEL - 60,
                "height": {"step": 18},
                "layer": _interval_layers(y, color, "mean", {"domain": [0, 1]}, "mean, 95% interval", 2, 50),
            },
        },
    )


def estimates_spec(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per metric the judge's mean, people's and the corrected estimate with their intervals: *records*
    ``{metric, estimate, value, low, high}``."""
    metrics = [m for m in TRACE_METRICS if any(r["metric"] == m for r in records)]
    shown = [e for e in ESTIMATORS if any(r["estimate"] == e for r in records)]
    y = {"field": "estimate", "type": "nominal", "sort": shown, "title": None}
    color = {
        "field": "estimate",
        "type": "nominal",
        "scale": {"domain": shown, "range": [ESTIMATOR_COLORS[ESTIMATORS.index(e)] for e in shown]},
        "legend": {"orient": "bottom", "title": None},
    }
    return _spec(
        records,
        {
            **_facet(metrics),
            "spec": {
                "width": PANEL - 50,
                "height": {"step": 20},
                "layer": _interval_layers(
                    y, color, "value", {"domain": [0, 1], "clamp": True}, "mean over all examples", 3, 70
                ),
            },
        },
    )


def interval_spec(rows: Sequence[dict[str, Any]], x_title: str, domain: Sequence[float], zero: bool) -> dict[str, Any]:
    """One row per *rows* item ``{name, value, low, high}``: a point and its interval (a rule at 0 when *zero*)."""
    y = {
        "field": "name",
        "type": "nominal",
        "sort": [r["name"] for r in rows],
        "title": None,
        "axis": {"labelLimit": 200},
    }
    x = {"field": "low", "type": "quantitative", "scale": {"domain": list(domain), "clamp": True}, "title": x_title}
    layers: list[dict[str, Any]] = [
        {
            "mark": {"type": "rule", "strokeWidth": 3, "color": OKABE_ITO[0]},
            "encoding": {"y": y, "x": x, "x2": {"field": "high"}},
        },
        {
            "mark": {"type": "point", "filled": True, "size": 70, "color": OKABE_ITO[0]},
            "encoding": {"y": y, "x": {"field": "value", "type": "quantitative"}},
        },
    ]
    if zero:
        layers.insert(
            0,
            {
                "transform": [{"aggregate": [{"op": "count", "as": "n"}]}],
                "mark": {"type": "rule", "color": "#888", "strokeDash": [4, 4]},
                "encoding": {"x": {"datum": 0, "type": "quantitative"}},
            },
        )
    return _spec(rows, {"width": 2 * PANEL, "height": {"step": 26}, "layer": layers})


def scatter_spec(cells: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Judge vs people per metric on a 1/50 grid, the circle's size the examples in the cell, with y = x."""
    metrics = [m for m in TRACE_METRICS if any(c["metric"] == m for c in cells)]
    axis = {"scale": {"domain": [0, 1]}, "type": "quantitative"}
    return _spec(
        cells,
        {
            **_facet(metrics),
            "spec": {
                "width": 200,
                "height": 170,
                "layer": [
                    {
                        "transform": [{"aggregate": [{"op": "count", "as": "n"}], "groupby": ["metric"]}],
                        "mark": {"type": "rule", "color": "#888", "strokeDash": [4, 4]},
                        "encoding": {
                            "x": {"datum": 0, **axis},
                            "y": {"datum": 0, **axis},
                            "x2": {"datum": 1},
                            "y2": {"datum": 1},
                        },
                    },
                    {
                        "mark": {"type": "circle", "opacity": 0.75, "color": OKABE_ITO[0]},
                        "encoding": {
                            "x": {"field": "judge", **axis, "title": "judge"},
                            "y": {"field": "human", **axis, "title": "people"},
                            "size": {
                                "field": "examples",
                                "type": "quantitative",
                                "scale": {"range": [30, 300]},
                                "legend": None,
                            },
                        },
                    },
                ],
            },
        },
    )


_ID = re.compile(r'\bid="([^"]+)"')


def to_svg(spec: dict[str, Any], prefix: str) -> str:
    """*spec* as SVG text, its element ids prefixed with *prefix* (several charts share one HTML document, where
    ids must be unique or one chart's clip path would cut another)."""
    import vl_convert as vlc

    svg = vlc.vegalite_to_svg(json.dumps(spec, sort_keys=True))
    for name in sorted(set(_ID.findall(svg)), key=len, reverse=True):
        svg = svg.replace(f'id="{name}"', f'id="{prefix}-{name}"')
        svg = svg.replace(f"url(#{name})", f"url(#{prefix}-{name})").replace(
            f'href="#{name}"', f'href="#{prefix}-{name}"'
        )
    return svg


def _first_chart() -> None:
    try:
        import vl_convert as vlc
    except ImportError:  # said where a chart is drawn
        return
    vlc.vegalite_to_svg(json.dumps({"mark": "point", "data": {"values": []}}))


def warm_up() -> threading.Thread:
    """Start vl_convert's JavaScript engine on a thread of its own: its first chart costs ~0.5 s of CPU (the engine
    starting), each later one ~0.05 s, and it runs without the GIL, so it starts on the other core while the report's
    figures are computed. :func:`to_svg` then waits for it only if it is still starting."""
    thread = threading.Thread(target=_first_chart, name="ragviz-charts-warm-up")
    thread.start()
    return thread
