"""A ``st.components.v2`` component whose script and styles are files shipped in the package (issue 38): Streamlit
serves them when it finds the component in the manifest ``ragviz/pyproject.toml``, so the browser fetches them once
instead of receiving them inline with every instance on every run; inline when Streamlit found no manifest (the
module imported outside a Streamlit run, or ragviz not installed as a package)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException

__all__ = ["SERVED", "register_component", "unscanned"]

#: The components whose files Streamlit serves (under ``/_stcore/bidi-components/<name>/``); the others are inline.
SERVED: set[str] = set()


def register_component(name: str, folder: Path, js: str, css: str) -> Callable[..., Any]:
    """The mounting command of the component *name* (``<project>.<component>`` of the manifest), its *js* and *css*
    files in *folder*; the components' styles are not isolated (they draw in the page's own theme). Its ``data`` is
    sent as :func:`unscanned` makes it."""
    try:
        mount = st.components.v2.component(name, js=js, css=css, isolate_styles=False)
        SERVED.add(name)
    except StreamlitAPIException:
        mount = st.components.v2.component(
            name,
            js=(folder / js).read_text(encoding="utf-8"),
            css=(folder / css).read_text(encoding="utf-8"),
            isolate_styles=False,
        )

    def mounted(*, data: Any = None, **kwargs: Any) -> Any:
        return mount(data=unscanned(data), **kwargs)

    return mounted


def unscanned(data: Any) -> Any:
    """*data* with the lists at its first level as tuples: the same JSON, but Streamlit's search of a component's
    data for dataframes (every first-level value that is not a tuple, string or number: pandas' type inference over a
    whole list of sentences or buttons) skips them (issue 38: ~0.4 ms of a J's 2 mounts).

    >>> unscanned({"sentences": [["a", "x"]], "n": 1})
    {'sentences': (['a', 'x'],), 'n': 1}
    """
    if not isinstance(data, dict):
        return data
    return {k: tuple(v) if type(v) is list else v for k, v in data.items()}
