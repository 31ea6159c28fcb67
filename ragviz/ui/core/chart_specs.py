"""Charts as Vega-Lite specs, built once per distinct data and kept for the next rerun, drawn on the page (a
faceted figure one chart per panel filling the width) with PNG and SVG downloads (vl-convert)."""

from __future__ import annotations

import html
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import altair as alt

from ragviz.ui.core.facets import facet_panels, legend_html

__all__ = ["MAX_SPECS", "chart_spec", "show_spec", "spec_to_png", "spec_to_svg"]


#: Vega-Lite specs built by :func:`chart_spec`, newest last (shared by every session; read-only).
_SPECS: OrderedDict[str, dict[str, Any]] = OrderedDict()
_SPECS_LOCK = threading.Lock()
MAX_SPECS = 64


def chart_spec(build: Callable[..., alt.Chart | alt.ConcatChart], *args: Any) -> dict[str, Any]:
    """The Vega-Lite spec of ``build(*args)``, built once per distinct *args* (small plain data:
    counts, means, a sample; compared as JSON text) and kept for the next rerun: altair's
    validation and ``to_dict`` cost ~0.1 s per chart, the page's reruns would pay it for every chart."""
    key = json.dumps([build.__module__, build.__qualname__, *args], default=repr, sort_keys=True)
    with _SPECS_LOCK:
        spec = _SPECS.get(key)
        if spec is not None:
            _SPECS.move_to_end(key)
            return spec
    spec = build(*args).to_dict()
    if spec.get("config", {}).get("view") == {"continuousWidth": 300, "continuousHeight": 300}:
        del spec["config"]["view"]  # altair's default theme; Streamlit sizes charts itself
        if not spec["config"]:
            del spec["config"]
    with _SPECS_LOCK:
        _SPECS[key] = spec
        while len(_SPECS) > MAX_SPECS:
            _SPECS.popitem(last=False)
    return spec


def spec_to_svg(spec: dict[str, Any]) -> str:
    """A Vega-Lite spec as SVG text (vl-convert)."""
    import vl_convert as vlc

    return vlc.vegalite_to_svg(json.dumps(spec))


def spec_to_png(spec: dict[str, Any], scale: float = 2.0) -> bytes:
    """A Vega-Lite spec as PNG bytes (vl-convert; *scale* 2 for slides)."""
    import vl_convert as vlc

    return vlc.vegalite_to_png(json.dumps(spec), scale=scale)


def show_spec(
    spec: dict[str, Any], name: str, key: str, downloads: bool = True, fill: bool = False, per_row: int | None = None
) -> None:
    """Draw the Vega-Lite *spec* (:func:`chart_spec`) with PNG and SVG download buttons under it
    (rendered when clicked). With *fill*, a faceted figure is drawn one chart per panel in columns
    that share the page's width (:func:`ragviz.ui.core.facets.facet_panels`), *per_row* of them to a
    row (default: the figure's own columns); the downloads are the figure as one."""
    import streamlit as st

    split = facet_panels(spec) if fill else None
    if split is None:
        st.vega_lite_chart(spec=spec, width="content")
    else:
        if split.title:
            st.html(f'<div style="font-family:system-ui,sans-serif;font-weight:600">{html.escape(split.title)}</div>')
        n = per_row or split.columns
        for start in range(0, len(split.panels), n):
            for column, panel in zip(st.columns(n), split.panels[start : start + n]):
                with column:
                    st.vega_lite_chart(spec=panel, width="stretch")
        if split.legend is not None:
            st.html(legend_html(split.legend))
    if downloads:
        _downloads(lambda: spec_to_png(spec), lambda: spec_to_svg(spec), name, key)


def _downloads(png: Callable[[], bytes], svg: Callable[[], str], name: str, key: str) -> None:
    import streamlit as st

    with st.container(horizontal=True):
        st.download_button(
            "PNG",
            data=png,
            file_name=f"{name}.png",
            mime="image/png",
            key=f"{key}.png",
            icon=":material/download:",
            on_click="ignore",
        )
        st.download_button(
            "SVG",
            data=svg,
            file_name=f"{name}.svg",
            mime="image/svg+xml",
            key=f"{key}.svg",
            icon=":material/download:",
            on_click="ignore",
        )
