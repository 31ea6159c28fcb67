"""Altair charts for the Dashboard (drawn and exported as PNG / SVG by :mod:`ragviz.ui.core.chart_specs`).

Chart builders take plain records (lists of dicts, or a ``pandas.DataFrame``) and return ``alt.Chart`` objects; nothing here
computes a metric. Colours come from the Okabe–Ito colour-blind-safe palette.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import pandas as pd

from ragviz.analysis.dashboard.figures import HISTOGRAM_BINS, histogram_counts

__all__ = [
    "BLUES",
    "ESTIMATORS",
    "ESTIMATOR_COLORS",
    "OKABE_ITO",
    "POINT_PAD",
    "SCATTER_GRID",
    "SCATTER_PAD",
    "cell_colours",
    "confusion_chart",
    "confusion_grid",
    "contrast_ratio",
    "distribution_chart",
    "estimates_chart",
    "histogram_chart",
    "KAPPA_NAMES_PER_ROW",
    "kappa_matrix_chart",
    "means_chart",
    "scatter_chart",
]


OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000"]


def distribution_chart(
    records: Sequence[dict[str, Any]] | pd.DataFrame,
    metrics: Sequence[str],
    title: str = "",
    color: str = "dataset",
    color_title: str = "subset",
    columns: int = 4,
) -> alt.Chart:
    """Histogram of each metric (one panel per metric), bars stacked by subset (or by the *color*
    field, e.g. ``system``). *records*: ``{"dataset": ..., metric: value, ...}`` per example (or a
    ``pandas.DataFrame`` of such columns); they
    are counted into bins here (:func:`ragviz.analysis.dashboard.figures.histogram_counts`), so the chart
    carries one row per non-empty bin, never one per example."""
    return histogram_chart(histogram_counts(records, metrics, color), metrics, title, color, color_title, columns)


def histogram_chart(
    counts: Sequence[dict[str, Any]],
    metrics: Sequence[str],
    title: str = "",
    color: str = "dataset",
    color_title: str = "subset",
    columns: int = 4,
) -> alt.Chart:
    """:func:`distribution_chart` of the counts :func:`ragviz.analysis.dashboard.figures.histogram_counts` gives."""
    df = pd.DataFrame(counts, columns=[color, "metric", "bin_start", "bin_end", "count"])
    return (
        alt.Chart(df, title=title or alt.Undefined)
        .mark_bar()
        .encode(
            x=alt.X(
                "bin_start:Q",
                bin=alt.Bin(binned=True, step=1 / HISTOGRAM_BINS),
                scale=alt.Scale(domain=[0, 1]),
                title="score",
            ),
            x2="bin_end:Q",
            y=alt.Y("count:Q", title="examples", stack="zero"),
            color=alt.Color(
                f"{color}:N",
                scale=alt.Scale(range=OKABE_ITO),
                title=color_title,
                legend=alt.Legend(orient="bottom", columns=4),
            ),
            tooltip=[
                f"{color}:N",
                alt.Tooltip("count:Q", title="examples"),
                alt.Tooltip("bin_start:Q", title="from"),
                alt.Tooltip("bin_end:Q", title="to"),
            ],
        )
        .properties(width=165, height=160)
        .facet(facet=alt.Facet("metric:N", sort=list(metrics), title=None), columns=columns)
    )


def means_chart(rows: Sequence[dict[str, Any]], columns: int = 4) -> alt.Chart:
    """Per-subset mean with its 95% interval, one panel per metric (panels in the order the rows
    name the metrics); a mean without an interval (``low`` null) is drawn as a ring. *rows*:
    ``{"dataset", "metric", "mean", "low", "high", "n"}``."""
    df = pd.DataFrame(rows, columns=["dataset", "metric", "mean", "low", "high", "n"]).dropna(subset=["mean"])
    metric_order = list(dict.fromkeys(df["metric"]))
    subsets = sorted(d for d in set(df["dataset"]) if d != "ALL")
    colors = alt.Scale(
        domain=[*subsets, "ALL"], range=[*(OKABE_ITO * (len(subsets) // len(OKABE_ITO) + 1))[: len(subsets)], "#888888"]
    )
    base = alt.Chart(df).encode(
        y=alt.Y("dataset:N", title=None, axis=alt.Axis(labelOverlap=False, labelLimit=160)),
        color=alt.Color("dataset:N", scale=colors, legend=None),
        tooltip=[
            "dataset:N",
            "metric:N",
            alt.Tooltip("mean:Q", format=".3f"),
            alt.Tooltip("low:Q", format=".3f", title="95% low"),
            alt.Tooltip("high:Q", format=".3f", title="95% high"),
            "n:Q",
        ],
    )
    bars = base.mark_rule(strokeWidth=2).encode(
        x=alt.X("low:Q", title="mean, 95% interval", scale=alt.Scale(domain=[0, 1], padding=POINT_PAD, nice=False)),
        x2="high:Q",
    )
    # a mean without an interval (one example, or all of them equal: resampling them says nothing) is a ring, not
    # a dot that reads as an interval too narrow to see; one layer (a panel without a ring would hold an empty,
    # unlabelled mark group that screen readers and axe flag)
    points = base.mark_point(filled=False, size=60, strokeWidth=2).encode(
        x="mean:Q",
        fill=alt.condition("isValid(datum.low)", alt.Color("dataset:N", scale=colors, legend=None), alt.value(None)),
    )
    return (
        (bars + points)
        .properties(width=150, height=alt.Step(24))  # 4 panels and the subset names fit 1280 px
        .facet(facet=alt.Facet("metric:N", title=None, sort=metric_order), columns=columns)
    )


SCATTER_GRID = 50  # judge and human scores are binned to 1/50 (0.02) before counting
#: px between a panel's plot edge and 0 / 1 of its scale for a point mark (size 60-80: radius 4-5): a point at 1.0 ran
#: past the edge, and Vega shrank that panel's plot to hold it (panels of one figure at different sizes)
POINT_PAD = 6
SCATTER_PAD = 12  # px between the plot's edge and 0 / 1: the largest circle (size 400) has a radius of 11


def scatter_chart(rows: Sequence[dict[str, Any]]) -> alt.Chart:
    """Judge vs human score, one panel per metric showing only that metric's examples, with the
    y = x line. Points are binned to a 0.02 grid and counted (the circle's size and the tooltip give
    the number of examples), so the chart stays small however many examples there are.
    *rows*: ``{"metric", "judge", "human"}`` per example (``"uid"`` ignored), or already counted with
    ``"n"`` examples per row. Every layer takes the one faceted data source: a layer with data of
    its own would be drawn whole in every panel."""
    df = pd.DataFrame(rows, columns=["metric", "judge", "human", "n"])
    df["n"] = df["n"].fillna(1)
    df = df.dropna()
    grid = SCATTER_GRID
    points = (
        alt.Chart()
        .transform_calculate(
            judge_bin=f"round(datum.judge * {grid}) / {grid}", human_bin=f"round(datum.human * {grid}) / {grid}"
        )
        .transform_aggregate(examples="sum(n)", groupby=["metric", "judge_bin", "human_bin"])
        .mark_circle(opacity=0.75, color=OKABE_ITO[0])
        .encode(
            # the largest circle's radius (11 px) inside the plot at 0 and 1: a circle past the edge made that
            # panel's plot shrink to hold it, and the four panels stood at different sizes and ticks
            x=alt.X("judge_bin:Q", scale=alt.Scale(domain=[0, 1], padding=SCATTER_PAD, nice=False), title="judge"),
            y=alt.Y("human_bin:Q", scale=alt.Scale(domain=[0, 1], padding=SCATTER_PAD, nice=False), title="human"),
            size=alt.Size("examples:Q", title="examples", scale=alt.Scale(range=[40, 400]), legend=None),
            tooltip=[
                "metric:N",
                alt.Tooltip("judge_bin:Q", format=".2f", title="judge"),
                alt.Tooltip("human_bin:Q", format=".2f", title="human"),
                alt.Tooltip("examples:Q", title="examples"),
            ],
        )
    )
    diagonal = (
        alt.Chart()
        .transform_aggregate(groupby=["metric"])
        .transform_calculate(x0="0", x1="1")
        .mark_rule(color="#888", strokeDash=[4, 4])
        .encode(x="x0:Q", y="x0:Q", x2="x1:Q", y2="x1:Q")
    )
    order = list(dict.fromkeys(df["metric"]))
    return (
        alt.layer(diagonal, points, data=df)
        .properties(width=165, height=200)
        .facet(facet=alt.Facet("metric:N", title=None, sort=order), columns=4)
    )


# ColorBrewer's "Blues" (as Vega's "blues" scheme), from the palest that still reads as a cell to the darkest.
BLUES = ["#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"]


def _luminance(hex_colour: str) -> float:
    """WCAG relative luminance of ``#rrggbb``."""
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """WCAG contrast ratio of two ``#rrggbb`` colours (1 to 21).

    >>> round(contrast_ratio("#ffffff", "#000000"), 1), round(contrast_ratio("#ffffff", "#deebf7"), 2)
    (21.0, 1.21)
    """
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def cell_colours(count: int, largest: int) -> tuple[str, str]:
    """The fill of a confusion-matrix cell holding *count* of at most *largest*, and the text colour
    (black or white) that contrasts with it most (every pair is at least 4.5:1, WCAG AA).

    >>> cell_colours(0, 10), cell_colours(10, 10)
    (('#deebf7', '#000000'), ('#08306b', '#ffffff'))
    """
    step = round((len(BLUES) - 1) * count / largest) if largest > 0 else 0
    fill = BLUES[step]
    text = max(("#000000", "#ffffff"), key=lambda t: contrast_ratio(fill, t))
    return fill, text


def confusion_chart(
    label: str, tp: int, fp: int, fn: int, tn: int, reference: str = "human", candidate: str = "judge"
) -> alt.Chart:
    """A 2×2 confusion matrix (counts in the cells) of *candidate* against *reference*; each cell's fill
    and text colour are fixed here (:func:`cell_colours`), so the count reads in either theme and in the PNG."""
    yes, no = "yes", "no"
    largest = max(tp, fp, fn, tn)
    rows = [(yes, yes, tp), (no, yes, fp), (yes, no, fn), (no, no, tn)]
    df = pd.DataFrame(
        [
            {reference: ref, candidate: cand, "count": n, "fill": cell_colours(n, largest)[0],
             "ink": cell_colours(n, largest)[1]}
            for ref, cand, n in rows
        ]
    )  # fmt: skip
    base = alt.Chart(df, title=label).encode(
        x=alt.X(f"{candidate}:N", sort=[yes, no], title=f"{candidate} says {label}", axis=alt.Axis(labelAngle=0)),
        y=alt.Y(f"{reference}:N", sort=[yes, no], title=f"{reference} says {label}"),
    )
    cells = base.mark_rect().encode(
        color=alt.Color("fill:N", scale=None, legend=None),
        tooltip=[f"{reference}:N", f"{candidate}:N", "count:Q"],
    )
    text = base.mark_text(fontSize=16, fontWeight="bold").encode(text="count:Q", color=alt.Color("ink:N", scale=None))
    return (cells + text).properties(width=130, height=130)


def kappa_matrix_chart(rows: Sequence[dict[str, Any]], labels: Sequence[str]) -> alt.Chart:
    """Cohen's kappa of every annotator pair as a matrix, one panel per label; each cell shows
    κ and the number of shared examples behind it. *rows*: ``{"label", "a", "b", "kappa",
    "kappa_text", "n_text"}`` (both orders of a pair; see :func:`ragviz.analysis.agreement.kappa_matrix`)."""
    df = pd.DataFrame(rows, columns=["label", "a", "b", "kappa", "kappa_text", "n_text"])
    names = sorted(set(df["a"]) | set(df["b"]))
    wide = len(names) > KAPPA_NAMES_PER_ROW  # one panel per row: room for whole names beside it
    base = alt.Chart(df).encode(
        # slanted: a column is one 70 px cell wide, and e-mail addresses level were drawn over each other (seen in
        # the screenshot walk at 100k); slanted names 70 px apart sit 40 px apart, clear of each other, though
        # their boxes overlap (Vega would drop every other one)
        x=alt.X(
            "b:N",
            sort=names,
            title=None,
            axis=alt.Axis(labelAngle=-35, labelAlign="right", labelLimit=160, labelOverlap=False),
        ),
        y=alt.Y("a:N", sort=names, title=None, axis=alt.Axis(labelLimit=240 if wide else 120)),
        tooltip=[
            "a:N",
            "b:N",
            alt.Tooltip("kappa:Q", format=".3f", title="Cohen's κ"),
            alt.Tooltip("n_text:N", title="shared"),
        ],
    )
    empty = base.mark_rect(color="#eeeeee")
    cells = base.mark_rect().encode(
        color=alt.Color(
            "kappa:Q",
            scale=alt.Scale(domain=[-1, 1], scheme="blueorange", reverse=True),
            title="Cohen's κ",
            legend=alt.Legend(orient="bottom"),
        )
    )
    on_dark = alt.condition("abs(datum.kappa) > 0.5", alt.value("white"), alt.value("black"))
    kappa = base.mark_text(fontSize=14, fontWeight="bold", dy=-7).encode(text="kappa_text:N", color=on_dark)
    shared = base.mark_text(fontSize=10, dy=9).encode(text="n_text:N", color=on_dark)
    side = max(70 * len(names), 140)
    # three panels side by side while they fit a 1280 px window beside the sidebar; more names: one per row
    # (7 names in three columns were 1,654 px wide)
    columns = 1 if wide else 3
    return (
        (empty + cells + kappa + shared)
        .properties(width=side, height=side)
        .facet(facet=alt.Facet("label:N", sort=list(labels), title=None), columns=columns)
    )


#: The most annotators whose κ matrices still stand three in a row (3 x (3 x 70 px) + axes fit 1280 px).
KAPPA_NAMES_PER_ROW = 3


ESTIMATORS = ("judge only", "people only", "corrected (PPI++)")
ESTIMATOR_COLORS = ("#E69F00", "#56B4E9", "#009E73")  # Okabe–Ito: orange, sky blue, bluish green


def estimates_chart(
    records: list[dict[str, Any]], columns: int = 4, estimators: Sequence[str] = ESTIMATORS
) -> alt.Chart:
    """Per metric, the three estimates as points with their intervals (the judge alone has none); *estimators*
    names them in :data:`ESTIMATORS`' order (against a judge version its labels stand for people's)."""
    df = pd.DataFrame(records, columns=["metric", "estimate", "value", "low", "high"])
    order = list(dict.fromkeys(df["metric"]))
    color = alt.Color(
        "estimate:N",
        scale=alt.Scale(domain=list(estimators), range=list(ESTIMATOR_COLORS)),
        legend=alt.Legend(orient="bottom", title=None),
    )
    base = alt.Chart(df).encode(
        y=alt.Y("estimate:N", sort=list(estimators), title=None, axis=alt.Axis(labelLimit=160)),
        color=color,
        tooltip=[
            "metric:N",
            "estimate:N",
            alt.Tooltip("value:Q", format=".3f"),
            alt.Tooltip("low:Q", format=".3f", title="95% low"),
            alt.Tooltip("high:Q", format=".3f", title="95% high"),
        ],
    )
    bars = base.mark_rule(strokeWidth=3).encode(
        x=alt.X(
            "low:Q",
            title="mean over all examples",
            scale=alt.Scale(domain=[0, 1], clamp=True, padding=POINT_PAD, nice=False),
        ),
        x2="high:Q",
    )
    points = base.mark_point(filled=True, size=80).encode(x="value:Q")
    return (
        (bars + points)
        .properties(width=165, height=alt.Step(26))
        .facet(facet=alt.Facet("metric:N", title=None, sort=order), columns=columns)
    )


def confusion_grid(cells: Sequence[tuple[str, int, int, int, int]]) -> alt.ConcatChart:
    """One :func:`confusion_chart` per ``(label, tp, fp, fn, tn)``, two to a row (four side by side were cut
    off at 1280 px)."""
    return alt.concat(*(confusion_chart(*cell) for cell in cells), columns=2)
