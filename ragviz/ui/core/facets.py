"""A faceted Vega-Lite figure as one chart per panel, so the panels can share the page's width.

A faceted spec has panels of a fixed width (four of ~165 px: ~800 px at any window size); one chart
per panel, each ``width: "container"`` in a column of its own, fills 1280 px and 1920 px alike. The
panels keep the figure's colours: each colour scale gets the whole figure's domain (a panel without
one subset would otherwise shift every colour), and one legend for all panels is drawn apart
(:func:`legend_html`). Downloads keep the faceted figure (:func:`ragviz.ui.core.chart_specs.show_spec`).
"""

from __future__ import annotations

import copy
import html
from dataclasses import dataclass
from typing import Any

__all__ = ["FacetPanels", "facet_panels", "legend_html"]


@dataclass(frozen=True)
class FacetPanels:
    """*panels*: one spec per facet value, in the figure's order; *columns*: panels per row;
    *title*: the figure's own title (empty when none); *legend*: ``(title, [(value, colour), …])``
    of the colour scale the panels share, ``None`` when the figure shows none."""

    panels: list[dict[str, Any]]
    columns: int
    title: str
    legend: tuple[str, list[tuple[str, str]]] | None


def facet_panels(spec: dict[str, Any]) -> FacetPanels | None:
    """*spec* (a faceted Vega-Lite spec with inline data and an explicit facet order) split into one
    spec per facet value that the data holds; ``None`` when *spec* is not such a figure.

    >>> spec = {"data": {"name": "d"}, "datasets": {"d": [{"m": "x", "v": 1}, {"m": "y", "v": 2}]},
    ...         "facet": {"field": "m", "sort": ["x", "y", "z"]}, "columns": 4,
    ...         "spec": {"mark": "bar", "encoding": {"y": {"field": "v"}}, "width": 165}}
    >>> out = facet_panels(spec)
    >>> [p["title"] for p in out.panels], out.panels[0]["transform"], out.panels[0]["width"]
    (['x', 'y'], [{'filter': {'field': 'm', 'equal': 'x'}}], 'container')
    """
    facet, inner = spec.get("facet"), spec.get("spec")
    rows = _rows(spec)
    if not isinstance(facet, dict) or not isinstance(inner, dict) or rows is None:
        return None
    field, order = facet.get("field"), facet.get("sort")
    if not isinstance(field, str) or not isinstance(order, list):
        return None
    inner = copy.deepcopy(inner)  # the spec is shared by every session (chart_spec): never changed here
    present = {row.get(field) for row in rows}
    outer = {k: v for k, v in spec.items() if k not in ("facet", "spec", "columns", "resolve", "title", "transform")}
    legend = _shared_colours(inner, rows)
    panels = []
    for value in order:
        if value not in present:
            continue
        panel = {**outer, **copy.deepcopy(inner)}
        panel["transform"] = [
            *spec.get("transform", []),
            {"filter": {"field": field, "equal": value}},
            *inner.get("transform", []),
        ]
        panel["width"] = "container"
        panel["autosize"] = {"type": "fit-x", "contains": "padding"}  # Streamlit's default fit squeezes the height
        panel["title"] = str(value)
        if legend is not None:
            _hide_legends(panel)
        panels.append(panel)
    title = inner.get("title") or spec.get("title") or ""
    return FacetPanels(panels, int(spec.get("columns") or len(panels) or 1), str(title), legend)


def legend_html(legend: tuple[str, list[tuple[str, str]]]) -> str:
    """One legend line for the panels: a swatch and the escaped value per colour.

    >>> legend_html(("subset", [("a<b", "#0072B2")]))  # doctest: +ELLIPSIS
    '<div class="rv-legend"...>subset</b> <span ...background:#0072B2...</span>a&lt;b</span></div>'
    """
    title, entries = legend
    swatches = "".join(
        f'<span style="white-space:nowrap;margin-right:14px"><span style="display:inline-block;width:11px;'
        f'height:11px;border-radius:2px;background:{html.escape(colour)};margin-right:5px;vertical-align:-1px">'
        f"</span>{html.escape(value)}</span>"
        for value, colour in entries
    )
    shown = f"<b>{html.escape(title)}</b> " if title else ""
    return (
        '<div class="rv-legend" style="font-family:system-ui,sans-serif;font-size:0.8rem;line-height:1.8">'
        f"{shown}{swatches}</div>"
    )


def _rows(spec: dict[str, Any]) -> list[dict[str, Any]] | None:
    data = spec.get("data")
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("values"), list):
        return data["values"]
    named = spec.get("datasets", {}).get(data.get("name"))
    return named if isinstance(named, list) else None


def _encodings(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node["encoding"]] if isinstance(node.get("encoding"), dict) else []
    for layer in node.get("layer", []):
        if isinstance(layer, dict):
            found += _encodings(layer)
    return found


def _shared_colours(inner: dict[str, Any], rows: list[dict[str, Any]]) -> tuple[str, list[tuple[str, str]]] | None:
    """Give every colour channel with a legend the figure's whole domain (in place) and return that
    legend's entries; ``None`` when no channel shows a legend or its colours are not a plain list."""
    legend = None
    for encoding in _encodings(inner):
        colour = encoding.get("color")
        if not isinstance(colour, dict) or not isinstance(colour.get("field"), str):
            continue
        scale = colour.setdefault("scale", {})
        domain = scale.get("domain")
        if not isinstance(domain, list):
            domain = sorted({str(row[colour["field"]]) for row in rows if row.get(colour["field"]) is not None})
            scale["domain"] = domain
        palette = scale.get("range")
        if colour.get("legend", {}) is None or not isinstance(palette, list) or not palette:
            continue
        entries = [(str(value), str(palette[i % len(palette)])) for i, value in enumerate(domain)]
        legend = (str(colour.get("title") or (colour.get("legend") or {}).get("title") or ""), entries)
    return legend


def _hide_legends(panel: dict[str, Any]) -> None:
    for encoding in _encodings(panel):
        if isinstance(encoding.get("color"), dict):
            encoding["color"]["legend"] = None
