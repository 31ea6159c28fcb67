"""The Dashboard's judge-vs-human scatter and subset means as Vega draws them (vl-convert's SVG of each panel, sized
as Streamlit sizes it: a given width, fit to it, no padding but at the bottom): the four panels' plots are the same
size, and every mark lies inside its plot. A circle at 1.0 (every example of a metric agreed at 1) ran past the edge,
Vega shrank that panel's plot to hold it, and the panels stood at different sizes with different ticks."""

from __future__ import annotations

import json
import re

import pytest

from ragviz.ui.core import charts, facets

ROWS = [
    *({"metric": m, "judge": 0.3, "human": 0.35, "n": 2} for m in ("relevance", "utilization", "completeness")),
    {"metric": "completeness", "judge": 1.0, "human": 1.0, "n": 40},  # the largest circle, at the corner
    {"metric": "adherence", "judge": 1.0, "human": 1.0, "n": 40},
    {"metric": "adherence", "judge": 0.0, "human": 0.0, "n": 1},
]


def _drawn(panel: dict, width: int) -> tuple[tuple[float, float], list[tuple[float, float, float]]]:
    import vl_convert as vlc

    panel = {**panel, "width": width, "padding": {"bottom": 20}}  # Streamlit: `padding ||= {}`, bottom set
    svg = vlc.vegalite_to_svg(json.dumps(panel))
    w, h = re.search(r'<path class="background" aria-hidden="true" d="M0.5,0.5h([\d.]+)v([\d.]+)h', svg).groups()
    circles = [
        (float(x), float(y), float(r))
        for x, y, r in re.findall(
            r'aria-roledescription="circle" transform="translate\(([-\d.]+),([-\d.]+)\)" d="M([\d.]+),0A', svg
        )
    ]
    return (float(w), float(h)), circles


@pytest.mark.parametrize("width", [193, 353])  # one panel's width at 1280 and at 1920 px
def test_scatter_panels_are_one_size_and_hold_their_circles(width):
    panels = facets.facet_panels(charts.scatter_chart(ROWS).to_dict()).panels
    assert [p["title"] for p in panels] == ["relevance", "utilization", "completeness", "adherence"]
    drawn = [_drawn(p, width) for p in panels]
    assert len({size for size, _ in drawn}) == 1, [size for size, _ in drawn]
    for (w, h), circles in drawn:
        assert circles
        for x, y, r in circles:
            assert r <= x <= w - r and r <= y <= h - r, (x, y, r, w, h)


MEANS = [
    {"dataset": d, "metric": m, "mean": mean, "low": low, "high": high, "n": 5}
    for m in ("relevance", "utilization", "completeness", "adherence")
    for d, mean, low, high in (
        ("ALL", 0.8, 0.6, 0.95),
        ("medqa_sample", *((1.0, None, None) if m == "adherence" else (0.5, 0.4, 0.6))),  # all 1: no interval
        ("techqa_sample", 0.6, 0.2, 1.0),
    )
]


@pytest.mark.parametrize("width", [402, 722])  # one panel of two to a row at 1280 and at 1920 px
def test_subset_mean_panels_are_one_size_and_hold_their_points(width):
    """The sample's medqa_sample adherence (1.0 on all 5 examples) put its point on the axis's end: that panel's plot
    was narrower than the others (320 px against 324) and the point touched the drawing's edge."""
    import vl_convert as vlc

    panels = facets.facet_panels(charts.means_chart(MEANS, 4).to_dict()).panels
    sizes, ends = [], []
    for panel in panels:
        svg = vlc.vegalite_to_svg(json.dumps({**panel, "width": width, "padding": {"bottom": 20}}))
        w, h = re.search(r'<path class="background" aria-hidden="true" d="M0.5,0.5h([\d.]+)v([\d.]+)h', svg).groups()
        sizes.append((float(w), float(h)))
        points = re.findall(
            r'aria-roledescription="point" transform="translate\(([-\d.]+),[-\d.]+\)" d="M([\d.]+),0A', svg
        )
        ends += [(float(x) + float(r), float(w)) for x, r in points]
    assert len(set(sizes)) == 1, sizes
    assert ends and all(right <= w for right, w in ends), ends
