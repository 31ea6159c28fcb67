"""The Dashboard's judge-vs-human scatter as Vega draws it (vl-convert's SVG of each panel, sized as Streamlit sizes
it: a given width, fit to it, no padding but at the bottom): the four panels' plots are the same size, and every
circle lies inside its plot. A circle at 1.0 (every example of a metric agreed at 1) ran past the edge, Vega shrank
that panel's plot to hold it, and the panels stood at different sizes with different ticks."""

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
